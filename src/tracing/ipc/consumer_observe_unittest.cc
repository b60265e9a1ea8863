// ObserveEvents on the consumer port: data source instance states and
// all_data_sources_started streamed as upstream's traced streams them
// (replies with has_more, starts and all_data_sources_started in one
// reply, the stops before EnableTracing's answer, a new request ending the
// previous stream), the capability advertised, replies cut under the frame
// limit, and a client that does not read costing the daemon a bounded
// amount of memory (the oldest changes dropped, counted in the log). Real
// sockets (socketpairs) into ServiceIpcHost, on virtual time. Which states
// the service reports, and when, is tracing_service_observe_unittest.cc.

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "src/base/scoped_file.h"
#include "src/base/test/test_task_runner.h"
#include "src/base/unix_socket.h"
#include "src/ipc/client.h"
#include "src/ipc/frame.h"
#include "src/tracing/ipc/port_test_fixture.h"
#include "src/tracing/ipc/service_ipc_host.h"
#include "src/tracing/test/null_producer.h"
#include "zt/base/logging.h"
#include "zt/ipc/consumer_port.gen.h"
#include "zt/ipc/producer_port.gen.h"

namespace zt {
namespace {

using protos::gen::ObservableEvents;
using testing::ElementsAre;

// An ObserveEvents stream as the client sees it.
struct Stream {
  std::vector<ObservableEvents> replies;  // Those with has_more.
  bool ended = false;
  bool ended_successfully = false;
  std::string last_reply;  // The reply_proto of the end.
};

// Each instance state change of |events| as "producer/data source: state".
std::vector<std::string> Changes(const std::vector<ObservableEvents>& replies) {
  std::vector<std::string> out;
  for (const ObservableEvents& events : replies) {
    for (const auto& change : events.instance_state_changes()) {
      const bool started =
          change.state() == ObservableEvents::DATA_SOURCE_INSTANCE_STATE_STARTED;
      out.push_back(change.producer_name() + "/" + change.data_source_name() +
                    (started ? ": started" : ": stopped"));
    }
  }
  return out;
}

// A producer in the test's process, connected to the service directly:
// the tests that need thousands of state changes or names no socket frame
// could carry make them with it. It acknowledges nothing.
using InProcessProducer = NullProducer;

// A consumer whose end of the socket the test reads only when it says so:
// what the daemon has to do with a client that stopped reading.
class SilentConsumer {
 public:
  SilentConsumer(ipc::Host* host, base::TestTaskRunner* runner) : runner_(runner) {
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    socklen_t len = sizeof(daemon_send_buffer_);
    getsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &daemon_send_buffer_, &len);
    host->AdoptClient(
        base::UnixSocket::AdoptConnected(base::ScopedFile(fds[0]), nullptr, runner));
    fd_.reset(fds[1]);
    fcntl(fd_.get(), F_SETFL, fcntl(fd_.get(), F_GETFL) | O_NONBLOCK);
  }

