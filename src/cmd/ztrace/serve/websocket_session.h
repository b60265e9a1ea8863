// A websocket connection of `ztrace serve`: the UI's TraceProcessorRpc
// stream (docs/design/serve.md).
//
// Private to rpc_server.cc, its only includer: Boost.Beast is compiled in
// one translation unit (a TU with Beast costs ~6.6 s and ~425 MB to
// compile), so this header is split from it for reading, not for reuse.

#ifndef ZT_SRC_CMD_ZTRACE_SERVE_WEBSOCKET_SESSION_H_
#define ZT_SRC_CMD_ZTRACE_SERVE_WEBSOCKET_SESSION_H_

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

#include "src/cmd/ztrace/serve/server_connection.h"
#include "src/processor/rpc/rpc_stream_reader.h"

namespace zt {
namespace ztrace {
namespace serve {
namespace rpc_server_internal {

// ---------------------------------------------------------------------------
// Websocket: the UI's RPC stream. One message read at a time: the next is
// read once the processor thread has taken the last (the buffer is handed
// over without a copy).

class WebsocketSession : public Connection,
                         public QueuedOutput,
                         public std::enable_shared_from_this<WebsocketSession> {
 public:
  WebsocketSession(const ServerContext& context, beast::tcp_stream stream,
                   std::shared_ptr<OutputGate> gate)
      : Connection(context), QueuedOutput(std::move(gate)), ws_(std::move(stream)) {}

  void Start(http::request<RequestBody> request) {
    request_ = std::move(request);
    beast::get_lowest_layer(ws_).expires_never();  // The websocket's own timeouts.
    websocket::stream_base::timeout timeout{};
    timeout.handshake_timeout = std::chrono::seconds(30);
    timeout.idle_timeout = context_.options->idle_timeout;
    timeout.keep_alive_pings = true;  // Browsers answer pings: an open UI is not idle.
    ws_.set_option(timeout);
    ws_.set_option(websocket::stream_base::decorator(
        [](websocket::response_type& response) { response.set(http::field::server, "ztrace serve"); }));
    ws_.read_message_max(context_.options->max_body_bytes + 64);
    ws_.binary(true);
    ws_.async_accept(request_, [self = shared_from_this()](beast::error_code ec) {
      if (ec)
        return self->Close();
      self->Read();
    });
  }

  // Reset, not closed: what the kernel still holds for the client (a
  // stalled reader's unsent bytes) is dropped at once.
  void Abort() override { Close(/*reset=*/true); }

 private:
  void Read() {
    SetIdle(true);
    ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, size_t) {
      self->OnRead(ec);
    });
  }

  void OnRead(beast::error_code ec) {
    SetIdle(false);
    if (ec)
      return Close();
    auto self = shared_from_this();
    running_job_ = true;
    WatchForHangup(self, beast::get_lowest_layer(ws_).socket(), /*end_is_hangup=*/true);
    const auto data = buffer_.data();
    const uint8_t* bytes = static_cast<const uint8_t*>(data.data());
    const size_t size = data.size();
    context_.worker->Post(
        gate_,
        [self, bytes, size](RpcSession* session) {
          self->job_waited_ = {};
          const bool alive = session->OnRpcBytes(
              &self->reader_, bytes, size,
              [&self](std::string out) { SendFromWorker(self, std::move(out)); });
          asio::post(*self->context_.io, [self, alive] { self->OnProcessed(alive); });
        },
        [self] { asio::post(*self->context_.io, [self] { self->Close(); }); });
  }

  // I/O thread: the processor thread is done with the buffer.
  void OnProcessed(bool alive) {
    running_job_ = false;
    buffer_.consume(buffer_.size());
    if (closed_)
      return;
    if (alive)
      return Read();
    // A fatal error was queued: send it, then close.
    close_when_written_ = true;
    if (!writing())
      OnQueueEmpty();
  }

  size_t MaxBytesPerWrite() const override { return 0; }  // One message.
  void Write(const std::vector<asio::const_buffer>& buffers) override {
    // A client that reads nothing for the stall limit is cut off (the
    // websocket's own timeouts watch reads only).
    write_timer_.expires_after(context_.options->output_stall);
    write_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (!ec)
        self->CutOff("it read nothing for the stall limit");
    });
    ws_.async_write(buffers.front(), [self = shared_from_this()](beast::error_code ec, size_t) {
      self->write_timer_.cancel();
      if (ec || self->closed_)
        return self->Close(/*reset=*/true);
      self->WriteDone();
    });
  }

  void OnQueueEmpty() override {
    if (!close_when_written_ || closing_)
      return;
    closing_ = true;
    ws_.async_close(websocket::close_code::policy_error,
                    [self = shared_from_this()](beast::error_code) { self->Close(); });
  }

  void Close(bool reset = false) {
    if (closed_)
      return;
    closed_ = true;
    write_timer_.cancel();
    SetIdle(false);
    gate_->Close();
    DropQueue();
    beast::error_code ec;
    if (reset)
      beast::get_lowest_layer(ws_).socket().set_option(asio::socket_base::linger(true, 0), ec);
    beast::get_lowest_layer(ws_).socket().shutdown(tcp::socket::shutdown_both, ec);
    beast::get_lowest_layer(ws_).close();
  }

  websocket::stream<beast::tcp_stream> ws_;
  asio::steady_timer write_timer_{ws_.get_executor()};
  http::request<RequestBody> request_;
  beast::flat_buffer buffer_;
  processor::rpc::RpcStreamReader reader_;  // Processor thread only.
  bool close_when_written_ = false;
  bool closing_ = false;
};

}  // namespace rpc_server_internal
}  // namespace serve
}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_SERVE_WEBSOCKET_SESSION_H_
