// zt::Tracing and the in-process TracingSession: a Consumer of the service
// whose calls are posted to the service's task runner.

#include "zt/tracing/tracing.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <condition_variable>
#include <mutex>
#include <utility>

#include "src/tracing/sdk/tracing_muxer_impl.h"
#include "src/tracing/service/service_packets.h"
#include "zt/common/trace_stats.gen.h"
#include "zt/config/trace_config.gen.h"

namespace zt {

TracingSession::~TracingSession() = default;

namespace {

using internal::InProcessSession;
using internal::TracingMuxerImpl;

class TracingSessionImpl : public TracingSession,
                           public Consumer,
                           public InProcessSession {
 public:
  explicit TracingSessionImpl(TracingMuxerImpl* muxer)
      : muxer_(muxer), runner_(muxer->task_runner()) {
    runner_->PostTaskAndWait([this] {
      endpoint_ = muxer_->service()->ConnectConsumer(
          this, static_cast<int32_t>(getuid()));
    });
    muxer_->AddSession(this);
  }

  ~TracingSessionImpl() override {
    muxer_->RemoveSession(this);
    if (!detached()) {
      if (runner_->RunsTasksOnCurrentThread()) {
        // From one of its own callbacks: the service is in the middle of a
        // call on this session. Refuse clearly rather than corrupt memory.
        fprintf(stderr,
                "zt: a TracingSession was destroyed on the tracing service's "
                "thread (from one of its callbacks); destroy it elsewhere\n");
        abort();
      }
      // Tasks posted before run first (FIFO), so none outlives |this|.
      runner_->PostTaskAndWait([this] { endpoint_.reset(); });
    }
    if (fd_ >= 0)
      close(fd_);
  }

  void Setup(const protos::gen::TraceConfig& config, int fd) override {
    if (detached())
      return;
    // Our own duplicate: the caller keeps |fd| (as with Perfetto's SDK, code
    // that closes its fd after Setup() must not close ours twice).
    int own_fd = -1;
    std::string error;
    if (fd >= 0) {
      own_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
      if (own_fd < 0) {
        error = std::string("TracingSession::Setup: cannot duplicate fd ") +
                std::to_string(fd) + ": " + strerror(errno);
      }
    }
    bool deferred;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      config_ = config;
      if (fd >= 0)
        config_.set_write_into_file(true);
      if (fd_ >= 0)
        close(fd_);  // Setup() again: the new file replaces the old one.
      fd_ = own_fd;
      setup_error_ = error;
      deferred = config_.deferred_start();
    }
    // With deferred_start the session is created (buffers, data sources set
    // up) now and only started by Start().
    if (deferred)
      runner_->PostTaskAndWait([this] { Enable(); });
  }

  void Start() override {
    if (!detached())
      runner_->PostTask([this] { StartOnRunner(); });
  }
  void StartBlocking() override {
    if (!detached())
      runner_->PostTaskAndWait([this] { StartOnRunner(); });
  }

