// The producer and consumer IPC clients against a scripted host: an
// ipc::Host whose "ProducerPort" and "ConsumerPort" answer as upstream's
// service does in the v14 transcripts (../shared/docs/transcripts/), over
// real sockets on one virtual-time runner. What each client sends, how it
// takes what comes back, and what it does when the host misbehaves or
// goes away.

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "src/base/memfd_shared_memory.h"
#include "src/base/scoped_file.h"
#include "src/base/test/test_task_runner.h"
#include "src/ipc/host.h"
#include "src/tracing/ipc/consumer_ipc_client.h"
#include "src/tracing/ipc/producer_ipc_client.h"
#include "src/tracing/test/fake_consumer.h"
#include "zt/ext/tracing/core/commit_data_codec.h"
#include "zt/ipc/consumer_port.gen.h"
#include "zt/ipc/producer_port.gen.h"

namespace zt {
namespace {

using ::testing::ElementsAre;
using protos::gen::GetAsyncCommandResponse;

std::string UniqueAddress() {
  static int counter = 0;
  return "@zt-ipc-client-test-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
}

// One call a port received.
struct Call {
  std::string method;
  std::string args;
  bool drop_reply = false;
  base::ScopedFile fd;
};

// A port that records every call, in order, and answers each with an empty
// success unless the test scripted it otherwise (|handlers|).
struct ScriptedPort {
  using Handler = std::function<void(Call& call, ipc::Reply reply)>;
  std::vector<Call> calls;
  std::map<std::string, Handler> handlers;
  int disconnects = 0;

  std::unique_ptr<ipc::Service> Make(const std::string& name,
                                     const std::vector<std::string>& methods) {
    auto service = std::make_unique<ipc::Service>(name);
    for (const std::string& method : methods) {
      service->AddMethod(method, [this, method](ipc::Request& request, ipc::Reply reply) {
        Call call;
        call.method = method;
        call.args = request.args;
        call.drop_reply = !reply.pending();
        // Only the methods that expect one take a file descriptor, as
        // upstream's ports do: one sent with a later request may be read
        // together with an earlier one's bytes.
        if (method == "InitializeConnection" || method == "EnableTracing")
          call.fd = std::move(*request.received_fd);
        calls.push_back(std::move(call));
        auto it = handlers.find(method);
        if (it != handlers.end())
          it->second(calls.back(), std::move(reply));
        else if (reply.pending())
          reply.Resolve("");
      });
    }
    service->on_client_disconnected = [this](const ipc::ClientInfo&) { disconnects++; };
    return service;
  }

  std::vector<std::string> methods() const {
    std::vector<std::string> out;
    for (const Call& c : calls)
      out.push_back(c.method + (c.drop_reply ? "!" : ""));
    return out;
  }
  const Call* Last(const std::string& method) const {
    for (auto it = calls.rbegin(); it != calls.rend(); ++it) {
      if (it->method == method)
        return &*it;
    }
    return nullptr;
  }
};

// Upstream's declaration order (the transcripts' method ids).
const std::vector<std::string> kProducerMethods = {
    "InitializeConnection",    "RegisterDataSource",      "UnregisterDataSource",
    "CommitData",              "GetAsyncCommand",         "RegisterTraceWriter",
    "UnregisterTraceWriter",   "NotifyDataSourceStarted", "NotifyDataSourceStopped",
    "ActivateTriggers",        "Sync"};
const std::vector<std::string> kConsumerMethods = {
    "EnableTracing", "DisableTracing", "ReadBuffers",   "FreeBuffers",       "Flush",
    "StartTracing",  "ChangeTraceConfig", "Detach",     "Attach",            "GetTraceStats",
    "ObserveEvents", "QueryServiceState", "QueryCapabilities", "SaveTraceForBugreport",
    "CloneSession"};

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

class ProducerIpcClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    address_ = UniqueAddress();
    host_ = ipc::Host::Listen(address_, &runner_);
    ASSERT_NE(host_, nullptr);
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
    ASSERT_TRUE(host_->ExposeService(port_.Make("ProducerPort", kProducerMethods)));
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
  // Lets every byte in flight arrive and be handled.
  void Settle() {
    for (int i = 0; i < 5; i++)
      runner_.RunUntilIdle();
  }

