// End to end through the SDK and the in-process backend: DataSource<T> on
// many threads -> TraceWriter -> SMB -> service -> TraceBuffer -> trace
// bytes, checked packet by packet. Labelled `tsan`.

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "src/tracing/test/fake_consumer.h"
#include "src/tracing/test/trace_checks.h"
#include "zt/common/data_source_descriptor.gen.h"
#include "zt/common/trace_stats.gen.h"
#include "zt/config/trace_config.gen.h"
#include "zt/trace/test_event.pbzero.h"
#include "zt/trace/trace.pb.h"
#include "zt/trace/trace.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/tracing/data_source.h"
#include "zt/tracing/tracing.h"

namespace zt {
namespace {

using protos::pbzero::TestEvent_Decoder;
using protos::pbzero::TracePacket_Decoder;

class E2ESource : public DataSource<E2ESource> {
 public:
  // A full SMB makes the writer wait for the service: no loss by design.
  static constexpr BufferExhaustedPolicy kBufferExhaustedPolicy =
      BufferExhaustedPolicy::kStallThenDrop;
};

uint64_t Mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

// Mostly small packets, some medium, one in a thousand up to 200 KiB.
size_t SizeOf(uint32_t thread, uint64_t index) {
  const uint64_t h = Mix(thread * 0x9E3779B97F4A7C15ull + index);
  const uint64_t r = h % 1000;
  if (r < 950)
    return 1 + (h >> 16) % 64;
  if (r < 999)
    return 64 + (h >> 16) % 4032;
  return 4096 + (h >> 16) % (200 * 1024 - 4096);
}

std::string Payload(uint32_t thread, uint64_t index, size_t size) {
  std::string s(size, '\0');
  const uint64_t h = Mix(thread + index * 31);
  for (size_t j = 0; j < size; j++)
    s[j] = static_cast<char>(h + j * 13);
  return s;
}

// timestamp = global order; for_testing { seq_value = thread,
// counter = index, str = payload }.
void WritePacket(E2ESource::TraceContext& ctx, uint32_t thread, uint64_t index,
                 uint64_t global) {
  auto packet = ctx.NewTracePacket();
  packet->set_timestamp(global);
  auto* ev = packet->set_for_testing();
  ev->set_seq_value(thread);
  ev->set_counter(index);
  ev->set_str(Payload(thread, index, SizeOf(thread, index)));
}

struct Read {
  uint32_t sequence = 0;
  uint32_t thread = 0;
  uint64_t index = 0;
  uint64_t global = 0;
  bool dropped_before = false;
};

// Decodes a trace; checks every producer packet's content. Service packets
// (sequence 1) are counted in |service_packets| and the last stats kept.
std::vector<Read> Decode(const std::vector<char>& trace, size_t* service_packets,
                         protos::gen::TraceStats* stats) {
  std::vector<Read> out;
  protos::pbzero::Trace_Decoder d(reinterpret_cast<const uint8_t*>(trace.data()),
                                  trace.size());
  for (auto it = d.packet(); it; ++it) {
    const protozero::ConstBytes bytes = *it;
    TracePacket_Decoder p(bytes.data, bytes.size);
    if (p.trusted_packet_sequence_id() == 1) {
      ++*service_packets;
      if (p.has_trace_stats() && stats) {
        auto s = p.trace_stats();
        EXPECT_TRUE(stats->ParseFromArray(s.data, s.size));
      }
      continue;
    }
    EXPECT_TRUE(p.has_for_testing());
    auto ev_bytes = p.for_testing();
    TestEvent_Decoder ev(ev_bytes.data, ev_bytes.size);
    Read r;
    r.sequence = p.trusted_packet_sequence_id();
    r.thread = ev.seq_value();
    r.index = ev.counter();
    r.global = p.timestamp();
    r.dropped_before = p.has_previous_packet_dropped();
    const auto str = ev.str();
    const std::string expected = Payload(r.thread, r.index, SizeOf(r.thread, r.index));
    EXPECT_EQ(std::string(str), expected)
        << "thread " << r.thread << " index " << r.index;
    out.push_back(r);
  }
  EXPECT_FALSE(d.parse_error());
  return out;
}

protos::gen::TraceConfig Config(uint32_t size_kb, bool ring) {
  protos::gen::TraceConfig cfg;
  auto* buf = cfg.add_buffers();
  buf->set_size_kb(size_kb);
  buf->set_fill_policy(
      ring ? protos::gen::TraceConfig_BufferConfig_FillPolicy_RING_BUFFER
           : protos::gen::TraceConfig_BufferConfig_FillPolicy_DISCARD);
  cfg.add_data_sources()->mutable_config()->set_name("zt.e2e");
  return cfg;
}

// Runs |threads| writers of |per_thread| packets each, all started together.
void RunWriters(uint32_t threads, uint64_t per_thread, std::atomic<uint64_t>* global) {
  std::vector<std::thread> pool;
  for (uint32_t t = 0; t < threads; t++) {
    pool.emplace_back([=] {
      for (uint64_t i = 0; i < per_thread; i++) {
        E2ESource::Trace([&](E2ESource::TraceContext ctx) {
          WritePacket(ctx, t, i, global->fetch_add(1));
        });
      }
    });  // Thread exit returns the thread's last chunk.
  }
  for (auto& t : pool)
    t.join();
}

class EndToEndTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    TracingInitArgs args;
    args.shmem_size_hint_kb = 4096;
    args.shmem_page_size_hint_kb = 32;
    Tracing::Initialize(args);
    protos::gen::DataSourceDescriptor d;
    d.set_name("zt.e2e");
    ASSERT_TRUE(E2ESource::Register(d));
  }
};

