#include "src/cmd/ztrace/serve/rpc_server.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <deque>
#include <functional>
#include <list>
#include <optional>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include "src/cmd/ztrace/serve/http_policy.h"
#include "src/processor/rpc/rpc_stream_reader.h"

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

  void Start(http::request<http::string_body> request) {
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
  http::request<http::string_body> request_;
  beast::flat_buffer buffer_;
  processor::rpc::RpcStreamReader reader_;  // Processor thread only.
  bool close_when_written_ = false;
  bool closing_ = false;
};

// ---------------------------------------------------------------------------
// HTTP/1.1: one request at a time per connection (keep-alive), the header
// checked before the body is read.

class HttpSession : public Connection,
                    public QueuedOutput,
                    public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(const ServerContext& context, tcp::socket socket)
      : Connection(context),
        QueuedOutput(std::make_shared<OutputGate>(context.options->max_queued_output_bytes,
                                                  context.options->output_stall)),
        stream_(std::move(socket)) {}

  void Start() { ReadHeader(); }
  // Reset, not closed: what the kernel still holds for the client (a
  // stalled reader's unsent bytes) is dropped at once.
  void Abort() override { Close(/*reset=*/true); }

 private:
  void ReadHeader() {
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(context_.options->max_header_bytes));
    parser_->body_limit(context_.options->max_body_bytes);
    response_complete_ = false;
    SetIdle(true);
    stream_.expires_after(context_.options->idle_timeout);
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = shared_from_this()](beast::error_code ec, size_t) {
                              self->OnHeader(ec);
                            });
  }

  // Answers a request that could not be read, then closes.
  bool AnswerReadError(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == asio::error::operation_aborted ||
        ec == beast::error::timeout || ec == asio::error::eof ||
        ec == asio::error::connection_reset) {
      Close();
      return true;
    }
    int status = 400;
    std::string why = "malformed HTTP request: " + ec.message();
    if (ec == http::error::header_limit) {
      status = 431;
      why = "request header over " + std::to_string(context_.options->max_header_bytes) +
            " bytes";
    } else if (ec == http::error::body_limit) {
      status = 413;
      why = "request body over " + std::to_string(context_.options->max_body_bytes >> 20) +
            " MiB (the largest message the protocol allows)";
    }
    RespondNow(status, why + "\n", {}, /*keep_alive=*/false);
    return true;
  }

  void OnHeader(beast::error_code ec) {
    SetIdle(false);
    if (ec) {
      AnswerReadError(ec);
      return;
    }
    const auto& header = parser_->get();
    size_t fields = 0;
    for (auto it = header.begin(); it != header.end(); ++it)
      fields++;
    if (fields > context_.options->max_header_fields) {
      RespondNow(431,
                 "more than " + std::to_string(context_.options->max_header_fields) +
                     " header fields\n",
                 {}, false);
      return;
    }
    const beast::string_view host = header[http::field::host];
    if (!context_.policy->HostAllowed(std::string_view(host.data(), host.size()))) {
      RespondNow(403,
                 "Host not allowed: ztrace serve answers requests addressed to 127.0.0.1, "
                 "localhost or [::1] only\n",
                 {}, false);
      return;
    }
    const beast::string_view origin = header[http::field::origin];
    origin_.assign(origin.data(), origin.size());
    if (!context_.policy->OriginAllowed(origin_)) {
      RespondNow(403, "Origin not allowed\n", {}, false);
      return;
    }
    // A page's request that carries no Origin (an <img>, a form, a link to
    // another site) must not reach the trace: browsers say where it came
    // from in Sec-Fetch-Site.
    const beast::string_view fetch_site = header["Sec-Fetch-Site"];
    if (origin_.empty() && (beast::iequals(fetch_site, "cross-site") ||
                            beast::iequals(fetch_site, "same-site"))) {
      RespondNow(403, "a request from another site needs an allowed Origin\n", {}, false);
      return;
    }
    if (beast::iequals(header[http::field::expect], "100-continue")) {
      // The client waits for this before it sends the body.
      std::string go_on = "HTTP/1.1 100 Continue\r\n\r\n";
      gate_->Add(go_on.size());
      Enqueue(std::move(go_on));
    }
    // A body in transit counts as idle: at the connection limit, a client
    // that sends one slowly (or never finishes) makes room for others.
    SetIdle(true);
    // Beast reads at most what the buffer has room for, and 512 bytes
    // when it has none: a large body is read 64 KiB at a time only if the
    // buffer has that room (a 1 GB trace was read at 180 MB/s without).
    if (parser_->content_length().value_or(0) > kLargeBodyRead)
      buffer_.reserve(kLargeBodyRead);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code read_ec, size_t) {
                       self->OnRequest(read_ec);
                     });
  }

  void OnRequest(beast::error_code ec) {
    SetIdle(false);
    if (ec) {
      AnswerReadError(ec);
      return;
    }
    stream_.expires_never();  // Answers are bounded by the gate's stall.
    auto& request = parser_->get();
    keep_alive_ = request.keep_alive();
    const beast::string_view full_target = request.target();
    std::string path(full_target.data(), full_target.size());
    const size_t question = path.find('?');
    if (question != std::string::npos)
      path.resize(question);

    if (websocket::is_upgrade(request)) {
      if (path != "/websocket") {
        RespondNow(404, "no websocket at " + path + " (the RPC stream is /websocket)\n", {},
                   false);
        return;
      }
      if (origin_.empty()) {
        RespondNow(403, "a websocket needs an allowed Origin\n", {}, false);
        return;
      }
      // The connection becomes the websocket's: this session lets go
      // of the socket and ends without closing it.
      handed_over_ = true;
      auto websocket_session =
          std::make_shared<WebsocketSession>(context_, std::move(stream_), gate_);
      context_.track(websocket_session);
      websocket_session->Start(parser_->release());
      return;
    }

    if (request.method() == http::verb::options) {
      RespondNow(204, "", PreflightHeaders(origin_), keep_alive_);
      return;
    }
    if (path == "/status") {
      RespondNow(200, context_.worker->StatusBytes(), ProtobufHeaders(), keep_alive_);
      return;
    }
    if (path == "/websocket") {
      RespondNow(400, "/websocket needs a websocket upgrade\n", {}, keep_alive_);
      return;
    }
    std::string unsupported;
    if (RpcSession::UnsupportedEndpoint(path, &unsupported)) {
      RespondNow(200, unsupported, ProtobufHeaders(), keep_alive_);
      return;
    }
    if (path == "/parse" || path == "/notify_eof" || path == "/restore_initial_tables" ||
        path == "/query" || path == "/rpc") {
      RunOnWorker(path, std::move(request.body()));
      return;
    }
    RespondNow(404, "no endpoint " + path + " (docs/design/serve.md lists them)\n", {},
               keep_alive_);
  }

  HttpHeaders ProtobufHeaders() const {
    HttpHeaders headers = CorsHeaders(origin_);
    headers.emplace_back("Content-Type", kProtobufType);
    return headers;
  }

  // The request runs on the processor thread; its answer streams back.
  void RunOnWorker(const std::string& path, std::string body) {
    auto self = shared_from_this();
    const HttpHeaders headers = ProtobufHeaders();
    const bool keep_alive = keep_alive_;
    running_job_ = true;
    // An HTTP client may half-close and still read: only errors end it
    // (a client gone for good is found by the probes of a long answer).
    WatchForHangup(self, stream_.socket(), /*end_is_hangup=*/false);
    context_.worker->Post(
        gate_,
        [self, path, body = std::move(body), headers, keep_alive](RpcSession* session) {
          self->job_waited_ = {};
          const auto* data = reinterpret_cast<const uint8_t*>(body.data());
          if (path == "/query" || path == "/rpc") {
            SendFromWorker(self, FormatResponse(200, headers, "", keep_alive, /*chunked=*/true));
            const auto send_chunk = [&self](std::string message) {
              SendFromWorker(self, FormatChunk(message));
            };
            if (path == "/query") {
              asio::post(*self->context_.io, [self] { self->StartProbing(); });
              session->Query(body, send_chunk);
              asio::post(*self->context_.io, [self] {
                self->probing_ = false;
                self->probe_timer_.cancel();
              });
            } else {
              processor::rpc::RpcStreamReader reader;  // Each /rpc body is a whole stream.
              session->OnRpcBytes(&reader, data, body.size(), send_chunk);
            }
            SendFromWorker(self, FormatChunk(""));
          } else {
            std::string result;
            if (path == "/parse") {
              result = session->AppendTraceData(data, body.size());
            } else if (path == "/notify_eof") {
              result = session->FinalizeTraceData();
            } else {
              session->RestoreInitialTables();
            }
            SendFromWorker(self, FormatResponse(200, headers, result, keep_alive));
          }
          asio::post(*self->context_.io, [self] { self->EndResponse(); });
        },
        [self] { asio::post(*self->context_.io, [self] { self->Close(); }); });
  }

  // I/O thread, while a query streams its answer: every second in which
  // nothing was written, a chunk of one unknown field (which the clients'
  // protobuf readers skip) goes out. A client that is gone for good
  // answers it with a reset, which ends the connection and interrupts its
  // query; one that half-closed its side reads on.
  void StartProbing() {
    probing_ = true;
    written_at_last_probe_ = bytes_written();
    probe_timer_.expires_after(std::chrono::seconds(1));
    probe_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec || !self->probing_ || self->closed_)
        return;
      if (self->bytes_written() == self->written_at_last_probe_ && !self->writing()) {
        std::string probe = FormatChunk(std::string("\x78\x00", 2));  // Field 15 = 0.
        self->gate_->Add(probe.size());
        self->Enqueue(std::move(probe));
      }
      self->StartProbing();
    });
  }

  // I/O thread: a whole answer at once.
  void RespondNow(int status, const std::string& body, HttpHeaders headers, bool keep_alive) {
    keep_alive_ = keep_alive;
    if (status >= 400 && status != 404) {
      headers.emplace_back("Content-Type", "text/plain; charset=utf-8");
    }
    std::string response = FormatResponse(status, headers, body, keep_alive);
    gate_->Add(response.size());
    Enqueue(std::move(response));
    EndResponse();
  }

  // I/O thread: the last bytes of the answer are queued.
  void EndResponse() {
    running_job_ = false;
    if (closed_)
      return;
    response_complete_ = true;
    if (!writing())
      OnQueueEmpty();
  }

  size_t MaxBytesPerWrite() const override { return 256 * 1024; }
  void Write(const std::vector<asio::const_buffer>& buffers) override {
    // A client that reads none of it for the stall limit is cut off (our
    // own timer: the stream's would close the socket gracefully, leaving
    // the unsent bytes to the kernel).
    write_timer_.expires_after(context_.options->output_stall);
    write_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (!ec)
        self->CutOff("it read nothing for the stall limit");
    });
    asio::async_write(stream_, buffers, [self = shared_from_this()](beast::error_code ec, size_t) {
      self->write_timer_.cancel();
      if (ec || self->closed_)
        return self->Close(/*reset=*/true);
      self->WriteDone();
    });
  }

  void OnQueueEmpty() override {
    if (!response_complete_ || closed_)
      return;
    if (keep_alive_)
      return ReadHeader();
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    Close();
  }

  void Close(bool reset = false) {
    if (closed_ || handed_over_)
      return;
    closed_ = true;
    probing_ = false;
    probe_timer_.cancel();
    write_timer_.cancel();
    SetIdle(false);
    gate_->Close();
    DropQueue();
    beast::error_code ec;
    if (reset)
      stream_.socket().set_option(asio::socket_base::linger(true, 0), ec);
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.close();
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::string origin_;
  asio::steady_timer write_timer_{stream_.get_executor()};
  asio::steady_timer probe_timer_{stream_.get_executor()};
  bool probing_ = false;
  uint64_t written_at_last_probe_ = 0;
  bool keep_alive_ = true;
  bool response_complete_ = false;
  bool handed_over_ = false;
};

}  // namespace rpc_server_internal

