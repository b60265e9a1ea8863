// The service's ports (ServiceIpcHost: "ProducerPort" and "ConsumerPort")
// at the protocol level: hand-built frames over real socketpairs, on a
// virtual-time runner (nothing runs unless the test pumps it), as a broken
// or hostile client would send them. Also writes the seed corpus of
// service_ports_fuzzer (SeedCorpus, at the end).

#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "src/base/memfd_shared_memory.h"
#include "src/base/scoped_file.h"
#include "src/base/test/test_task_runner.h"
#include "src/base/unix_socket.h"
#include "src/ipc/frame.h"
#include "src/ipc/host.h"
#include "src/tracing/ipc/raw_port_client.h"
#include "src/tracing/ipc/service_ipc_host.h"
#include "zt/base/logging.h"
#include "zt/config/trace_config.gen.h"
#include "zt/ext/tracing/core/commit_data_codec.h"
#include "zt/ext/tracing/core/shared_memory_abi.h"
#include "zt/ipc/consumer_port.gen.h"
#include "zt/ipc/producer_port.gen.h"

namespace zt {
namespace {

using ipc::Frame;
using protos::gen::GetAsyncCommandResponse;

// --- Sessions -------------------------------------------------------------

protos::gen::TraceConfig Config(uint32_t size_kb = 4096) {
  protos::gen::TraceConfig cfg;
  cfg.add_buffers()->set_size_kb(size_kb);
  cfg.add_data_sources()->mutable_config()->set_name("ds");
  return cfg;
}

std::string EnableTracingArgs(const protos::gen::TraceConfig& cfg) {
  protos::gen::EnableTracingRequest req;
  *req.mutable_trace_config() = cfg;
  return req.SerializeAsString();
}

// The packet bytes of a consumer's ReadBuffers replies to |request_id|,
// slices concatenated; |*complete| if the last reply (has_more false) came.
std::string ReadData(const RawClient& c, uint64_t request_id, bool* complete) {
  std::string data;
  *complete = false;
  for (const RawClient::Received* r : c.Replies(request_id)) {
    const auto& m = r->frame->msg_invoke_method_reply();
    EXPECT_TRUE(m.success());
    protos::gen::ReadBuffersResponse resp;
    EXPECT_TRUE(resp.ParseFromString(m.reply_proto()));
    for (const auto& slice : resp.slices())
      data += slice.data();
    *complete |= !m.has_more();
  }
  return data;
}

protos::gen::TraceStats Stats(Wire* wire, RawClient* consumer) {
  const uint64_t id = consumer->Call("GetTraceStats");
  wire->Pump();
  bool success = false;
  std::string reply;
  protos::gen::GetTraceStatsResponse resp;
  EXPECT_TRUE(consumer->Answered(id, &success, &reply) && success);
  EXPECT_TRUE(resp.ParseFromString(reply));
  return resp.trace_stats();
}

// Whether |c| is still served: a call answered with success.
bool Served(Wire* wire, RawClient* c) {
  const uint64_t id = c->Call(c->consumer() ? "QueryCapabilities" : "Sync");
  wire->Pump();
  bool success = false;
  return !c->closed() && c->Answered(id, &success) && success;
}

class ServicePortsTest : public ::testing::Test {
 protected:
  Wire wire_;
};

// --- Framing at the ports -------------------------------------------------

// Every answer of a producer's session (request id, success, has_more,
// reply, whether an fd came), for bytes written in the given pieces.
std::vector<std::string> ProducerAnswers(const std::vector<size_t>& cuts,
                                         const std::string& stream) {
  Wire wire;
  RawClient* p = wire.NewProducer();
  size_t at = 0;
  for (size_t i = 0; i <= cuts.size(); i++) {
    const size_t end = i < cuts.size() ? cuts[i] : stream.size();
    p->Send(stream.substr(at, end - at));
    wire.Pump();
    at = end;
  }
  std::vector<std::string> out;
  for (const RawClient::Received& r : p->received()) {
    std::string line = std::to_string(r.frame->request_id()) + " ";
    if (r.frame->has_msg_bind_service_reply())
      line += "bind " + std::to_string(r.frame->msg_bind_service_reply().success());
    const auto& m = r.frame->msg_invoke_method_reply();
    line += std::to_string(m.success()) + std::to_string(m.has_more()) + m.reply_proto() +
            (r.fd ? " fd" : "");
    out.push_back(line);
  }
  return out;
}

TEST(ServicePortsFramingTest, FramesSplitAtEveryByteBoundaryGetTheSameAnswers) {
  // The bytes of a producer's session, ids as the port numbers them.
  std::string stream;
  {
    Wire wire;
    RawClient* p = wire.NewProducer();
    p->Bind();
    Frame bind;
    bind.set_request_id(1);
    bind.mutable_msg_bind_service()->set_service_name("ProducerPort");
    stream = ipc::SerializeFrame(bind);
    stream += p->CallFrame("InitializeConnection", InitializeConnectionArgs(false));
    stream += p->CallFrame("GetAsyncCommand", "");
    stream += p->CallFrame("RegisterDataSource", RegisterDataSourceArgs("ds"));
    stream += p->CallFrame("RegisterTraceWriter", "");
    stream += p->CallFrame("Sync", "");
  }
  const std::vector<std::string> whole = ProducerAnswers({}, stream);
  ASSERT_EQ(whole.size(), 5u);  // Bind and every call but GetAsyncCommand.
  std::vector<size_t> every_byte;
  for (size_t cut = 1; cut < stream.size(); cut++) {
    ASSERT_EQ(ProducerAnswers({cut}, stream), whole) << "cut at byte " << cut;
    every_byte.push_back(cut);
  }
  EXPECT_EQ(ProducerAnswers(every_byte, stream), whole);
}

TEST_F(ServicePortsTest, ThousandCoalescedSyncsAreAllAnsweredInOrder) {
  RawClient* p = wire_.NewProducer();
  p->Bind();
  const uint64_t first = p->next_request_id();
  std::string bytes;
  for (int i = 0; i < 1000; i++)
    bytes += p->CallFrame("Sync", "");
  p->Send(bytes);
  wire_.Pump();
  std::vector<uint64_t> ids;
  for (const RawClient::Received& r : p->received()) {
    if (!r.frame->has_msg_invoke_method_reply())
      continue;
    EXPECT_TRUE(r.frame->msg_invoke_method_reply().success());
    ids.push_back(r.frame->request_id());
  }
  ASSERT_EQ(ids.size(), 1000u);
  for (size_t i = 0; i < ids.size(); i++)
    ASSERT_EQ(ids[i], first + i);
  EXPECT_FALSE(p->closed());
}

// Bytes that break a connection's stream: it is closed, and no one else's.
class BadBytesTest : public ::testing::TestWithParam<std::string> {};

TEST_P(BadBytesTest, CloseThatConnectionOnly) {
  Wire wire;
  RawProducer good(&wire);
  RawClient* consumer = wire.NewConsumer();
  consumer->Bind();
  const uint64_t enable = consumer->Call("EnableTracing", EnableTracingArgs(Config()));
  wire.Pump();
  ASSERT_NE(good.TargetBuffer(), 0u);

  RawClient* bad = wire.NewProducer();
  bad->Bind();
  bad->Send(GetParam());
  wire.Pump();
  EXPECT_TRUE(bad->closed());
  EXPECT_EQ(wire.host()->producer_host()->stats().clients_dropped_for_bad_frames, 1u);
  EXPECT_EQ(wire.host()->producer_host()->num_clients(), 1u);

  EXPECT_TRUE(Served(&wire, good.client()));
  EXPECT_TRUE(Served(&wire, consumer));
  bool success = false;
  EXPECT_FALSE(consumer->Answered(enable, &success)) << "the session went on";
  EXPECT_EQ(Stats(&wire, consumer).producers_connected(), 1u);
}

std::string OversizeFrame() {
  // A header announcing 16 MiB (over the 4 MiB limit), and the first bytes
  // of it.
  std::string bytes = {0, 0, 0, 0x01};
  bytes += std::string(4096, 'x');
  return bytes;
}
std::string GarbageFrame() {
  // Within the limit, but not an IPCFrame (a field with wire type 7).
  std::string bytes = {16, 0, 0, 0};
  bytes += std::string(16, '\xff');
  return bytes;
}
INSTANTIATE_TEST_SUITE_P(ServicePorts, BadBytesTest,
                         ::testing::Values(OversizeFrame(), GarbageFrame()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return param.index == 0 ? "Oversize" : "Garbage";
                         });

TEST_F(ServicePortsTest, UnknownMethodIdFailsAndTheConnectionStays) {
  RawProducer p(&wire_);
  const uint64_t id = p.client()->Call("NoSuchMethod");
  wire_.Pump();
  bool success = true;
  ASSERT_TRUE(p.client()->Answered(id, &success));
  EXPECT_FALSE(success);
  EXPECT_TRUE(Served(&wire_, p.client()));

  RawClient* c = wire_.NewConsumer();
  c->Bind();
  const uint64_t cid = c->Call("NoSuchMethod");
  wire_.Pump();
  ASSERT_TRUE(c->Answered(cid, &success));
  EXPECT_FALSE(success);
  EXPECT_TRUE(Served(&wire_, c));
}

// --- Producers ------------------------------------------------------------

TEST_F(ServicePortsTest, InitializeConnectionTwiceIsRefused) {
  RawProducer p(&wire_);
  bool success = false;
  std::string reply;
  ASSERT_TRUE(p.client()->Answered(p.init_id(), &success, &reply));
  EXPECT_TRUE(success);
  protos::gen::InitializeConnectionResponse resp;
  ASSERT_TRUE(resp.ParseFromString(reply));
  EXPECT_TRUE(resp.using_shmem_provided_by_producer());

  const uint64_t again = p.client()->Call("InitializeConnection", InitializeConnectionArgs(false));
  wire_.Pump();
  ASSERT_TRUE(p.client()->Answered(again, &success));
  EXPECT_FALSE(success);
  EXPECT_TRUE(Served(&wire_, p.client()));
  // Still the one producer, with its data source.
  RawClient* c = wire_.NewConsumer();
  c->Bind();
  c->Call("EnableTracing", EnableTracingArgs(Config()));
  wire_.Pump();
  EXPECT_EQ(Stats(&wire_, c).producers_connected(), 1u);
  EXPECT_NE(p.TargetBuffer(), 0u);
}

TEST_F(ServicePortsTest, ProvidedSmbOfTheWrongSizeFallsBackToTheServices) {
  RawClient* p = wire_.NewProducer();
  p->Bind();
  // Half the size the (default) hints give.
  std::unique_ptr<base::MemfdSharedMemory> wrong = base::MemfdSharedMemory::Create(128 * 1024);
  ASSERT_NE(wrong, nullptr);
  const uint64_t init =
      p->Call("InitializeConnection", InitializeConnectionArgs(true), wrong->fd());
  const uint64_t commands = p->Call("GetAsyncCommand");
  p->Call("RegisterDataSource", RegisterDataSourceArgs("ds"));
  wire_.Pump();
  bool success = false;
  std::string reply;
  ASSERT_TRUE(p->Answered(init, &success, &reply) && success);
  protos::gen::InitializeConnectionResponse resp;
  ASSERT_TRUE(resp.ParseFromString(reply));
  EXPECT_FALSE(resp.using_shmem_provided_by_producer());

  RawClient* c = wire_.NewConsumer();
  c->Bind();
  c->Call("EnableTracing", EnableTracingArgs(Config()));
  wire_.Pump();
  // SetupTracing comes first and carries the service's SMB.
  const std::vector<const RawClient::Received*> replies = p->Replies(commands);
  ASSERT_FALSE(replies.empty());
  GetAsyncCommandResponse cmd;
  ASSERT_TRUE(cmd.ParseFromString(replies[0]->frame->msg_invoke_method_reply().reply_proto()));
  EXPECT_TRUE(cmd.has_setup_tracing());
  ASSERT_TRUE(replies[0]->fd);
  struct stat st = {};
  ASSERT_EQ(fstat(replies[0]->fd.get(), &st), 0);
  EXPECT_EQ(static_cast<size_t>(st.st_size), TracingService::ComputeShmGeometry(0, 0).size);
}

TEST_F(ServicePortsTest, CommitsOfChunksNeverWrittenOrOutOfRangeAreCountedAndIgnored) {
  RawProducer p(&wire_);
  RawClient* c = wire_.NewConsumer();
  c->Bind();
  c->Call("EnableTracing", EnableTracingArgs(Config()));
  wire_.Pump();
  const uint32_t target = p.TargetBuffer();
  ASSERT_NE(target, 0u);

  CommitData bad;
  bad.chunks_to_move = {
      {3, 0, target},            // A free page: never written.
      {64, 0, target},           // One past the last page of 256 KiB / 4 KiB.
      {0xffffffff, 13, target},  // Far out, and beyond any layout's chunks.
  };
  // A patch for a buffer not of the producer's.
  bad.chunks_to_patch = {{target + 1000, 1, 7, {CommitData::Patch{}}, false}};
  const uint64_t id = p.Commit(bad);
  wire_.Pump();
  bool success = false;
  EXPECT_TRUE(p.client()->Answered(id, &success) && success);

  // A real chunk after them still arrives.
  CommitData good;
  good.chunks_to_move.push_back(p.WriteChunk(5, {"after-the-bad-ones"}, target));
  p.Commit(good);
  wire_.Pump();
  const protos::gen::TraceStats stats = Stats(&wire_, c);
  EXPECT_EQ(stats.chunks_discarded(), 3u);
  EXPECT_EQ(stats.patches_discarded(), 1u);
  ASSERT_EQ(stats.buffer_stats_size(), 1);
  EXPECT_EQ(stats.buffer_stats()[0].chunks_written(), 1u);
  EXPECT_TRUE(Served(&wire_, p.client()));
}

// A producer that floods CommitData (each a commit of a chunk never
// written, as a hostile one would send) does not starve anyone: a
// consumer's call is answered while most of the flood is still unread, every
// commit is then taken and counted, and the flooder stays connected.
TEST_F(ServicePortsTest, ACommitDataFloodLeavesOthersServed) {
  RawProducer p(&wire_);
  RawClient* c = wire_.NewConsumer();
  c->Bind();
  c->Call("EnableTracing", EnableTracingArgs(Config()));
  wire_.Pump();
  const uint32_t target = p.TargetBuffer();
  ASSERT_NE(target, 0u);
  CommitData bogus;
  bogus.chunks_to_move = {{3, 0, target}};  // A page never written.
  constexpr uint64_t kFlood = 100000;       // About 2 MB of frames.
  std::string flood;
  for (uint64_t i = 0; i < kFlood; i++)
    flood += p.client()->CallFrame("CommitData", SerializeCommitData(bogus));
  p.client()->Send(flood);
  const uint64_t query = c->Call("QueryCapabilities");
  bool success = false;
  ASSERT_TRUE(wire_.runner()->RunUntil([&] { return c->Answered(query, &success); }))
      << "the consumer was never answered";
  EXPECT_TRUE(success);
  const uint64_t taken_when_answered = wire_.host()->producer_port_stats().commits_by_message;
  EXPECT_LT(taken_when_answered, kFlood / 2) << "the consumer waited for the flood";
  wire_.Pump();
  EXPECT_EQ(wire_.host()->producer_port_stats().commits_by_message, kFlood);
  EXPECT_EQ(Stats(&wire_, c).chunks_discarded(), kFlood);
  EXPECT_TRUE(Served(&wire_, p.client()));
}

// --- Consumers ------------------------------------------------------------

TEST_F(ServicePortsTest, ConsumerGoneMidReadBuffersLeavesOtherSessionsServed) {
  RawProducer p(&wire_);
  RawClient* reader = wire_.NewConsumer();
  reader->Bind();
  reader->Call("EnableTracing", EnableTracingArgs(Config()));
  wire_.Pump();
  const uint32_t reader_buffer = p.TargetBuffer();
  ASSERT_NE(reader_buffer, 0u);
  RawClient* other = wire_.NewConsumer();
  other->Bind();
  const uint64_t other_enable = other->Call("EnableTracing", EnableTracingArgs(Config(256)));
  wire_.Pump();

  // 1.5 MiB into the reader's buffer: more than one of the service's
  // ~1 MiB read batches, so that its read is a chain of tasks.
  const std::string payload(900, 'p');
  for (int round = 0; round < 6; round++) {
    CommitData commit;
    for (uint32_t page = 0; page < 64; page++)
      commit.chunks_to_move.push_back(
          p.WriteChunk(page, {payload, payload, payload, payload}, reader_buffer));
    p.Commit(commit);
    wire_.Pump();
  }
  ASSERT_EQ(Stats(&wire_, reader).buffer_stats()[0].chunks_written(), 6u * 64);

  // The first reply came; the reader goes before the stream ends.
  const uint64_t read = reader->Call("ReadBuffers");
  ASSERT_TRUE(wire_.runner()->RunUntil([&] { return !reader->Replies(read).empty(); }))
      << "no ReadBuffers reply";
  bool complete = true;
  EXPECT_FALSE(ReadData(*reader, read, &complete).empty());
  EXPECT_FALSE(complete);
  reader->Close();
  wire_.Pump();
  EXPECT_EQ(wire_.host()->consumer_host()->num_clients(), 1u);

  // The other session goes on, ends and is read to its end.
  EXPECT_TRUE(Served(&wire_, other));
  other->Call("DisableTracing");
  wire_.Pump();
  bool success = false;
  std::string reply;
  ASSERT_TRUE(other->Answered(other_enable, &success, &reply));
  protos::gen::EnableTracingResponse disabled;
  ASSERT_TRUE(disabled.ParseFromString(reply));
  EXPECT_TRUE(disabled.disabled());
  const uint64_t other_read = other->Call("ReadBuffers");
  wire_.Pump();
  EXPECT_FALSE(ReadData(*other, other_read, &complete).empty());  // The service's packets.
  EXPECT_TRUE(complete);
  EXPECT_TRUE(Served(&wire_, p.client()));
}

// --- The fuzzer's seed corpus ---------------------------------------------

// Valid sessions, recorded as service_ports_fuzzer reads its input, each
// checked here against the real ports. With ZT_WRITE_SERVICE_PORTS_CORPUS
// set to a directory, each is written there (how
// src/tracing/ipc/service_ports_fuzzer_corpus/ was made).
void WriteSeed(const char* dir, const char* name, const std::vector<Record>& records) {
  const std::string path = std::string(dir) + "/" + name;
  FILE* f = fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  const std::string bytes = Serialize(records);
  EXPECT_EQ(fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  fclose(f);
}

TEST(ServicePortsSeedCorpus, SessionsAreServedAndWritten) {
  struct Seed {
    const char* name;
    bool producer, consumer, provide_smb;
  };
  const Seed kSeeds[] = {
      {"producer_session", true, false, true},
      {"consumer_session", false, true, false},
      {"full_session", true, true, true},
      {"full_session_service_smb", true, true, false},
  };
  const char* dir = getenv("ZT_WRITE_SERVICE_PORTS_CORPUS");
  for (const Seed& seed : kSeeds) {
    SCOPED_TRACE(seed.name);
    std::vector<Record> records;
    Wire wire;
    wire.set_recording(&records);
    std::unique_ptr<RawProducer> p;
    if (seed.producer)
      p = std::make_unique<RawProducer>(&wire, seed.provide_smb);
    RawClient* c = nullptr;
    uint64_t enable = 0;
    if (seed.consumer) {
      c = wire.NewConsumer();
      c->Bind();
      protos::gen::ObserveEventsRequest observe;  // Both kinds, first, as upstream's SDK.
      observe.add_events_to_observe(protos::gen::ObservableEvents::TYPE_DATA_SOURCES_INSTANCES);
      observe.add_events_to_observe(protos::gen::ObservableEvents::TYPE_ALL_DATA_SOURCES_STARTED);
      c->Call("ObserveEvents", observe.SerializeAsString());
      enable = c->Call("EnableTracing", EnableTracingArgs(Config(256)));
      wire.Pump();
    }
    const uint32_t target = seed.consumer && seed.producer ? p->TargetBuffer() : 1;
    if (p) {
      EXPECT_NE(target, 0u);
      CommitData commit;
      if (seed.provide_smb)
        commit.chunks_to_move.push_back(p->WriteChunk(0, {"seed-packet"}, target));
      const uint64_t id = p->Commit(commit);
      wire.Pump();
      bool success = false;
      EXPECT_TRUE(p->client()->Answered(id, &success) && success);
    }
    if (c) {
      c->Call("DisableTracing");
      wire.Advance(1000);  // Into the recording: time moves in the fuzzer too.
      bool success = false;
      EXPECT_TRUE(c->Answered(enable, &success) && success);
      const uint64_t read = c->Call("ReadBuffers");
      wire.Pump();
      bool complete = false;
      const std::string data = ReadData(*c, read, &complete);
      EXPECT_TRUE(complete);
      if (p && seed.provide_smb) {
        EXPECT_NE(data.find("seed-packet"), std::string::npos);
      }
      const uint64_t free_id = c->Call("FreeBuffers");
      wire.Pump();
      EXPECT_TRUE(c->Answered(free_id, &success) && success);
    }
    if (!dir)
      continue;
    WriteSeed(dir, seed.name, records);
    if (std::string(seed.name) != "full_session")
      continue;
    // Again with every send cut into 5-byte writes (the descriptor with the
    // first, the time step after the last): reads that end mid-frame.
    std::vector<Record> pieces;
    for (const Record& r : records) {
      if (r.flags & Record::kIntoSmb) {
        pieces.push_back(r);
        continue;
      }
      for (size_t at = 0; at < r.bytes.size(); at += 5) {
        uint8_t flags = r.flags & ~(Record::kWithSmb | Record::kAdvanceTime);
        if (at == 0)
          flags |= r.flags & Record::kWithSmb;
        if (at + 5 >= r.bytes.size())
          flags |= r.flags & Record::kAdvanceTime;
        pieces.push_back(Record{flags, r.bytes.substr(at, 5)});
      }
    }
    WriteSeed(dir, "full_session_in_pieces", pieces);
  }
}

}  // namespace
}  // namespace zt