  // Binds the consumer port, learning its method ids (reads until then).
  bool Bind() {
    ipc::Frame bind;
    bind.set_request_id(next_request_id_++);
    bind.mutable_msg_bind_service()->set_service_name("ConsumerPort");
    Send(ipc::SerializeFrame(bind));
    return runner_->RunUntil([&] {
      Drain();
      for (const auto& f : frames_) {
        if (!f->has_msg_bind_service_reply())
          continue;
        service_id_ = f->msg_bind_service_reply().service_id();
        for (const auto& m : f->msg_bind_service_reply().methods())
          method_ids_[m.name()] = m.id();
      }
      return service_id_ != 0;
    });
  }
  uint64_t Call(const std::string& method, const std::string& args) {
    ipc::Frame call;
    const uint64_t id = next_request_id_++;
    call.set_request_id(id);
    call.mutable_msg_invoke_method()->set_service_id(service_id_);
    call.mutable_msg_invoke_method()->set_method_id(method_ids_[method]);
    call.mutable_msg_invoke_method()->set_args_proto(args);
    Send(ipc::SerializeFrame(call));
    return id;
  }
  // Reads what the daemon has sent so far; the bytes read.
  size_t Drain() {
    size_t total = 0;
    for (;;) {
      const ipc::BufferedFrameDeserializer::ReceiveBuffer room = deserializer_.BeginReceive();
      const ssize_t n = recv(fd_.get(), room.data, room.size, 0);
      if (n <= 0)
        return total;
      total += static_cast<size_t>(n);
      EXPECT_TRUE(deserializer_.EndReceive(static_cast<size_t>(n))) << deserializer_.error();
      while (std::unique_ptr<ipc::Frame> frame = deserializer_.PopNextFrame())
        frames_.push_back(std::move(frame));
    }
  }
  // The ObserveEvents replies to |request_id| read so far.
  std::vector<ObservableEvents> ObservedReplies(uint64_t request_id) const {
    std::vector<ObservableEvents> out;
    for (const auto& f : frames_) {
      if (f->request_id() != request_id || !f->has_msg_invoke_method_reply())
        continue;
      protos::gen::ObserveEventsResponse resp;
      EXPECT_TRUE(resp.ParseFromString(f->msg_invoke_method_reply().reply_proto()));
      out.push_back(resp.events());
    }
    return out;
  }
  bool Answered(uint64_t request_id) const {
    for (const auto& f : frames_) {
      if (f->request_id() == request_id && f->has_msg_invoke_method_reply() &&
          !f->msg_invoke_method_reply().has_more())
        return true;
    }
    return false;
  }
  // How much the kernel holds for the daemon's end before it must queue.
  int daemon_send_buffer() const { return daemon_send_buffer_; }

 private:
  void Send(const std::string& bytes) {
    ASSERT_EQ(send(fd_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
  }

  base::TestTaskRunner* const runner_;
  base::ScopedFile fd_;
  int daemon_send_buffer_ = 0;
  ipc::BufferedFrameDeserializer deserializer_;
  std::vector<std::unique_ptr<ipc::Frame>> frames_;
  uint64_t next_request_id_ = 1;
  uint32_t service_id_ = 0;
  std::map<std::string, uint32_t> method_ids_;
};

// Sends the log to a file of its own while it lives.
class CapturedLog {
 public:
  CapturedLog() : file_(std::tmpfile()) { base::SetLogFile(file_); }
  ~CapturedLog() {
    base::SetLogFile(nullptr);
    std::fputs(Contents().c_str(), stderr);  // Still shown, after the test.
    std::fclose(file_);
  }
  std::string Contents() {
    std::fflush(file_);
    std::rewind(file_);
    std::string out;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof(buf), file_)) > 0;)
      out.append(buf, n);
    return out;
  }

 private:
  std::FILE* const file_;
};

// The sum of the counts in the port's "N data source state changes were
// dropped" lines.
uint64_t DroppedInLog(const std::string& log) {
  static const char kWhat[] = " data source state changes were dropped";
  uint64_t total = 0;
  for (size_t at = log.find(kWhat); at != std::string::npos; at = log.find(kWhat, at + 1)) {
    size_t begin = at;
    while (begin > 0 && isdigit(static_cast<unsigned char>(log[begin - 1])))
      begin--;
    total += std::stoull(log.substr(begin, at - begin));
  }
  return total;
}

class ConsumerObserveTest : public PortTest {
 protected:
  void TearDown() override {
    clients_.clear();
    producer_endpoint_.reset();
    PortTest::TearDown();
  }

  static std::string ObserveArgs(const std::vector<ObservableEvents::Type>& types) {
    protos::gen::ObserveEventsRequest req;
    for (ObservableEvents::Type type : types)
      req.add_events_to_observe(type);
    return req.SerializeAsString();
  }

  // Opens an ObserveEvents stream; |order| (if given) records "observe"
  // for each of its replies, in the order replies arrive.
  std::shared_ptr<Stream> Observe(ipc::Client* consumer,
                                  const std::vector<ObservableEvents::Type>& types,
                                  std::vector<std::string>* order = nullptr) {
    auto stream = std::make_shared<Stream>();
    consumer->Invoke("ObserveEvents", ObserveArgs(types), [stream, order](ipc::Client::Response r) {
      if (order)
        order->push_back("observe");
      if (!r.has_more) {
        stream->ended = true;
        stream->ended_successfully = r.success;
        stream->last_reply = r.reply_proto;
        return;
      }
      protos::gen::ObserveEventsResponse resp;
      EXPECT_TRUE(resp.ParseFromString(r.reply_proto));
      stream->replies.push_back(resp.events());
    });
    return stream;
  }

