// What every `ztrace serve` client connection shares (docs/design/serve.md):
// the server context, the connection base (counting, idleness, hang-up
// watch, the stall rule), the output queue, and the processor thread's
// hand-over of answers through the connection's gate.
//
// Private to rpc_server.cc, its only includer: Boost.Beast is compiled in
// one translation unit (a TU with Beast costs ~6.6 s and ~425 MB to
// compile), so this header is split from it for reading, not for reuse.

#ifndef ZT_SRC_CMD_ZTRACE_SERVE_SERVER_CONNECTION_H_
#define ZT_SRC_CMD_ZTRACE_SERVE_SERVER_CONNECTION_H_

#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include "src/cmd/ztrace/serve/http_policy.h"
#include "src/cmd/ztrace/serve/output_gate.h"
#include "src/cmd/ztrace/serve/processor_worker.h"
#include "src/cmd/ztrace/serve/request_body.h"
#include "src/cmd/ztrace/serve/rpc_server.h"

namespace zt {
namespace ztrace {
namespace serve {
namespace rpc_server_internal {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace websocket = boost::beast::websocket;
using tcp = boost::asio::ip::tcp;
using processor::rpc::RpcSession;

constexpr char kProtobufType[] = "application/x-protobuf";
// Beast's largest read into a request's buffer.
constexpr size_t kLargeBodyRead = 64 * 1024;

using Clock = std::chrono::steady_clock;

class Connection;

// What the sessions need of the server; lives on the I/O thread.
struct ServerContext {
  asio::io_context* io = nullptr;
  ProcessorWorker* worker = nullptr;
  const ServeOptions* options = nullptr;
  const HttpPolicy* policy = nullptr;
  std::atomic<size_t>* connections = nullptr;
  RequestBytesPool* body_pool = nullptr;
  // Registers a connection made from another (a websocket upgrade).
  std::function<void(const std::shared_ptr<Connection>&)> track;
};

// A client connection (HTTP or websocket), counted while it lives.
class Connection {
 public:
  explicit Connection(const ServerContext& context) : context_(context) {
    context_.connections->fetch_add(1);
  }
  virtual ~Connection() { context_.connections->fetch_sub(1); }
  // I/O thread: close now (the server stops, or needs the slot).
  virtual void Abort() = 0;
  bool closed() const { return closed_; }
  const ServerContext& context() const { return context_; }
  // I/O thread: ends the connection (reset) and says why on the server's
  // log: the client sees only its connection reset.
  void CutOff(const char* why) {
    fprintf(stderr, "ztrace serve: a client was cut off: %s\n", why);
    Abort();
  }
  // I/O thread: whether the connection waits for its client's next
  // request, and since when. At the connection limit, the one idle the
  // longest makes room for a new one.
  bool idle(Clock::time_point* since) const {
    *since = idle_since_;
    return idle_;
  }

