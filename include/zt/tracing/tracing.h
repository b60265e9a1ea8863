// zt::Tracing: the entry point of the SDK. Initialize() once per process,
// then register data sources (zt/tracing/data_source.h) and record traces
// with NewTrace():
//
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

#ifndef ZT_TRACING_TRACING_H_
#define ZT_TRACING_TRACING_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "zt/config/trace_config.gen.h"

namespace zt {

enum BackendType : uint32_t {
  kUnspecifiedBackend = 0,
  kInProcessBackend = 1u << 0,
};

struct TracingInitArgs {
  uint32_t backends = kInProcessBackend;
  // The shared memory buffer between the process's writers and the service.
  // 0 picks the defaults: 256 KiB of 4 KiB pages. Larger pages (up to 32
  // KiB) suit data sources that write packets of tens of KiB.
  uint32_t shmem_size_hint_kb = 0;
  uint32_t shmem_page_size_hint_kb = 0;
};

// One tracing session, seen from the process that controls it. Callbacks
// run on the service's thread: keep them short, never block in them, and
// do not call the blocking methods or destroy the session from them (that
// aborts with a message). Thread-safe: methods may be called from any thread
// but the service's.
class TracingSession {
 public:
  virtual ~TracingSession();

  // Sets the config (and optionally a file descriptor the trace is written
  // into, owned from now on; the service then writes it periodically and at
  // the end, and ReadTrace() returns nothing). Call once, before Start().
  // With |config.deferred_start()| the data sources are set up now and
  // started by Start().
  virtual void Setup(const protos::gen::TraceConfig& config, int fd = -1) = 0;

  // Starts the session; the Blocking form returns once every matching data
  // source in this process has started.
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
  // an error (a bad config, a failed file write).
  virtual void SetOnErrorCallback(std::function<void(const std::string&)> cb) = 0;
};

class Tracing {
 public:
  // Starts the backends. Later calls do nothing. Thread-safe.
  static void Initialize(const TracingInitArgs& args);
  static bool IsInitialized();
  // A new session on |backend| (unspecified: the in-process one). Null
  // before Initialize().
  static std::unique_ptr<TracingSession> NewTrace(
      BackendType backend = kUnspecifiedBackend);
};

}  // namespace zt

#endif  // ZT_TRACING_TRACING_H_
