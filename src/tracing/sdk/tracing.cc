// zt::Tracing and TracingSession: a session is a Consumer of a backend's
// service; its calls are posted to the muxer's task runner and its
// callbacks arrive there, each in a task of its own.

#include "zt/tracing/tracing.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "src/tracing/sdk/track_event_hook.h"
#include "src/tracing/sdk/tracing_muxer_impl.h"
#include "zt/base/logging.h"
#include "zt/config/trace_config.gen.h"

namespace zt {

TracingSession::~TracingSession() = default;

namespace {

using internal::MuxedSession;
using internal::TracingMuxerImpl;

class TracingSessionImpl : public TracingSession,
                           public Consumer,
                           public MuxedSession {
 public:
  TracingSessionImpl(TracingMuxerImpl* muxer, BackendType backend)
      : muxer_(muxer), runner_(muxer->task_runner()), backend_(backend) {
    runner_->PostTaskAndWait(
        [this, backend] { endpoint_ = muxer_->ConnectConsumer(backend, this); });
    muxer_->AddSession(this);
  }

  ~TracingSessionImpl() override {
    if (!detached()) {
      // A live session is stopped the way StopBlocking() stops it, so that
      // everything written so far is in the buffers (and in the file) when
      // the destructor returns: the program may exit right after.
      RefuseOnRunner("~TracingSession()");
      StopBlocking();
    }
    muxer_->RemoveSession(this);
    if (!detached()) {
      // Tasks posted before run first (FIFO); callbacks the service posts
      // after this find no endpoint and are dropped, so whoever still waits
      // for one gets an empty answer here.
      runner_->PostTaskAndWait([this] {
        *alive_ = false;  // A wait for the registrations finds it gone.
        endpoint_.reset();
        AnswerPendingCallbacks();
      });
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
      if (enabled_) {
        // With deferred_start the first Setup() created the session: its
        // config and file can no longer change.
        ZT_ELOG("TracingSession::Setup() called again after the session was "
                "set up (deferred_start): ignored; the first config and file stay");
        if (own_fd >= 0)
          close(own_fd);
        return;
      }
      // Copies, never assigns, a TraceConfig: its operator= would add ~2 KB
      // of code to every program (docs/benchmarks.md, build cost).
      config_.reset(new protos::gen::TraceConfig(config));
      if (fd >= 0)
        config_->set_write_into_file(true);
      if (fd_ >= 0)
        close(fd_);  // Setup() again: the new file replaces the old one.
      fd_ = own_fd;
      setup_error_ = error;
      deferred = config_->deferred_start();
    }
    // With deferred_start the session is created (buffers, data sources set
    // up) now and only started by Start().
    if (deferred)
      runner_->PostTask([this] { Enable(); });
  }

  void Start() override {
    if (!detached())
      runner_->PostTask([this] { StartOnRunner(); });
  }
  void StartBlocking() override {
    RefuseOnRunner("StartBlocking()");
    if (detached())
      return;
    Start();
    // Until every data source started (the service hears each one's
    // acknowledgement, or times it out) or the session ended.
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return all_started_ || stopped_ || detached(); });
  }

