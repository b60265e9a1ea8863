// The producer IPC client against a scripted host (scripted_port.h): an
// ipc::Host whose "ProducerPort" answers as upstream's service does in the
// v14 transcripts (../shared/docs/transcripts/), over real sockets on one
// virtual-time runner. What the client sends, how it takes the shared
// memory and the commands that come back, and what it does when the host
// misbehaves or goes away.

#include <fcntl.h>
#include <sys/mman.h>

#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "src/base/memfd_shared_memory.h"
#include "src/base/scoped_file.h"
#include "src/base/test/test_task_runner.h"
#include "src/ipc/host.h"
#include "src/tracing/ipc/producer_ipc_client.h"
#include "src/tracing/ipc/scripted_port.h"
#include "zt/ext/tracing/core/commit_data_codec.h"
#include "zt/ipc/producer_port.gen.h"

namespace zt {
namespace {

using ::testing::ElementsAre;
using protos::gen::GetAsyncCommandResponse;
using test::Call;
using test::kProducerMethods;
using test::UniqueAddress;

// A Producer that records what it is told, one line per callback.
class RecordingProducer : public Producer {
 public:
  std::vector<std::string> events;
  std::unique_ptr<ProducerEndpoint> endpoint;
  bool destroy_endpoint_on_disconnect = false;
  base::SharedMemory* smb_at_setup = nullptr;

  void OnConnect() override {
    events.push_back(std::string("connect") +
                     (endpoint->shared_memory() ? " smb" : " no-smb"));
  }
  void OnDisconnect() override {
    events.push_back("disconnect");
    if (destroy_endpoint_on_disconnect)
      endpoint.reset();
  }
  void OnTracingSetup() override {
    smb_at_setup = endpoint->shared_memory();
    events.push_back("tracing-setup " + std::to_string(endpoint->shared_memory_page_size()));
  }
  void SetupDataSource(DataSourceInstanceId id,
                       const protos::gen::DataSourceConfig& config) override {
    events.push_back("setup " + std::to_string(id) + " " + config.name());
  }
  void StartDataSource(DataSourceInstanceId id,
                       const protos::gen::DataSourceConfig& config) override {
    events.push_back("start " + std::to_string(id) + " " + config.name());
  }
  void StopDataSource(DataSourceInstanceId id) override {
    events.push_back("stop " + std::to_string(id));
  }
  void Flush(FlushRequestId request, const std::vector<DataSourceInstanceId>& ids) override {
    std::string line = "flush " + std::to_string(request);
    for (auto id : ids)
      line += " " + std::to_string(id);
    events.push_back(line);
  }
  void ClearIncrementalState(const std::vector<DataSourceInstanceId>& ids) override {
    std::string line = "clear";
    for (auto id : ids)
      line += " " + std::to_string(id);
    events.push_back(line);
  }
};

GetAsyncCommandResponse SetupTracingCommand(uint32_t page_kb) {
  GetAsyncCommandResponse cmd;
  cmd.mutable_setup_tracing()->set_shared_buffer_page_size_kb(page_kb);
  return cmd;
}
GetAsyncCommandResponse SetupCommand(uint64_t id, const std::string& name) {
  GetAsyncCommandResponse cmd;
  cmd.mutable_setup_data_source()->set_new_instance_id(id);
  cmd.mutable_setup_data_source()->mutable_config()->set_name(name);
  cmd.mutable_setup_data_source()->mutable_config()->set_target_buffer(1);
  return cmd;
}
GetAsyncCommandResponse StartCommand(uint64_t id, const std::string& name) {
  GetAsyncCommandResponse cmd;
  cmd.mutable_start_data_source()->set_new_instance_id(id);
  cmd.mutable_start_data_source()->mutable_config()->set_name(name);
  return cmd;
}

class ProducerIpcClientTest : public test::ScriptedHostTest {
 protected:
  void SetUp() override {
    // InitializeConnection answered as v14's service does, unless a test
    // holds the answer; GetAsyncCommand kept open for the commands.
    port_.handlers["InitializeConnection"] = [this](Call& call, ipc::Reply reply) {
      init_had_fd_ = static_cast<bool>(call.fd);
      init_reply_ = std::move(reply);
      if (answer_init_)
        AnswerInit();
    };
    port_.handlers["GetAsyncCommand"] = [this](Call&, ipc::Reply reply) {
      commands_ = std::move(reply);
    };
    Serve("ProducerPort", kProducerMethods);
  }

