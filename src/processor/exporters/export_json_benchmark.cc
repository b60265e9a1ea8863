// JSON export throughput: a storage of 1 M slices (the argument) written to /dev/null (the
// whole exporter: placement, arg and flow indexes, formatting, escaping,
// stdio), in MB/s of JSON and slices per second.
//
// The storage is synthetic and shaped like a track-event trace: 4 threads,
// stacks of depth 4 (one ended slice per level, the innermost sometimes an
// instant), 8 names, one slice in 4 with two debug annotations (an int and a
// string), one flow per 64 slices, and 64 K counter values.
// BM_ExportJsonNoArgs drops the args to show what they cost.

#include <stdio.h>

#include <cstdint>
#include <string>

#include <benchmark/benchmark.h>

#include "src/processor/exporters/export_json.h"
#include "src/processor/test/sample_storage.h"

namespace {

using zt::processor::ArgType;
using zt::processor::kNullId;
using zt::processor::TraceStorage;
using zt::processor::TrackKind;
namespace t = zt::processor::test;

void Fill(TraceStorage* s, int slices, bool args) {
  t::AddProcess(s, 0, "");
  const uint32_t upid = t::AddProcess(s, 1000, "bench");
  t::AddThread(s, 0, kNullId, "");
  uint32_t tracks[4];
  for (int i = 0; i < 4; ++i) {
    const uint32_t utid = t::AddThread(s, 1000 + i, upid, "worker " + std::to_string(i));
    tracks[i] = t::AddTrack(s, TrackKind::kThread, "", utid, kNullId);
  }
  const uint32_t counter = t::AddTrack(s, TrackKind::kCounter, "queue_depth", kNullId, upid);
  const char* names[] = {"RunTask", "Layout", "Paint", "Compose", "Decode", "Upload", "Commit", "Idle"};
  int64_t ts = 1000000000;
  uint32_t last_out = kNullId;
  for (int n = 0; n < slices;) {
    // One stack: depth 0..3 nested, on one thread.
    const uint32_t track = tracks[(n / 4) % 4];
    uint32_t parent = kNullId;
    for (uint32_t depth = 0; depth < 4 && n < slices; ++depth, ++n) {
      const int64_t dur = (depth == 3 && n % 8 == 7) ? 0 : 4000 - depth * 900 + n % 97;
      const uint32_t id = t::AddSlice(s, ts + depth * 100, dur, track, names[n % 8], depth, parent);
      if (args && n % 4 == 0) {
        t::AddArg(s, id, "debug.frame", ArgType::kInt, n);
        t::AddArg(s, id, "debug.url", ArgType::kString, 0, n % 3 ? "https://example.com/a" : "b\"c");
      }
      if (n % 64 == 0) {
        if (last_out != kNullId) t::AddFlow(s, last_out, id);
        last_out = id;
      }
      parent = id;
    }
    if (n % 16 == 0) t::AddCounter(s, ts, n % 1000 * 0.5, counter);
    ts += 5000;
  }
}

void Run(benchmark::State& state, bool args) {
  const int slices = static_cast<int>(state.range(0));
  TraceStorage storage;
  Fill(&storage, slices, args);
  FILE* null = fopen("/dev/null", "w");
  if (!null) {
    state.SkipWithError("cannot open /dev/null");
    return;
  }
  uint64_t bytes = 0;
  for (auto _ : state) {
    zt::processor::FileJsonSink sink(null);
    const zt::processor::JsonExportResult result = zt::processor::ExportJson(storage, &sink);
    if (!result.ok) state.SkipWithError(result.error.c_str());
    bytes += result.bytes;
  }
  fclose(null);
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * slices);
  state.counters["json_bytes_per_slice"] =
      static_cast<double>(bytes) / static_cast<double>(state.iterations()) / slices;
}

void BM_ExportJson(benchmark::State& state) { Run(state, true); }
void BM_ExportJsonNoArgs(benchmark::State& state) { Run(state, false); }

// The argument is the number of slices: 1 M for the figures, 4 K for the
// smoke test.
BENCHMARK(BM_ExportJson)->Arg(1 << 20)->Arg(1 << 12)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExportJsonNoArgs)->Arg(1 << 20)->Arg(1 << 12)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
