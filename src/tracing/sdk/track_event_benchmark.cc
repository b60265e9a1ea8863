// The cost of the track event macros through the in-process backend, at
// default settings (docs/benchmarks.md, "Track events").
//
//   track_event_benchmark                 Google Benchmark: ns per op; the
//       enabled cases also report trace bytes per op and the share of
//       events lost (counted in what the trace holds). Each enabled case
//       runs twice: sustained (the writer keeps pace with the service,
//       stalling when the buffer is full) and "/burst" (the calling
//       thread's own cost: bursts that fit the buffer, drained untimed).
//   track_event_benchmark --zt_case=NAME --zt_iterations=N
//       runs one case N times in a session, without the harness, for
//       callgrind's instruction counts on the calling thread
//       (tools/track_event_callgrind); with ZT_REPORT_NS set in the
//       environment it also prints the loop's ns per op.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "src/base/test/benchmark_cases.h"
#include "src/tracing/test/call_site_keys.h"
#include "src/tracing/sdk/track_event_writer_common.h"
#include <benchmark/benchmark.h>

#include "zt/config/data_source_config.gen.h"
#include "zt/config/trace_config.gen.h"
#include "zt/trace/trace.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/tracing/track_event.h"
#include "zt/tracing/tracing.h"

ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(0), zt::Category{"bench"},
                      zt::Category{"off"});
ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(0));