 protected:
  void SetIdle(bool idle) {
    idle_ = idle;
    if (idle)
      idle_since_ = Clock::now();
  }
  // I/O thread, while the client's request runs and nothing is read from
  // its socket: an error on it ends the connection, so that its query is
  // interrupted rather than run for nobody; so does the end of its stream
  // when `end_is_hangup` (a websocket; an HTTP client may half-close and
  // still read the answer). Bytes that come instead (a next request) end
  // the watch.
  template <typename Self>
  static void WatchForHangup(const std::shared_ptr<Self>& self, tcp::socket& socket,
                             bool end_is_hangup) {
    socket.async_wait(tcp::socket::wait_read, [self, &socket, end_is_hangup](beast::error_code ec) {
      if (ec || !self->running_job_)
        return;
      char byte;
      const ssize_t n = ::recv(socket.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
      if ((n == 0 && end_is_hangup) ||
          (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
        self->Abort();
    });
  }


 public:
  // Processor thread: after each wait on the client's gate, whether the
  // job has waited on this client longer than the stall limit in all while
  // other clients' requests wait behind it: then the client is cut off
  // (its query interrupted), so that no reader, however steady, holds the
  // processor thread from the others for long.
  bool HeldOthersTooLong(std::chrono::steady_clock::duration waited) {
    job_waited_ += waited;
    return job_waited_ > context_.options->output_stall && context_.worker->pending() > 1;
  }
  // Processor thread only: reset by each job.
  std::chrono::steady_clock::duration job_waited_{};

 protected:

  const ServerContext context_;
  bool running_job_ = false;
  bool closed_ = false;

 private:
  bool idle_ = false;
  Clock::time_point idle_since_;
};

// Output for one client: bytes the processor thread produces are counted
// in the gate, then queued here on the I/O thread and written in order.
// The derived class writes the buffers WriteQueued() hands it (the front
// item, or as many as it allows in one gathered write) and calls
// WriteDone() once they are out.
class QueuedOutput {
 public:
  explicit QueuedOutput(std::shared_ptr<OutputGate> gate) : gate_(std::move(gate)) {}
  virtual ~QueuedOutput() = default;

  OutputGate* gate() const { return gate_.get(); }
  // I/O thread: bytes counted in the gate, to be written after those queued.
  void Enqueue(std::string bytes) {
    queue_.push_back(std::move(bytes));
    if (!writing_)
      WriteQueued();
  }

 protected:
  // I/O thread.
  uint64_t bytes_written() const { return bytes_written_; }
  void WriteDone() {
    bytes_written_ += in_flight_bytes_;
    gate_->Drained(in_flight_bytes_);
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(in_flight_));
    in_flight_ = 0;
    in_flight_bytes_ = 0;
    if (!queue_.empty())
      return WriteQueued();
    writing_ = false;
    OnQueueEmpty();
  }
  bool writing() const { return writing_; }
  void DropQueue() {
    queue_.clear();
    writing_ = false;
    in_flight_ = 0;
    in_flight_bytes_ = 0;
  }

  // Bytes per write, at least one item: an HTTP response's pieces go out
  // together (one system call, one segment where they fit), up to a bound
  // that keeps a slow reader's progress visible to the write timeout; a
  // websocket's are messages, one per write.
  virtual size_t MaxBytesPerWrite() const = 0;
  virtual void Write(const std::vector<boost::asio::const_buffer>& buffers) = 0;
  virtual void OnQueueEmpty() = 0;

  std::shared_ptr<OutputGate> gate_;

 private:
  void WriteQueued() {
    writing_ = true;
    buffers_.clear();
    in_flight_ = 0;
    while (in_flight_ < queue_.size() &&
           (in_flight_ == 0 || in_flight_bytes_ + queue_[in_flight_].size() <= MaxBytesPerWrite())) {
      buffers_.emplace_back(queue_[in_flight_].data(), queue_[in_flight_].size());
      in_flight_bytes_ += queue_[in_flight_].size();
      in_flight_++;
    }
    Write(buffers_);
  }

  std::deque<std::string> queue_;
  std::vector<boost::asio::const_buffer> buffers_;
  size_t in_flight_ = 0;  // The front items being written.
  size_t in_flight_bytes_ = 0;
  uint64_t bytes_written_ = 0;
  bool writing_ = false;
};

// Processor thread: hands `bytes` to the session's queue on the I/O thread
// through its gate, then waits while the client is behind. A client that
// stalls, or holds the processor thread from others too long, is cut off:
// its gate closes (its query is interrupted) and its connection ends.
template <typename Session>
void SendFromWorker(const std::shared_ptr<Session>& self, std::string bytes) {
  OutputGate* gate = self->gate();
  if (!gate->Add(bytes.size()))
    return;
  asio::post(*self->context().io, [self, b = std::move(bytes)]() mutable {
    if (!self->closed())
      self->Enqueue(std::move(b));
  });
  const auto start = std::chrono::steady_clock::now();
  const bool kept = gate->WaitBelowLimit();
  const bool held_others = kept && self->HeldOthersTooLong(std::chrono::steady_clock::now() - start);
  if (!kept || held_others) {
    const char* why = held_others        ? "it read too slowly while others waited"
                      : gate->stalled() ? "it read nothing for the stall limit"
                                        : nullptr;  // It left.
    gate->Close();
    asio::post(*self->context().io, [self, why] {
      if (why && !self->closed())
        self->CutOff(why);
      else
        self->Abort();
    });
  }
}

}  // namespace rpc_server_internal
}  // namespace serve
}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_SERVE_SERVER_CONNECTION_H_
