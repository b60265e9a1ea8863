// The HTTP and websocket side of `ztrace serve` (docs/design/serve.md):
// one I/O thread (the caller of Run()) holds every connection; requests go
// to the ProcessorWorker in order, their answers come back through each
// connection's OutputGate. Upstream's endpoints: /status (answered here,
// from the worker's snapshot), /parse, /notify_eof, /query, /rpc,
// /restore_initial_tables, the metric and metatrace ones, and /websocket
// (the UI's RPC stream).
//
// Boost.Beast is included by rpc_server.cc alone.
//
// Thread-safety: Run() on one thread; Stop() and port() from any.

#ifndef ZT_SRC_CMD_ZTRACE_SERVE_RPC_SERVER_H_
#define ZT_SRC_CMD_ZTRACE_SERVE_RPC_SERVER_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "src/cmd/ztrace/serve/processor_worker.h"

namespace zt {
namespace ztrace {
namespace serve {

struct ServeOptions {
  std::string ip_address = "127.0.0.1";
  uint16_t port = 9001;  // 0: any free port (port() says which).
  std::vector<std::string> additional_origins;

  // Limits (docs/design/serve.md). Upstream's for bodies and messages.
  size_t max_body_bytes = size_t{64} << 20;
  size_t max_header_bytes = 64 * 1024;
  size_t max_header_fields = 32;
  size_t max_connections = 64;
  size_t max_queued_output_bytes = size_t{8} << 20;
  std::chrono::milliseconds output_stall{30000};
  // Long: a notebook may sit for a while between queries. Clients that
  // hold connections they do not use are closed at the connection limit.
  std::chrono::milliseconds idle_timeout{60 * 60 * 1000};
  // SIGINT and SIGTERM stop Run().
  bool handle_signals = true;
};

class RpcServer {
 public:
  // Listens (without serving yet). Null with *error if the address cannot
  // be bound.
  static std::unique_ptr<RpcServer> Create(const ServeOptions& options, ProcessorWorker* worker,
                                           std::string* error);
  ~RpcServer();
  RpcServer(const RpcServer&) = delete;
  RpcServer& operator=(const RpcServer&) = delete;

  uint16_t port() const;

  // Serves on the calling thread until Stop() or a signal. Every
  // connection is closed and the worker stopped before it returns.
  void Run();
  void Stop();

  // Connections open now (for tests and the status line).
  size_t connections() const;

 private:
  class Impl;
  explicit RpcServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace serve
}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_SERVE_RPC_SERVER_H_