namespace {

// The cases, each one operation. Not inlined into the loops, so that
// callgrind and the disassembly see one call site each.
__attribute__((noinline)) void Slice() { TRACE_EVENT("bench", "slice"); }
__attribute__((noinline)) void SliceWithInt(int64_t i) {
  TRACE_EVENT("bench", "slice", "i", i);
}
// Issue 32's shapes: a string literal argument; four mixed ones.
__attribute__((noinline)) void SliceWithString() {
  TRACE_EVENT("bench", "slice", "s", "text");
}
__attribute__((noinline)) void SliceWithFourArgs(int64_t i) {
  TRACE_EVENT("bench", "slice", "i", i, "b", true, "d", 1.5, "s", "text");
}
__attribute__((noinline)) void Counter(int64_t i) {
  TRACE_COUNTER("bench", "counter", i);
}
__attribute__((noinline)) void Instant() { TRACE_EVENT_INSTANT("bench", "instant"); }
__attribute__((noinline)) void DisabledSlice() { TRACE_EVENT("off", "slice"); }

// Issue 32's interning at scale: 10,000 distinct event names and 1,000
// annotation names in one session, cycled through. Each has a baseline
// that runs the same code with one name (or key) only, so that what the
// ratio measures is the number of names, not the harness's cost of
// picking one: InstantOneName for the names (static and dynamic),
// InstantOneKey for the keys.
constexpr int64_t kManyNames = 10000;
constexpr int kManyKeys = 1000;
using zt::test::ManyStrings;
using zt::test::NextOf;
// The names' characters, made before main() (no guard for a
// function-local static at each call; the benchmark's own cost stays
// small, the same for a case and its baseline). The static names are
// packed as a compiler lays out literals.
template <int64_t kCount>
const std::vector<const char*>* const g_names =
    &zt::test::ManyPackedStrings(kCount == 1 ? "one event " : "event ", kCount);
const std::vector<std::string>* const g_dynamic_names = &ManyStrings("dynamic ", kManyNames);
template <int64_t kCount>
__attribute__((noinline)) void InstantNames() {
  static size_t index = 0;
  TRACE_EVENT_INSTANT("bench",
                      zt::StaticString{(*g_names<kCount>)[NextOf(&index, kCount)]});
}
__attribute__((noinline)) void InstantDynamicNames() {
  static size_t index = 0;
  TRACE_EVENT_INSTANT("bench", zt::DynamicString((*g_dynamic_names)[NextOf(&index, kManyNames)]));
}
// kCount call sites, each with its own literal key.
template <int N>
struct InstantWithKey {
  static void Run(int64_t i) {
    TRACE_EVENT_INSTANT("bench", "instant", zt::test::CallSiteKey<N>::value, i);
  }
};
// Made before main(): no guard for a function-local static at each call.
template <int kCount>
const std::vector<void (*)(int64_t)>* const g_keyed_instants =
    new std::vector<void (*)(int64_t)>(zt::test::CallSites<InstantWithKey, kCount>());
template <int kCount>
__attribute__((noinline)) void InstantKeys(int64_t i) {
  static size_t index = 0;
  (*g_keyed_instants<kCount>)[NextOf(&index, kCount)](i);
}

// Events per op, for the loss share.
struct Case {
  std::function<void(int64_t)> run;
  int events_per_op;
  bool needs_session;
};

const std::map<std::string, Case>& Cases() {
  static const auto* cases = new std::map<std::string, Case>{
      {"DisabledNoSession", {[](int64_t) { DisabledSlice(); }, 0, false}},
      {"DisabledCategoryOff", {[](int64_t) { DisabledSlice(); }, 0, true}},
      {"ScopedSlice", {[](int64_t) { Slice(); }, 2, true}},
      {"ScopedSliceIntArg", {[](int64_t i) { SliceWithInt(i); }, 2, true}},
      {"ScopedSliceStringArg", {[](int64_t) { SliceWithString(); }, 2, true}},
      {"ScopedSliceFourArgs", {[](int64_t i) { SliceWithFourArgs(i); }, 2, true}},
      {"Counter", {[](int64_t i) { Counter(i); }, 1, true}},
      {"Instant", {[](int64_t) { Instant(); }, 1, true}},
      {"InstantOneName", {[](int64_t) { InstantNames<1>(); }, 1, true}},
      {"InstantManyNames", {[](int64_t) { InstantNames<kManyNames>(); }, 1, true}},
      {"InstantDynamicNames", {[](int64_t) { InstantDynamicNames(); }, 1, true}},
      {"InstantOneKey", {[](int64_t i) { InstantKeys<1>(i); }, 1, true}},
      {"InstantManyKeys", {[](int64_t i) { InstantKeys<kManyKeys>(i); }, 1, true}},
  };
  return *cases;
}

// A session recording "bench" (not "off") into a DISCARD buffer large
// enough for |events| events.
std::unique_ptr<zt::TracingSession> StartSession(uint64_t events) {
  zt::protos::gen::TraceConfig config;
  auto* buffer = config.add_buffers();
  const uint64_t kb = events * 64 / 1024 + 4096;
  buffer->set_size_kb(static_cast<uint32_t>(kb));
  buffer->set_fill_policy(zt::protos::gen::TraceConfig_BufferConfig_FillPolicy_DISCARD);
  auto* ds = config.add_data_sources()->mutable_config();
  ds->set_name("track_event");
  // TrackEventConfig {disabled_categories: "off"}
  ds->set_track_event_config_raw(std::string("\x0a\x03off", 5));
  auto session = zt::Tracing::NewTrace();
  session->Setup(config);
  session->StartBlocking();
  return session;
}

struct TraceSummary {
  uint64_t track_event_packets = 0;
  uint64_t bytes = 0;  // Of the track event packets, as in the file.
};

TraceSummary Summarize(const std::vector<char>& trace) {
  TraceSummary summary;
  zt::protos::pbzero::Trace_Decoder decoder(
      reinterpret_cast<const uint8_t*>(trace.data()), trace.size());
  for (auto it = decoder.packet(); it; ++it) {
    zt::protos::pbzero::TracePacket_Decoder packet(*it);
    if (!packet.has_track_event())
      continue;
    summary.track_event_packets++;
    // The packet, its length prefix and its field tag.
    const uint64_t size = it->size();
    summary.bytes += size + 1 + (size < 128 ? 1 : size < 16384 ? 2 : 3);
  }
  return summary;
}

// What this thread's current sequence holds in its intern tables (issue
// 32: bounded by kMaxInternedPerSequence), in KiB.
double InternKiB() {
  const zt::internal::TrackEventSequence* seq = zt::internal::t_hot_sequence.seq;
  if (!seq || !seq->incremental)
    return 0;
  const auto& incremental = *seq->incremental;
  return static_cast<double>(incremental.event_names.memory_bytes() +
                             incremental.annotation_names.memory_bytes() +
                             incremental.counter_names.memory_bytes() +
                             incremental.described_tracks.memory_bytes()) /
         1024.0;
}

void RunBenchmark(benchmark::State& state, const Case& c) {
  std::unique_ptr<zt::TracingSession> session;
  if (c.needs_session) {
    session = StartSession(static_cast<uint64_t>(state.max_iterations) *
                           static_cast<uint64_t>(c.events_per_op));
  }
  int64_t i = 0;
  for (auto _ : state)
    c.run(i++);
  if (!session)
    return;
  state.counters["intern_kib"] = InternKiB();
  session->StopBlocking();
  if (c.events_per_op == 0)
    return;
  const TraceSummary summary = Summarize(session->ReadTraceBlocking());
  const double expected = static_cast<double>(state.iterations()) * c.events_per_op;
  state.counters["bytes_per_op"] =
      static_cast<double>(summary.bytes) / static_cast<double>(state.iterations());
  state.counters["lost_share"] =
      1.0 - static_cast<double>(summary.track_event_packets) / expected;
}

// Fixed iteration counts for the enabled cases: the trace must hold them.
constexpr int64_t kEnabledIterations = 2 << 20;

// The calling thread's own cost, without waiting for the service: each
// iteration is a burst of kBurst ops, small enough for the shared memory
// buffer (1024 slices are ~43 KB of the 256 KiB main() asks for), timed alone; a flush
// after it, untimed, lets the service take the burst's chunks, so the
// writer never stalls on a full buffer. The reported time is per op. The
// sustained rows (above) include the service's pace; these do not.
constexpr int64_t kBurst = 1024;

void RunBurstBenchmark(benchmark::State& state, const Case& c) {
  std::unique_ptr<zt::TracingSession> session =
      StartSession(static_cast<uint64_t>(state.max_iterations) * kBurst *
                   static_cast<uint64_t>(c.events_per_op));
  int64_t i = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    for (int64_t j = 0; j < kBurst; j++)
      c.run(i++);
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    state.SetIterationTime(elapsed.count() / kBurst);
    if (!session->FlushBlocking(10000)) {
      state.SkipWithError("the service did not acknowledge a flush within 10 s");
      break;
    }
  }
  session->StopBlocking();
  const TraceSummary summary = Summarize(session->ReadTraceBlocking());
  const double expected = static_cast<double>(i) * c.events_per_op;
  state.counters["lost_share"] =
      1.0 - static_cast<double>(summary.track_event_packets) / expected;
}