// ---------------------------------------------------------------------------

class RpcServer::Impl {
 public:
  Impl(const ServeOptions& options, ProcessorWorker* worker)
      : options_(options), worker_(worker), acceptor_(io_), retry_timer_(io_) {}

  bool Listen(std::string* error) {
    namespace asio = boost::asio;
    using tcp = asio::ip::tcp;
    boost::system::error_code ec;
    const asio::ip::address address = asio::ip::make_address(options_.ip_address, ec);
    if (ec) {
      *error = "\"" + options_.ip_address + "\" is not an IP address";
      return false;
    }
    const tcp::endpoint endpoint(address, options_.port);
    const std::string where = options_.ip_address + ":" + std::to_string(options_.port);
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec)
      acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec)
      acceptor_.bind(endpoint, ec);
    if (!ec)
      acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      *error = "cannot listen on " + where + ": " + ec.message();
      if (ec == asio::error::address_in_use)
        *error += " (another trace processor serving? choose another with --port)";
      return false;
    }
    port_ = acceptor_.local_endpoint(ec).port();
    policy_.emplace(options_.ip_address, port_, options_.additional_origins);
    context_.io = &io_;
    context_.worker = worker_;
    context_.options = &options_;
    context_.policy = &*policy_;
    context_.connections = &connections_;
    context_.track = [this](const std::shared_ptr<rpc_server_internal::Connection>& c) {
      Track(c);
    };
    return true;
  }

  void Run() {
    if (options_.handle_signals) {
      signals_.emplace(io_, SIGINT, SIGTERM);
      signals_->async_wait([this](const boost::system::error_code& ec, int) {
        if (!ec)
          Shutdown();
      });
    }
    Accept();
    io_.run();
    // Every connection is closed: the job running ends at its next send or
    // interrupt check; those waiting are dropped.
    worker_->Stop();
    io_.restart();
    io_.poll();  // What the last job posted: releases its connection.
  }

  void Stop() {
    boost::asio::post(io_, [this] { Shutdown(); });
  }

  uint16_t port() const { return port_; }
  size_t connections() const { return connections_.load(); }

 private:
  void Accept() {
    acceptor_.async_accept([this](boost::system::error_code ec,
                                  boost::asio::ip::tcp::socket socket) {
      if (stopping_)
        return;
      if (ec) {
        // Out of descriptors, or a connection reset before it was
        // taken: try again shortly rather than spin.
        retry_timer_.expires_after(std::chrono::milliseconds(100));
        retry_timer_.async_wait([this](const boost::system::error_code& timer_ec) {
          if (!timer_ec && !stopping_)
            Accept();
        });
        return;
      }
      if (connections_.load() >= options_.max_connections && !EvictIdlest()) {
        // Told, best effort, without waiting for a slow reader.
        static const std::string busy = FormatResponse(
            503, {{"Content-Type", "text/plain; charset=utf-8"}},
            "too many connections to ztrace serve\n", /*keep_alive=*/false);
        boost::system::error_code ignored;
        socket.non_blocking(true, ignored);
        socket.write_some(boost::asio::buffer(busy), ignored);
        socket.close(ignored);
      } else {
        // Answers are written whole (gathered): no reason to hold a
        // segment back for an acknowledgement (Nagle's algorithm would,
        // for 40 ms, at the end of every answer).
        boost::system::error_code ignored;
        socket.set_option(boost::asio::ip::tcp::no_delay(true), ignored);
        auto session = std::make_shared<rpc_server_internal::HttpSession>(context_,
                                                                          std::move(socket));
        Track(session);
        session->Start();
      }
      Accept();
    });
  }

  void Track(const std::shared_ptr<rpc_server_internal::Connection>& connection) {
    for (auto it = open_.begin(); it != open_.end();) {
      if (it->expired()) {
        it = open_.erase(it);
      } else {
        ++it;
      }
    }
    open_.push_back(connection);
  }

  // At the connection limit: closes the connection idle the longest, so
  // that clients holding connections they do not use cannot lock others
  // out. False if every connection is busy.
  bool EvictIdlest() {
    std::shared_ptr<rpc_server_internal::Connection> idlest;
    rpc_server_internal::Clock::time_point oldest = rpc_server_internal::Clock::time_point::max();
    for (auto& weak : open_) {
      auto connection = weak.lock();
      rpc_server_internal::Clock::time_point since;
      if (connection && connection->idle(&since) && since < oldest) {
        oldest = since;
        idlest = connection;
      }
    }
    if (!idlest)
      return false;
    idlest->Abort();
    return true;
  }

  void Shutdown() {
    if (stopping_)
      return;
    stopping_ = true;
    boost::system::error_code ec;
    acceptor_.close(ec);
    retry_timer_.cancel();
    if (signals_)
      signals_->clear(ec);  // A second Ctrl-C ends the process at once.
    for (auto& weak : open_) {
      if (auto connection = weak.lock())
        connection->Abort();
    }
    open_.clear();
  }

  ServeOptions options_;
  ProcessorWorker* worker_;
  // Before io_: connections still held by handlers that io_ destroys
  // touch these as they go.
  std::optional<HttpPolicy> policy_;
  rpc_server_internal::ServerContext context_;
  std::atomic<size_t> connections_{0};
  boost::asio::io_context io_{1};
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer retry_timer_;
  std::optional<boost::asio::signal_set> signals_;
  std::list<std::weak_ptr<rpc_server_internal::Connection>> open_;
  uint16_t port_ = 0;
  bool stopping_ = false;
};

std::unique_ptr<RpcServer> RpcServer::Create(const ServeOptions& options, ProcessorWorker* worker,
                                             std::string* error) {
  auto impl = std::make_unique<Impl>(options, worker);
  if (!impl->Listen(error))
    return nullptr;
  return std::unique_ptr<RpcServer>(new RpcServer(std::move(impl)));
}

RpcServer::RpcServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RpcServer::~RpcServer() = default;
uint16_t RpcServer::port() const { return impl_->port(); }
void RpcServer::Run() { impl_->Run(); }
void RpcServer::Stop() { impl_->Stop(); }
size_t RpcServer::connections() const { return impl_->connections(); }

}  // namespace serve
}  // namespace ztrace
}  // namespace zt