  base::TestTaskRunner runner_;
  std::string address_;
  ScriptedPort port_;
  std::unique_ptr<ipc::Host> host_;
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

// --- Consumer ---

// A Consumer that records what it is told; a callback from inside one of
// the test's own endpoint calls fails the test.
class RecordingConsumer : public Consumer {
 public:
  std::vector<std::string> events;
  std::vector<uint8_t> trace;
  std::unique_ptr<ConsumerEndpoint> endpoint;
  bool in_call = false;

  // Runs |call| on the endpoint, flagging callbacks made from inside it.
  void Call(const std::function<void(ConsumerEndpoint*)>& call) {
    in_call = true;
    call(endpoint.get());
    in_call = false;
  }
  void Record(const std::string& event) {
    EXPECT_FALSE(in_call) << event << " called back from inside an endpoint call";
    events.push_back(event);
  }
  std::function<void(bool)> FlushDone() {
    return [this](bool ok) { Record(ok ? "flush ok" : "flush failed"); };
  }

  void OnConnect() override { Record("connect"); }
  void OnDisconnect() override { Record("disconnect"); }
  void OnTracingDisabled(const std::string& error) override { Record("disabled:" + error); }
  void OnAllDataSourcesStarted() override { Record("all-started"); }
  void OnTraceData(std::vector<uint8_t> data, bool has_more) override {
    trace.insert(trace.end(), data.begin(), data.end());
    Record(has_more ? "data+" : "data.");
  }
  void OnTraceStats(bool success, std::vector<uint8_t> stats) override {
    protos::gen::TraceStats decoded;
    EXPECT_TRUE(decoded.ParseFromArray(stats.data(), stats.size()));
    Record(success ? "stats " + std::to_string(decoded.producers_connected()) : "stats failed");
  }
};

class ConsumerIpcClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    address_ = UniqueAddress();
    host_ = ipc::Host::Listen(address_, &runner_);
    ASSERT_NE(host_, nullptr);
    // The answers a test holds: EnableTracing's until the session ends,
    // the ObserveEvents stream, whatever else a test keeps.
    port_.handlers["EnableTracing"] = [this](Call&, ipc::Reply reply) {
      enable_reply_ = std::move(reply);
    };
    port_.handlers["ObserveEvents"] = [this](Call&, ipc::Reply reply) {
      observe_reply_ = std::move(reply);
    };
    ASSERT_TRUE(host_->ExposeService(port_.Make("ConsumerPort", kConsumerMethods)));
  }
  void Connect(const std::string& address) {
    consumer_.endpoint = ConsumerIpcClient::Connect(address, &consumer_, &runner_);
  }
  bool RunUntilEvents(size_t n) {
    return runner_.RunUntil([&] { return consumer_.events.size() >= n; });
  }
  void Settle() {
    for (int i = 0; i < 5; i++)
      runner_.RunUntilIdle();
  }
  // A handler that keeps its Reply for the test to answer.
  ScriptedPort::Handler Keep(std::vector<ipc::Reply>* replies) {
    return [replies](Call&, ipc::Reply reply) { replies->push_back(std::move(reply)); };
  }
  static std::string Disabled(const std::string& error) {
    protos::gen::EnableTracingResponse resp;
    resp.set_disabled(true);
    if (!error.empty())
      resp.set_error(error);
    return resp.SerializeAsString();
  }

  base::TestTaskRunner runner_;
  std::string address_;
  ScriptedPort port_;
  std::unique_ptr<ipc::Host> host_;
  ipc::Reply enable_reply_;
  ipc::Reply observe_reply_;
  RecordingConsumer consumer_;
};

