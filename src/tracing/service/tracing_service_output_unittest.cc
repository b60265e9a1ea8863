// What comes out of a session, driven as in tracing_service_impl_unittest.cc:
// packets read by a consumer or written into a file, stamped, between the
// service's own packets (checked against every rule readers rely on),
// batched reads, scraping, the file's limits and failures, loss marks.

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/tracing/service/tracing_service_impl.h"
#include "src/tracing/service/tracing_service_test_fixture.h"
#include "zt/ext/tracing/core/shared_memory_abi.h"
#include "zt/protozero/proto_decoder.h"
#include "zt/trace/test_event.pbzero.h"

namespace zt {
namespace test {
namespace {

TEST_P(TracingServiceTest, PacketsComeBackStampedBetweenServicePackets) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(p->WaitForStarts(1));
  TraceWriter* w = p->Writer(p->setups()[0]);
  for (uint64_t i = 0; i < 2000; i++) {
    auto packet = w->NewTracePacket();
    packet->set_timestamp(i);
    packet->set_trusted_uid(0);  // Forged: must not survive.
  }
  w->Flush();
  ASSERT_TRUE(c->Flush(5000));
  Packets packets = c->ReadAll();
  // The service's own packets come first: snapshots, marker, config, uuid,
  // system info, the lifecycle events so far.
  TracePacket_Decoder first(packets[0].data(), packets[0].size());
  EXPECT_TRUE(first.has_clock_snapshot());
  EXPECT_EQ(first.trusted_packet_sequence_id(), kServicePacketSequenceId);
  std::vector<uint64_t> ts = ProducerTimestamps(packets);
  ASSERT_EQ(ts.size(), 2000u);
  for (uint64_t i = 0; i < 2000; i++)
    ASSERT_EQ(ts[i], i);
  uint32_t seq = 0;
  for (const auto& packet : packets) {
    TracePacket_Decoder d(packet.data(), packet.size());
    if (d.trusted_packet_sequence_id() == kServicePacketSequenceId)
      continue;
    // Forged values are gone, not just overridden by a later one.
    size_t uid_fields = 0;
    protozero::ProtoDecoder fields(packet.data(), packet.size());
    for (auto f = fields.ReadField(); f.valid(); f = fields.ReadField())
      uid_fields += f.id() == 3;
    EXPECT_EQ(uid_fields, 1u);
    EXPECT_EQ(d.trusted_uid(), 1234);
    EXPECT_EQ(d.trusted_pid(), 5678);
    if (seq == 0)
      seq = d.trusted_packet_sequence_id();
    EXPECT_EQ(d.trusted_packet_sequence_id(), seq);
  }
  EXPECT_GT(seq, kServicePacketSequenceId);

