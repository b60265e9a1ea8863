// zt::Tracing: the entry point of the SDK. Initialize() once per process,
// then register data sources (zt/tracing/data_source.h) and record traces
// with NewTrace():
//
//   #include "zt/config/trace_config.gen.h"       // to build the config
//   zt::TracingInitArgs args;
//   zt::Tracing::Initialize(args);            // In-process backend.
//   auto session = zt::Tracing::NewTrace();
//   session->Setup(config);                   // A protos::gen::TraceConfig.
//   session->StartBlocking();
//   ...                                       // The program runs, traced.
//   session->StopBlocking();
//   std::vector<char> trace = session->ReadTraceBlocking();
//
// The in-process backend runs the tracing service on a thread of its own
// inside the process; data goes through the same shared memory buffer and
// commit path as with a system service.
//
// Cost of including: the standard headers below and nothing generated (the
// config class is only declared here).

#ifndef ZT_TRACING_TRACING_H_
#define ZT_TRACING_TRACING_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace zt {
namespace protos {
namespace gen {
class TraceConfig;
}  // namespace gen
}  // namespace protos

// Where sessions run. Bit values follow Perfetto's, so code ported from it
// keeps its meaning.
enum BackendType : uint32_t {
  kUnspecifiedBackend = 0,
  // The tracing service on a thread inside this process.
  kInProcessBackend = 1u << 0,
  // kSystemBackend (1u << 1) is below.
};

namespace internal {
// kSystemBackend's bit, for code that must build without the system
// backend's library (the SDK itself).
constexpr BackendType kSystemBackendBit = static_cast<BackendType>(1u << 1);
// Defined only in the system backend's library (zerotrace::tracing_system),
// as kSystemBackendBit: a program that names kSystemBackend reads it, so
// that linking such a program without that library fails, and the
// linker's "undefined reference" names the library to link.
extern "C" const uint32_t zt_kSystemBackend_needs_zerotrace_tracing_system;
struct SystemBackendType {
  // Not constexpr: the read of the library's constant is the point.
  operator BackendType() const {
    return static_cast<BackendType>(zt_kSystemBackend_needs_zerotrace_tracing_system);
  }
};
}  // namespace internal

// A tracing daemon (ztraced, or Perfetto's traced) reached over its UNIX
// sockets ($PERFETTO_PRODUCER_SOCK_NAME / $PERFETTO_CONSUMER_SOCK_NAME,
// else /run/perfetto/traced-{producer,consumer}.sock or
// /tmp/perfetto-{producer,consumer}). Needs the system backend's library,
// zerotrace::tracing_system (pkg-config: zerotrace-system): a program that
// names kSystemBackend and links only zerotrace::tracing fails to link,
// with an undefined reference to
// zt_kSystemBackend_needs_zerotrace_tracing_system. It converts to
// BackendType like an enumerator (|, ==, NewTrace(kSystemBackend)), but is
// not a constant expression (no `case kSystemBackend:`). If no daemon
// runs, Initialize() still succeeds: one line on stderr says so, and the
// process connects when a daemon starts (and again if it restarts).
inline constexpr internal::SystemBackendType kSystemBackend{};

struct TracingInitArgs {
  // A bitwise or of BackendType values; at least one must be available.
  uint32_t backends = kInProcessBackend;
  // The shared memory buffer between the process's writers and the service.
  // 0 picks the defaults: 1 MiB of 4 KiB pages (upstream's SDK takes 256
  // KiB; measured, that stalls busy writers: docs/benchmarks.md). Larger
  // pages (up to 32 KiB) suit data sources that write packets of tens of
  // KiB.
  uint32_t shmem_size_hint_kb = 0;
  uint32_t shmem_page_size_hint_kb = 0;
  // Whether this process may start sessions on the system backend (its
  // producers trace into the daemon either way). False: NewTrace() for
  // the system backend returns null with a log line, for a program whose
  // sessions only `ztrace record` (or Perfetto's tools) should start.
  bool enable_system_consumer = true;
};

// One tracing session, seen from the process that controls it. Callbacks
// run on the SDK's tracing thread: keep them short, never block in them,
// and do not call the blocking methods, Tracing::NewTrace() or the
// session's destructor from them (that aborts with a message: each would
// wait for the thread it runs on); the other methods may be called from
// them. Thread-safe: methods may be called from any thread. Every callback
// given to a method is called exactly once, with an empty or failed answer
// if the session is destroyed or tracing shut down before the real one.
class TracingSession {
 public:
  // A session still tracing is stopped first, exactly as StopBlocking()
  // stops it: when the destructor returns, everything written so far is in
  // the trace (and in the file, which ends with the stats).
  virtual ~TracingSession();