TEST_F(ConsumerIpcClientTest, ConnectsAsUpstreamsSdkAndEnablesTracingWithTheFileFd) {
  Connect(address_);
  protos::gen::TraceConfig config;
  config.add_buffers()->set_size_kb(1024);
  config.add_data_sources()->mutable_config()->set_name("track_event");
  int pipe_fds[2];
  ASSERT_EQ(pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK), 0);
  base::ScopedFile read_end(pipe_fds[0]);
  // Before the bind: queued, the fd with it; the endpoint owns the fd now.
  consumer_.Call([&](ConsumerEndpoint* e) { e->EnableTracing(config, pipe_fds[1]); });
  ASSERT_TRUE(runner_.RunUntil([&] { return port_.calls.size() >= 2; }));
  Settle();
  // ObserveEvents first, as upstream's SDK sends it, then the session.
  EXPECT_THAT(port_.methods(), ElementsAre("ObserveEvents", "EnableTracing"));
  EXPECT_THAT(consumer_.events, ElementsAre("connect"));
  protos::gen::ObserveEventsRequest observe;
  ASSERT_TRUE(observe.ParseFromString(port_.calls[0].args));
  EXPECT_THAT(observe.events_to_observe(),
              ElementsAre(protos::gen::ObservableEvents::TYPE_ALL_DATA_SOURCES_STARTED));
  protos::gen::EnableTracingRequest enable;
  ASSERT_TRUE(enable.ParseFromString(port_.calls[1].args));
  EXPECT_EQ(enable.trace_config(), config);
  // The fd reached the service, and the client kept no copy: with the
  // service's closed too, the pipe has no writer left.
  ASSERT_TRUE(port_.calls[1].fd);
  ASSERT_EQ(write(port_.calls[1].fd.get(), "x", 1), 1);
  port_.calls[1].fd.reset();
  char buf[4];
  EXPECT_EQ(read(read_end.get(), buf, sizeof(buf)), 1);
  EXPECT_EQ(read(read_end.get(), buf, sizeof(buf)), 0);  // EOF.

  protos::gen::ObserveEventsResponse started;
  started.mutable_events()->set_all_data_sources_started(true);
  observe_reply_.Resolve(started.SerializeAsString(), /*has_more=*/true);
  ASSERT_TRUE(RunUntilEvents(2));
  // The session's end: EnableTracing's held answer.
  enable_reply_.Resolve(Disabled("too many buffers"));
  ASSERT_TRUE(RunUntilEvents(3));
  EXPECT_THAT(consumer_.events, ElementsAre("connect", "all-started", "disabled:too many buffers"));
}

TEST_F(ConsumerIpcClientTest, CallsMapToPortMethodsAndFlushesGetTheirOutcome) {
  std::vector<ipc::Reply> flushes;
  port_.handlers["Flush"] = Keep(&flushes);
  Connect(address_);
  ASSERT_TRUE(RunUntilEvents(1));
  consumer_.Call([&](ConsumerEndpoint* e) {
    e->StartTracing();
    e->Flush(2500, consumer_.FlushDone());
    e->Flush(0, consumer_.FlushDone());
    e->DisableTracing();
    e->FreeBuffers();
  });
  ASSERT_TRUE(runner_.RunUntil([&] { return flushes.size() == 2 && port_.calls.size() == 6; }));
  EXPECT_THAT(port_.methods(), ElementsAre("ObserveEvents", "StartTracing", "Flush", "Flush",
                                           "DisableTracing", "FreeBuffers"));
  protos::gen::FlushRequest flush;
  ASSERT_TRUE(flush.ParseFromString(port_.calls[2].args));
  EXPECT_EQ(flush.timeout_ms(), 2500u);
  flushes[0].Resolve("");
  flushes[1].Reject();  // Not every producer answered.
  ASSERT_TRUE(RunUntilEvents(3));
  EXPECT_THAT(consumer_.events, ElementsAre("connect", "flush ok", "flush failed"));
}