  // Stop: the second read brings the rest of the service's packets, the
  // stats last; the whole trace follows every rule readers rely on.
  c->DisableTracing();
  EXPECT_EQ(c->WaitForDisabled(), "");
  Packets rest = c->ReadAll();
  EXPECT_TRUE(ProducerTimestamps(rest).empty());
  protos::gen::TraceStats decoded;
  ASSERT_TRUE(LastPacketStats(rest, &decoded));
  EXPECT_EQ(decoded.flushes_requested(), 1u);
  EXPECT_EQ(decoded.flushes_succeeded(), 1u);
  // Everything was read: the buffer's counters say nothing is left.
  ASSERT_EQ(decoded.buffer_stats().size(), 1u);
  EXPECT_EQ(decoded.buffer_stats()[0].bytes_read(),
            decoded.buffer_stats()[0].bytes_written());
  // One writer: its chunks' fill, by the sequence id readers know it by,
  // every chunk read counted once.
  ASSERT_EQ(decoded.writer_stats().size(), 1u);
  const auto& ws = decoded.writer_stats()[0];
  EXPECT_EQ(ws.sequence_id(), seq);
  EXPECT_EQ(ws.buffer(), 0u);
  EXPECT_EQ(decoded.chunk_payload_histogram_def().size(), 10u);
  ASSERT_EQ(ws.chunk_payload_histogram_counts().size(), 11u);
  ASSERT_EQ(ws.chunk_payload_histogram_sum().size(), 11u);
  uint64_t chunks = 0;
  for (uint64_t n : ws.chunk_payload_histogram_counts())
    chunks += n;
  EXPECT_EQ(chunks, decoded.buffer_stats()[0].chunks_read());
  packets.insert(packets.end(), rest.begin(), rest.end());
  EXPECT_EQ(test::CheckServicePackets(packets), std::vector<std::string>{});
  // Nothing more: not even the stats again.
  Packets after = c->ReadAll();
  EXPECT_EQ(test::CountServicePackets(after).stats, 0u);
  EXPECT_TRUE(ProducerTimestamps(after).empty());
}

TEST_P(TracingServiceTest, LargeReadsComeInBatchesAndOverlappingReadsAreEachAnswered) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  c->EnableTracing(Config("ds", /*size_kb=*/8 * 1024));
  ASSERT_TRUE(p->WaitForStarts(1));
  TraceWriter* w = p->Writer(p->setups()[0]);
  const std::string payload(1000, 'x');
  for (uint64_t i = 0; i < 3000; i++) {  // ~3 MB: three or more batches.
    {
      auto packet = w->NewTracePacket();
      packet->set_timestamp(i);
      packet->set_for_testing()->set_str(payload);
    }
    // On virtual time this thread is also the one that drains the 64 KiB
    // SMB: let it, before the writer would have to stall.
    if (i % 16 == 15)
      runner_->RunAndWait([] {});
  }
  w->Flush();
  ASSERT_TRUE(c->Flush(5000));
  // Two reads asked back to back: each is answered (the second after the
  // first), and together they deliver every packet exactly once.
  std::vector<uint64_t> ts = ProducerTimestamps(c->ReadAll(/*reads=*/2));
  EXPECT_GE(c->batches_in_last_read(), 3 + 1);
  ASSERT_EQ(ts.size(), 3000u);
  for (uint64_t i = 0; i < ts.size(); i++)
    ASSERT_EQ(ts[i], i);
}

// A consumer that forwards batches to a slower reader (the daemon's
// consumer port) pauses the read: no batch is read out of the buffers
// while paused, and the read goes on where it was once resumed.
TEST_P(TracingServiceTest, APausedReadReadsNothingUntilResumed) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  c->EnableTracing(Config("ds", /*size_kb=*/8 * 1024));
  ASSERT_TRUE(p->WaitForStarts(1));
  TraceWriter* w = p->Writer(p->setups()[0]);
  const std::string payload(1000, 'x');
  for (uint64_t i = 0; i < 3000; i++) {  // ~3 MB: three or more batches.
    w->NewTracePacket()->set_for_testing()->set_str(payload);
    if (i % 16 == 15)
      runner_->RunAndWait([] {});
  }
  w->Flush();
  ASSERT_TRUE(c->Flush(5000));
  c->Call([](ConsumerEndpoint* e) {
    e->SetReadPaused(true);
    e->ReadBuffers();
  });
  runner_->RunAndWait([] {});
  runner_->RunAndWait([] {});
  protos::gen::TraceStats stats = c->GetStats();
  ASSERT_EQ(stats.buffer_stats().size(), 1u);
  const uint64_t written = stats.buffer_stats()[0].bytes_written();
  EXPECT_EQ(stats.buffer_stats()[0].bytes_read(), 0u) << "read while paused";
  c->Call([](ConsumerEndpoint* e) { e->SetReadPaused(false); });
  for (int i = 0; i < 1000 && stats.buffer_stats()[0].bytes_read() < written; i++) {
    runner_->RunAndWait([] {});
    stats = c->GetStats();
  }
  EXPECT_EQ(stats.buffer_stats()[0].bytes_read(), written) << "the read did not go on";
}

