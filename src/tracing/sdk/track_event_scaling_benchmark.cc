// How TRACE_EVENT's per-thread cost holds up as writer threads are added
// (issue 32, docs/benchmarks.md "Track events: writer threads"): the
// in-process backend at the SDK's default settings (1 MiB SMB, the default
// stall-then-drop policy), a DISCARD buffer large enough for every event,
// and T threads each making N scoped slices at once. Per thread it reports
// the CPU time per slice (the thread's own clock, so threads waiting for a
// core are not charged for it) and the time it stalled waiting for a free
// chunk; per run, the events the trace holds against those made.
//
//   track_event_scaling_benchmark [--threads 1,2,4,8,16] [--slices N]
//
// Exit status 1 if any run lost an event or a thread failed to start.

#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "src/base/test/wait.h"
#include "src/tracing/sdk/track_event_writer_common.h"
#include "zt/config/trace_config.gen.h"
#include "zt/trace/trace.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/tracing/track_event.h"
#include "zt/tracing/tracing.h"

ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(0), zt::Category{"bench"});
ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(0));

namespace {

__attribute__((noinline)) void Slice() { TRACE_EVENT("bench", "slice"); }

uint64_t ThreadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// What one writer thread measured.
struct ThreadResult {
  uint64_t cpu_ns = 0;
  uint64_t stall_ns = 0;
};

struct RunResult {
  std::vector<ThreadResult> threads;
  double wall_s = 0;
  uint64_t events_made = 0;
  uint64_t events_found = 0;
};

std::unique_ptr<zt::TracingSession> StartSession(uint64_t events) {
  zt::protos::gen::TraceConfig config;
  auto* buffer = config.add_buffers();
  // A slice's two packets take ~40 bytes in the buffer; with room to spare.
  buffer->set_size_kb(static_cast<uint32_t>(events * 32 / 1024 + 8192));
  buffer->set_fill_policy(zt::protos::gen::TraceConfig_BufferConfig_FillPolicy_DISCARD);
  config.add_data_sources()->mutable_config()->set_name("track_event");
  auto session = zt::Tracing::NewTrace();
  session->Setup(config);
  session->StartBlocking();
  return session;
}

uint64_t CountTrackEvents(const std::vector<char>& trace) {
  uint64_t count = 0;
  zt::protos::pbzero::Trace_Decoder decoder(reinterpret_cast<const uint8_t*>(trace.data()),
                                            trace.size());
  for (auto it = decoder.packet(); it; ++it) {
    zt::protos::pbzero::TracePacket_Decoder packet(*it);
    count += packet.has_track_event();
  }
  return count;
}

RunResult Run(size_t num_threads, uint64_t slices) {
  RunResult result;
  result.threads.resize(num_threads);
  result.events_made = num_threads * slices * 2;
  std::unique_ptr<zt::TracingSession> session = StartSession(result.events_made);
  std::atomic<size_t> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (size_t t = 0; t < num_threads; t++) {
    threads.emplace_back([&, t] {
      ready++;
      while (!go.load(std::memory_order_acquire))
        std::this_thread::yield();
      const uint64_t start = ThreadCpuNs();
      for (uint64_t i = 0; i < slices; i++)
        Slice();
      result.threads[t].cpu_ns = ThreadCpuNs() - start;
      const zt::internal::TrackEventSequence* seq = zt::internal::t_hot_sequence.seq;
      if (seq && seq->writer)
        result.threads[t].stall_ns = seq->writer->stats().stall_ns;
    });
  }
  if (!zt::base::WaitFor([&] { return ready.load() == num_threads; })) {
    fprintf(stderr, "track_event_scaling_benchmark: threads did not start\n");
    exit(1);
  }
  const auto wall_start = std::chrono::steady_clock::now();
  go.store(true, std::memory_order_release);
  for (std::thread& thread : threads)
    thread.join();
  result.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  session->StopBlocking();
  result.events_found = CountTrackEvents(session->ReadTraceBlocking());
  return result;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

void Usage() {
  fprintf(stderr,
          "usage: track_event_scaling_benchmark [--threads 1,2,4,8,16] [--slices N]\n"
          "  --threads LIST  writer thread counts, one run each (default 1,2,4,8,16)\n"
          "  --slices N      scoped slices per thread per run (default 500000)\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<size_t> thread_counts = {1, 2, 4, 8, 16};
  uint64_t slices = 500000;
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc) {
      thread_counts.clear();
      for (const char* p = argv[++i]; *p;) {
        char* end = nullptr;
        const unsigned long n = strtoul(p, &end, 10);
        if (end == p || n == 0 || n > 256) {
          fprintf(stderr, "track_event_scaling_benchmark: bad --threads '%s'\n", argv[i]);
          return 2;
        }
        thread_counts.push_back(n);
        p = *end == ',' ? end + 1 : end;
      }
    } else if (arg == "--slices" && i + 1 < argc) {
      slices = strtoull(argv[++i], nullptr, 10);
      if (slices == 0) {
        fprintf(stderr, "track_event_scaling_benchmark: bad --slices '%s'\n", argv[i]);
        return 2;
      }
    } else {
      Usage();
      return arg == "--help" || arg == "-h" ? 0 : 2;
    }
  }
  zt::Tracing::Initialize(zt::TracingInitArgs());  // The SDK's defaults.

  printf("scoped slices, %llu per thread; %u CPUs; in-process backend, default SMB\n",
         static_cast<unsigned long long>(slices), std::thread::hardware_concurrency());
  printf("threads | CPU ns/slice per thread: median  max  vs 1 | stall ms per thread: "
         "median  max | wall s | events made  lost\n");
  // Untimed: the first session pays for the pages of the SMB and the
  // buffer, and the first thread's sequence for its setup.
  Run(1, std::min<uint64_t>(slices, 100000));
  double first_median = 0;
  bool lost_any = false;
  for (size_t n : thread_counts) {
    const RunResult r = Run(n, slices);
    std::vector<double> cpu, stall;
    for (const ThreadResult& t : r.threads) {
      cpu.push_back(static_cast<double>(t.cpu_ns) / static_cast<double>(slices));
      stall.push_back(static_cast<double>(t.stall_ns) / 1e6);
    }
    const double median = Median(cpu);
    if (first_median == 0)
      first_median = median;
    const uint64_t lost = r.events_made - std::min(r.events_made, r.events_found);
    lost_any |= r.events_found != r.events_made;
    printf("%7zu | %33.1f %5.1f %4.2fx | %26.2f %5.2f | %6.2f | %11llu %5llu\n", n, median,
           *std::max_element(cpu.begin(), cpu.end()), median / first_median, Median(stall),
           *std::max_element(stall.begin(), stall.end()), r.wall_s,
           static_cast<unsigned long long>(r.events_made), static_cast<unsigned long long>(lost));
    fflush(stdout);
  }
  return lost_any ? 1 : 0;
}
