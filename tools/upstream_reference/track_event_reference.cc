// The reference for docs/benchmarks.md's comparison with upstream Perfetto
// (issue 32): track_event_benchmark's cases written against upstream's SDK,
// with the same command line, so that tools/track_event_callgrind counts
// both the same way. Not part of the build: tools/compare_upstream_track_events
// compiles it outside the repository against an upstream SDK release's
// amalgamated perfetto.h and perfetto.cc (v14 or later), which we never
// commit.
//
//   track_event_reference --zt_list_cases
//   track_event_reference --zt_case=NAME --zt_iterations=N
//       (with ZT_REPORT_NS set: prints the loop's ns per op, as ours does)
//
// Same session as ours: the in-process backend, a 256 KiB SMB, a DISCARD
// buffer large enough for every event, category "off" disabled.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "perfetto.h"
#include "src/tracing/test/call_site_keys.h"

PERFETTO_DEFINE_CATEGORIES(perfetto::Category("bench"), perfetto::Category("off"));
PERFETTO_TRACK_EVENT_STATIC_STORAGE();

namespace {

__attribute__((noinline)) void Slice() { TRACE_EVENT("bench", "slice"); }
__attribute__((noinline)) void SliceWithInt(int64_t i) { TRACE_EVENT("bench", "slice", "i", i); }
__attribute__((noinline)) void SliceWithString() { TRACE_EVENT("bench", "slice", "s", "text"); }
// Upstream's macros take two annotations at most (v14); the other two go
// the way its macros add theirs (interned names), from the event's lambda.
__attribute__((noinline)) void SliceWithFourArgs(int64_t i) {
  TRACE_EVENT("bench", "slice", [&](perfetto::EventContext ctx) {
    using perfetto::internal::TrackEventInternal;
    TrackEventInternal::AddDebugAnnotation(&ctx, "i", i);
    TrackEventInternal::AddDebugAnnotation(&ctx, "b", true);
    TrackEventInternal::AddDebugAnnotation(&ctx, "d", 1.5);
    TrackEventInternal::AddDebugAnnotation(&ctx, "s", "text");
  });
}
__attribute__((noinline)) void Counter(int64_t i) { TRACE_COUNTER("bench", "counter", i); }
__attribute__((noinline)) void Instant() { TRACE_EVENT_INSTANT("bench", "instant"); }
__attribute__((noinline)) void DisabledSlice() { TRACE_EVENT("off", "slice"); }

constexpr int64_t kManyNames = 10000;
constexpr int kManyKeys = 1000;
using zt::test::ManyStrings;
using zt::test::NextOf;
__attribute__((noinline)) void InstantManyNames() {
  static const std::vector<std::string>& names = ManyStrings("event ", kManyNames);
  static size_t index = 0;
  TRACE_EVENT_INSTANT("bench", perfetto::StaticString{names[NextOf(&index, kManyNames)].c_str()});
}
__attribute__((noinline)) void InstantDynamicNames() {
  static const std::vector<std::string>& names = ManyStrings("dynamic ", kManyNames);
  static size_t index = 0;
  // v14's instants take static names only: a dynamic one is set from the
  // lambda, as its users wrote it.
  const std::string& name = names[NextOf(&index, kManyNames)];
  TRACE_EVENT_INSTANT("bench", nullptr,
                      [&](perfetto::EventContext ctx) { ctx.event()->set_name(name); });
}
template <int N>
struct InstantWithKey {
  static void Run(int64_t i) {
    TRACE_EVENT_INSTANT("bench", "instant", zt::test::CallSiteKey<N>::value, i);
  }
};
const std::vector<void (*)(int64_t)>* const g_keyed_instants =
    new std::vector<void (*)(int64_t)>(zt::test::CallSites<InstantWithKey, kManyKeys>());
__attribute__((noinline)) void InstantManyKeys(int64_t i) {
  static size_t index = 0;
  (*g_keyed_instants)[NextOf(&index, kManyKeys)](i);
}

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
      {"InstantManyNames", {[](int64_t) { InstantManyNames(); }, 1, true}},
      {"InstantDynamicNames", {[](int64_t) { InstantDynamicNames(); }, 1, true}},
      {"InstantManyKeys", {[](int64_t i) { InstantManyKeys(i); }, 1, true}},
  };
  return *cases;
}

std::unique_ptr<perfetto::TracingSession> StartSession(uint64_t events) {
  perfetto::TraceConfig config;
  auto* buffer = config.add_buffers();
  buffer->set_size_kb(static_cast<uint32_t>(events * 64 / 1024 + 4096));
  buffer->set_fill_policy(perfetto::TraceConfig::BufferConfig::DISCARD);
  auto* ds = config.add_data_sources()->mutable_config();
  ds->set_name("track_event");
  perfetto::protos::gen::TrackEventConfig track_event;
  track_event.add_disabled_categories("off");
  ds->set_track_event_config_raw(track_event.SerializeAsString());
  auto session = perfetto::Tracing::NewTrace();
  session->Setup(config);
  session->StartBlocking();
  return session;
}

}  // namespace

int main(int argc, char** argv) {
  std::string name;
  int64_t iterations = 0;
  bool list = false;
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    if (arg.rfind("--zt_case=", 0) == 0)
      name = arg.substr(strlen("--zt_case="));
    else if (arg.rfind("--zt_iterations=", 0) == 0)
      iterations = strtoll(arg.c_str() + strlen("--zt_iterations="), nullptr, 10);
    else if (arg == "--zt_list_cases")
      list = true;
  }
  if (list) {
    for (const auto& kv : Cases())
      printf("%s\n", kv.first.c_str());
    return 0;
  }
  auto it = Cases().find(name);
  if (it == Cases().end()) {
    fprintf(stderr, "track_event_reference: unknown case '%s' (--zt_list_cases)\n", name.c_str());
    return 2;
  }
  perfetto::TracingInitArgs args;
  args.backends = perfetto::kInProcessBackend;
  args.shmem_size_hint_kb = 256;
  perfetto::Tracing::Initialize(args);
  perfetto::TrackEvent::Register();
  std::unique_ptr<perfetto::TracingSession> session;
  if (it->second.needs_session)
    session = StartSession(static_cast<uint64_t>(iterations) *
                           static_cast<uint64_t>(it->second.events_per_op));
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < iterations; i++)
    it->second.run(i);
  const std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
  if (session)
    session->StopBlocking();
  if (getenv("ZT_REPORT_NS") && iterations > 0)
    printf("ns_per_op %.2f\n", elapsed.count() / static_cast<double>(iterations));
  return 0;
}