TEST_P(TracingServiceTest, ChunksStillBeingWrittenAreScrapedAtStop) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(p->WaitForStarts(1));
  TraceWriter* w = p->Writer(p->setups()[0]);
  for (uint64_t i = 0; i < 10; i++)
    w->NewTracePacket()->set_timestamp(i);
  // No Flush(): the chunk is BeingWritten. All 10 are finished, and the
  // writer counted the next slot when the last one ended, so none is the
  // chunk's last counted packet (which may still grow and is not taken).
  c->DisableTracing();
  c->WaitForDisabled();
  std::vector<uint64_t> ts = ProducerTimestamps(c->ReadAll());
  ASSERT_EQ(ts.size(), 10u);
  for (uint64_t i = 0; i < 10; i++)
    EXPECT_EQ(ts[i], i);
  p->ResetWriters();  // Now the chunk is committed: nothing comes twice.
  runner_->RunAndWait([] {});
  EXPECT_EQ(ProducerTimestamps(c->ReadAll()).size(), 0u);
}

// A flush takes what the SMB holds uncommitted: the chunk being written and
// the complete ones whose commit has not arrived yet. A read in between
// must not skip the latter (they used to be lost: read past, then discarded
// as stale when their commit came).
TEST_P(TracingServiceTest, ChunksNotYetCommittedAtAFlushAreNotLost) {
  test::FakeProducer::Options options;
  options.commit_on_flush = false;
  auto p = NewProducer("prod", options);
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(p->WaitForStarts(1));
  size_t page_size = 0;
  p->Call([&](ProducerEndpoint* e) { page_size = e->shared_memory_page_size(); });
  // Packets of 7 bytes (a 4-byte header, a 2-byte timestamp varint and its
  // tag) never continue into the next chunk: a packet is only begun with
  // room for 12 bytes. So nothing makes the read wait for a continuation.
  const size_t per_chunk =
      (page_size - SharedMemoryABI::kPageHeaderSize - SharedMemoryABI::kChunkHeaderSize) / 7;
  TraceWriter* w = p->Writer(p->setups()[0]);
  // Chunks 0 and 1 are committed (a batch), chunk 2 is complete and waits
  // for the next batch, chunk 3 is being written.
  const uint64_t packets = 3 * per_chunk + 10;
  ASSERT_LT(1000 + packets, 16384u);
  for (uint64_t i = 0; i < packets; i++)
    w->NewTracePacket()->set_timestamp(1000 + i);
  ASSERT_TRUE(c->Flush());
  std::vector<uint64_t> ts = ProducerTimestamps(c->ReadAll());
  p->ResetWriters();  // Now everything is committed.
  c->DisableTracing();
  EXPECT_EQ(c->WaitForDisabled(), "");
  const Packets rest = c->ReadAll();
  for (uint64_t t : ProducerTimestamps(rest))
    ts.push_back(t);
  ASSERT_EQ(ts.size(), packets);
  for (uint64_t i = 0; i < packets; i++)
    ASSERT_EQ(ts[i], 1000 + i);
  protos::gen::TraceStats stats;
  ASSERT_TRUE(LastPacketStats(rest, &stats));
  const auto& buffer = stats.buffer_stats()[0];
  EXPECT_EQ(buffer.chunks_discarded(), 0u);
  EXPECT_EQ(buffer.abi_violations(), 0u);
  EXPECT_EQ(buffer.trace_writer_packet_loss(), 0u);
}

TEST_P(TracingServiceTest, WriteIntoFileProducesADecodableTrace) {
  TempFile file;
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  auto cfg = FileConfig("ds", 100);
  c->EnableTracing(cfg, file.release_write_fd());
  ASSERT_TRUE(p->WaitForStarts(1));
  TraceWriter* w = p->Writer(p->setups()[0]);
  for (uint64_t i = 0; i < 500; i++)
    w->NewTracePacket()->set_timestamp(i);
  w->Flush();
  c->DisableTracing();
  EXPECT_EQ(c->WaitForDisabled(), "");
  const Packets packets = file.ReadPackets();
  EXPECT_EQ(test::CheckServicePackets(packets), std::vector<std::string>{});
  std::vector<uint64_t> ts = ProducerTimestamps(packets);
  ASSERT_EQ(ts.size(), 500u);
  for (uint64_t i = 0; i < ts.size(); i++)
    ASSERT_EQ(ts[i], i);
}