  static std::string EnableArgs(const std::vector<std::string>& data_sources) {
    protos::gen::EnableTracingRequest req;
    req.mutable_trace_config()->add_buffers()->set_size_kb(64);
    for (const std::string& name : data_sources)
      req.mutable_trace_config()->add_data_sources()->mutable_config()->set_name(name);
    return req.SerializeAsString();
  }

  // A producer over the producer port; its GetAsyncCommand commands land
  // in |commands|.
  ipc::Client* ConnectProducer(const std::string& name,
                               std::vector<protos::gen::GetAsyncCommandResponse>* commands) {
    ipc::Client* producer = Bind(host_->producer_host(), "ProducerPort");
    protos::gen::InitializeConnectionRequest init;
    init.set_producer_name(name);
    EXPECT_TRUE(CallAndWait(producer, "InitializeConnection", init.SerializeAsString()));
    producer->Invoke("GetAsyncCommand", "", [commands](ipc::Client::Response r) {
      protos::gen::GetAsyncCommandResponse cmd;
      if (r.success && cmd.ParseFromString(r.reply_proto))
        commands->push_back(cmd);
    });
    return producer;
  }
  void RegisterDataSource(ipc::Client* producer, const std::string& name,
                          bool will_notify_on_start) {
    protos::gen::RegisterDataSourceRequest req;
    req.mutable_data_source_descriptor()->set_name(name);
    req.mutable_data_source_descriptor()->set_will_notify_on_start(will_notify_on_start);
    EXPECT_TRUE(CallAndWait(producer, "RegisterDataSource", req.SerializeAsString()));
  }

  ProducerEndpoint* ConnectInProcessProducer(const std::string& name) {
    TracingService::ProducerOptions options;
    options.name = name;
    producer_endpoint_ = host_->service()->ConnectProducer(&in_process_producer_, options);
    runner_.RunUntilIdle();
    return producer_endpoint_.get();
  }

  InProcessProducer in_process_producer_;
  std::unique_ptr<ProducerEndpoint> producer_endpoint_;
};

TEST_F(ConsumerObserveTest, InstanceStatesStreamAsUpstreamsServiceSendsThem) {
  std::vector<protos::gen::GetAsyncCommandResponse> commands;
  ipc::Client* producer = ConnectProducer("proc.a", &commands);
  RegisterDataSource(producer, "ds", /*will_notify_on_start=*/true);
  ipc::Client* consumer = Bind(host_->consumer_host(), "ConsumerPort");

  std::vector<std::string> order;
  std::shared_ptr<Stream> stream =
      Observe(consumer,
              {ObservableEvents::TYPE_DATA_SOURCES_INSTANCES,
               ObservableEvents::TYPE_ALL_DATA_SOURCES_STARTED},
              &order);
  bool enabled_answered = false;
  consumer->Invoke("EnableTracing", EnableArgs({"ds"}), [&](ipc::Client::Response r) {
    order.push_back("enable");
    enabled_answered = !r.has_more;
  });
  uint64_t instance = 0;
  ASSERT_TRUE(runner_.RunUntil([&] {
    for (const auto& cmd : commands) {
      if (cmd.has_start_data_source())
        instance = cmd.start_data_source().new_instance_id();
    }
    return instance != 0 && !stream->replies.empty();
  })) << "the producer was never started, or the set-up never reported";
  runner_.RunUntilIdle();
  ASSERT_EQ(stream->replies.size(), 1u) << "a start not acknowledged yet was reported";
  EXPECT_THAT(Changes(stream->replies), ElementsAre("proc.a/ds: stopped"));
  EXPECT_FALSE(stream->replies[0].all_data_sources_started());

  protos::gen::NotifyDataSourceStartedRequest started;
  started.set_data_source_id(instance);
  producer->Invoke("NotifyDataSourceStarted", started.SerializeAsString(), nullptr,
                   /*drop_reply=*/true);
  ASSERT_TRUE(runner_.RunUntil([&] { return stream->replies.size() == 2; }))
      << "the acknowledged start was never reported";
  // One reply for the start and what it completed, as upstream's traced.
  EXPECT_THAT(Changes({stream->replies[1]}), ElementsAre("proc.a/ds: started"));
  EXPECT_TRUE(stream->replies[1].all_data_sources_started());

  order.clear();
  ASSERT_TRUE(CallAndWait(consumer, "DisableTracing", ""));
  ASSERT_TRUE(runner_.RunUntil([&] { return enabled_answered; }));
  ASSERT_EQ(stream->replies.size(), 3u);
  EXPECT_THAT(Changes({stream->replies[2]}), ElementsAre("proc.a/ds: stopped"));
  EXPECT_THAT(order, ElementsAre("observe", "enable")) << "the stop came after the session's end";
  EXPECT_FALSE(stream->ended) << "the stream lasts as long as the connection";
}