  void Stop() override {
    if (!detached())
      runner_->PostTask([this] { StopOnRunner(); });
  }
  void StopBlocking() override {
    if (detached())
      return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopped_)
        return;
    }
    Stop();
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return stopped_; });
  }

  void Flush(std::function<void(bool)> done, uint32_t timeout_ms) override {
    if (detached()) {
      done(false);
      return;
    }
    runner_->PostTask([this, done = std::move(done), timeout_ms]() mutable {
      endpoint_->Flush(timeout_ms, std::move(done));
    });
  }
  bool FlushBlocking(uint32_t timeout_ms) override {
    if (detached())
      return false;
    std::mutex m;
    std::condition_variable cv;
    bool done = false, result = false;
    Flush(
        [&](bool ok) {
          std::lock_guard<std::mutex> lock(m);
          done = true;
          result = ok;
          cv.notify_all();
        },
        timeout_ms);
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return done; });
    return result;
  }

  void ReadTrace(std::function<void(ReadTraceCallbackArgs)> cb) override {
    if (detached()) {
      cb(ReadTraceCallbackArgs());
      return;
    }
    runner_->PostTask([this, cb = std::move(cb)]() mutable {
      read_cb_ = std::move(cb);
      endpoint_->ReadBuffers();  // Delivers every batch before returning.
      read_cb_ = nullptr;
    });
  }
  std::vector<char> ReadTraceBlocking() override {
    std::vector<char> out;
    if (detached())
      return out;
    runner_->PostTaskAndWait([&] {
      read_cb_ = [&](ReadTraceCallbackArgs args) {
        out.insert(out.end(), args.data, args.data + args.size);
      };
      endpoint_->ReadBuffers();
      read_cb_ = nullptr;
    });
    return out;
  }

  void GetTraceStats(std::function<void(GetTraceStatsCallbackArgs)> cb) override {
    if (detached()) {
      cb(GetTraceStatsCallbackArgs());
      return;
    }
    runner_->PostTask([this, cb = std::move(cb)]() mutable {
      stats_cb_ = std::move(cb);
      endpoint_->GetTraceStats();
      stats_cb_ = nullptr;
    });
  }
  GetTraceStatsCallbackArgs GetTraceStatsBlocking() override {
    GetTraceStatsCallbackArgs result;
    if (detached())
      return result;
    runner_->PostTaskAndWait([&] {
      stats_cb_ = [&](GetTraceStatsCallbackArgs args) { result = std::move(args); };
      endpoint_->GetTraceStats();
      stats_cb_ = nullptr;
    });
    return result;
  }

  void SetOnStopCallback(std::function<void()> cb) override {
    std::lock_guard<std::mutex> lock(mutex_);
    on_stop_ = std::move(cb);
  }
  void SetOnErrorCallback(std::function<void(const std::string&)> cb) override {
    std::lock_guard<std::mutex> lock(mutex_);
    on_error_ = std::move(cb);
  }

  // InProcessSession (Tracing::Shutdown()).
  void DetachFromService() override {  // Service thread.
    endpoint_.reset();
    detached_.store(true, std::memory_order_release);
  }

  // Consumer (service thread).
  void OnConnect() override {}
  void OnDisconnect() override {}
  void OnTracingDisabled(const std::string& error) override {
    std::function<void()> on_stop;
    std::function<void(const std::string&)> on_error;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      on_stop = on_stop_;
      on_error = on_error_;
    }
    // Callbacks first: StopBlocking() returns after they ran.
    if (!error.empty() && on_error)
      on_error(error);
    if (on_stop)
      on_stop();
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
    cv_.notify_all();
  }
  void OnTraceData(std::vector<ConsumerPacket> packets, bool has_more) override {
    std::vector<uint8_t> bytes;
    for (const ConsumerPacket& p : packets)
      AppendAsTracePacketField(p.data, &bytes);
    if (read_cb_) {
      ReadTraceCallbackArgs args;
      args.data = reinterpret_cast<const char*>(bytes.data());
      args.size = bytes.size();
      args.has_more = has_more;
      read_cb_(args);
    }
  }
  void OnTraceStats(bool success, const protos::gen::TraceStats& stats) override {
    if (!stats_cb_)
      return;
    GetTraceStatsCallbackArgs args;
    args.success = success;
    const std::string bytes = stats.SerializeAsString();
    args.trace_stats_data.assign(bytes.begin(), bytes.end());
    stats_cb_(std::move(args));
  }

 private:
  bool detached() const { return detached_.load(std::memory_order_acquire); }

  // Creates the session on the service (once).
  void Enable() {
    protos::gen::TraceConfig config;
    int fd;
    std::string error;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (enabled_)
        return;
      enabled_ = true;
      config = config_;
      fd = fd_;
      fd_ = -1;  // The service owns our duplicate now.
      error = setup_error_;
    }
    if (!error.empty()) {
      OnTracingDisabled(error);  // The session ends before it begins.
      return;
    }
    endpoint_->EnableTracing(config, fd);
  }

  void StartOnRunner() {
    bool deferred;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (started_ || stopped_)
        return;
      started_ = true;
      deferred = enabled_;
    }
    if (deferred)
      endpoint_->StartTracing();  // Enabled at Setup() (deferred_start).
    else
      Enable();
  }

  void StopOnRunner() {
    bool never_enabled;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      never_enabled = !enabled_;
      started_ = true;  // A Start() after Stop() does nothing.
    }
    if (never_enabled) {
      OnTracingDisabled("");  // Nothing to stop: report it stopped.
      return;
    }
    endpoint_->DisableTracing();
  }

  TracingMuxerImpl* const muxer_;
  base::ThreadTaskRunner* const runner_;
  std::unique_ptr<ConsumerEndpoint> endpoint_;  // Runner thread only.
  std::function<void(ReadTraceCallbackArgs)> read_cb_;       // Runner thread.
  std::function<void(GetTraceStatsCallbackArgs)> stats_cb_;  // Runner thread.

  std::atomic<bool> detached_{false};  // Set by Tracing::Shutdown().

  std::mutex mutex_;
  std::condition_variable cv_;
  protos::gen::TraceConfig config_;
  int fd_ = -1;  // Our duplicate of Setup()'s fd, until the service takes it.
  std::string setup_error_;
  bool enabled_ = false;  // EnableTracing sent.
  bool started_ = false;
  bool stopped_ = false;
  std::function<void()> on_stop_;
  std::function<void(const std::string&)> on_error_;
};

}  // namespace

bool Tracing::Initialize(const TracingInitArgs& args) {
  return TracingMuxerImpl::InitializeInstance(args);
}

void Tracing::Shutdown() { TracingMuxerImpl::ShutdownInstance(); }

bool Tracing::IsInitialized() {
  return internal::TracingMuxer::Get() != nullptr;
}

std::unique_ptr<TracingSession> Tracing::NewTrace(BackendType backend) {
  TracingMuxerImpl* muxer = TracingMuxerImpl::instance();
  // The in-process backend is the only one so far: it is "the first
  // initialized" whenever tracing is initialized at all.
  if (!muxer || (backend != kUnspecifiedBackend && backend != kInProcessBackend))
    return nullptr;
  return std::unique_ptr<TracingSession>(new TracingSessionImpl(muxer));
}

}  // namespace zt