TEST_P(TracingServiceTest, AConsumerGoneWhileTracingStillGetsACompleteFile) {
  TempFile file;
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds", false, /*will_notify_on_stop=*/true);
  auto c = NewConsumer();
  auto cfg = FileConfig("ds", 60 * 60 * 1000);  // Only at the end.
  c->EnableTracing(cfg, file.release_write_fd());
  ASSERT_TRUE(p->WaitForStarts(1));
  TraceWriter* w = p->Writer(p->setups()[0]);
  for (uint64_t i = 0; i < 300; i++)
    w->NewTracePacket()->set_timestamp(i);
  c->Disconnect();  // While tracing: the session is stopped, not dropped.
  ASSERT_TRUE(p->WaitForStops(1));
  // The data source writes its last packets in its stop, then says so.
  for (uint64_t i = 300; i < 400; i++)
    w->NewTracePacket()->set_timestamp(i);
  p->ResetWriters();
  const DataSourceInstanceId id = p->stops()[0];
  p->Call([id](ProducerEndpoint* e) { e->NotifyDataSourceStopped(id); });
  runner_->RunAndWait([] {});
  runner_->RunAndWait([] {});  // The session is freed in a task of its own.
  const Packets packets = file.ReadPackets();
  std::vector<uint64_t> ts = ProducerTimestamps(packets);
  ASSERT_EQ(ts.size(), 400u);
  for (uint64_t i = 0; i < ts.size(); i++)
    ASSERT_EQ(ts[i], i);
  protos::gen::TraceStats stats;
  EXPECT_TRUE(LastPacketStats(packets, &stats));
  EXPECT_EQ(c->callbacks_after_disconnect(), 0);
}

TEST_P(TracingServiceTest, ABrokenOutputPipeStopsTheSessionWithAnError) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  close(fds[0]);  // Nobody reads: a write raises SIGPIPE (default: death).
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  auto cfg = FileConfig("ds", 100);
  c->EnableTracing(cfg, fds[1]);
  runner_->AdvanceTime(100);  // The first periodic write.
  const std::string error = c->WaitForDisabled();
  EXPECT_NE(error.find("write_into_file"), std::string::npos) << error;
  EXPECT_NE(error.find(strerror(EPIPE)), std::string::npos) << error;
  // Still alive. On virtual time the write ran on this thread: no SIGPIPE
  // may be left pending for it (on a real thread, pending on that thread).
  if (runner_->virtual_time()) {
    sigset_t pending;
    sigpending(&pending);
    EXPECT_FALSE(sigismember(&pending, SIGPIPE));
  }
}

// A writer's own "I had to drop packets" marks reach readers on the packet
// after the loss, with their cause bits; upstream counts only abandoned
// fragments in trace_writer_packet_loss, and so do we (readers count the
// marks per sequence).
TEST_P(TracingServiceTest, WriterLossMarksReachReadersWhereTheLossWas) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(p->WaitForStarts(1));
  TraceWriter* w = p->Writer(p->setups()[0]);
  for (uint64_t i = 0; i < 5; i++) {
    auto packet = w->NewTracePacket();
    // What a writer writes after it had to drop packets (SMB full).
    if (i == 2 || i == 4)
      packet->set_previous_packet_dropped(257);
    packet->set_timestamp(i);
  }
  w->Flush();
  c->DisableTracing();
  c->WaitForDisabled();
  const Packets packets = c->ReadAll();
  std::vector<uint64_t> marked;
  for (const auto& packet : packets) {
    TracePacket_Decoder d(packet.data(), packet.size());
    if (d.trusted_packet_sequence_id() != kServicePacketSequenceId &&
        d.previous_packet_dropped() != 0) {
      EXPECT_EQ(d.previous_packet_dropped(), 257u);
      marked.push_back(d.timestamp());
    }
  }
  EXPECT_EQ(marked, (std::vector<uint64_t>{2, 4}));
  protos::gen::TraceStats stats;
  ASSERT_TRUE(LastPacketStats(packets, &stats));
  ASSERT_EQ(stats.buffer_stats().size(), 1u);
  EXPECT_EQ(stats.buffer_stats()[0].trace_writer_packet_loss(), 0u);
}

