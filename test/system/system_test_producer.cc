// A producer process for the system-mode integration tests
// (system_mode_test.cc): connects to ztraced through the SDK's system
// backend, and for every session that starts its data source writes
// --packets packets on each of --threads threads, flushes, and prints
// "done <n>" (n counts sessions). With --forever it writes until killed
// instead, printing "writing" once data went out. Exits on SIGTERM.
//
// Packets are test events whose contents a reader can check: seq_value =
// producer id * 16 + thread, counter = index, str = Payload(seq, counter).

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "test/system/system_test_payload.h"
#include "zt/common/data_source_descriptor.gen.h"
#include "zt/trace/test_event.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/tracing/data_source.h"
#include "zt/tracing/tracing.h"

namespace {

std::mutex g_mutex;
std::condition_variable g_cv;
int g_starts = 0;
int g_stops = 0;

class SystemTestSource : public zt::DataSource<SystemTestSource> {
 public:
  // The tests count every packet: wait for the service rather than drop.
  static constexpr zt::BufferExhaustedPolicy kBufferExhaustedPolicy =
      zt::BufferExhaustedPolicy::kStallThenDrop;
  void OnStart(const StartArgs&) override {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_starts++;
    g_cv.notify_all();
  }
  void OnStop(const StopArgs&) override {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_stops++;
    g_cv.notify_all();
  }
};

void Write(uint32_t seq, uint32_t count, bool forever) {
  for (uint32_t i = 0; forever || i < count; i++) {
    SystemTestSource::Trace([&](SystemTestSource::TraceContext ctx) {
      auto packet = ctx.NewTracePacket();
      auto* event = packet->set_for_testing();
      event->set_seq_value(seq);
      event->set_counter(i);
      event->set_str(zt::test::SystemTestPayload(seq, i));
    });
    if (forever && i == 1000) {
      printf("writing\n");
      fflush(stdout);
    }
  }
  SystemTestSource::Trace([](SystemTestSource::TraceContext ctx) { ctx.Flush(); });
}

int Usage() {
  fprintf(stderr,
          "usage: system_test_producer --id N [--threads T] [--packets P] [--forever]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t id = 0, threads = 4, packets = 1000;
  bool forever = false, have_id = false;
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    if (arg == "--forever") {
      forever = true;
    } else if (i + 1 < argc && (arg == "--id" || arg == "--threads" || arg == "--packets")) {
      const uint32_t value = static_cast<uint32_t>(strtoul(argv[++i], nullptr, 10));
      if (arg == "--id") {
        id = value;
        have_id = true;
      } else if (arg == "--threads") {
        threads = value;
      } else {
        packets = value;
      }
    } else {
      return Usage();
    }
  }
  if (!have_id || threads == 0 || threads > 16)
    return Usage();

  zt::TracingInitArgs args;
  args.backends = zt::kSystemBackend;
  if (!zt::Tracing::Initialize(args))
    return 1;
  zt::protos::gen::DataSourceDescriptor descriptor;
  descriptor.set_name("zt.test.system");
  if (!SystemTestSource::Register(descriptor))
    return 1;

  // SIGTERM ends the process between sessions (the tests' way to stop it).
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, nullptr);
  std::thread([term] {
    int sig = 0;
    sigwait(&term, &sig);
    _exit(0);
  }).detach();

  for (int session = 1;; session++) {
    {
      std::unique_lock<std::mutex> lock(g_mutex);
      g_cv.wait(lock, [session] { return g_starts >= session; });
    }
    std::vector<std::thread> writers;
    for (uint32_t t = 0; t < threads; t++)
      writers.emplace_back(Write, id * 16 + t, packets, forever);
    for (std::thread& w : writers)
      w.join();
    printf("done %d\n", session);
    fflush(stdout);
    std::unique_lock<std::mutex> lock(g_mutex);
    g_cv.wait(lock, [session] { return g_stops >= session; });
  }
}
