// Tracing sessions (zt/c/abi/tracing_session.h) over zt::TracingSession.

#include "zt/c/abi/tracing_session.h"

#include <memory>
#include <mutex>
#include <vector>

#include "zt/base/logging.h"
#include "zt/config/trace_config.gen.h"
#include "zt/tracing/tracing.h"

namespace {

// Behind the ABI's opaque PerfettoTracingSessionImpl (never defined: its
// layout is ours to change).
struct Session {
  std::unique_ptr<zt::TracingSession> session;
  // False once a config failed to parse: the session then never starts.
  bool config_ok = true;
  std::mutex mutex;  // Guards the stop callback's pair.
  PerfettoTracingSessionStopCb stop_cb = nullptr;
  void* stop_arg = nullptr;
  bool stop_told = false;
  PerfettoTracingSessionImpl* c() { return reinterpret_cast<PerfettoTracingSessionImpl*>(this); }
};

PerfettoTracingSessionImpl* Create(zt::BackendType backend, const char* what) {
  std::unique_ptr<zt::TracingSession> session = zt::Tracing::NewTrace(backend);
  if (!session) {
    ZT_ELOG("%s: that backend is not initialized (call PerfettoProducer%sInit first)", what,
            backend == zt::kInProcessBackend ? "InProcess" : "System");
    return nullptr;
  }
  Session* impl = new Session();
  impl->session = std::move(session);
  impl->session->SetOnStopCallback([impl] {
    PerfettoTracingSessionStopCb cb;
    void* arg;
    {
      std::lock_guard<std::mutex> lock(impl->mutex);
      if (impl->stop_told)
        return;  // Once per session (a session that never started was told).
      impl->stop_told = true;
      cb = impl->stop_cb;
      arg = impl->stop_arg;
    }
    if (cb)
      cb(impl->c(), arg);
  });
  return impl->c();
}

Session* Checked(PerfettoTracingSessionImpl* impl, const char* what) {
  if (impl == nullptr)
    ZT_FATAL("%s: the session is NULL", what);
  return reinterpret_cast<Session*>(impl);
}

// A session whose config did not parse has nothing to start; its stop is
// told at once, as for a session that ended on an error.
void StopUnstarted(Session* impl) {
  PerfettoTracingSessionStopCb cb;
  void* arg;
  {
    std::lock_guard<std::mutex> lock(impl->mutex);
    if (impl->stop_told)
      return;
    impl->stop_told = true;
    cb = impl->stop_cb;
    arg = impl->stop_arg;
  }
  if (cb)
    cb(impl->c(), arg);
}

}  // namespace

PerfettoTracingSessionImpl* PerfettoTracingSessionSystemCreate(void) {
  return Create(zt::kSystemBackend, "PerfettoTracingSessionSystemCreate");
}

PerfettoTracingSessionImpl* PerfettoTracingSessionInProcessCreate(void) {
  return Create(zt::kInProcessBackend, "PerfettoTracingSessionInProcessCreate");
}

void PerfettoTracingSessionSetup(PerfettoTracingSessionImpl* c_impl, void* cfg_begin,
                                 size_t cfg_len) {
  Session* impl = Checked(c_impl, "PerfettoTracingSessionSetup");
  zt::protos::gen::TraceConfig config;
  if ((cfg_begin == nullptr && cfg_len != 0) || !config.ParseFromArray(cfg_begin, cfg_len)) {
    ZT_ELOG("PerfettoTracingSessionSetup: the %zu bytes given are not a TraceConfig; the "
            "session will not start",
            cfg_len);
    impl->config_ok = false;
    return;
  }
  impl->config_ok = true;
  impl->session->Setup(config);
}

void PerfettoTracingSessionSetStopCb(PerfettoTracingSessionImpl* c_impl,
                                     PerfettoTracingSessionStopCb cb, void* user_arg) {
  Session* impl = Checked(c_impl, "PerfettoTracingSessionSetStopCb");
  std::lock_guard<std::mutex> lock(impl->mutex);
  impl->stop_cb = cb;
  impl->stop_arg = user_arg;
}

void PerfettoTracingSessionStartAsync(PerfettoTracingSessionImpl* c_impl) {
  Session* impl = Checked(c_impl, "PerfettoTracingSessionStartAsync");
  if (impl->config_ok)
    impl->session->Start();
}

void PerfettoTracingSessionStartBlocking(PerfettoTracingSessionImpl* c_impl) {
  Session* impl = Checked(c_impl, "PerfettoTracingSessionStartBlocking");
  if (impl->config_ok)
    impl->session->StartBlocking();
}

void PerfettoTracingSessionStopAsync(PerfettoTracingSessionImpl* c_impl) {
  Session* impl = Checked(c_impl, "PerfettoTracingSessionStopAsync");
  if (impl->config_ok)
    impl->session->Stop();
  else
    StopUnstarted(impl);
}

void PerfettoTracingSessionStopBlocking(PerfettoTracingSessionImpl* c_impl) {
  Session* impl = Checked(c_impl, "PerfettoTracingSessionStopBlocking");
  if (impl->config_ok)
    impl->session->StopBlocking();
  else
    StopUnstarted(impl);
}

void PerfettoTracingSessionFlushAsync(PerfettoTracingSessionImpl* c_impl, uint32_t timeout_ms,
                                      PerfettoTracingSessionFlushCb cb, void* user_arg) {
  Session* impl = Checked(c_impl, "PerfettoTracingSessionFlushAsync");
  impl->session->Flush(
      [c_impl, cb, user_arg](bool success) {
        if (cb)
          cb(c_impl, success, user_arg);
      },
      timeout_ms);
}

bool PerfettoTracingSessionFlushBlocking(PerfettoTracingSessionImpl* impl, uint32_t timeout_ms) {
  return Checked(impl, "PerfettoTracingSessionFlushBlocking")->session->FlushBlocking(timeout_ms);
}

void PerfettoTracingSessionReadTraceBlocking(PerfettoTracingSessionImpl* c_impl,
                                             PerfettoTracingSessionReadCb cb, void* user_arg) {
  Session* impl = Checked(c_impl, "PerfettoTracingSessionReadTraceBlocking");
  std::vector<char> trace;
  if (impl->config_ok)
    trace = impl->session->ReadTraceBlocking();
  if (cb)
    cb(c_impl, trace.data(), trace.size(), false, user_arg);
}

void PerfettoTracingSessionDestroy(PerfettoTracingSessionImpl* c_impl) {
  if (c_impl == nullptr)
    return;
  Session* impl = reinterpret_cast<Session*>(c_impl);
  // The SDK session stops first if still tracing, and its stop callback
  // (which points at impl) runs before the destructor returns.
  impl->session.reset();
  delete impl;
}
