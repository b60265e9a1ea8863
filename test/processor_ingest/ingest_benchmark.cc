// The trace processor's ingest measurement (issue 12): imports one trace
// file into the model and reports wall time, MB/s, events/s and peak RSS,
// with the tokenizer alone on the same mapped file as the reference floor.
// A one-shot program rather than a Google Benchmark: one import of a 1 GB
// trace is the measurement, and peak RSS needs a fresh process.
//
//   processor_ingest_benchmark TRACE
//
// Run by test/processor_ingest/run_ingest_benchmark.sh, which makes the
// trace with the SDK first.

#include <sys/resource.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

#include "src/processor/importers/trace_importer.h"
#include "test/common/peak_rss.h"
#include "zt/processor/mapped_trace_file.h"
#include "zt/processor/trace_tokenizer.h"

namespace {

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}


// CPU time of the whole process (every thread), user and system.
struct CpuTimes {
  double user = 0;
  double system = 0;
};
CpuTimes ProcessCpuTimes() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  CpuTimes t;
  t.user = static_cast<double>(usage.ru_utime.tv_sec) + usage.ru_utime.tv_usec / 1e6;
  t.system = static_cast<double>(usage.ru_stime.tv_sec) + usage.ru_stime.tv_usec / 1e6;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  // --one-thread / --two-threads: import so whatever the CPUs available
  // (ImportOptions::two_threads_min_bytes), to compare the CPU time the
  // second thread costs with the wall time it saves.
  const std::string mode = argc == 3 ? argv[1] : "";
  if (argc != 2 && mode != "--one-thread" && mode != "--two-threads") {
    fprintf(stderr, "usage: %s [--one-thread | --two-threads] TRACE\n", argv[0]);
    return 2;
  }
  const char* trace_path = argv[argc - 1];
  using namespace zt::processor;
  std::string error;
  const auto open_start = std::chrono::steady_clock::now();
  std::unique_ptr<MappedTraceFile> file = MappedTraceFile::Open(trace_path, &error);
  if (!file) {
    fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  const double mb = static_cast<double>(file->size()) / 1e6;

  // The import first, so that its peak resident size is its own. The file
  // is in the page cache already (the generator wrote it, or a previous
  // run read it); the import pays the mapping's page faults.
  TraceStorage storage;
  ImportOptions options;
  if (mode == "--one-thread")
    options.two_threads_min_bytes = UINT64_MAX;
  else if (mode == "--two-threads")
    options.two_threads_min_bytes = 0;
  options.release_input = [&](uint64_t offset, uint64_t length) {
    file->ReleasePages(offset, length);
  };
  const CpuTimes cpu_start = ProcessCpuTimes();
  const auto import_start = std::chrono::steady_clock::now();
  const ImportResult result = ImportTrace(file->data(), file->size(), &storage, options);
  const double import_s = Seconds(std::chrono::steady_clock::now() - import_start);
  const CpuTimes cpu_end = ProcessCpuTimes();
  const uint64_t rss = zt::test::PeakRss();

  // The floor: headers only, over the same mapping.
  file->ReleasePages(0, file->size());
  const auto tokenize_start = std::chrono::steady_clock::now();
  uint64_t checksum = 0;
  const TokenizerStats tokens = TokenizeTrace(
      file->data(), file->size(),
      [&](const PacketView& packet) { checksum += packet.size; });
  const double tokenize_s = Seconds(std::chrono::steady_clock::now() - tokenize_start);
  (void)open_start;

  printf("trace            %.1f MB, %" PRIu64 " packets (%" PRIu64 " bytes of payload)\n", mb,
         tokens.packets, checksum);
  printf("tokenize only    %.3f s  %.0f MB/s\n", tokenize_s, mb / tokenize_s);
  printf("import           %.3f s  %.0f MB/s  %.1f M events/s  (%" PRIu64 " events)\n",
         import_s, mb / import_s, static_cast<double>(result.packets_parsed) / import_s / 1e6,
         result.packets_parsed);
  const bool two_threads = file->size() >= options.two_threads_min_bytes;
  printf("  pass 1         %.3f s  (file order: state, clocks, queues%s)\n", result.pass1_seconds,
         two_threads ? "; queued on a second thread" : "");
  printf("  pass 2         %.3f s  (time order: events into tables%s)\n", result.pass2_seconds,
         two_threads ? "; merged on a second thread" : "");
  printf("  cpu            %.3f s user + %.3f s system (all threads)\n",
         cpu_end.user - cpu_start.user, cpu_end.system - cpu_start.system);
  printf("model            %zu slices, %zu counter values, %zu flows, %zu args, %zu strings\n",
         storage.slice.size(), storage.counter.size(), storage.flow.size(),
         storage.args.size(), storage.strings.size());
  printf("peak RSS         %.1f MB = %.2f x the trace\n", static_cast<double>(rss) / 1e6,
         static_cast<double>(rss) / 1e6 / mb);
  return 0;
}
