// The cost of a track event through the C ABI (zt/c/track_event.h over
// libzerotrace_c's PerfettoTeHlEmitImpl), case for case against
// track_event_benchmark's C++ macros (same names, same session settings):
// issue 31's target is <= 1.5x the C++ instructions, <= 5 when disabled.
// The two cannot share a binary: each registers "track_event". Built
// twice: c_track_event_benchmark links the static library
// (libzerotrace_c.a's objects), c_track_event_benchmark_shared the shared
// one, so the session is made through the C ABI too.
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
#include "zt/c/abi/tracing_session.h"
#include "zt/c/track_event.h"

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

// An in-process session through the C ABI, ended by StopBlocking().
class Session {
 public:
  explicit Session(PerfettoTracingSessionImpl* impl) : impl_(impl) {}
  ~Session() { PerfettoTracingSessionDestroy(impl_); }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  void StopBlocking() { PerfettoTracingSessionStopBlocking(impl_); }

 private:
  PerfettoTracingSessionImpl* impl_;
};

void PutVarInt(std::string* out, uint64_t value) {
  for (; value >= 0x80; value >>= 7)
    out->push_back(static_cast<char>(value | 0x80));
  out->push_back(static_cast<char>(value));
}

void PutBytesField(std::string* out, uint32_t field, const std::string& bytes) {
  PutVarInt(out, field << 3 | 2);
  PutVarInt(out, bytes.size());
  out->append(bytes);
}

// "bench" on, "off" off, into a DISCARD buffer large enough for |ops|:
// TraceConfig {buffers {size_kb fill_policy: DISCARD} data_sources {config
// {name: "track_event" track_event_config {enabled_categories: "bench"}}}}.
std::unique_ptr<Session> StartSession(uint64_t ops) {
  std::string buffer;
  PutVarInt(&buffer, 1 << 3);  // size_kb
  PutVarInt(&buffer, ops * 2 * 64 / 1024 + 4096);
  PutVarInt(&buffer, 4 << 3);  // fill_policy
  PutVarInt(&buffer, 2);       // DISCARD
  std::string track_event_config;
  PutBytesField(&track_event_config, 2, "bench");
  std::string ds_config;
  PutBytesField(&ds_config, 1, "track_event");
  PutBytesField(&ds_config, 113, track_event_config);
  std::string data_source;
  PutBytesField(&data_source, 1, ds_config);
  std::string config;
  PutBytesField(&config, 1, buffer);
  PutBytesField(&config, 2, data_source);
  PerfettoTracingSessionImpl* impl = PerfettoTracingSessionInProcessCreate();
  auto session = std::make_unique<Session>(impl);
  PerfettoTracingSessionSetup(impl, &config[0], config.size());
  PerfettoTracingSessionStartBlocking(impl);
  return session;
}

constexpr int64_t kIterations = 1 << 20;

void RunBenchmark(benchmark::State& state, const Case& c) {
  std::unique_ptr<Session> session;
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
  PerfettoProducerBackendInitArgsSetShmemSizeHintKb(init, zt::base::BenchmarkSmbKb(256));
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
