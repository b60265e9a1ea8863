// A scripted host for the IPC clients' tests (producer_ipc_client_unittest.cc,
// consumer_ipc_client_unittest.cc): ports that record every call a client
// sends and answer as upstream's service does in the v14 transcripts
// (../shared/docs/transcripts/), unless a test scripts them otherwise.
// Test-only.

#ifndef ZT_SRC_TRACING_IPC_SCRIPTED_PORT_H_
#define ZT_SRC_TRACING_IPC_SCRIPTED_PORT_H_

#include <unistd.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/scoped_file.h"
#include "src/base/test/test_task_runner.h"
#include "src/ipc/host.h"

namespace zt {
namespace test {

// An abstract socket address no other test (or process) uses.
inline std::string UniqueAddress() {
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
inline const std::vector<std::string> kProducerMethods = {
    "InitializeConnection",    "RegisterDataSource",      "UnregisterDataSource",
    "CommitData",              "GetAsyncCommand",         "RegisterTraceWriter",
    "UnregisterTraceWriter",   "NotifyDataSourceStarted", "NotifyDataSourceStopped",
    "ActivateTriggers",        "Sync"};
inline const std::vector<std::string> kConsumerMethods = {
    "EnableTracing", "DisableTracing", "ReadBuffers",   "FreeBuffers",       "Flush",
    "StartTracing",  "ChangeTraceConfig", "Detach",     "Attach",            "GetTraceStats",
    "ObserveEvents", "QueryServiceState", "QueryCapabilities", "SaveTraceForBugreport",
    "CloneSession"};


// A fixture serving one ScriptedPort on a fresh abstract address, on a
// virtual-time runner (nothing runs unless the test runs it).
class ScriptedHostTest : public ::testing::Test {
 protected:
  // Listens at address_ and exposes port_ as |service| with |methods|
  // (script port_.handlers first).
  void Serve(const std::string& service, const std::vector<std::string>& methods) {
    address_ = UniqueAddress();
    host_ = ipc::Host::Listen(address_, &runner_);
    ASSERT_NE(host_, nullptr);
    ASSERT_TRUE(host_->ExposeService(port_.Make(service, methods)));
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
};

}  // namespace test
}  // namespace zt

#endif  // ZT_SRC_TRACING_IPC_SCRIPTED_PORT_H_