TEST_F(ConsumerObserveTest, CapabilitiesListBothEventsInUpstreamsOrder) {
  ipc::Client* consumer = Bind(host_->consumer_host(), "ConsumerPort");
  std::string reply;
  bool done = false;
  consumer->Invoke("QueryCapabilities", "", [&](ipc::Client::Response r) {
    done = true;
    reply = r.reply_proto;
  });
  ASSERT_TRUE(runner_.RunUntil([&] { return done; }));
  protos::gen::QueryCapabilitiesResponse resp;
  ASSERT_TRUE(resp.ParseFromString(reply));
  EXPECT_THAT(resp.capabilities().observable_events(),
              ElementsAre(ObservableEvents::TYPE_DATA_SOURCES_INSTANCES,
                          ObservableEvents::TYPE_ALL_DATA_SOURCES_STARTED));
}

TEST_F(ConsumerObserveTest, AllDataSourcesStartedAloneAsBefore) {
  std::vector<protos::gen::GetAsyncCommandResponse> commands;
  ipc::Client* producer = ConnectProducer("proc.a", &commands);
  RegisterDataSource(producer, "ds", /*will_notify_on_start=*/false);
  ipc::Client* consumer = Bind(host_->consumer_host(), "ConsumerPort");
  std::shared_ptr<Stream> stream =
      Observe(consumer, {ObservableEvents::TYPE_ALL_DATA_SOURCES_STARTED});
  consumer->Invoke("EnableTracing", EnableArgs({"ds"}), [](ipc::Client::Response) {});
  ASSERT_TRUE(runner_.RunUntil([&] { return !stream->replies.empty(); }))
      << "all_data_sources_started never came";
  runner_.RunUntilIdle();
  ASSERT_EQ(stream->replies.size(), 1u);
  EXPECT_TRUE(stream->replies[0].all_data_sources_started());
  EXPECT_TRUE(stream->replies[0].instance_state_changes().empty()) << "not asked for";

  // A client that asks just after EnableTracing (in the same read) is told
  // too, as our port always told it.
  ipc::Client* late = Bind(host_->consumer_host(), "ConsumerPort");
  late->Invoke("EnableTracing", EnableArgs({"ds"}), [](ipc::Client::Response) {});
  std::shared_ptr<Stream> late_stream =
      Observe(late, {ObservableEvents::TYPE_ALL_DATA_SOURCES_STARTED});
  ASSERT_TRUE(runner_.RunUntil([&] { return !late_stream->replies.empty(); }))
      << "all_data_sources_started never came to the client that asked second";
  EXPECT_TRUE(late_stream->replies[0].all_data_sources_started());
}

