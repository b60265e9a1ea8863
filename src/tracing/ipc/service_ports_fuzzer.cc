// libFuzzer target: hostile connections to the service's REAL ports: a
// ServiceIpcHost (ProducerPort and ConsumerPort, one TracingService behind
// them) whose hosts adopt one end of a socketpair per connection, on a
// virtual-time runner (deterministic: nothing runs unless pumped). Beyond
// "no crash, no leak, no out-of-bounds" (ASan/UBSan) and "no hang" (the
// runner aborts a RunUntilIdle that never becomes idle), it checks that
// each host still serves a connection or closed it, and that a
// well-behaved producer and consumer are served afterwards.
//
// Input: records, each
//   u8 flags  bit 0: to the consumer connection (else the producer one);
//             bit 1: a sealed memfd of the default SMB geometry (256 KiB,
//                    what InitializeConnection's producer_provided_shmem
//                    carries) goes with the bytes;
//             bit 2: then that connection is closed by the client (the
//                    next record to that port opens a new one);
//             bit 3: then virtual time moves 1 s (timeouts, periodic work);
//             bit 4: the bytes are not sent but written into the last memfd
//                    sent, at offset 4 * (their first u16, LE): a producer
//                    writing its own SMB (chunks for CommitData to name);
//   u16 LE length, then that many bytes (fewer if the input ends).
// After each record the runner is pumped until idle and both connections
// are drained, as a client that reads its replies. The seed corpus is
// written by SeedCorpus in service_ports_unittest.cc (valid sessions).

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "src/base/memfd_shared_memory.h"
#include "src/base/test/test_task_runner.h"
#include "src/base/unix_socket.h"
#include "src/ipc/frame.h"
#include "src/ipc/host.h"
#include "src/ipc/test/fuzz_connection.h"
#include "src/tracing/ipc/service_ipc_host.h"
#include "zt/base/logging.h"
#include "zt/ext/tracing/core/tracing_service.h"

namespace {

using zt::base::MemfdSharedMemory;
using zt::base::ScopedFile;
using zt::base::TestTaskRunner;
using zt::base::UnixSocket;
using zt::ipc::Frame;
using zt::ipc::Host;
using zt::ipc::fuzz::Check;
using zt::ipc::fuzz::Connect;
using zt::ipc::fuzz::DrainAndSeeClosed;

enum RecordFlags : uint8_t {
  kToConsumer = 1 << 0,
  kWithSmb = 1 << 1,
  kCloseAfter = 1 << 2,
  kAdvanceTime = 1 << 3,
  kIntoSmb = 1 << 4,
};

// Sends |size| bytes (the first sendmsg with |send_fd|, if not -1), pumping
// the runner whenever the socket is full so that the host reads. Stops if
// the host closed the connection.
void SendAll(int fd, const uint8_t* data, size_t size, int send_fd, TestTaskRunner* runner) {
  int stalls = 0;
  while (size > 0) {
    struct iovec iov = {const_cast<uint8_t*>(data), size};
    struct msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    if (send_fd >= 0) {
      msg.msg_control = control;
      msg.msg_controllen = sizeof(control);
      struct cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
      cmsg->cmsg_level = SOL_SOCKET;
      cmsg->cmsg_type = SCM_RIGHTS;
      cmsg->cmsg_len = CMSG_LEN(sizeof(int));
      memcpy(CMSG_DATA(cmsg), &send_fd, sizeof(int));
    }
    const ssize_t n = sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      data += n;
      size -= static_cast<size_t>(n);
      send_fd = -1;
      stalls = 0;
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
      return;  // The host closed it (EPIPE): what is left goes nowhere.
    // Full: the host reads everything it can while pumped, unless it is
    // stuck, which is a bug worth aborting on.
    Check(++stalls < 64);
    runner->RunUntilIdle();
    DrainAndSeeClosed(fd);
  }
}

// One connection of the fuzzer per port, opened on demand.
struct Connection {
  Host* host;
  ScopedFile fd;
};

// Reads every frame the host has sent on |fd| so far.
void ReadFrames(int fd, zt::ipc::BufferedFrameDeserializer* frames) {
  char buf[16384];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0)
      return;
    Check(frames->Receive(buf, static_cast<size_t>(n)));
  }
}

