#include "src/cmd/ztrace/serve/rpc_server.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <list>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include "src/cmd/ztrace/serve/http_session.h"
#include "src/cmd/ztrace/serve/server_connection.h"

namespace zt {
namespace ztrace {
namespace serve {

namespace {

// After the first SIGINT/SIGTERM the server shuts down cleanly; a second
// one ends the process at once, unless it comes within a second of the
// first: one stop often arrives twice (`timeout` and systemd signal the
// process and its group), and that is not a user insisting.
std::atomic<int64_t> g_first_stop_ns{0};
static_assert(std::atomic<int64_t>::is_always_lock_free, "read in a signal handler");

int64_t MonotonicNs() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);  // Async-signal-safe.
  return static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

void OnStopSignalWhileStopping(int signo) {
  if (MonotonicNs() - g_first_stop_ns >= 1000000000)
    _exit(128 + signo);
}

// Called instead of asio's handling: the stop signals are blocked in this
// thread while asio's handler is replaced by ours (the server's other
// threads block them for good), so one arriving meanwhile waits for ours
// rather than meeting the default action.
void HandleLaterStopSignals(boost::asio::signal_set* signals) {
  sigset_t stop, previous;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, &previous);
  boost::system::error_code ec;
  signals->clear(ec);
  g_first_stop_ns = MonotonicNs();
  struct sigaction action = {};
  action.sa_handler = OnStopSignalWhileStopping;
  action.sa_flags = SA_RESTART;  // An ignored one interrupts no system call.
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

}  // namespace

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
    if (options_.handle_signals) {
      // Now, before the caller says where the server listens: a stop sent
      // as soon as that is printed must find the handler (it met the
      // default action, an abrupt end, 60 times in 100). One that comes
      // before Run() waits for it.
      signals_.emplace(io_, SIGINT, SIGTERM);
      signals_->async_wait([this](const boost::system::error_code& signal_ec, int) {
        if (!signal_ec)
          Shutdown();
      });
    }
    policy_.emplace(options_.ip_address, port_, options_.additional_origins);
    context_.io = &io_;
    context_.worker = worker_;
    context_.options = &options_;
    context_.policy = &*policy_;
    context_.connections = &connections_;
    context_.body_pool = &body_pool_;
    context_.track = [this](const std::shared_ptr<rpc_server_internal::Connection>& c) {
      Track(c);
    };
    return true;
  }

  void Run() {
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
      HandleLaterStopSignals(&*signals_);  // A second Ctrl-C ends the process at once.
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
  rpc_server_internal::RequestBytesPool body_pool_;
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