// Flush flags and CloneSession reach the port as upstream's consumer sends
// them; the clone's answer comes back whole, a refusal with its reason.
TEST_F(ConsumerIpcClientTest, FlushFlagsAndCloneSessionGoOnTheWire) {
  std::vector<ipc::Reply> flushes, clones;
  port_.handlers["Flush"] = Keep(&flushes);
  port_.handlers["CloneSession"] = Keep(&clones);
  Connect(address_);
  ASSERT_TRUE(RunUntilEvents(1));
  std::vector<ConsumerEndpoint::CloneSessionResult> results;
  auto record = [&results](const ConsumerEndpoint::CloneSessionResult& r) {
    results.push_back(r);
  };
  consumer_.Call([&](ConsumerEndpoint* e) {
    e->FlushWithFlags(100, consumer_.FlushDone(),
                      flush_flags::kInitiatorPerfettoCmd | flush_flags::kReasonExplicit);
    ConsumerEndpoint::CloneSessionArgs by_id;
    by_id.session_id = 42;
    e->CloneSession(by_id, record);
    ConsumerEndpoint::CloneSessionArgs by_name;
    by_name.unique_session_name = "svc";
    e->CloneSession(by_name, record);
  });
  ASSERT_TRUE(runner_.RunUntil([&] { return flushes.size() == 1 && clones.size() == 2; }));
  protos::gen::FlushRequest flush;
  ASSERT_TRUE(flush.ParseFromString(port_.calls[1].args));
  EXPECT_EQ(flush.flags(), flush_flags::kInitiatorPerfettoCmd | flush_flags::kReasonExplicit);
  protos::gen::CloneSessionRequest first, second;
  ASSERT_TRUE(first.ParseFromString(port_.calls[2].args));
  ASSERT_TRUE(second.ParseFromString(port_.calls[3].args));
  EXPECT_EQ(first.session_id(), 42u);
  EXPECT_EQ(second.unique_session_name(), "svc");
  protos::gen::CloneSessionResponse ok;
  ok.set_success(true);
  ok.set_uuid_msb(7);
  ok.set_uuid_lsb(8);
  clones[0].Resolve(ok.SerializeAsString());
  protos::gen::CloneSessionResponse refused;
  refused.set_success(false);
  refused.set_error("no session named \"svc\"");
  clones[1].Resolve(refused.SerializeAsString());
  ASSERT_TRUE(runner_.RunUntil([&] { return results.size() == 2; }));
  EXPECT_TRUE(results[0].success);
  EXPECT_EQ(results[0].uuid_msb, 7);
  EXPECT_EQ(results[0].uuid_lsb, 8);
  EXPECT_FALSE(results[1].success);
  EXPECT_EQ(results[1].error, "no session named \"svc\"");
}

TEST_F(ConsumerIpcClientTest, ReadBuffersSlicesAreReassembledIntoATrace) {
  const std::string a = "packet-a";
  const std::string b(300, 'b');  // Over one byte of length varint, in three slices.
  const std::string c = "c";
  port_.handlers["ReadBuffers"] = [&](Call&, ipc::Reply reply) {
    protos::gen::ReadBuffersResponse r1, r2, r3;
    auto add = [](protos::gen::ReadBuffersResponse* r, const std::string& data, bool last) {
      auto* slice = r->add_slices();
      slice->set_data(data);
      slice->set_last_slice_for_packet(last);
    };
    add(&r1, a, true);
    add(&r1, b.substr(0, 100), false);
    add(&r2, b.substr(100, 100), false);  // No packet ends here: no batch.
    add(&r3, b.substr(200), true);
    add(&r3, c, true);
    reply.Resolve(r1.SerializeAsString(), /*has_more=*/true);
    reply.Resolve(r2.SerializeAsString(), /*has_more=*/true);
    reply.Resolve(r3.SerializeAsString(), /*has_more=*/false);
  };
  Connect(address_);
  ASSERT_TRUE(RunUntilEvents(1));
  consumer_.Call([](ConsumerEndpoint* e) { e->ReadBuffers(); });
  ASSERT_TRUE(RunUntilEvents(3));
  Settle();
  EXPECT_THAT(consumer_.events, ElementsAre("connect", "data+", "data."));
  auto packets = test::SplitTrace(consumer_.trace.data(), consumer_.trace.size());
  ASSERT_EQ(packets.size(), 3u);
  EXPECT_EQ(std::string(packets[0].begin(), packets[0].end()), a);
  EXPECT_EQ(std::string(packets[1].begin(), packets[1].end()), b);
  EXPECT_EQ(std::string(packets[2].begin(), packets[2].end()), c);
}