  // Sets the config, and optionally a file descriptor the trace is written
  // into: the service then writes it periodically and at the end, and
  // ReadTrace() returns nothing. |fd| is not taken over: the session writes
  // into a duplicate (dup(2)) that it closes itself, so the caller still
  // owns |fd| and may close it as soon as Setup() returns. Call before
  // Start(); a second call replaces the config and the file. With
  // |config.deferred_start()| the data sources are set up right away (in
  // the background: Setup() does not wait) and started by Start(); the
  // session then exists, and a second Setup() is refused (a log line).
  virtual void Setup(const protos::gen::TraceConfig& config, int fd = -1) = 0;

  // Starts the session; the Blocking form returns once every matching data
  // source has started (each data source of this process acknowledges its
  // start; the service stops waiting for one after 5 s), or the session
  // ended.
  virtual void Start() = 0;
  virtual void StartBlocking() = 0;

  // Stops the data sources (waiting for deferred stops, bounded by the
  // config's stop timeout); the Blocking form returns when the session is
  // stopped. The buffers stay readable until the session is destroyed.
  virtual void Stop() = 0;
  virtual void StopBlocking() = 0;

  // Asks every producer to commit what it holds. |done(true)| when all
  // answered, |done(false)| on timeout (0: the config's, or 5 s).
  virtual void Flush(std::function<void(bool)> done, uint32_t timeout_ms = 0) = 0;
  virtual bool FlushBlocking(uint32_t timeout_ms = 0) = 0;

  // The packets read so far, encoded as a `Trace` message (a trace file's
  // bytes), in pieces: the last call has |has_more| false.
  struct ReadTraceCallbackArgs {
    const char* data = nullptr;
    size_t size = 0;
    bool has_more = false;
  };
  virtual void ReadTrace(std::function<void(ReadTraceCallbackArgs)> cb) = 0;
  virtual std::vector<char> ReadTraceBlocking() = 0;

  // The session's TraceStats, encoded (protos/zt/common/trace_stats.proto).
  struct GetTraceStatsCallbackArgs {
    bool success = false;
    std::vector<uint8_t> trace_stats_data;
  };
  virtual void GetTraceStats(std::function<void(GetTraceStatsCallbackArgs)> cb) = 0;
  virtual GetTraceStatsCallbackArgs GetTraceStatsBlocking() = 0;

  // Called when the session stops, by Stop(), duration_ms or an error.
  virtual void SetOnStopCallback(std::function<void()> cb) = 0;
  // Called with the reason when the service refuses or ends the session on
  // an error (a bad config, a failed file write, a daemon not reachable).
  // An error that came before the callback was set is told to it at once,
  // from within this call.
  virtual void SetOnErrorCallback(std::function<void(const std::string&)> cb) = 0;
};

class Tracing {
 public:
  // Starts the backends named in |args.backends|. True once tracing is
  // initialized with at least one backend; false, with a message on stderr,
  // if none of the requested backends is available. A call after a
  // successful one starts the backends it names that are not running yet
  // (its other arguments apply to those only; data sources registered
  // before reach them too) and returns true. Thread-safe.
  // After fork(), the child has none of the SDK's threads: until it calls
  // Initialize() itself (which then starts tracing afresh in the child;
  // data sources are registered again), NewTrace() returns null and
  // Register() false at once, each with a log line, Trace() writes nothing
  // and sessions inherited from the parent do nothing.
  static bool Initialize(const TracingInitArgs& args);
  static bool IsInitialized();

  // A new session on |backend| (unspecified: the first initialized one
  // that takes sessions). Null before Initialize(), if that backend was not
  // initialized, or for the system backend with enable_system_consumer
  // false.
  static std::unique_ptr<TracingSession> NewTrace(
      BackendType backend = kUnspecifiedBackend);

  // Activates |triggers| in every service this process is connected to:
  // sessions whose TraceConfig.trigger_config lists one start
  // (START_TRACING) or stop after the trigger's stop_delay_ms
  // (STOP_TRACING), and record it in their trace. Asynchronous: returns at
  // once; names no session lists are ignored. A backend not connected at
  // the time (a daemon not running yet) does not get them: there is no
  // queue (upstream's ttl_ms). Thread-safe; does nothing before
  // Initialize(). Costs: the service's trigger matching (~4 KB of code) is
  // linked only into programs that call this.
  static void ActivateTriggers(const std::vector<std::string>& triggers);

  // Tears the SDK down so that Initialize() can start it again (tests do
  // this between cases). Every session still tracing is stopped first, as
  // StopBlocking() would (its file is complete); sessions the caller still
  // holds then do nothing (Stop/Flush return at once, ReadTrace gives no
  // data) and may be destroyed at any time. Data sources must be
  // registered again after the next Initialize(). No other thread may call
  // into the SDK (Trace() included) while Shutdown() runs; writers that
  // threads still hold from before are retired safely on their next use.
  // Costs: the old shared memory buffer (1 MiB by default) stays
  // allocated, so that such writers never touch freed memory. Not from a
  // tracing callback (aborts with a message).
  static void Shutdown();
};

}  // namespace zt

#endif  // ZT_TRACING_TRACING_H_