TEST_F(EndToEndTest, EightThreadsOneMillionPacketsNothingLost) {
  constexpr uint32_t kThreads = 8;
  constexpr uint64_t kPerThread = 125000;
  auto session = Tracing::NewTrace();
  session->Setup(Config(400 * 1024, /*ring=*/false));
  session->StartBlocking();
  std::atomic<uint64_t> global{0};
  RunWriters(kThreads, kPerThread, &global);
  session->StopBlocking();
  size_t service_packets = 0;
  protos::gen::TraceStats stats;
  const std::vector<char> trace = session->ReadTraceBlocking();
  std::vector<Read> reads = Decode(trace, &service_packets, &stats);
  EXPECT_EQ(test::CheckServicePackets(test::SplitTrace(
                reinterpret_cast<const uint8_t*>(trace.data()), trace.size())),
            std::vector<std::string>{});
  ASSERT_EQ(reads.size(), kThreads * kPerThread);
  std::map<uint32_t, uint64_t> next;  // Per thread: the next index expected.
  std::map<uint32_t, uint32_t> sequence_of;
  for (const Read& r : reads) {
    ASSERT_EQ(r.index, next[r.thread]) << "thread " << r.thread;
    next[r.thread]++;
    EXPECT_FALSE(r.dropped_before);
    auto seq = sequence_of.emplace(r.thread, r.sequence);
    EXPECT_EQ(seq.first->second, r.sequence) << "one sequence per thread";
  }
  EXPECT_EQ(sequence_of.size(), kThreads);
  ASSERT_EQ(stats.buffer_stats().size(), 1u);
  const auto& b = stats.buffer_stats()[0];
  EXPECT_EQ(b.chunks_overwritten(), 0u);
  EXPECT_EQ(b.chunks_discarded(), 0u);
  EXPECT_EQ(b.trace_writer_packet_loss(), 0u);
  EXPECT_EQ(b.abi_violations(), 0u);
  EXPECT_EQ(b.patches_failed(), 0u);
  EXPECT_GT(b.patches_succeeded(), 0u);  // 200 KiB packets span chunks.
  EXPECT_EQ(stats.chunks_discarded(), 0u);
}

TEST_F(EndToEndTest, SmallRingBufferKeepsTheNewestWholePackets) {
  constexpr uint32_t kThreads = 8;
  constexpr uint64_t kPerThread = 20000;
  auto session = Tracing::NewTrace();
  session->Setup(Config(1024, /*ring=*/true));
  session->StartBlocking();
  std::atomic<uint64_t> global{0};
  RunWriters(kThreads, kPerThread, &global);
  session->StopBlocking();
  size_t service_packets = 0;
  protos::gen::TraceStats stats;
  std::vector<Read> reads = Decode(session->ReadTraceBlocking(), &service_packets, &stats);
  ASSERT_FALSE(reads.empty());
  EXPECT_LT(reads.size(), kThreads * kPerThread);
  std::map<uint32_t, int64_t> last;  // Per thread: last index read.
  uint64_t max_global = 0;
  for (const Read& r : reads) {
    auto it = last.find(r.thread);
    if (it != last.end()) {
      ASSERT_GT(static_cast<int64_t>(r.index), it->second) << "order, thread " << r.thread;
      // A gap in a sequence is always marked on the packet after it.
      if (static_cast<int64_t>(r.index) != it->second + 1) {
        EXPECT_TRUE(r.dropped_before) << "thread " << r.thread << " index " << r.index;
      }
    }
    last[r.thread] = static_cast<int64_t>(r.index);
    max_global = std::max(max_global, r.global);
  }
  // The last packet written anywhere was committed among the last chunks:
  // it survives.
  EXPECT_EQ(max_global, global.load() - 1);
  ASSERT_EQ(stats.buffer_stats().size(), 1u);
  EXPECT_GT(stats.buffer_stats()[0].chunks_overwritten(), 0u);
  EXPECT_GT(stats.buffer_stats()[0].bytes_overwritten(), 0u);
}

