// Detach and Attach on the consumer port, as upstream's `perfetto --detach`
// and `--attach` use them: a session outlives its consumer under a key and
// another consumer (same uid) takes it over, reads it, and hears its end.
// Also ChangeTraceConfig, the other call on a session that a consumer makes
// mid-way. Real sockets (socketpairs) into ServiceIpcHost, on virtual time.


#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/test/test_task_runner.h"
#include "src/ipc/client.h"
#include "src/tracing/ipc/port_test_fixture.h"
#include "src/tracing/ipc/service_ipc_host.h"
#include "zt/ipc/consumer_port.gen.h"

namespace zt {
namespace {

struct Answer {
  bool done = false;
  bool success = false;
  std::string reply;
};

class ConsumerDetachTest : public PortTest {
 protected:
  // A consumer client bound to the port.
  ipc::Client* NewConsumer() { return Bind(host_->consumer_host(), "ConsumerPort"); }

  // Invokes |method|; the answer (the last reply of a stream) lands in the
  // returned slot.
  std::shared_ptr<Answer> Call(ipc::Client* client, const std::string& method,
                               const std::string& args = "") {
    auto answer = std::make_shared<Answer>();
    client->Invoke(method, args, [answer](ipc::Client::Response r) {
      if (r.has_more)
        return;
      answer->done = true;
      answer->success = r.success;
      answer->reply = r.reply_proto;
    });
    return answer;
  }
  bool Wait(const std::shared_ptr<Answer>& answer) {
    return runner_.RunUntil([&] { return answer->done; });
  }

  static std::string EnableArgs(uint32_t duration_ms) {
    protos::gen::EnableTracingRequest req;
    req.mutable_trace_config()->add_buffers()->set_size_kb(64);
    req.mutable_trace_config()->set_duration_ms(duration_ms);
    return req.SerializeAsString();
  }
  static std::string KeyArgs(bool attach, const std::string& key) {
    if (attach) {
      protos::gen::AttachRequest req;
      req.set_key(key);
      return req.SerializeAsString();
    }
    protos::gen::DetachRequest req;
    req.set_key(key);
    return req.SerializeAsString();
  }
  static std::string NotificationOnlyArgs() {
    protos::gen::EnableTracingRequest req;
    req.set_attach_notification_only(true);
    return req.SerializeAsString();
  }

};

TEST_F(ConsumerDetachTest, ASessionOutlivesItsConsumerAndIsTakenOverByKey) {
  ipc::Client* first = NewConsumer();
  std::shared_ptr<Answer> enabled = Call(first, "EnableTracing", EnableArgs(10000));
  runner_.RunUntilIdle();
  std::shared_ptr<Answer> detached = Call(first, "Detach", KeyArgs(false, "k"));
  ASSERT_TRUE(Wait(detached));
  EXPECT_TRUE(detached->success);
  // A second Detach under a held key, or without a session, fails.
  std::shared_ptr<Answer> again = Call(first, "Detach", KeyArgs(false, "k"));
  ASSERT_TRUE(Wait(again));
  EXPECT_FALSE(again->success);
  clients_.front().reset();  // The consumer goes: the session does not.
  runner_.RunUntilIdle();

  ipc::Client* second = NewConsumer();
  std::shared_ptr<Answer> wrong = Call(second, "Attach", KeyArgs(true, "other"));
  ASSERT_TRUE(Wait(wrong));
  EXPECT_FALSE(wrong->success);
  std::shared_ptr<Answer> attached = Call(second, "Attach", KeyArgs(true, "k"));
  ASSERT_TRUE(Wait(attached));
  ASSERT_TRUE(attached->success);
  protos::gen::AttachResponse resp;
  ASSERT_TRUE(resp.ParseFromString(attached->reply));
  EXPECT_EQ(resp.trace_config().duration_ms(), 10000u) << "the session's own config";

  // The end of the session reaches the consumer that attached.
  std::shared_ptr<Answer> end = Call(second, "EnableTracing", NotificationOnlyArgs());
  runner_.RunUntilIdle();
  EXPECT_FALSE(end->done) << "the session still runs";
  std::shared_ptr<Answer> disabled = Call(second, "DisableTracing");
  ASSERT_TRUE(Wait(end)) << "the attached consumer never heard the session end";
  EXPECT_TRUE(end->success);
  protos::gen::EnableTracingResponse end_resp;
  ASSERT_TRUE(end_resp.ParseFromString(end->reply));
  EXPECT_TRUE(end_resp.disabled());
  std::shared_ptr<Answer> read = Call(second, "ReadBuffers");
  ASSERT_TRUE(Wait(read));
  EXPECT_TRUE(read->success);
  std::shared_ptr<Answer> freed = Call(second, "FreeBuffers");
  ASSERT_TRUE(Wait(freed));
  EXPECT_TRUE(freed->success);
}

TEST_F(ConsumerDetachTest, ASessionThatStoppedWhileDetachedIsToldAtOnce) {
  ipc::Client* first = NewConsumer();
  Call(first, "EnableTracing", EnableArgs(500));
  runner_.RunUntilIdle();
  std::shared_ptr<Answer> detached = Call(first, "Detach", KeyArgs(false, "done"));
  ASSERT_TRUE(Wait(detached));
  ASSERT_TRUE(detached->success);
  clients_.front().reset();
  runner_.AdvanceTimeAndRunUntilIdle(1000);  // Past its duration: it stops.

  ipc::Client* second = NewConsumer();
  std::shared_ptr<Answer> attached = Call(second, "Attach", KeyArgs(true, "done"));
  ASSERT_TRUE(Wait(attached));
  ASSERT_TRUE(attached->success) << "a stopped detached session is kept for its key";
  std::shared_ptr<Answer> end = Call(second, "EnableTracing", NotificationOnlyArgs());
  ASSERT_TRUE(Wait(end)) << "the end that came before the question was not kept";
  protos::gen::EnableTracingResponse end_resp;
  ASSERT_TRUE(end_resp.ParseFromString(end->reply));
  EXPECT_TRUE(end_resp.disabled());
}

// ChangeTraceConfig is answered: a failure without a session (the reason is
// logged), a success on a running one (what changes is the service's
// tracing_service_impl_unittest.cc).
TEST_F(ConsumerDetachTest, ChangeTraceConfigAnswersOnARunningSession) {
  ipc::Client* consumer = NewConsumer();
  protos::gen::ChangeTraceConfigRequest change;
  change.mutable_trace_config()->add_buffers()->set_size_kb(64);
  auto without_session = Call(consumer, "ChangeTraceConfig", change.SerializeAsString());
  ASSERT_TRUE(Wait(without_session));
  EXPECT_FALSE(without_session->success);

  Call(consumer, "EnableTracing", EnableArgs(/*duration_ms=*/0));
  auto changed = Call(consumer, "ChangeTraceConfig", change.SerializeAsString());
  ASSERT_TRUE(Wait(changed));
  EXPECT_TRUE(changed->success);
}

}  // namespace
}  // namespace zt
