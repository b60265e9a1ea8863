// A program written against Perfetto's SDK API (through
// zt/perfetto_compat.h) that traces into the system service, for
// perfetto_compat_system_test. It prints one line per step on stdout:
//   "consumer refused" | "consumer allowed"   NewTrace() on the system
//                                             backend, with
//                                             enable_system_consumer false
//   "waiting"            its observer waits for a session
//   "started"            OnSetup and OnStart were called, in that order
//   "done"               it wrote --events slices, named its process and
//                        flushed
//   "stopped"            OnStop was called; then it exits 0
// Any failure: a line on stderr and exit code 1.

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "zt/perfetto_compat.h"

PERFETTO_DEFINE_CATEGORIES(perfetto::Category("compat.system"));
PERFETTO_TRACK_EVENT_STATIC_STORAGE();

namespace {

// Bound on every wait: a test that goes wrong ends with a message.
constexpr auto kWaitLimit = std::chrono::seconds(60);

class SessionWaiter : public perfetto::TrackEventSessionObserver {
 public:
  void OnSetup(const perfetto::DataSourceBase::SetupArgs&) override { Record("setup"); }
  void OnStart(const perfetto::DataSourceBase::StartArgs&) override { Record("start"); }
  void OnStop(const perfetto::DataSourceBase::StopArgs&) override { Record("stop"); }

  // Waits until the callbacks so far are |expected|.
  bool WaitFor(const std::vector<std::string>& expected) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (cv_.wait_for(lock, kWaitLimit, [&] { return calls_.size() >= expected.size(); }) &&
        calls_ == expected) {
      return true;
    }
    std::string seen;
    for (const std::string& call : calls_)
      seen += " " + call;
    fprintf(stderr, "observer calls:%s (expected %zu)\n", seen.c_str(), expected.size());
    return false;
  }

 private:
  void Record(const char* call) {
    std::lock_guard<std::mutex> lock(mutex_);
    calls_.push_back(call);
    cv_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<std::string> calls_;
};

void Say(const char* line) {
  printf("%s\n", line);
  fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int events = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--events") == 0)
      events = atoi(argv[i + 1]);
  }

  perfetto::TracingInitArgs args;
  args.backends = perfetto::kSystemBackend;
  args.enable_system_consumer = false;
  if (!perfetto::Tracing::Initialize(args)) {
    fprintf(stderr, "Tracing::Initialize failed\n");
    return 1;
  }
  perfetto::TrackEvent::Register();
  Say(perfetto::Tracing::NewTrace(perfetto::kSystemBackend) ? "consumer allowed"
                                                             : "consumer refused");

  SessionWaiter waiter;
  perfetto::TrackEvent::AddSessionObserver(&waiter);
  Say("waiting");
  if (!waiter.WaitFor({"setup", "start"}) || !perfetto::TrackEvent::IsEnabled())
    return 1;
  Say("started");

  perfetto::ProcessTrack process = perfetto::ProcessTrack::Current();
  perfetto::protos::gen::TrackDescriptor desc = process.Serialize();
  desc.mutable_process()->set_process_name("compat-system-app");
  perfetto::TrackEvent::SetTrackDescriptor(process, desc);
  for (int i = 0; i < events; i++) {
    TRACE_EVENT("compat.system", "Step", "index", i);
    TRACE_COUNTER("compat.system", "Progress", i);
  }
  perfetto::TrackEvent::Flush();
  Say("done");

  if (!waiter.WaitFor({"setup", "start", "stop"}))
    return 1;
  perfetto::TrackEvent::RemoveSessionObserver(&waiter);
  Say("stopped");
  return 0;
}
