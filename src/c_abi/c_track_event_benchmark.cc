// The cost of a track event through the C ABI (zt/c/track_event.h over
// libzerotrace_c's PerfettoTeHlEmitImpl), case for case against
// track_event_benchmark's C++ macros (same names, same session settings):
// issue 31's target is <= 1.5x the C++ instructions, <= 5 when disabled.
// The two cannot share a binary: each registers "track_event".
//
//   c_track_event_benchmark                  Google Benchmark, ns per op
//   c_track_event_benchmark --zt_case=NAME --zt_iterations=N
//       runs one case N times in a session, for callgrind's instruction
//       counts on the calling thread (tools/track_event_callgrind BIN).

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include "src/base/test/benchmark_cases.h"
#include "zt/c/abi/producer.h"
#include "zt/c/track_event.h"
#include "zt/config/data_source_config.gen.h"
#include "zt/config/trace_config.gen.h"
#include "zt/tracing/tracing.h"

namespace {

ZtCCategory g_bench = ZT_C_CATEGORY_INIT("bench", "Benchmark events");
ZtCCategory g_off = ZT_C_CATEGORY_INIT("off", "Never enabled");
ZtCCategory* const g_categories[] = {&g_bench, &g_off};
ZtCCounterTrack g_counter = ZT_C_COUNTER_TRACK_INIT;

// One call site each, as in track_event_benchmark.cc.
__attribute__((noinline)) void Slice() {
  ZT_C_SLICE_BEGIN(g_bench, "slice");
  ZT_C_SLICE_END(g_bench);
}
__attribute__((noinline)) void SliceWithInt(int64_t i) {
  ZT_C_SLICE_BEGIN(g_bench, "slice", ZT_C_ARG_INT("i", i));
  ZT_C_SLICE_END(g_bench);
}
__attribute__((noinline)) void Counter(int64_t i) {
  ZT_C_COUNTER(g_bench, "counter", ZT_C_INT_VALUE(i));
}
// The same counter track, registered once (ZT_C_COUNTER_ON).
__attribute__((noinline)) void CounterOnRegisteredTrack(int64_t i) {
  ZT_C_COUNTER_ON(g_bench, g_counter, ZT_C_INT_VALUE(i));
}
__attribute__((noinline)) void Instant() { ZT_C_INSTANT(g_bench, "instant"); }
__attribute__((noinline)) void DisabledSlice() {
  ZT_C_SLICE_BEGIN(g_off, "slice");
  ZT_C_SLICE_END(g_off);
}

struct Case {
  std::function<void(int64_t)> run;
  bool needs_session;
};

const std::map<std::string, Case>& Cases() {
  static const auto* cases = new std::map<std::string, Case>{
      {"DisabledNoSession", {[](int64_t) { DisabledSlice(); }, false}},
      {"DisabledCategoryOff", {[](int64_t) { DisabledSlice(); }, true}},
      {"ScopedSlice", {[](int64_t) { Slice(); }, true}},
      {"ScopedSliceIntArg", {[](int64_t i) { SliceWithInt(i); }, true}},
      {"Counter", {[](int64_t i) { Counter(i); }, true}},
      {"CounterRegisteredTrack", {[](int64_t i) { CounterOnRegisteredTrack(i); }, true}},
      {"Instant", {[](int64_t) { Instant(); }, true}},
  };
  return *cases;
}

// "bench" on, "off" off, into a DISCARD buffer large enough for |ops|.
std::unique_ptr<zt::TracingSession> StartSession(uint64_t ops) {
  zt::protos::gen::TraceConfig config;
  auto* buffer = config.add_buffers();
  buffer->set_size_kb(static_cast<uint32_t>(ops * 2 * 64 / 1024 + 4096));
  buffer->set_fill_policy(zt::protos::gen::TraceConfig_BufferConfig_FillPolicy_DISCARD);
  auto* ds = config.add_data_sources()->mutable_config();
  ds->set_name("track_event");
  // TrackEventConfig {enabled_categories: "bench"}
  ds->set_track_event_config_raw(std::string("\x12\x05" "bench", 7));
  auto session = zt::Tracing::NewTrace();
  session->Setup(config);
  session->StartBlocking();
  return session;
}

constexpr int64_t kIterations = 1 << 20;

void RunBenchmark(benchmark::State& state, const Case& c) {
  std::unique_ptr<zt::TracingSession> session;
  if (c.needs_session)
    session = StartSession(static_cast<uint64_t>(state.max_iterations));
  int64_t i = 0;
  for (auto _ : state)
    c.run(i++);
  if (session)
    session->StopBlocking();
}

}  // namespace

int main(int argc, char** argv) {
  PerfettoProducerBackendInitArgs* init = PerfettoProducerBackendInitArgsCreate();
  // 256 KiB, as track_event_benchmark's figures.
  PerfettoProducerBackendInitArgsSetShmemSizeHintKb(init, 256);
  PerfettoProducerInProcessInit(init);
  PerfettoProducerBackendInitArgsDestroy(init);
  ZtCTrackEventInit(g_categories, 2);
  ZtCCounterTrackRegister(&g_counter, "counter");

  const zt::base::BenchmarkCaseArgs args = zt::base::ParseBenchmarkCaseArgs(argc, argv);
  if (args.list_cases) {
    zt::base::PrintBenchmarkCases(Cases());
    return 0;
  }
  if (!args.case_name.empty()) {
    return zt::base::RunBenchmarkCase(Cases(), args.case_name, args.iterations, [](int64_t n) {
      return StartSession(static_cast<uint64_t>(n));
    });
  }
  for (const auto& kv : Cases()) {
    benchmark::RegisterBenchmark(kv.first.c_str(), [&c = kv.second](benchmark::State& s) {
      RunBenchmark(s, c);
    })->Iterations(kIterations);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