// A loss the buffer itself detects (here: the ring overwrote a writer's
// oldest chunks before anyone read them) reaches the reader as
// previous_packet_dropped on the first packet after the gap, with the
// cause, stamped by the service's output (the writer wrote no mark).
TEST_P(TracingServiceTest, LossesTheBufferDetectsAreMarkedForReaders) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  auto cfg = Config("ds", /*size_kb=*/16);
  cfg.mutable_buffers()->at(0).set_fill_policy(
      protos::gen::TraceConfig_BufferConfig_FillPolicy_RING_BUFFER);
  c->EnableTracing(cfg);
  ASSERT_TRUE(p->WaitForStarts(1));
  TraceWriter* w = p->Writer(p->setups()[0]);
  const std::string payload(100, 'x');
  constexpr uint64_t kPackets = 2000;  // ~230 KB through a 16 KiB ring.
  for (uint64_t i = 0; i < kPackets; i++) {
    {
      auto packet = w->NewTracePacket();
      packet->set_timestamp(i);
      packet->set_for_testing()->set_str(payload);
    }
    if (i % 200 == 199)  // Committed as it goes: the ring wraps many times.
      runner_->RunAndWait([] {});
  }
  w->Flush();
  c->DisableTracing();
  c->WaitForDisabled();
  const Packets packets = c->ReadAll();
  std::vector<uint64_t> ts;
  std::vector<uint32_t> causes;
  for (const auto& bytes : packets) {
    TracePacket_Decoder packet(bytes.data(), bytes.size());
    if (packet.trusted_packet_sequence_id() == kServicePacketSequenceId)
      continue;
    ts.push_back(packet.timestamp());
    causes.push_back(packet.previous_packet_dropped());
  }
  ASSERT_FALSE(ts.empty());
  ASSERT_GT(ts[0], 0u) << "the ring never wrapped: nothing was tested";
  // The first packet read follows the overwritten ones: marked, with the
  // buffer's cause; every later one follows its predecessor, unmarked.
  EXPECT_TRUE(causes[0] & protos::pbzero::TracePacket::DATA_LOSS_PRESENT) << causes[0];
  EXPECT_TRUE(causes[0] & protos::pbzero::TracePacket::DATA_LOSS_OVERWRITE) << causes[0];
  for (size_t i = 1; i < ts.size(); i++) {
    ASSERT_EQ(ts[i], ts[i - 1] + 1) << "gap after " << ts[i - 1];
    EXPECT_EQ(causes[i], 0u) << "packet " << ts[i];
  }
  EXPECT_EQ(ts.back(), kPackets - 1);
  // The stats count what was overwritten.
  protos::gen::TraceStats stats;
  ASSERT_TRUE(LastPacketStats(packets, &stats));
  ASSERT_EQ(stats.buffer_stats().size(), 1u);
  EXPECT_GT(stats.buffer_stats()[0].chunks_overwritten(), 0u);
}

TEST_P(TracingServiceTest, MaxFileSizeEndsTheSessionSaysWhyAndKeepsTheStats) {
  TempFile file;
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  auto cfg = FileConfig("ds", 100);
  cfg.set_max_file_size_bytes(20000);
  c->EnableTracing(cfg, file.release_write_fd());
  ASSERT_TRUE(p->WaitForStarts(1));
  TraceWriter* w = p->Writer(p->setups()[0]);
  for (uint64_t i = 0; i < 5000; i++) {
    w->NewTracePacket()->set_timestamp(i);
    if (i % 1000 == 999)  // Drained on virtual time too (a 64 KiB SMB).
      runner_->RunAndWait([] {});
  }
  w->Flush();
  // The periodic write reaches the limit and stops the session, saying why.
  runner_->AdvanceTime(100);
  const std::string error = c->WaitForDisabled();
  EXPECT_NE(error.find("max_file_size_bytes (20000) reached"), std::string::npos) << error;
  const std::string bytes = file.Contents();
  EXPECT_LE(bytes.size(), 20000u);
  EXPECT_GT(bytes.size(), 10000u);  // Filled up to near the limit, not empty.
  // The stats end the file and say how much was left unread.
  protos::gen::TraceStats stats;
  ASSERT_TRUE(LastPacketStats(file.ReadPackets(), &stats));
  ASSERT_EQ(stats.buffer_stats().size(), 1u);
  EXPECT_GT(stats.buffer_stats()[0].bytes_written(), stats.buffer_stats()[0].bytes_read());
}

