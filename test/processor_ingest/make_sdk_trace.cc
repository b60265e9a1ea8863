// Writes a large track-event trace with zerotrace's SDK, in process, for the
// processor's ingest benchmark (run_ingest_benchmark.sh): several threads
// record nested slices over ~1000 distinct names, instants with an
// annotation, a counter and flows between threads, until the file reaches
// the requested size.
//
//   make_sdk_trace OUT.pftrace SIZE_MB [THREADS]
//
// Prints the file's size, the events written and how many of them the SDK
// had to drop (the buffer is drained to the file every 100 ms; a writer
// that outruns it loses events, which the trace then marks).

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "zt/config/trace_config.gen.h"
#include "zt/tracing/track_event.h"
#include "zt/tracing/tracing.h"

ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(0), zt::Category{"bench"}, zt::Category{"io"});
ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(0));

namespace {

constexpr int kNames = 1000;

std::atomic<bool> g_stop{false};
std::atomic<uint64_t> g_events{0};

void Writer(int index, const std::vector<std::string>* names) {
  uint64_t events = 0;
  uint64_t i = static_cast<uint64_t>(index) * 7919;
  auto counter = zt::CounterTrack("queue depth", "bench");
  while (!g_stop.load(std::memory_order_relaxed)) {
    for (int batch = 0; batch < 256; batch++, i++) {
      const zt::StaticString outer{(*names)[i % kNames].c_str()};
      const zt::StaticString inner{(*names)[(i * 31 + 7) % kNames].c_str()};
      TRACE_EVENT("bench", outer);
      {
        TRACE_EVENT("bench", inner);
        TRACE_EVENT("io", "Leaf");
        events += 6;
      }
      if (i % 8 == 0) {
        TRACE_EVENT_INSTANT("bench", "Tick", "i", i);
        events++;
      }
      if (i % 16 == 0) {
        TRACE_COUNTER("bench", counter, static_cast<int64_t>(i % 100));
        events++;
      }
      if (i % 64 == 0) {
        TRACE_EVENT("bench", "Handoff", zt::Flow::ProcessScoped(i));
        events += 2;
      }
    }
  }
  g_events.fetch_add(events);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s OUT.pftrace SIZE_MB [THREADS]\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const uint64_t target = strtoull(argv[2], nullptr, 10) << 20;
  const int threads = argc > 3 ? atoi(argv[3]) : 4;
  if (target == 0 || threads <= 0) {
    fprintf(stderr, "%s: SIZE_MB and THREADS must be positive\n", argv[0]);
    return 2;
  }
  std::vector<std::string> names;
  for (int i = 0; i < kNames; i++)
    names.push_back("Work" + std::to_string(i));

  zt::Tracing::Initialize(zt::TracingInitArgs());
  zt::protos::gen::TraceConfig config;
  config.add_buffers()->set_size_kb(256 * 1024);
  config.add_data_sources()->mutable_config()->set_name("track_event");
  config.set_file_write_period_ms(100);
  const int fd = open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
  if (fd < 0) {
    perror(path.c_str());
    return 1;
  }
  auto session = zt::Tracing::NewTrace();
  session->Setup(config, fd);
  session->StartBlocking();

  std::vector<std::thread> writers;
  for (int t = 0; t < threads; t++)
    writers.emplace_back(Writer, t, &names);
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // Polling a file's size.
    struct stat st;
    if (fstat(fd, &st) == 0 && static_cast<uint64_t>(st.st_size) >= target)
      break;
    if (std::chrono::steady_clock::now() - start > std::chrono::minutes(10)) {
      fprintf(stderr, "%s: gave up after 10 minutes below %" PRIu64 " bytes\n", argv[0],
              target);
      break;
    }
  }
  g_stop = true;
  for (std::thread& t : writers)
    t.join();
  session->StopBlocking();
  struct stat st;
  fstat(fd, &st);
  close(fd);
  printf("%s: %.1f MiB, %" PRIu64 " events from %d threads\n", path.c_str(),
         static_cast<double>(st.st_size) / (1 << 20), g_events.load(), threads);
  return 0;
}
