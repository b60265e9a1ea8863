// Chrome JSON import throughput (issue 28's target: >= 100 MB/s), in MB/s
// of JSON and events per second, for a trace held in memory (the mapped
// file case; reading from disk is the page cache's business).
//
// The trace is synthetic and shaped like Chrome's own output: 8 threads in
// 2 processes, complete events (X, with tts/tdur) nesting 4 deep, one in 4
// with args (an int, a string, a nested object), B/E pairs, instants, a
// counter per 16 events and async b/e pairs; keys in Chrome's order. The
// argument is the number of events.

#include <cstdint>
#include <string>

#include <benchmark/benchmark.h>

#include "src/processor/importers/trace_importer.h"

namespace {

std::string MakeChromeJson(int events) {
  const char* names[] = {"RunTask", "Layout", "Paint", "Compose",
                         "Decode",  "Upload", "Commit", "ThreadControllerImpl::RunTask"};
  std::string json = "{\"traceEvents\":[\n";
  int64_t ts = 1597071955492308;
  int async_id = 0;
  for (int n = 0; n < events;) {
    const int pid = 100 + (n / 64) % 2;
    const int tid = pid * 10 + (n / 8) % 4;
    for (int depth = 0; depth < 4 && n < events; ++depth, ++n) {
      json += "{\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
              ",\"ts\":" + std::to_string(ts + depth * 3) + ",\"ph\":\"X\",\"cat\":\"toplevel\"" +
              ",\"name\":\"" + names[n % 8] + "\",\"dur\":" + std::to_string(40 - depth * 9) +
              ",\"tdur\":" + std::to_string(30 - depth * 7) + ",\"tts\":" +
              std::to_string(ts / 2 + depth) + ",\"args\":";
      if (n % 4 == 0) {
        json += "{\"src_file\":\"../../base/task/sequence_manager.cc\",\"src_func\":\"Run\","
                "\"frame\":" + std::to_string(n) + ",\"data\":{\"width\":1280,\"ok\":true}}";
      } else {
        json += "{}";
      }
      json += "},\n";
    }
    if (n % 16 == 0 && n < events) {
      json += "{\"pid\":100,\"tid\":1000,\"ts\":" + std::to_string(ts) +
              ",\"ph\":\"C\",\"name\":\"QueueDepth\",\"args\":{\"value\":" +
              std::to_string(n % 1000) + "}},\n";
      ++n;
    }
    if (n % 32 == 0 && n + 1 < events) {
      const std::string id = std::to_string(async_id++);
      json += "{\"pid\":101,\"tid\":1011,\"ts\":" + std::to_string(ts) +
              ",\"ph\":\"b\",\"cat\":\"loading\",\"name\":\"ResourceLoad\",\"id\":\"0x" + id +
              "\",\"args\":{}},\n{\"pid\":101,\"tid\":1011,\"ts\":" + std::to_string(ts + 25) +
              ",\"ph\":\"e\",\"cat\":\"loading\",\"name\":\"ResourceLoad\",\"id\":\"0x" + id +
              "\",\"args\":{}},\n";
      n += 2;
    }
    ts += 50;
  }
  json += "{\"pid\":100,\"tid\":1000,\"ts\":0,\"ph\":\"M\",\"name\":\"process_name\","
          "\"args\":{\"name\":\"Browser\"}}\n],\"metadata\":{\"cpu-brand\":\"x\"}}\n";
  return json;
}

void BM_ImportChromeJson(benchmark::State& state) {
  const std::string json = MakeChromeJson(static_cast<int>(state.range(0)));
  uint64_t slices = 0;
  for (auto _ : state) {
    zt::processor::TraceStorage storage;
    zt::processor::ImportTrace(json.data(), json.size(), &storage);
    slices = storage.slice.size();
    benchmark::DoNotOptimize(slices);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * json.size()));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
  state.counters["slices"] = static_cast<double>(slices);
  state.counters["json_bytes"] = static_cast<double>(json.size());
}
BENCHMARK(BM_ImportChromeJson)->Arg(1 << 14)->Arg(1 << 20)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