// When producers are flushed for a file, as upstream's service (v54 and
// later) decides it, which readers rely on (docs/wire.md).
TEST(TracingServiceFlushPlanTest, AsUpstreamDecidesIt) {
  using Plan = TracingServiceImpl::FlushPlan;
  auto plan = [](bool file, uint32_t write_ms, int mode, uint32_t flush_ms) {
    protos::gen::TraceConfig cfg;
    cfg.set_write_into_file(file);
    cfg.set_file_write_period_ms(write_ms);
    cfg.set_write_flush_mode(static_cast<protos::gen::TraceConfig_WriteFlushMode>(mode));
    cfg.set_flush_period_ms(flush_ms);
    const Plan p = TracingServiceImpl::PlanFlushes(cfg);
    return std::to_string(p.periodic_ms) + (p.before_each_write ? "+write" : "");
  };
  constexpr int kUnspecified = 0, kAuto = 1, kDisabled = 2, kEnabled = 3;
  EXPECT_EQ(plan(false, 0, kUnspecified, 0), "0");
  EXPECT_EQ(plan(false, 0, kUnspecified, 250), "250");
  EXPECT_EQ(plan(true, 100, kUnspecified, 0), "5000");  // Its own timer.
  EXPECT_EQ(plan(true, 0, kAuto, 0), "5000");           // Default period: 5 s.
  EXPECT_EQ(plan(true, 100, kAuto, 250), "5000");       // flush_period_ms ignored.
  EXPECT_EQ(plan(true, 10000, kAuto, 0), "0+write");
  EXPECT_EQ(plan(true, 100, kEnabled, 250), "0+write");
  EXPECT_EQ(plan(true, 100, kDisabled, 0), "0");
  EXPECT_EQ(plan(true, 100, kDisabled, 250), "250");
}

// A 100 ms write period: the writes do not wait for producers (a flush
// before each kept 64 busy writers' buffer from draining); a flush every
// 5 s brings what a writer still holds, which the next write takes.
TEST_P(TracingServiceTest, FrequentFileWritesFlushOnTheirOwnTimer) {
  if (!runner_->virtual_time())
    GTEST_SKIP() << "counts what happens at given instants: virtual time only";
  TempFile file;
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  auto cfg = FileConfig("ds", 100);
  c->EnableTracing(cfg, file.release_write_fd());
  ASSERT_TRUE(p->WaitForStarts(1));
  TraceWriter* w = p->Writer(p->setups()[0]);
  for (uint64_t i = 0; i < 10; i++)
    w->NewTracePacket()->set_timestamp(i);
  runner_->AdvanceTime(100);
  runner_->RunAndWait([] {});
  EXPECT_EQ(p->flush_count(), 0u) << "a flush before a 100 ms write";
  EXPECT_EQ(ProducerTimestamps(file.ReadPackets()).size(), 0u);
  runner_->AdvanceTime(4900);  // 5 s: the flush, then the write after it.
  ASSERT_TRUE(p->WaitForFlushes(1)) << "no flush in 5 s";
  runner_->AdvanceTime(100);
  runner_->RunAndWait([] {});
  EXPECT_EQ(ProducerTimestamps(file.ReadPackets()).size(), 10u);
  c->DisableTracing();
  c->WaitForDisabled();
}