TEST_F(ConsumerObserveTest, ANewRequestEndsThePreviousStreamAndAnEmptyOneEndsAtOnce) {
  std::vector<protos::gen::GetAsyncCommandResponse> commands;
  ipc::Client* producer = ConnectProducer("proc.a", &commands);
  RegisterDataSource(producer, "ds", /*will_notify_on_start=*/false);
  ipc::Client* consumer = Bind(host_->consumer_host(), "ConsumerPort");
  std::shared_ptr<Stream> first =
      Observe(consumer, {ObservableEvents::TYPE_DATA_SOURCES_INSTANCES});
  consumer->Invoke("EnableTracing", EnableArgs({"ds"}), [](ipc::Client::Response) {});
  ASSERT_TRUE(runner_.RunUntil([&] { return Changes(first->replies).size() == 2; }));

  // Observing anew: the first stream ends (success, nothing in it), the
  // second starts with where the instance stands.
  std::shared_ptr<Stream> second =
      Observe(consumer, {ObservableEvents::TYPE_DATA_SOURCES_INSTANCES});
  ASSERT_TRUE(runner_.RunUntil([&] { return first->ended && !second->replies.empty(); }));
  EXPECT_TRUE(first->ended_successfully);
  EXPECT_TRUE(first->last_reply.empty());
  EXPECT_THAT(Changes(second->replies), ElementsAre("proc.a/ds: started"));

  // Nothing to observe: that stream ends at once, and so does the one before.
  std::shared_ptr<Stream> none = Observe(consumer, {});
  ASSERT_TRUE(runner_.RunUntil([&] { return none->ended && second->ended; }));
  EXPECT_TRUE(none->ended_successfully);
  ASSERT_TRUE(CallAndWait(consumer, "DisableTracing", ""));
  runner_.RunUntilIdle();
  EXPECT_EQ(Changes(second->replies).size(), 1u) << "a change reached an ended stream";
}

// A session with as many instances as a big system has: each reply stays
// far under the 128 KiB frame limit (a bigger frame would abort the daemon
// when sent), the changes arrive whole and in order, all_data_sources_started
// with the last.
TEST_F(ConsumerObserveTest, ManyChangesAreCutIntoRepliesUnderTheFrameLimit) {
  ProducerEndpoint* producer = ConnectInProcessProducer("proc.many");
  std::vector<std::string> names;
  for (int i = 0; i < 700; i++) {  // A config still under the frame limit.
    names.push_back("data.source." + std::to_string(i) + std::string(100, 'x'));
    protos::gen::DataSourceDescriptor descriptor;
    descriptor.set_name(names.back());
    producer->RegisterDataSource(descriptor);
  }
  ipc::Client* consumer = Bind(host_->consumer_host(), "ConsumerPort");
  std::shared_ptr<Stream> stream =
      Observe(consumer,
              {ObservableEvents::TYPE_DATA_SOURCES_INSTANCES,
               ObservableEvents::TYPE_ALL_DATA_SOURCES_STARTED});
  consumer->Invoke("EnableTracing", EnableArgs(names), [](ipc::Client::Response) {});
  ASSERT_TRUE(runner_.RunUntil([&] { return Changes(stream->replies).size() == 1400; }))
      << "got " << Changes(stream->replies).size() << " of 1400 changes";
  EXPECT_GT(stream->replies.size(), 4u);
  for (const ObservableEvents& reply : stream->replies)
    EXPECT_LE(reply.SerializeAsString().size(), 40u * 1024);
  // All set up, then all started (one EnableTracing, one batch).
  const std::vector<std::string> changes = Changes(stream->replies);
  for (size_t i = 0; i < names.size(); i++) {
    ASSERT_EQ(changes[i], "proc.many/" + names[i] + ": stopped");
    ASSERT_EQ(changes[names.size() + i], "proc.many/" + names[i] + ": started");
  }
  for (size_t i = 0; i + 1 < stream->replies.size(); i++)
    EXPECT_FALSE(stream->replies[i].all_data_sources_started());
  EXPECT_TRUE(stream->replies.back().all_data_sources_started());
}

TEST_F(ConsumerObserveTest, ANameNoFrameCouldCarryIsDroppedAndTheStreamGoesOn) {
  // Names a socket producer could never send (over 128 KiB together):
  // the one change is dropped, not sent in a frame over the limit.
  ProducerEndpoint* producer = ConnectInProcessProducer(std::string(100 * 1024, 'p'));
  protos::gen::DataSourceDescriptor huge;
  huge.set_name(std::string(100 * 1024, 'd'));
  producer->RegisterDataSource(huge);
  ipc::Client* consumer = Bind(host_->consumer_host(), "ConsumerPort");
  std::shared_ptr<Stream> stream =
      Observe(consumer, {ObservableEvents::TYPE_DATA_SOURCES_INSTANCES});
  consumer->Invoke("EnableTracing", EnableArgs({huge.name(), "small"}), [](ipc::Client::Response) {});
  runner_.RunUntilIdle();
  EXPECT_TRUE(stream->replies.empty());
  // A data source of a reasonable name on another producer still gets through.
  std::vector<protos::gen::GetAsyncCommandResponse> commands;
  RegisterDataSource(ConnectProducer("proc.b", &commands), "small", false);
  ASSERT_TRUE(runner_.RunUntil([&] { return Changes(stream->replies).size() == 2; }));
  EXPECT_THAT(Changes(stream->replies), ElementsAre("proc.b/small: stopped", "proc.b/small: started"));
}

