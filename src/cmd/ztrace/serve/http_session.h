// An HTTP/1.1 connection of `ztrace serve`: the REST endpoints, /rpc, and
// the upgrade to a websocket (docs/design/serve.md).
//
// Private to rpc_server.cc, its only includer: Boost.Beast is compiled in
// one translation unit (a TU with Beast costs ~6.6 s and ~425 MB to
// compile), so this header is split from it for reading, not for reuse.

#ifndef ZT_SRC_CMD_ZTRACE_SERVE_HTTP_SESSION_H_
#define ZT_SRC_CMD_ZTRACE_SERVE_HTTP_SESSION_H_

#include <errno.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
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
#include "src/cmd/ztrace/serve/server_connection.h"
#include "src/cmd/ztrace/serve/websocket_session.h"
#include "src/processor/rpc/rpc_stream_reader.h"

namespace zt {
namespace ztrace {
namespace serve {
namespace rpc_server_internal {

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
    // A large body (a piece of a trace) goes to storage kept from the last.
    if (parser_->content_length().value_or(0) > kLargeBodyRead) {
      buffer_.reserve(kLargeBodyRead);
      parser_->get().body() = context_.body_pool->Take();
    }
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
    context_.body_pool->Keep(request.body());
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
  void RunOnWorker(const std::string& path, std::shared_ptr<RequestBytes> body) {
    if (!body)  // A request without a body never made one.
      body = std::make_shared<RequestBytes>();
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
          const uint8_t* data = body->data();
          if (path == "/query" || path == "/rpc") {
            SendFromWorker(self, FormatResponse(200, headers, "", keep_alive, /*chunked=*/true));
            const auto send_chunk = [&self](std::string message) {
              SendFromWorker(self, FormatChunk(message));
            };
            if (path == "/query") {
              asio::post(*self->context_.io, [self] { self->StartProbing(); });
              session->Query(body->view(), send_chunk);
              asio::post(*self->context_.io, [self] {
                self->probing_ = false;
                self->probe_timer_.cancel();
              });
            } else {
              processor::rpc::RpcStreamReader reader;  // Each /rpc body is a whole stream.
              session->OnRpcBytes(&reader, data, body->size(), send_chunk);
            }
            SendFromWorker(self, FormatChunk(""));
          } else {
            std::string result;
            if (path == "/parse") {
              result = session->AppendTraceData(data, body->size());
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
  std::optional<http::request_parser<RequestBody>> parser_;
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
}  // namespace serve
}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_SERVE_HTTP_SESSION_H_
