// A small hand-filled TraceStorage for the SQL tests: two processes'
// worth of rows (with upstream's placeholder rows 0), nested slices with
// known self times, an instant, an unterminated slice, counters on a
// process and a global counter track, a flow, typed args, stats and
// metadata. The expected results in the tests follow from this file.

#ifndef ZT_SRC_PROCESSOR_SQL_SAMPLE_STORAGE_FOR_TESTING_H_
#define ZT_SRC_PROCESSOR_SQL_SAMPLE_STORAGE_FOR_TESTING_H_

#include <memory>
#include <string_view>

#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {
namespace sql {

inline std::unique_ptr<TraceStorage> MakeSampleStorage() {
  auto s = std::make_unique<TraceStorage>();
  StringPool& p = s->strings;
  auto str = [&p](std::string_view text) { return p.Intern(text); };

  // process: 0 placeholder, 1 browser.
  auto add_process = [&](int64_t pid, StringId name, StringId cmdline, int64_t start) {
    s->process.pid.push_back(pid);
    s->process.name.push_back(name);
    s->process.cmdline.push_back(cmdline);
    s->process.start_ts.push_back(start);
    s->process.parent_upid.push_back(kNullId);
  };
  add_process(0, kNullStringId, kNullStringId, kNullInt);
  add_process(100, str("browser"), str("/usr/bin/browser --x"), 5);

  // thread: 0 placeholder, 1 main (100), 2 worker (101), 3 an unknown
  // process's thread (200).
  auto add_thread = [&](int64_t tid, StringId name, uint32_t upid, uint8_t main) {
    s->thread.tid.push_back(tid);
    s->thread.name.push_back(name);
    s->thread.upid.push_back(upid);
    s->thread.start_ts.push_back(kNullInt);
    s->thread.is_main_thread.push_back(main);
  };
  add_thread(0, kNullStringId, kNullId, 2);
  add_thread(100, str("main"), 1, 1);
  add_thread(101, str("worker"), 1, 0);
  add_thread(200, kNullStringId, kNullId, 2);

  // track: 0 main's, 1 worker's, 2 async (process), 3 mem (process
  // counter), 4 global counter, 5 custom global track, 6 a thread counter.
  auto add_track = [&](StringId name, TrackKind kind, uint32_t utid, uint32_t upid,
                       StringId unit) {
    s->track.AddRow(name, kind, utid, upid, kNullId, 0, unit);
  };
  add_track(kNullStringId, TrackKind::kThread, 1, kNullId, kNullStringId);
  add_track(kNullStringId, TrackKind::kThread, 2, kNullId, kNullStringId);
  add_track(str("async"), TrackKind::kProcess, kNullId, 1, kNullStringId);
  add_track(str("mem"), TrackKind::kCounter, kNullId, 1, str("bytes"));
  add_track(str("load"), TrackKind::kCounter, kNullId, kNullId, kNullStringId);
  add_track(str("custom"), TrackKind::kGlobal, kNullId, kNullId, kNullStringId);
  add_track(str("cpu_time"), TrackKind::kCounter, 2, kNullId, str("ns"));
  s->track.parent_id[5] = 2;

  // slice (ts order): Outer [100, 200) holds Inner [110, 140) and Inner
  // [150, 170) on main; Work [160, 200) holds Instant at 170 on worker;
  // Async from 300 never ends.
  auto add_slice = [&](int64_t ts, int64_t dur, uint32_t track, StringId cat, StringId name,
                       uint32_t depth, uint32_t parent, uint32_t arg_set) {
    s->slice.ts.push_back(ts);
    s->slice.dur.push_back(dur);
    s->slice.track_id.push_back(track);
    s->slice.category.push_back(cat);
    s->slice.name.push_back(name);
    s->slice.depth.push_back(depth);
    s->slice.parent_id.push_back(parent);
    s->slice.arg_set_id.push_back(arg_set);
  };
  const StringId cat = str("cat");
  add_slice(100, 100, 0, cat, str("Outer"), 0, kNullId, 0);
  add_slice(110, 30, 0, cat, str("Inner"), 1, 0, kNullId);
  add_slice(150, 20, 0, cat, str("Inner"), 1, 0, kNullId);
  add_slice(160, 40, 1, cat, str("Work"), 0, kNullId, 1);
  add_slice(170, 0, 1, cat, str("Instant"), 1, 3, kNullId);
  add_slice(300, -1, 2, kNullStringId, str("Async"), 0, kNullId, kNullId);

  auto add_counter = [&](int64_t ts, double value, uint32_t track) {
    s->counter.ts.push_back(ts);
    s->counter.value.push_back(value);
    s->counter.track_id.push_back(track);
  };
  add_counter(100, 1024, 3);
  add_counter(200, 2048, 3);
  add_counter(250, 0.5, 4);
  add_counter(260, 7, 6);

  s->flow.slice_out.push_back(1);
  s->flow.slice_in.push_back(3);

  auto add_arg = [&](uint32_t set, std::string_view key, ArgType type, int64_t i,
                     StringId text, double real) {
    s->args.arg_set_id.push_back(set);
    s->args.flat_key.push_back(str(key));
    s->args.key.push_back(str(key));
    s->args.value_type.push_back(type);
    s->args.int_value.push_back(i);
    s->args.string_value.push_back(text);
    s->args.real_value.push_back(real);
  };
  add_arg(0, "debug.count", ArgType::kInt, 3, kNullStringId, 0);
  add_arg(0, "debug.name", ArgType::kString, 0, str("x"), 0);
  add_arg(0, "debug.ratio", ArgType::kReal, 0, kNullStringId, 0.25);
  add_arg(1, "debug.flag", ArgType::kBool, 1, kNullStringId, 0);
  s->next_arg_set_id = 2;

  s->metadata.name.push_back(str("trace_size_bytes"));
  s->metadata.int_value.push_back(1234);
  s->metadata.str_value.push_back(kNullStringId);
  s->metadata.name.push_back(str("trace_uuid"));
  s->metadata.int_value.push_back(kNullInt);
  s->metadata.str_value.push_back(str("abc-123"));

  s->stats.Set(stats::misplaced_end_event, 2);
  s->stats.SetIndexed(stats::traced_buf_bytes_written, 0, 100);
  s->stats.SetIndexed(stats::traced_buf_bytes_written, 1, 200);
  return s;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_SAMPLE_STORAGE_FOR_TESTING_H_