// A client that stops reading while thousands of changes happen: the
// daemon queues up to its pacing limit, holds a bounded tail of the newest
// changes, drops the older ones and says how many; the client keeps its
// connection and its session, and once it reads again gets the newest
// changes, then the session's end.
TEST_F(ConsumerObserveTest, AClientThatDoesNotReadCostsTheDaemonABoundedQueue) {
  CapturedLog log;
  const std::string ds(1000, 'd');
  ProducerEndpoint* producer = ConnectInProcessProducer(std::string(1000, 'p'));
  SilentConsumer consumer(host_->consumer_host(), &runner_);
  ASSERT_TRUE(consumer.Bind());
  const uint64_t observe =
      consumer.Call("ObserveEvents", ObserveArgs({ObservableEvents::TYPE_DATA_SOURCES_INSTANCES}));
  const uint64_t enable = consumer.Call("EnableTracing", EnableArgs({ds, "marker"}));
  runner_.RunUntilIdle();

  // Each cycle: set up (stopped) and started, then unregistered (stopped):
  // three changes of about 2 KiB, in tasks of their own, as a producer
  // coming and going makes them. About 18 MiB in all.
  constexpr size_t kCycles = 3000;
  const size_t change_bytes = 2 * 1000 + 16;
  protos::gen::DataSourceDescriptor descriptor;
  descriptor.set_name(ds);
  for (size_t i = 0; i < kCycles; i++) {
    producer->RegisterDataSource(descriptor);
    runner_.RunUntilIdle();
    producer->UnregisterDataSource(ds);
    runner_.RunUntilIdle();
  }
  // The last two changes, to know when everything has been read.
  protos::gen::DataSourceDescriptor marker;
  marker.set_name("marker");
  producer->RegisterDataSource(marker);
  runner_.RunUntilIdle();
  ASSERT_EQ(host_->consumer_host()->num_clients(), 1u) << "the client lost its connection";

  // It reads again.
  size_t bytes_read = 0;
  const std::string last = std::string(1000, 'p') + "/marker: started";
  bool caught_up = false;
  for (int step = 0; step < 10000 && !caught_up; step++) {  // 100 s of virtual time at most.
    bytes_read += consumer.Drain();
    runner_.AdvanceTimeAndRunUntilIdle(10);  // The held stream's next look.
    const std::vector<std::string> changes = Changes(consumer.ObservedReplies(observe));
    caught_up = !changes.empty() && changes.back() == last;
  }
  ASSERT_TRUE(caught_up) << "the newest changes never came";

  const size_t generated = 3 * kCycles + 2;
  const size_t received = Changes(consumer.ObservedReplies(observe)).size();
  const uint64_t dropped = DroppedInLog(log.Contents());
  EXPECT_GT(dropped, 0u) << "nothing was dropped: the test did not fill the client's queue";
  EXPECT_EQ(received + dropped, generated) << "every change is either sent or counted";
  // What the daemon held for the client: its socket queue up to the pacing
  // limit (4 MiB, and a reply), the held tail (256 KiB) and the kernel's
  // buffer; not the ~18 MiB that happened.
  const size_t bound = (4u << 20) + (32u << 10) + (256u << 10) +
                       static_cast<size_t>(consumer.daemon_send_buffer()) + (64u << 10);
  EXPECT_LT(bytes_read, bound);
  EXPECT_GT(generated * change_bytes, 3 * bound) << "the test must overflow the bound";

  // The session survived: its end reaches the client.
  consumer.Call("DisableTracing", "");
  ASSERT_TRUE(runner_.RunUntil([&] {
    consumer.Drain();
    return consumer.Answered(enable);
  })) << "EnableTracing was never answered";
}

}  // namespace
}  // namespace zt
