// libFuzzer target: a whole hostile client connection to an IPC Host. The
// input is what the client writes on its socket, in one go; the host
// reads it through its deserializer and dispatches every frame to a
// service with the shapes of methods the ports have (an answer, a stream,
// a reply dropped unanswered, drop_reply). Beyond "no crash, no leak, no
// out-of-bounds" (ASan/UBSan), it checks that the host either still serves
// the connection or closed it, and that a well-behaved second client is
// served afterwards.

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "src/base/test/test_task_runner.h"
#include "src/base/unix_socket.h"
#include "src/ipc/host.h"
#include "src/ipc/test/fuzz_connection.h"
#include "zt/base/logging.h"

namespace {

using zt::base::ScopedFile;
using zt::base::TestTaskRunner;
using zt::base::UnixSocket;
using zt::ipc::Frame;
using zt::ipc::Host;
using zt::ipc::fuzz::Check;
using zt::ipc::fuzz::Connect;
using zt::ipc::fuzz::DrainAndSeeClosed;

std::unique_ptr<zt::ipc::Service> MakeService() {
  auto service = std::make_unique<zt::ipc::Service>("ProducerPort");
  service->AddMethod("Answer", [](zt::ipc::Request& request, zt::ipc::Reply reply) {
    reply.Resolve(request.args);
  });
  service->AddMethod("Stream", [](zt::ipc::Request&, zt::ipc::Reply reply) {
    reply.Resolve("a", /*has_more=*/true);
    reply.Resolve("b");
  });
  service->AddMethod("Drop", [](zt::ipc::Request& request, zt::ipc::Reply) {
    request.received_fd->reset();  // Takes what came with the call, if anything.
  });
  return service;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The host logs each hostile connection it closes: at millions of inputs
  // that is gigabytes of noise and most of the time spent. The checks
  // below, not the log, are the verdict.
  zt::base::SetLogLevel(zt::base::LogLevel::kFatal);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  TestTaskRunner runner;
  std::unique_ptr<Host> host = Host::CreateUnbound();
  Check(host->ExposeService(MakeService()));

  ScopedFile hostile = Connect(host.get(), &runner);
  // The input fits the socket's buffer (libFuzzer's -max_len is 4096).
  Check(write(hostile.get(), data, size) == static_cast<ssize_t>(size));
  runner.RunUntilIdle();
  const bool closed = DrainAndSeeClosed(hostile.get());
  Check(host->num_clients() == (closed ? 0u : 1u));

  // Someone else is still served.
  ScopedFile good = Connect(host.get(), &runner);
  Frame bind;
  bind.set_request_id(1);
  bind.mutable_msg_bind_service()->set_service_name("ProducerPort");
  const std::string bytes = zt::ipc::SerializeFrame(bind);
  Check(write(good.get(), bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  runner.RunUntilIdle();
  zt::ipc::BufferedFrameDeserializer replies;
  char buf[4096];
  const ssize_t n = read(good.get(), buf, sizeof(buf));
  Check(n > 0 && replies.Receive(buf, static_cast<size_t>(n)));
  std::unique_ptr<Frame> reply = replies.PopNextFrame();
  Check(reply && reply->msg_bind_service_reply().success());
  return 0;
}
