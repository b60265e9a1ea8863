// A small hand-built TraceStorage for the exporters' tests and for the
// browser test's helper program: one process with two threads, nested
// slices (Outer > Middle > Inner > an instant), args with nested keys, a
// flow between threads, slices on a process-scoped and on a global track,
// an unterminated slice and a counter track with a unit; FlowOut has two
// outgoing flows (one for its own event, one for v1 flow events).

#ifndef ZT_SRC_PROCESSOR_TEST_SAMPLE_STORAGE_H_
#define ZT_SRC_PROCESSOR_TEST_SAMPLE_STORAGE_H_

#include <cstdint>
#include <string_view>

#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {
namespace test {

inline uint32_t AddProcess(TraceStorage* s, int64_t pid, std::string_view name) {
  s->process.pid.push_back(pid);
  s->process.name.push_back(name.empty() ? kNullStringId : s->strings.Intern(name));
  s->process.cmdline.push_back(kNullStringId);
  s->process.start_ts.push_back(kNullInt);
  s->process.parent_upid.push_back(kNullId);
  return static_cast<uint32_t>(s->process.size() - 1);
}

inline uint32_t AddThread(TraceStorage* s, int64_t tid, uint32_t upid, std::string_view name) {
  s->thread.tid.push_back(tid);
  s->thread.name.push_back(name.empty() ? kNullStringId : s->strings.Intern(name));
  s->thread.upid.push_back(upid);
  s->thread.start_ts.push_back(kNullInt);
  s->thread.is_main_thread.push_back(2);
  return static_cast<uint32_t>(s->thread.size() - 1);
}

inline uint32_t AddTrack(TraceStorage* s, TrackKind kind, std::string_view name, uint32_t utid,
                         uint32_t upid, std::string_view unit = {}) {
  return s->track.AddRow(name.empty() ? kNullStringId : s->strings.Intern(name), kind, utid, upid,
                         kNullId, 0, unit.empty() ? kNullStringId : s->strings.Intern(unit));
}

inline uint32_t AddSlice(TraceStorage* s, int64_t ts, int64_t dur, uint32_t track,
                         std::string_view name, uint32_t depth = 0, uint32_t parent = kNullId,
                         std::string_view category = "conf") {
  s->slice.ts.push_back(ts);
  s->slice.dur.push_back(dur);
  s->slice.track_id.push_back(track);
  s->slice.category.push_back(category.empty() ? kNullStringId : s->strings.Intern(category));
  s->slice.name.push_back(s->strings.Intern(name));
  s->slice.depth.push_back(depth);
  s->slice.parent_id.push_back(parent);
  s->slice.arg_set_id.push_back(kNullId);
  return static_cast<uint32_t>(s->slice.size() - 1);
}

// Adds one arg to the slice's set (created on first use).
inline void AddArg(TraceStorage* s, uint32_t slice, std::string_view key, ArgType type,
                   int64_t int_value, std::string_view string_value = {}, double real = 0) {
  if (s->slice.arg_set_id[slice] == kNullId) s->slice.arg_set_id[slice] = s->next_arg_set_id++;
  s->args.arg_set_id.push_back(s->slice.arg_set_id[slice]);
  s->args.flat_key.push_back(s->strings.Intern(key));
  s->args.key.push_back(s->strings.Intern(key));
  s->args.value_type.push_back(type);
  s->args.int_value.push_back(int_value);
  s->args.string_value.push_back(type == ArgType::kString || type == ArgType::kJson
                                     ? s->strings.Intern(string_value)
                                     : kNullStringId);
  s->args.real_value.push_back(real);
}

inline void AddCounter(TraceStorage* s, int64_t ts, double value, uint32_t track) {
  s->counter.ts.push_back(ts);
  s->counter.value.push_back(value);
  s->counter.track_id.push_back(track);
}

inline void AddFlow(TraceStorage* s, uint32_t out, uint32_t in) {
  s->flow.slice_out.push_back(out);
  s->flow.slice_in.push_back(in);
}

// Tracks: 0 main thread, 1 worker thread, 2 process-scoped "async_track",
// 3 global "conf_custom_track", 4 counter "conf_counter" (unit "bytes").
// Slices in ts order (ids): 0 Outer, 1 Middle, 2 Inner, 3 Instant,
// 4 FlowOut, 5 FlowIn, 6 OnCustomTrack, 7 AsyncSlice, 8 Unterminated.
inline void FillSampleStorage(TraceStorage* s) {
  AddProcess(s, 0, "");
  const uint32_t upid = AddProcess(s, 4242, "sample_process");
  AddThread(s, 0, kNullId, "");
  const uint32_t main_utid = AddThread(s, 4242, upid, "main");
  const uint32_t worker_utid = AddThread(s, 4243, upid, "worker");
  const uint32_t main_track = AddTrack(s, TrackKind::kThread, "", main_utid, kNullId);
  const uint32_t worker_track = AddTrack(s, TrackKind::kThread, "", worker_utid, kNullId);
  const uint32_t async_track = AddTrack(s, TrackKind::kProcess, "async_track", kNullId, upid);
  const uint32_t custom_track =
      AddTrack(s, TrackKind::kGlobal, "conf_custom_track", kNullId, kNullId);
  const uint32_t counter_track =
      AddTrack(s, TrackKind::kCounter, "conf_counter", kNullId, upid, "bytes");

  const uint32_t outer = AddSlice(s, 1000000, 9000000, main_track, "Outer");
  const uint32_t middle = AddSlice(s, 2000000, 6000000, main_track, "Middle", 1, outer);
  const uint32_t inner = AddSlice(s, 3000000, 2000001, main_track, "Inner", 2, middle);
  AddSlice(s, 4000000, 0, main_track, "Instant", 3, inner);
  const uint32_t flow_out = AddSlice(s, 10000000, 500000, main_track, "FlowOut");
  const uint32_t flow_in = AddSlice(s, 11000000, 500000, worker_track, "FlowIn");
  const uint32_t on_custom = AddSlice(s, 12000000, 1000000, custom_track, "OnCustomTrack");
  AddSlice(s, 13000000, 1000000, async_track, "AsyncSlice");
  AddSlice(s, 20000000, -1, worker_track, "Unterminated");

  AddArg(s, outer, "debug.iter", ArgType::kInt, 3);
  AddArg(s, outer, "debug.nested.a", ArgType::kInt, 1);
  AddArg(s, outer, "debug.nested.b", ArgType::kString, 0, "x");
  AddArg(s, outer, "debug.arr[0]", ArgType::kInt, 10);
  AddArg(s, outer, "debug.arr[1]", ArgType::kReal, 0, {}, 2.5);
  AddFlow(s, flow_out, flow_in);
  AddFlow(s, flow_out, on_custom);  // A second flow out of FlowOut.

  AddCounter(s, 1000000, 5, counter_track);
  AddCounter(s, 15000000, 2.5, counter_track);
}

}  // namespace test
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_TEST_SAMPLE_STORAGE_H_