// A well-behaved client binds |service| on a new connection and calls
// |method| with empty args: the host must answer the bind and the call
// with success.
void CheckStillServed(Host* host, TestTaskRunner* runner, const std::string& service,
                      const std::string& method) {
  ScopedFile fd = Connect(host, runner);
  zt::ipc::BufferedFrameDeserializer frames;
  Frame bind;
  bind.set_request_id(1);
  bind.mutable_msg_bind_service()->set_service_name(service);
  std::string bytes = zt::ipc::SerializeFrame(bind);
  SendAll(fd.get(), reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), -1, runner);
  runner->RunUntilIdle();
  ReadFrames(fd.get(), &frames);
  std::unique_ptr<Frame> reply = frames.PopNextFrame();
  Check(reply && reply->msg_bind_service_reply().success());
  uint32_t method_id = 0;
  for (const auto& m : reply->msg_bind_service_reply().methods()) {
    if (m.name() == method)
      method_id = m.id();
  }
  Check(method_id != 0);
  Frame call;
  call.set_request_id(2);
  call.mutable_msg_invoke_method()->set_service_id(reply->msg_bind_service_reply().service_id());
  call.mutable_msg_invoke_method()->set_method_id(method_id);
  bytes = zt::ipc::SerializeFrame(call);
  SendAll(fd.get(), reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), -1, runner);
  runner->RunUntilIdle();
  ReadFrames(fd.get(), &frames);
  reply = frames.PopNextFrame();
  Check(reply && reply->request_id() == 2 && reply->msg_invoke_method_reply().success());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Every refused request logs a warning: noise at millions of inputs.
  zt::base::SetLogLevel(zt::base::LogLevel::kError);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  TestTaskRunner runner;
  std::unique_ptr<zt::ServiceIpcHost> host = zt::ServiceIpcHost::CreateUnbound(&runner);
  Check(host != nullptr);
  Connection connections[2] = {{host->producer_host(), ScopedFile()},
                               {host->consumer_host(), ScopedFile()}};
  // The producer's view of the last SMB it sent (it keeps it mapped).
  std::unique_ptr<MemfdSharedMemory> smb;
  const zt::TracingService::ShmGeometry geometry =
      zt::TracingService::ComputeShmGeometry(0, 0);

  while (size > 0) {
    const uint8_t flags = data[0];
    size_t len = size >= 3 ? (data[1] | static_cast<size_t>(data[2]) << 8) : 0;
    const size_t header = std::min<size_t>(size, 3);
    data += header;
    size -= header;
    len = std::min(len, size);
    const uint8_t* bytes = data;
    data += len;
    size -= len;

    Connection& c = connections[(flags & kToConsumer) ? 1 : 0];
    if (flags & kIntoSmb) {
      if (smb && len >= 2) {
        const size_t offset = 4 * (bytes[0] | static_cast<size_t>(bytes[1]) << 8);
        if (offset < smb->size())
          memcpy(smb->start() + offset, bytes + 2, std::min(len - 2, smb->size() - offset));
      }
    } else if (len > 0) {
      if (!c.fd)
        c.fd = Connect(c.host, &runner);
      int send_fd = -1;
      if (flags & kWithSmb) {
        smb = MemfdSharedMemory::Create(geometry.size);
        Check(smb != nullptr);
        send_fd = smb->fd();
      }
      SendAll(c.fd.get(), bytes, len, send_fd, &runner);
    }
    if ((flags & kCloseAfter) && c.fd)
      c.fd.reset();
    runner.RunUntilIdle();
    if (flags & kAdvanceTime)
      runner.AdvanceTimeAndRunUntilIdle(1000);
    for (Connection& conn : connections) {
      if (conn.fd && DrainAndSeeClosed(conn.fd.get()))
        conn.fd.reset();  // Closed by the host: the next record reconnects.
    }
  }
  runner.RunUntilIdle();
  for (Connection& conn : connections) {
    if (conn.fd && DrainAndSeeClosed(conn.fd.get()))
      conn.fd.reset();
    // Served, or closed: never a connection the host forgot or kept dead.
    Check(conn.host->num_clients() == (conn.fd ? 1u : 0u));
  }

  // Someone else is still served on both ports.
  CheckStillServed(host->consumer_host(), &runner, "ConsumerPort", "QueryCapabilities");
  CheckStillServed(host->producer_host(), &runner, "ProducerPort", "Sync");

  for (Connection& conn : connections)
    conn.fd.reset();
  runner.RunUntilIdle();
  host.reset();
  return 0;
}