TEST_F(ConsumerIpcClientTest, TraceStatsArePassedOnAsEncoded) {
  int calls = 0;
  port_.handlers["GetTraceStats"] = [&](Call&, ipc::Reply reply) {
    if (++calls == 2)
      return;  // Dropped: a failure.
    protos::gen::GetTraceStatsResponse resp;
    resp.mutable_trace_stats()->set_producers_connected(3);
    reply.Resolve(resp.SerializeAsString());
  };
  Connect(address_);
  ASSERT_TRUE(RunUntilEvents(1));
  consumer_.Call([](ConsumerEndpoint* e) {
    e->GetTraceStats();
    e->GetTraceStats();
  });
  ASSERT_TRUE(RunUntilEvents(3));
  EXPECT_THAT(consumer_.events, ElementsAre("connect", "stats 3", "stats failed"));
}

TEST_F(ConsumerIpcClientTest, TheHostGoingAwayFailsWhatIsPendingAfterOnDisconnect) {
  std::vector<ipc::Reply> kept;
  port_.handlers["Flush"] = Keep(&kept);
  port_.handlers["GetTraceStats"] = Keep(&kept);
  port_.handlers["ReadBuffers"] = Keep(&kept);
  Connect(address_);
  ASSERT_TRUE(RunUntilEvents(1));
  consumer_.Call([&](ConsumerEndpoint* e) {
    e->EnableTracing(protos::gen::TraceConfig());
    e->Flush(0, consumer_.FlushDone());
    e->GetTraceStats();
    e->ReadBuffers();
  });
  ASSERT_TRUE(runner_.RunUntil([&] { return kept.size() == 3 && enable_reply_.pending(); }));
  host_.reset();
  ASSERT_TRUE(RunUntilEvents(6));
  EXPECT_THAT(consumer_.events,
              ElementsAre("connect", "disconnect",
                          "disabled:the connection to the tracing service was lost",
                          "flush failed", "stats failed", "data."));
  // Inert afterwards: calls fail, never from inside themselves.
  consumer_.Call([&](ConsumerEndpoint* e) { e->Flush(0, consumer_.FlushDone()); });
  ASSERT_TRUE(RunUntilEvents(7));
  EXPECT_EQ(consumer_.events.back(), "flush failed");
}

TEST_F(ConsumerIpcClientTest, NobodyListeningIsADisconnectionAndQueuedCallsFail) {
  Connect(UniqueAddress());
  consumer_.Call([&](ConsumerEndpoint* e) { e->Flush(0, consumer_.FlushDone()); });
  ASSERT_TRUE(RunUntilEvents(2));
  Settle();
  EXPECT_THAT(consumer_.events, ElementsAre("disconnect", "flush failed"));
}

TEST_F(ConsumerIpcClientTest, AFreedSessionsEndIsNotReported) {
  Connect(address_);
  ASSERT_TRUE(RunUntilEvents(1));
  consumer_.Call([](ConsumerEndpoint* e) {
    e->EnableTracing(protos::gen::TraceConfig());
    e->FreeBuffers();
  });
  ASSERT_TRUE(runner_.RunUntil([&] { return port_.calls.size() == 3; }));
  enable_reply_.Reject();  // The freed session's request ends.
  Settle();
  consumer_.Call([](ConsumerEndpoint* e) { e->EnableTracing(protos::gen::TraceConfig()); });
  ASSERT_TRUE(runner_.RunUntil([&] { return port_.calls.size() == 4; }));
  enable_reply_.Resolve(Disabled(""));
  ASSERT_TRUE(RunUntilEvents(2));
  Settle();
  EXPECT_THAT(consumer_.events, ElementsAre("connect", "disabled:"));
}

}  // namespace
}  // namespace zt