TEST_F(EndToEndTest, SessionsStartAndStopWhileWritersRun) {
  std::atomic<bool> quit{false};
  std::atomic<uint64_t> global{0};
  std::vector<std::thread> writers;
  for (uint32_t t = 0; t < 4; t++) {
    writers.emplace_back([&, t] {
      for (uint64_t i = 0; !quit.load(); i++) {
        E2ESource::Trace([&](E2ESource::TraceContext ctx) {
          WritePacket(ctx, t, i, global.fetch_add(1));
        });
      }
    });
  }
  for (int round = 0; round < 10; round++) {
    auto a = Tracing::NewTrace();
    auto b = Tracing::NewTrace();
    a->Setup(Config(2048, true));
    b->Setup(Config(2048, false));
    a->StartBlocking();
    b->StartBlocking();
    a->FlushBlocking(5000);
    b->StopBlocking();
    a->StopBlocking();
    for (auto* s : {a.get(), b.get()}) {
      size_t service_packets = 0;
      std::vector<Read> reads = Decode(s->ReadTraceBlocking(), &service_packets, nullptr);
      std::map<uint32_t, int64_t> last;
      for (const Read& r : reads) {
        auto it = last.find(r.thread);
        if (it != last.end()) {
          ASSERT_GT(static_cast<int64_t>(r.index), it->second);
        }
        last[r.thread] = static_cast<int64_t>(r.index);
      }
      EXPECT_GE(service_packets, 2u);
    }
  }
  quit = true;
  for (auto& t : writers)
    t.join();
}

TEST_F(EndToEndTest, StopWhileAPacketIsHalfWritten) {
  auto session = Tracing::NewTrace();
  session->Setup(Config(1024, false));
  session->StartBlocking();
  std::atomic<int> stage{0};
  std::thread writer([&] {
    E2ESource::Trace([&](E2ESource::TraceContext ctx) {
      WritePacket(ctx, 0, 0, 0);
      auto packet = ctx.NewTracePacket();  // Left open across the stop.
      packet->set_timestamp(1);
      auto* ev = packet->set_for_testing();
      ev->set_seq_value(0);
      stage = 1;
      while (stage.load() != 2)
        std::this_thread::yield();
      ev->set_counter(1);
      ev->set_str(Payload(0, 1, SizeOf(0, 1)));
    });
  });
  while (stage.load() != 1)
    std::this_thread::yield();
  session->StopBlocking();
  stage = 2;
  writer.join();
  size_t service_packets = 0;
  std::vector<Read> reads = Decode(session->ReadTraceBlocking(), &service_packets, nullptr);
  // Whatever made it is whole (Decode checks every payload); the half
  // written packet is either complete or absent.
  ASSERT_LE(reads.size(), 2u);
  for (size_t i = 0; i < reads.size(); i++)
    EXPECT_EQ(reads[i].index, i);
}

TEST_F(EndToEndTest, TheFileDecodesWithLibprotobuf) {
  char path[] = "/tmp/zt_e2e_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  auto session = Tracing::NewTrace();
  auto cfg = Config(4096, false);
  cfg.set_file_write_period_ms(100);
  session->Setup(cfg, fd);
  session->StartBlocking();
  std::atomic<uint64_t> global{0};
  RunWriters(2, 5000, &global);
  session->StopBlocking();
  std::string bytes;
  {
    const int in = open(path, O_RDONLY);
    ASSERT_GE(in, 0);
    char buf[65536];
    for (ssize_t n; (n = read(in, buf, sizeof(buf))) > 0;)
      bytes.append(buf, static_cast<size_t>(n));
    close(in);
  }
  unlink(path);
  EXPECT_EQ(test::CheckServicePackets(test::SplitTrace(
                reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size())),
            std::vector<std::string>{});
  zt::protos::Trace trace;
  ASSERT_TRUE(trace.ParseFromString(bytes));
  size_t producer = 0, configs = 0, stats = 0;
  const zt::protos::TraceConfig* config = nullptr;
  const zt::protos::TraceStats* last_stats = nullptr;
  for (const auto& p : trace.packet()) {
    configs += p.has_trace_config();
    if (p.has_trace_config())
      config = &p.trace_config();
    stats += p.has_trace_stats();
    if (p.has_trace_stats())
      last_stats = &p.trace_stats();
    if (p.has_for_testing()) {
      producer++;
      EXPECT_EQ(p.for_testing().str(),
                Payload(p.for_testing().seq_value(), p.for_testing().counter(),
                        SizeOf(p.for_testing().seq_value(),
                               p.for_testing().counter())));
      EXPECT_TRUE(p.has_trusted_pid());
      EXPECT_EQ(p.trusted_pid(), static_cast<int32_t>(getpid()));
    }
  }
  EXPECT_EQ(producer, 10000u) << (last_stats ? last_stats->DebugString() : "no stats");
  EXPECT_EQ(configs, 1u);
  EXPECT_GE(stats, 1u);  // Periodic ones too; the last ends the file.
  ASSERT_TRUE(config != nullptr);
  ASSERT_EQ(config->buffers_size(), 1);
  EXPECT_EQ(config->buffers(0).size_kb(), 4096u);
}

}  // namespace
}  // namespace zt