  void Stop() override {
    if (!detached())
      runner_->PostTask([this] { StopOnRunner(); });
  }
  void StopBlocking() override {
    RefuseOnRunner("StopBlocking()");
    if (detached())
      return;
    Stop();
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return stopped_ || detached(); });
  }

  void Flush(std::function<void(bool)> done, uint32_t timeout_ms) override {
    if (!done)
      done = [](bool) {};
    if (detached()) {
      done(false);
      return;
    }
    runner_->PostTask([this, done = std::move(done), timeout_ms]() mutable {
      if (!endpoint_) {
        done(false);
        return;
      }
      // Kept here too, so that a session destroyed (or shut down) before
      // the answer still answers it.
      const uint64_t token = next_flush_token_++;
      flush_callbacks_[token] = std::move(done);
      // Why, as upstream's SDK says it (its data sources read it from
      // FlushArgs::flush_flags): an explicit flush, from the SDK.
      endpoint_->FlushWithFlags(
          timeout_ms,
          [this, token](bool ok) {
            auto it = flush_callbacks_.find(token);
            if (it == flush_callbacks_.end())
              return;
            auto cb = std::move(it->second);
            flush_callbacks_.erase(it);
            cb(ok);
          },
          flush_flags::kReasonExplicit | flush_flags::kInitiatorConsumerSdk);
    });
  }
  bool FlushBlocking(uint32_t timeout_ms) override {
    RefuseOnRunner("FlushBlocking()");
    if (detached())
      return false;
    auto result = std::make_shared<Result<bool>>();
    Flush([result](bool ok) { result->Set(ok); }, timeout_ms);
    return result->Wait();
  }

  void ReadTrace(std::function<void(ReadTraceCallbackArgs)> cb) override {
    if (detached()) {
      cb(ReadTraceCallbackArgs());
      return;
    }
    runner_->PostTask([this, cb = std::move(cb)]() mutable {
      if (!endpoint_) {
        cb(ReadTraceCallbackArgs());
        return;
      }
      // Each ReadBuffers() is answered by batches ending in one with
      // has_more false, in the order asked.
      read_callbacks_.push_back(std::move(cb));
      endpoint_->ReadBuffers();
    });
  }
  std::vector<char> ReadTraceBlocking() override {
    RefuseOnRunner("ReadTraceBlocking()");
    if (detached())
      return {};
    auto result = std::make_shared<Result<std::vector<char>>>();
    auto data = std::make_shared<std::vector<char>>();
    ReadTrace([result, data](ReadTraceCallbackArgs args) {
      data->insert(data->end(), args.data, args.data + args.size);
      if (!args.has_more)
        result->Set(std::move(*data));
    });
    return result->Wait();
  }

  void GetTraceStats(std::function<void(GetTraceStatsCallbackArgs)> cb) override {
    if (detached()) {
      cb(GetTraceStatsCallbackArgs());
      return;
    }
    runner_->PostTask([this, cb = std::move(cb)]() mutable {
      if (!endpoint_) {
        cb(GetTraceStatsCallbackArgs());
        return;
      }
      stats_callbacks_.push_back(std::move(cb));
      endpoint_->GetTraceStats();
    });
  }
  GetTraceStatsCallbackArgs GetTraceStatsBlocking() override {
    RefuseOnRunner("GetTraceStatsBlocking()");
    if (detached())
      return {};
    auto result = std::make_shared<Result<GetTraceStatsCallbackArgs>>();
    GetTraceStats([result](GetTraceStatsCallbackArgs args) { result->Set(std::move(args)); });
    return result->Wait();
  }

  void SetOnStopCallback(std::function<void()> cb) override {
    std::lock_guard<std::mutex> lock(mutex_);
    on_stop_ = std::move(cb);
  }
  void SetOnErrorCallback(std::function<void(const std::string&)> cb) override {
    std::string early;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      on_error_ = std::move(cb);
      if (on_error_)
        early.swap(early_error_);
      cb = on_error_;
    }
    // An error that came before the callback (a daemon that was not there
    // when the session connected) is told at once.
    if (!early.empty())
      cb(early);
  }

  // MuxedSession (Tracing::Shutdown()).
  void ForgetAfterFork() override {
    // The endpoint is the parent's (its thread and socket): leaked.
    (void)endpoint_.release();
    detached_.store(true, std::memory_order_release);
  }

  void DetachFromService() override {  // Muxer thread.
    endpoint_.reset();
    AnswerPendingCallbacks();
    std::lock_guard<std::mutex> lock(mutex_);
    detached_.store(true, std::memory_order_release);
    cv_.notify_all();
  }

  // Consumer (muxer thread).
  void OnConnect() override {}
  // A system backend's daemon is gone (or was never there): the session
  // ends with an error, and whatever waits on it is answered.
  void OnDisconnect() override {
    OnTracingDisabled("lost the connection to the tracing service (is ztraced running?)");
    AnswerPendingCallbacks();
  }
  void OnTracingDisabled(const std::string& error) override {
    std::function<void()> on_stop;
    std::function<void(const std::string&)> on_error;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopped_)
        return;
      on_stop = on_stop_;
      on_error = on_error_;
      // Kept in the same step as the look for a callback, so that one set
      // meanwhile either is called here or finds the error.
      if (!error.empty() && !on_error)
        early_error_ = error;
    }
    // Callbacks first: StopBlocking() returns after they ran.
    if (!error.empty()) {
      if (on_error)
        on_error(error);
      else
        ZT_ELOG("tracing session ended: %s", error.c_str());
    }
    if (on_stop)
      on_stop();
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
    cv_.notify_all();
  }
  void OnAllDataSourcesStarted() override {
    std::lock_guard<std::mutex> lock(mutex_);
    all_started_ = true;
    cv_.notify_all();
  }
  void OnTraceData(std::vector<uint8_t> trace, bool has_more) override {
    if (read_callbacks_.empty())
      return;
    ReadTraceCallbackArgs args;
    args.data = reinterpret_cast<const char*>(trace.data());
    args.size = trace.size();
    args.has_more = has_more;
    if (has_more) {
      read_callbacks_.front()(args);
      return;
    }
    auto cb = std::move(read_callbacks_.front());
    read_callbacks_.erase(read_callbacks_.begin());
    cb(args);
  }
  void OnTraceStats(bool success, std::vector<uint8_t> stats) override {
    if (stats_callbacks_.empty())
      return;
    GetTraceStatsCallbackArgs args;
    args.success = success;
    args.trace_stats_data = std::move(stats);
    auto cb = std::move(stats_callbacks_.front());
    stats_callbacks_.erase(stats_callbacks_.begin());
    cb(std::move(args));
  }

 private:
  // A value a blocking call waits for, set once from the muxer thread.
  template <typename T>
  class Result {
   public:
    void Set(T value) {
      std::lock_guard<std::mutex> lock(mutex_);
      value_ = std::move(value);
      done_ = true;
      cv_.notify_all();
    }
    T Wait() {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [this] { return done_; });
      return std::move(value_);
    }

   private:
    std::mutex mutex_;
    std::condition_variable cv_;
    bool done_ = false;
    T value_{};
  };

  bool detached() const { return detached_.load(std::memory_order_acquire); }

  // Muxer thread, once the endpoint is gone: every answer still awaited is
  // given, empty (a read's last batch, failed stats, a failed flush).
  void AnswerPendingCallbacks() {
    auto reads = std::move(read_callbacks_);
    auto stats = std::move(stats_callbacks_);
    auto flushes = std::move(flush_callbacks_);
    read_callbacks_.clear();
    stats_callbacks_.clear();
    flush_callbacks_.clear();
    for (auto& cb : reads)
      cb(ReadTraceCallbackArgs());
    for (auto& cb : stats)
      cb(GetTraceStatsCallbackArgs());
    for (auto& entry : flushes)
      entry.second(false);
  }

  // A blocking call on the tracing thread would wait for itself: refuse it
  // with a message instead of hanging the process's tracing.
  // (A detached session's runner may be gone: Shutdown() joined it.)
  void RefuseOnRunner(const char* what) {
    if (!detached() && runner_->RunsTasksOnCurrentThread()) {
      ZT_FATAL("TracingSession::%s called on the tracing thread (from a "
               "tracing or data source callback): it would wait for itself. "
               "Call it from another thread, or use the non-blocking form.",
               what);
    }
  }

  // Creates the session on the service (once). Muxer thread.
  void Enable() {
    std::unique_ptr<protos::gen::TraceConfig> config;
    int fd;
    std::string error;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (enabled_)
        return;
      enabled_ = true;
      config = std::move(config_);
      fd = fd_;
      fd_ = -1;  // The service owns our duplicate now.
      error = setup_error_;
    }
    if (error.empty() && !config)
      error = "TracingSession: started without Setup()";
    if (!error.empty() || !endpoint_) {
      if (fd >= 0)
        close(fd);
      OnTracingDisabled(error);  // The session ends before it begins.
      return;
    }
    // Once the service has the data sources this process registered so
    // far (a daemon hears of them on another socket): otherwise it could
    // start the session without them, and StartBlocking() return before
    // they record.
    std::shared_ptr<protos::gen::TraceConfig> shared_config(config.release());
    std::shared_ptr<bool> alive = alive_;
    muxer_->WhenRegistrationsDelivered(backend_, [this, alive, shared_config, fd] {
      if (!*alive || !endpoint_) {
        if (fd >= 0)
          close(fd);
        if (*alive)
          OnTracingDisabled("");
        return;
      }
      endpoint_->EnableTracing(*shared_config, fd);
    });
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
    if (deferred) {
      if (endpoint_)
        endpoint_->StartTracing();  // Enabled at Setup() (deferred_start).
    } else {
      Enable();
    }
  }

  void StopOnRunner() {
    bool never_enabled;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      never_enabled = !enabled_;
      started_ = true;  // A Start() after Stop() does nothing.
    }
    if (never_enabled || !endpoint_) {
      OnTracingDisabled("");  // Nothing to stop: report it stopped.
      return;
    }
    endpoint_->DisableTracing();
  }

  TracingMuxerImpl* const muxer_;
  base::ThreadTaskRunner* const runner_;
  const BackendType backend_;
  // False once the destructor ran on the muxer thread (muxer thread only).
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  std::unique_ptr<ConsumerEndpoint> endpoint_;  // Muxer thread only.
  // Answers awaited, oldest first (muxer thread); a few at most, so
  // vectors (less code than deques).
  std::vector<std::function<void(ReadTraceCallbackArgs)>> read_callbacks_;
  std::vector<std::function<void(GetTraceStatsCallbackArgs)>> stats_callbacks_;
  std::map<uint64_t, std::function<void(bool)>> flush_callbacks_;
  uint64_t next_flush_token_ = 1;

  std::atomic<bool> detached_{false};  // Set by Tracing::Shutdown().

  std::mutex mutex_;
  std::condition_variable cv_;
  std::unique_ptr<protos::gen::TraceConfig> config_;  // Set by Setup().
  int fd_ = -1;  // Our duplicate of Setup()'s fd, until the service takes it.
  std::string setup_error_;
  bool enabled_ = false;  // EnableTracing sent.
  bool started_ = false;
  bool all_started_ = false;
  bool stopped_ = false;
  std::function<void()> on_stop_;
  std::function<void(const std::string&)> on_error_;
  std::string early_error_;  // An error no callback heard yet.
};

}  // namespace