int RunOneCase(const std::string& name, int64_t iterations) {
  auto it = Cases().find(name);
  if (it == Cases().end()) {
    fprintf(stderr, "unknown case '%s' (--zt_list_cases lists them)\n", name.c_str());
    return 2;
  }
  std::unique_ptr<zt::TracingSession> session;
  if (it->second.needs_session) {
    session = StartSession(static_cast<uint64_t>(iterations) *
                           static_cast<uint64_t>(it->second.events_per_op));
  }
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < iterations; i++)
    it->second.run(i);
  const std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
  if (session)
    session->StopBlocking();
  // For tools/compare_upstream_track_events: the loop's own time (the
  // session's setup and end left out), as upstream's reference prints it.
  if (getenv("ZT_REPORT_NS") && iterations > 0)
    printf("ns_per_op %.2f\n", elapsed.count() / static_cast<double>(iterations));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  zt::TracingInitArgs init_args;
  // 256 KiB unless told otherwise: the SMB docs/benchmarks.md's timings
  // were measured with (the SDK's default before it became 1 MiB).
  init_args.shmem_size_hint_kb = zt::base::BenchmarkSmbKb(256);
  zt::Tracing::Initialize(init_args);
  const zt::base::BenchmarkCaseArgs args = zt::base::ParseBenchmarkCaseArgs(argc, argv);
  if (args.list_cases) {
    zt::base::PrintBenchmarkCases(Cases());
    return 0;
  }
  if (!args.case_name.empty())
    return RunOneCase(args.case_name, args.iterations);

  for (const auto& kv : Cases()) {
    auto* b = benchmark::RegisterBenchmark(
        kv.first.c_str(), [&c = kv.second](benchmark::State& s) { RunBenchmark(s, c); });
    if (kv.second.events_per_op > 0)
      b->Iterations(kEnabledIterations);
  }
  for (const auto& kv : Cases()) {
    if (kv.second.events_per_op == 0)
      continue;
    benchmark::RegisterBenchmark((kv.first + "/burst").c_str(),
                                 [&c = kv.second](benchmark::State& s) {
                                   RunBurstBenchmark(s, c);
                                 })
        ->UseManualTime()
        ->Iterations(kEnabledIterations / kBurst);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