  void Connect(bool provide_smb, size_t size_hint = 0, size_t page_hint = 0) {
    TracingService::ProducerOptions options;
    options.name = "ref_producer";
    options.shm_size_hint_bytes = size_hint;
    options.shm_page_size_hint_bytes = page_hint;
    producer_.endpoint =
        ProducerIpcClient::Connect(address_, &producer_, &runner_, options, provide_smb);
  }
  void AnswerInit() {
    protos::gen::InitializeConnectionResponse resp;
    resp.set_using_shmem_provided_by_producer(take_smb_ && init_had_fd_);
    resp.set_direct_smb_patching_supported(true);
    init_reply_.Resolve(resp.SerializeAsString());
  }
  void Command(const GetAsyncCommandResponse& cmd, int fd = -1) {
    ASSERT_TRUE(commands_.pending());
    commands_.Resolve(cmd.SerializeAsString(), /*has_more=*/true, fd);
  }
  bool RunUntilEvents(size_t n) {
    return runner_.RunUntil([&] { return producer_.events.size() >= n; });
  }
  ipc::Reply init_reply_;
  ipc::Reply commands_;
  bool answer_init_ = true;
  bool init_had_fd_ = false;
  bool take_smb_ = true;
  RecordingProducer producer_;
};

TEST_F(ProducerIpcClientTest, ConnectsAsUpstreamsSdkWithItsOwnSmb) {
  answer_init_ = false;
  Connect(/*provide_smb=*/true, 64 * 1024, 16 * 1024);
  // InitializeConnection and GetAsyncCommand go out together, before any
  // answer; OnConnect waits for InitializeConnection's.
  ASSERT_TRUE(runner_.RunUntil([&] { return port_.calls.size() >= 2; }));
  Settle();
  EXPECT_THAT(port_.methods(), ElementsAre("InitializeConnection", "GetAsyncCommand"));
  EXPECT_TRUE(producer_.events.empty());

  protos::gen::InitializeConnectionRequest req;
  ASSERT_TRUE(req.ParseFromString(port_.calls[0].args));
  EXPECT_EQ(req.producer_name(), "ref_producer");
  EXPECT_EQ(req.smb_scraping_mode(),
            protos::gen::InitializeConnectionRequest::SMB_SCRAPING_ENABLED);
  EXPECT_FALSE(req.sdk_version().empty());
  EXPECT_TRUE(req.producer_provided_shmem());
  EXPECT_EQ(req.shared_memory_size_hint_bytes(), 64u * 1024);
  EXPECT_EQ(req.shared_memory_page_size_hint_bytes(), 16u * 1024);
  // The memfd came with it, sealed, of the size the hints give: the
  // service can take it as it is.
  ASSERT_TRUE(port_.calls[0].fd);
  auto theirs = base::MemfdSharedMemory::AttachToFd(std::move(port_.calls[0].fd), 64 * 1024,
                                                    /*require_seals=*/true);
  ASSERT_NE(theirs, nullptr);

  AnswerInit();
  ASSERT_TRUE(RunUntilEvents(2));
  EXPECT_THAT(producer_.events, ElementsAre("connect smb", "tracing-setup 16384"));
  base::SharedMemory* smb = producer_.endpoint->shared_memory();
  ASSERT_NE(smb, nullptr);
  EXPECT_EQ(smb->size(), 64u * 1024);
  EXPECT_EQ(producer_.endpoint->shared_memory_page_size(), 16u * 1024);
  smb->start()[100] = 42;  // One memory, two mappings.
  EXPECT_EQ(theirs->start()[100], 42);

  // v14's service still sends SetupTracing (no fd) before the first
  // setup: it changes nothing.
  Command(SetupTracingCommand(16));
  Command(SetupCommand(1, "track_event"));
  ASSERT_TRUE(RunUntilEvents(3));
  EXPECT_THAT(producer_.events,
              ElementsAre("connect smb", "tracing-setup 16384", "setup 1 track_event"));
  EXPECT_EQ(producer_.endpoint->shared_memory(), smb);
}

TEST_F(ProducerIpcClientTest, OffersTheSdksOwnSmbWhenItCanTravel) {
  TracingService::ProducerOptions options;
  options.shm_size_hint_bytes = 32 * 1024;
  options.provided_shm = base::MemfdSharedMemory::Create(32 * 1024);
  ASSERT_NE(options.provided_shm, nullptr);
  producer_.endpoint = ProducerIpcClient::Connect(address_, &producer_, &runner_, options);
  ASSERT_TRUE(RunUntilEvents(2));
  EXPECT_EQ(producer_.endpoint->shared_memory(), options.provided_shm.get());
  ASSERT_TRUE(port_.calls[0].fd);
  auto theirs = base::MemfdSharedMemory::AttachToFd(std::move(port_.calls[0].fd), 32 * 1024);
  ASSERT_NE(theirs, nullptr);
  options.provided_shm->start()[8] = 9;
  EXPECT_EQ(theirs->start()[8], 9);
}

TEST_F(ProducerIpcClientTest, TakesTheServicesSmbFromSetupTracingAndRunsCommands) {
  Connect(/*provide_smb=*/false);
  ASSERT_TRUE(RunUntilEvents(1));
  EXPECT_THAT(producer_.events, ElementsAre("connect no-smb"));
  protos::gen::InitializeConnectionRequest req;
  ASSERT_TRUE(req.ParseFromString(port_.calls[0].args));
  EXPECT_FALSE(req.producer_provided_shmem());
  EXPECT_EQ(req.shared_memory_size_hint_bytes(), 0u);  // Unset: the service picks.
  EXPECT_FALSE(port_.calls[0].fd);
  EXPECT_EQ(producer_.endpoint->shared_memory(), nullptr);

  // The transcripts' sequence: the memfd with SetupTracing, then setups,
  // starts, a flush, stops.
  auto smb = base::MemfdSharedMemory::Create(256 * 1024);
  ASSERT_NE(smb, nullptr);
  smb->start()[4096] = 7;
  Command(SetupTracingCommand(4), smb->fd());
  Command(SetupCommand(1, "track_event"));
  Command(SetupCommand(2, "com.example.conformance"));
  Command(StartCommand(1, "track_event"));
  Command(StartCommand(2, "com.example.conformance"));
  GetAsyncCommandResponse flush;
  flush.mutable_flush()->add_data_source_ids(1);
  flush.mutable_flush()->add_data_source_ids(2);
  flush.mutable_flush()->set_request_id(1);
  Command(flush);
  GetAsyncCommandResponse clear;
  clear.mutable_clear_incremental_state()->add_data_source_ids(2);
  Command(clear);
  // A command of a newer service: only a field we do not know.
  commands_.Resolve(std::string("\xa2\x06\x00", 3), /*has_more=*/true);
  GetAsyncCommandResponse stop;
  stop.mutable_stop_data_source()->set_instance_id(1);
  Command(stop);
  ASSERT_TRUE(RunUntilEvents(9));
  Settle();
  EXPECT_THAT(producer_.events,
              ElementsAre("connect no-smb", "tracing-setup 4096", "setup 1 track_event",
                          "setup 2 com.example.conformance", "start 1 track_event",
                          "start 2 com.example.conformance", "flush 1 1 2", "clear 2",
                          "stop 1"));
  ASSERT_NE(producer_.smb_at_setup, nullptr);
  EXPECT_EQ(producer_.smb_at_setup->size(), 256u * 1024);
  EXPECT_EQ(producer_.smb_at_setup->start()[4096], 7);
  EXPECT_EQ(producer_.endpoint->shared_memory_page_size(), 4096u);
  EXPECT_EQ(port_.disconnects, 0);
}

TEST_F(ProducerIpcClientTest, FallsBackToTheServicesSmbWhenItDeclinesOurs) {
  take_smb_ = false;
  Connect(/*provide_smb=*/true);
  ASSERT_TRUE(RunUntilEvents(1));
  EXPECT_THAT(producer_.events, ElementsAre("connect no-smb"));
  EXPECT_EQ(producer_.endpoint->shared_memory(), nullptr);
  auto smb = base::MemfdSharedMemory::Create(64 * 1024);
  ASSERT_NE(smb, nullptr);
  Command(SetupTracingCommand(8), smb->fd());
  ASSERT_TRUE(RunUntilEvents(2));
  EXPECT_EQ(producer_.events[1], "tracing-setup 8192");
  EXPECT_EQ(producer_.endpoint->shared_memory()->size(), 64u * 1024);
}

TEST_F(ProducerIpcClientTest, TheSmbsFdIsFoundWhenReadWithAnEarlierReply) {
  // The answer to RegisterDataSource and SetupTracing with the memfd sent
  // back to back: one read takes both, the fd with it, and the client
  // hands the fd to the first of them. It must still reach SetupTracing.
  auto smb = base::MemfdSharedMemory::Create(64 * 1024);
  ASSERT_NE(smb, nullptr);
  port_.handlers["RegisterDataSource"] = [&](Call&, ipc::Reply reply) {
    reply.Resolve("");
    Command(SetupTracingCommand(4), smb->fd());
    Command(SetupCommand(1, "ds"));
  };
  Connect(/*provide_smb=*/false);
  protos::gen::DataSourceDescriptor descriptor;
  descriptor.set_name("ds");
  producer_.endpoint->RegisterDataSource(descriptor);
  ASSERT_TRUE(RunUntilEvents(3));
  EXPECT_THAT(producer_.events, ElementsAre("connect no-smb", "tracing-setup 4096", "setup 1 ds"));
  EXPECT_EQ(port_.disconnects, 0);
}

TEST_F(ProducerIpcClientTest, AStartWithoutASetupGetsOneFirst) {
  Connect(/*provide_smb=*/true);
  ASSERT_TRUE(RunUntilEvents(2));
  Command(StartCommand(5, "old"));  // As services before Android Q send it.
  ASSERT_TRUE(RunUntilEvents(4));
  EXPECT_EQ(producer_.events[2], "setup 5 old");
  EXPECT_EQ(producer_.events[3], "start 5 old");
}

TEST_F(ProducerIpcClientTest, EndpointCallsMapToPortMethodsAsUpstreamSendsThem) {
  Connect(/*provide_smb=*/true);
  // Made before the port is even bound: queued, sent after the handshake.
  protos::gen::DataSourceDescriptor descriptor;
  descriptor.set_name("track_event");
  descriptor.set_will_notify_on_start(true);
  producer_.endpoint->RegisterDataSource(descriptor);
  ASSERT_TRUE(RunUntilEvents(2));
  ProducerEndpoint* e = producer_.endpoint.get();
  CommitData commit;
  commit.chunks_to_move.push_back({3, 0, 1});
  CommitData::ChunkToPatch patch;
  patch.target_buffer = 1;
  patch.writer_id = 1;
  patch.chunk_id = 3;
  patch.patches.push_back({4066, {{0x8f, 0x80, 0x80, 0x00}}});
  commit.chunks_to_patch.push_back(patch);
  e->NotifyDataSourceStarted(1);
  e->RegisterTraceWriter(1, 1);
  e->CommitData(commit);
  e->CommitData(CommitData());  // Nothing to say: not sent.
  e->NotifyFlushComplete(9);
  e->UnregisterTraceWriter(1);
  e->NotifyDataSourceStopped(1);
  e->UnregisterDataSource("track_event");
  ASSERT_TRUE(runner_.RunUntil([&] { return port_.calls.size() >= 10; }));
  Settle();
  // Only RegisterDataSource (and the handshake) wait for answers, as in
  // the transcripts; everything else is fire-and-forget.
  EXPECT_THAT(port_.methods(),
              ElementsAre("InitializeConnection", "GetAsyncCommand", "RegisterDataSource",
                          "NotifyDataSourceStarted!", "RegisterTraceWriter!", "CommitData!",
                          "CommitData!", "UnregisterTraceWriter!", "NotifyDataSourceStopped!",
                          "UnregisterDataSource!"));
  protos::gen::RegisterDataSourceRequest reg;
  ASSERT_TRUE(reg.ParseFromString(port_.calls[2].args));
  EXPECT_EQ(reg.data_source_descriptor(), descriptor);
  protos::gen::NotifyDataSourceStartedRequest started;
  ASSERT_TRUE(started.ParseFromString(port_.calls[3].args));
  EXPECT_EQ(started.data_source_id(), 1u);
  protos::gen::RegisterTraceWriterRequest writer;
  ASSERT_TRUE(writer.ParseFromString(port_.calls[4].args));
  EXPECT_EQ(writer.trace_writer_id(), 1u);
  EXPECT_EQ(writer.target_buffer(), 1u);
  CommitData parsed;
  ASSERT_TRUE(ParseCommitData(reinterpret_cast<const uint8_t*>(port_.calls[5].args.data()),
                              port_.calls[5].args.size(), &parsed));
  EXPECT_EQ(parsed, commit);
  // The flush's answer: a commit naming it and nothing else (#39).
  CommitData flushed;
  ASSERT_TRUE(ParseCommitData(reinterpret_cast<const uint8_t*>(port_.calls[6].args.data()),
                              port_.calls[6].args.size(), &flushed));
  CommitData expected;
  expected.flush_request_id = 9;
  EXPECT_EQ(flushed, expected);
  protos::gen::UnregisterDataSourceRequest unreg;
  ASSERT_TRUE(unreg.ParseFromString(port_.calls[9].args));
  EXPECT_EQ(unreg.data_source_name(), "track_event");
}

TEST_F(ProducerIpcClientTest, TheHostGoingAwayDisconnectsOnceAndLeavesTheEndpointInert) {
  Connect(/*provide_smb=*/true);
  ASSERT_TRUE(RunUntilEvents(2));
  base::SharedMemory* smb = producer_.endpoint->shared_memory();
  host_.reset();
  ASSERT_TRUE(RunUntilEvents(3));
  EXPECT_EQ(producer_.events.back(), "disconnect");
  // Calls are dropped; the SMB stays mapped for writers still using it.
  producer_.endpoint->RegisterTraceWriter(1, 1);
  producer_.endpoint->NotifyFlushComplete(1);
  smb->start()[0] = 1;
  Settle();
  EXPECT_EQ(producer_.events.size(), 3u);
}

TEST_F(ProducerIpcClientTest, NobodyListeningIsADisconnection) {
  TracingService::ProducerOptions options;
  producer_.endpoint = ProducerIpcClient::Connect(UniqueAddress(), &producer_, &runner_,
                                                  options);
  producer_.endpoint->RegisterTraceWriter(1, 1);  // Queued, then dropped.
  ASSERT_TRUE(RunUntilEvents(1));
  Settle();
  EXPECT_THAT(producer_.events, ElementsAre("disconnect"));
}

TEST_F(ProducerIpcClientTest, ARefusedInitializeConnectionIsADisconnection) {
  port_.handlers["InitializeConnection"] = [](Call&, ipc::Reply) {};  // Dropped: refused.
  producer_.destroy_endpoint_on_disconnect = true;  // Allowed from OnDisconnect.
  Connect(/*provide_smb=*/true);
  ASSERT_TRUE(RunUntilEvents(1));
  Settle();
  EXPECT_THAT(producer_.events, ElementsAre("disconnect"));
  EXPECT_EQ(producer_.endpoint, nullptr);
}

TEST_F(ProducerIpcClientTest, ASetupTracingWithoutAnFdEndsTheConnection) {
  Connect(/*provide_smb=*/false);
  ASSERT_TRUE(RunUntilEvents(1));
  Command(SetupTracingCommand(4));
  ASSERT_TRUE(RunUntilEvents(2));
  EXPECT_EQ(producer_.events.back(), "disconnect");
  ASSERT_TRUE(runner_.RunUntil([&] { return port_.disconnects == 1; }));
  EXPECT_EQ(producer_.endpoint->shared_memory(), nullptr);
}

// A service that could shrink the memory under the producer's mapping
// could kill it with SIGBUS at its next event (issue 27: a fake service
// truncated an unsealed memfd under a root-run program).
TEST_F(ProducerIpcClientTest, AnUnsealedSmbEndsTheConnection) {
  Connect(/*provide_smb=*/false);
  ASSERT_TRUE(RunUntilEvents(1));
  base::ScopedFile unsealed(memfd_create("zt-unsealed", MFD_CLOEXEC));
  ASSERT_TRUE(unsealed);
  ASSERT_EQ(ftruncate(unsealed.get(), 64 * 1024), 0);
  Command(SetupTracingCommand(4), unsealed.get());
  ASSERT_TRUE(RunUntilEvents(2));
  EXPECT_EQ(producer_.events.back(), "disconnect");
  EXPECT_EQ(producer_.endpoint->shared_memory(), nullptr);
  // Shrinking it now harms no one: the producer never mapped it.
  EXPECT_EQ(ftruncate(unsealed.get(), 0), 0);
}

TEST_F(ProducerIpcClientTest, AnSmbOfABadGeometryEndsTheConnection) {
  Connect(/*provide_smb=*/false);
  ASSERT_TRUE(RunUntilEvents(1));
  auto smb = base::MemfdSharedMemory::Create(10 * 1024);  // Not whole 4 KiB pages.
  ASSERT_NE(smb, nullptr);
  Command(SetupTracingCommand(4), smb->fd());
  ASSERT_TRUE(RunUntilEvents(2));
  EXPECT_EQ(producer_.events.back(), "disconnect");
  EXPECT_EQ(producer_.endpoint->shared_memory(), nullptr);
}

TEST_F(ProducerIpcClientTest, ASecondSmbIsClosedAndIgnored) {
  Connect(/*provide_smb=*/true);
  ASSERT_TRUE(RunUntilEvents(2));
  base::SharedMemory* ours = producer_.endpoint->shared_memory();
  auto other = base::MemfdSharedMemory::Create(64 * 1024);
  ASSERT_NE(other, nullptr);
  Command(SetupTracingCommand(4), other->fd());
  Command(SetupCommand(1, "ds"));
  ASSERT_TRUE(RunUntilEvents(3));
  EXPECT_EQ(producer_.endpoint->shared_memory(), ours);
  EXPECT_EQ(port_.disconnects, 0);
}

TEST_F(ProducerIpcClientTest, TheCommandStreamEndingEndsTheConnection) {
  Connect(/*provide_smb=*/true);
  ASSERT_TRUE(RunUntilEvents(2));
  commands_.Reject();
  ASSERT_TRUE(RunUntilEvents(3));
  EXPECT_EQ(producer_.events.back(), "disconnect");
}

TEST_F(ProducerIpcClientTest, CommandsBeforeInitializeConnectionsAnswerWaitForOnConnect) {
  answer_init_ = false;
  Connect(/*provide_smb=*/false);
  ASSERT_TRUE(runner_.RunUntil([&] { return commands_.pending(); }));
  auto smb = base::MemfdSharedMemory::Create(64 * 1024);
  ASSERT_NE(smb, nullptr);
  Command(SetupTracingCommand(4), smb->fd());
  Command(SetupCommand(1, "ds"));
  Settle();
  EXPECT_TRUE(producer_.events.empty());
  AnswerInit();
  ASSERT_TRUE(RunUntilEvents(3));
  EXPECT_THAT(producer_.events, ElementsAre("connect no-smb", "tracing-setup 4096", "setup 1 ds"));
}

}  // namespace
}  // namespace zt