bool Tracing::Initialize(const TracingInitArgs& args) {
  if (!TracingMuxerImpl::InitializeInstance(args))
    return false;
  // Registers the track event data source, in programs that use track
  // events (see track_event_hook.h). Once per muxer: a second call finds
  // the name taken and does nothing.
  if (internal::g_track_event_initializer)
    internal::g_track_event_initializer();
  return true;
}

void Tracing::Shutdown() { TracingMuxerImpl::ShutdownInstance(); }

bool Tracing::IsInitialized() {
  return internal::TracingMuxer::Get() != nullptr;
}

std::unique_ptr<TracingSession> Tracing::NewTrace(BackendType backend) {
  TracingMuxerImpl* muxer = TracingMuxerImpl::instance();
  if (!muxer)
    return nullptr;
  if (muxer->forked()) {
    ZT_ELOG("Tracing::NewTrace: this process was forked from the one that initialized "
            "tracing, whose tracing thread and service connections stayed there; call "
            "Tracing::Initialize() in the child to trace from it");
    return nullptr;
  }
  if (!muxer->TakesSessions(backend)) {
    if (muxer->HasBackend(backend)) {
      ZT_ELOG("Tracing::NewTrace: this process initialized the system backend "
              "with enable_system_consumer = false: it takes no sessions here");
    }
    return nullptr;
  }
  return std::unique_ptr<TracingSession>(new TracingSessionImpl(muxer, backend));
}

namespace internal {
void (*g_track_event_initializer)() = nullptr;
}  // namespace internal

}  // namespace zt
