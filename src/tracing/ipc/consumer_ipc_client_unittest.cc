// The consumer IPC client against a scripted host (scripted_port.h): an
// ipc::Host whose "ConsumerPort" answers as upstream's service does in the
// v14 transcripts (../shared/docs/transcripts/), over real sockets on one
// virtual-time runner. What the client sends, how it reassembles and passes
// on what comes back, and what it does when the host goes away.

#include <fcntl.h>
#include <unistd.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "src/base/scoped_file.h"
#include "src/base/test/test_task_runner.h"
#include "src/ipc/host.h"
#include "src/tracing/ipc/consumer_ipc_client.h"
#include "src/tracing/ipc/scripted_port.h"
#include "src/tracing/test/fake_consumer.h"
#include "zt/ipc/consumer_port.gen.h"

namespace zt {
namespace {

using ::testing::ElementsAre;
using test::Call;
using test::kConsumerMethods;
using test::ScriptedPort;
using test::UniqueAddress;

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

class ConsumerIpcClientTest : public test::ScriptedHostTest {
 protected:
  void SetUp() override {
    // The answers a test holds: EnableTracing's until the session ends,
    // the ObserveEvents stream, whatever else a test keeps.
    port_.handlers["EnableTracing"] = [this](Call&, ipc::Reply reply) {
      enable_reply_ = std::move(reply);
    };
    port_.handlers["ObserveEvents"] = [this](Call&, ipc::Reply reply) {
      observe_reply_ = std::move(reply);
    };
    Serve("ConsumerPort", kConsumerMethods);
  }
  void Connect(const std::string& address) {
    consumer_.endpoint = ConsumerIpcClient::Connect(address, &consumer_, &runner_);
  }
  bool RunUntilEvents(size_t n) {
    return runner_.RunUntil([&] { return consumer_.events.size() >= n; });
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