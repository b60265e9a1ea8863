// libFuzzer target: any bytes a local client can send to `ztrace serve`'s
// socket (HTTP requests, pipelined or cut short, websocket upgrades and
// frames after them), through the real listener: Beast's parser with our
// limits, the origin and host policy, the endpoints and the processor
// thread. One server for the run; each input is one connection that sends
// the bytes, ends its side, and reads until the server closes. The server
// must answer or close within the bound (no hang), and keep serving: each
// input ends with a /status on a fresh connection that must get a 200.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "src/cmd/ztrace/serve/processor_worker.h"
#include "src/cmd/ztrace/serve/rpc_server.h"

namespace {

using zt::ztrace::serve::ProcessorWorker;
using zt::ztrace::serve::RpcServer;
using zt::ztrace::serve::ServeOptions;

void Check(bool cond, const char* what) {
  if (!cond) {
    fprintf(stderr, "http_listener_fuzzer: %s\n", what);
    abort();
  }
}

struct Server {
  Server() {
    signal(SIGPIPE, SIG_IGN);
    ServeOptions options;
    options.port = 0;
    options.handle_signals = false;
    // Small enough that limits are reached by fuzzed inputs.
    options.max_body_bytes = 64 * 1024;
    options.max_header_bytes = 2048;
    options.output_stall = std::chrono::milliseconds(2000);
    std::string error;
    server = RpcServer::Create(options, &worker, &error);
    Check(server != nullptr, "cannot listen");
    port = server->port();
    thread = std::thread([this] { server->Run(); });
    thread.detach();  // Runs for the whole process.
  }
  ProcessorWorker worker;
  std::unique_ptr<RpcServer> server;
  std::thread thread;
  uint16_t port = 0;
};

int Connect(uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  Check(fd >= 0, "socket");
  timeval timeout{10, 0};  // An answer (or a close) must come within it.
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  // Interrupted by libFuzzer's timer, a connect goes on in the background:
  // retried, it reports EISCONN (or EALREADY while still going).
  int rc;
  while ((rc = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr))) != 0 &&
         (errno == EINTR || errno == EALREADY)) {
  }
  if (rc != 0 && errno != EISCONN) {
    fprintf(stderr, "http_listener_fuzzer: connect: %s\n", strerror(errno));
    abort();
  }
  return fd;
}

// Reads until the server closes; false on the timeout (or another error,
// said on stderr). A signal is no error: libFuzzer's timer (SIGALRM, its
// -timeout check) interrupts a recv now and then, which once failed a run
// as "unanswered" after 13 s and 19,565 inputs (2026-11-30).
bool ReadToEnd(int fd, std::string* out) {
  char buffer[16384];
  for (;;) {
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n == 0)
      return true;
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      if (errno == ECONNRESET)
        return true;
      fprintf(stderr, "http_listener_fuzzer: recv: %s\n", strerror(errno));
      return false;
    }
    if (out)
      out->append(buffer, static_cast<size_t>(n));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Server* server = new Server();
  {
    const int fd = Connect(server->port);
    send(fd, data, size, MSG_NOSIGNAL);
    shutdown(fd, SHUT_WR);
    // A websocket stays open after its side ended only until the server
    // reads the end; HTTP closes after the answer. Either way: bounded.
    Check(ReadToEnd(fd, nullptr), "no answer and no close within 10 s");
    close(fd);
  }
  const int fd = Connect(server->port);
  const std::string status = "GET /status HTTP/1.1\r\nHost: 127.0.0.1:" +
                             std::to_string(server->port) + "\r\nConnection: close\r\n\r\n";
  send(fd, status.data(), status.size(), MSG_NOSIGNAL);
  std::string reply;
  Check(ReadToEnd(fd, &reply), "/status unanswered after an input");
  Check(reply.rfind("HTTP/1.1 200", 0) == 0, "/status did not answer 200 after an input");
  close(fd);
  return 0;
}