// write_flush_mode ENABLED (and periods over 5 s): each write comes after
// a flush, so a chunk still being written reaches the file at the next
// write, not only at the end.
TEST_P(TracingServiceTest, FileWritesFlushFirstWhenEnabled) {
  TempFile file;
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  auto cfg = FileConfig("ds", 100);
  cfg.set_write_flush_mode(protos::gen::TraceConfig_WriteFlushMode_WRITE_FLUSH_ENABLED);
  c->EnableTracing(cfg, file.release_write_fd());
  ASSERT_TRUE(p->WaitForStarts(1));
  TraceWriter* w = p->Writer(p->setups()[0]);
  for (uint64_t i = 0; i < 10; i++)
    w->NewTracePacket()->set_timestamp(i);
  // No Flush(): the chunk stays BeingWritten; the write's flush takes its
  // finished packets (all 10: see ChunksStillBeingWrittenAreScrapedAtStop).
  runner_->AdvanceTime(100);
  ASSERT_TRUE(p->WaitForFlushes(1)) << "no flush before the periodic write";
  runner_->RunAndWait([] {});
  EXPECT_EQ(ProducerTimestamps(file.ReadPackets()).size(), 10u);
  c->DisableTracing();
  c->WaitForDisabled();
}

// Every loss is marked exactly once, where it happened: on the first packet
// after a gap in a writer's sequence (and nowhere else), with the cause.
// On virtual time the writing thread is also the only one that drains the
// 64 KiB SMB, so a drop-policy writer that outruns it really drops.
TEST_P(TracingServiceTest, EveryLossIsMarkedOnceWhereItHappened) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  c->EnableTracing(Config("ds", /*size_kb=*/4096));
  ASSERT_TRUE(p->WaitForStarts(1));
  TraceWriter* w = p->Writer(p->setups()[0], BufferExhaustedPolicy::kDrop);
  const std::string payload(200, 'x');
  constexpr uint64_t kPackets = 3000;  // ~650 KB through a 64 KiB SMB.
  for (uint64_t i = 0; i < kPackets; i++) {
    {
      auto packet = w->NewTracePacket();
      packet->set_timestamp(i);
      packet->set_for_testing()->set_str(payload);
    }
    if (i % 1000 == 999)  // Drained now and then: losses come in episodes.
      runner_->RunAndWait([] {});
  }
  w->Flush();
  c->DisableTracing();
  c->WaitForDisabled();
  uint64_t next = 0, gaps = 0, marks = 0, tail_marks = 0;
  for (const auto& bytes : c->ReadAll()) {
    TracePacket_Decoder packet(bytes.data(), bytes.size());
    if (packet.trusted_packet_sequence_id() == kServicePacketSequenceId)
      continue;
    const uint32_t causes = packet.previous_packet_dropped();
    if (!packet.has_timestamp()) {
      // Only a mark: the writer's Flush() telling a loss since its last
      // packet (at the end of the sequence).
      EXPECT_NE(causes, 0u);
      tail_marks++;
      marks++;
      continue;
    }
    const uint64_t ts = packet.timestamp();
    const bool gap = ts != next;
    EXPECT_EQ(causes != 0, gap) << "packet " << ts << " after " << next;
    if (gap) {
      EXPECT_TRUE(causes & protos::pbzero::TracePacket::DATA_LOSS_PRESENT) << ts;
      EXPECT_TRUE(causes & protos::pbzero::TracePacket::DATA_LOSS_SMB_FULL) << ts;
    }
    gaps += gap;
    marks += causes != 0;
    next = ts + 1;
  }
  // Packets lost after the last one that made it are told once, at the end.
  EXPECT_EQ(tail_marks, next == kPackets ? 0u : 1u) << "last packet read: " << next - 1;
  gaps += next != kPackets;
  EXPECT_EQ(marks, gaps);
  if (runner_->virtual_time()) {
    EXPECT_GT(gaps, 0u) << "the SMB never filled: nothing was tested";
  }
}

}  // namespace
}  // namespace test
}  // namespace zt
