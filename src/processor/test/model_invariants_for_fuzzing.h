// The trace model's invariants, checked by the importer fuzzers on
// whatever any bytes imported to: columns of equal length, ids pointing at
// rows, depth and parent agreeing, slices and counters in time order,
// durations not below -1. Aborts (the fuzzer's finding) on a breach.
// Without coverage hooks (ZT_FUZZ_CHECKER): the checks guide nothing.

#ifndef ZT_SRC_PROCESSOR_TEST_MODEL_INVARIANTS_FOR_FUZZING_H_
#define ZT_SRC_PROCESSOR_TEST_MODEL_INVARIANTS_FOR_FUZZING_H_

#include <cstdlib>

#include "src/base/test/fuzzing.h"
#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {

ZT_FUZZ_CHECKER inline void FuzzCheck(bool cond) {
  if (!cond)
    abort();
}

ZT_FUZZ_CHECKER inline void CheckModel(const TraceStorage& storage) {
  const size_t strings = storage.strings.size();
  const SliceTable& slice = storage.slice;
  FuzzCheck(slice.dur.size() == slice.size() && slice.track_id.size() == slice.size() &&
        slice.category.size() == slice.size() && slice.name.size() == slice.size() &&
        slice.depth.size() == slice.size() && slice.parent_id.size() == slice.size() &&
        slice.arg_set_id.size() == slice.size());
  FuzzCheck(slice.thread_ts.size() == slice.thread_dur.size() &&
            (slice.thread_ts.empty() || slice.thread_ts.size() == slice.size()));
  for (size_t i = 0; i < slice.size(); i++) {
    FuzzCheck(slice.dur[i] >= -1);  // Sorted: an end never precedes its begin.
    FuzzCheck(slice.track_id[i] < storage.track.size());
    FuzzCheck(slice.name[i] < strings && slice.category[i] < strings);
    FuzzCheck(slice.arg_set_id[i] == kNullId || slice.arg_set_id[i] < storage.next_arg_set_id);
    if (i > 0)
      FuzzCheck(slice.ts[i - 1] <= slice.ts[i]);
    if (slice.parent_id[i] == kNullId) {
      FuzzCheck(slice.depth[i] == 0);
    } else {
      FuzzCheck(slice.parent_id[i] < i);
      FuzzCheck(slice.depth[i] == slice.depth[slice.parent_id[i]] + 1);
      FuzzCheck(slice.track_id[i] == slice.track_id[slice.parent_id[i]]);
    }
  }
  const CounterTable& counter = storage.counter;
  for (size_t i = 0; i < counter.size(); i++) {
    FuzzCheck(counter.track_id[i] < storage.track.size());
    FuzzCheck(storage.track.kind[counter.track_id[i]] == TrackKind::kCounter);
    if (i > 0)
      FuzzCheck(counter.ts[i - 1] <= counter.ts[i]);
  }
  for (size_t i = 0; i < storage.flow.size(); i++)
    FuzzCheck(storage.flow.slice_out[i] < slice.size() && storage.flow.slice_in[i] < slice.size());
  const ArgTable& args = storage.args;
  for (size_t i = 0; i < args.size(); i++) {
    FuzzCheck(args.arg_set_id[i] < storage.next_arg_set_id);
    FuzzCheck(args.key[i] < strings && args.flat_key[i] < strings &&
          args.string_value[i] < strings);
  }
  const TrackTable& track = storage.track;
  FuzzCheck(track.type.size() == track.size() && track.dimension_arg_set_id.size() == track.size());
  for (size_t i = 0; i < track.size(); i++) {
    FuzzCheck(track.type[i] == kNullStringId || track.type[i] < strings);
    FuzzCheck(track.dimension_arg_set_id[i] == kNullId ||
              track.dimension_arg_set_id[i] < storage.next_arg_set_id);
    FuzzCheck(track.parent_id[i] == kNullId || track.parent_id[i] < track.size());
    FuzzCheck(track.utid[i] == kNullId || track.utid[i] < storage.thread.size());
    FuzzCheck(track.upid[i] == kNullId || track.upid[i] < storage.process.size());
  }
  FuzzCheck(storage.process.arg_set_id.empty() ||
            storage.process.arg_set_id.size() == storage.process.size());
  FuzzCheck(storage.thread.arg_set_id.empty() ||
            storage.thread.arg_set_id.size() == storage.thread.size());
  for (size_t i = 0; i < storage.thread.size(); i++)
    FuzzCheck(storage.thread.upid[i] == kNullId || storage.thread.upid[i] < storage.process.size());

  // Templight input: a row per slice, every id valid.
  const TemplightInstantiationTable& t = storage.templight;
  FuzzCheck(t.kind.size() == t.size() && t.kind_name.size() == t.size() &&
        t.file.size() == t.size() && t.origin_file.size() == t.size() &&
        t.memory_end.size() == t.size());
  for (size_t r = 0; r < t.size(); r++) {
    FuzzCheck(t.slice_id[r] == r && r < slice.size());
    FuzzCheck(t.kind_name[r] < strings && t.file[r] < strings && t.origin_file[r] < strings);
  }
  for (const TemplightUnitRow& unit : storage.templight_units)
    FuzzCheck(unit.track_id < track.size() && unit.source_file < strings);
}

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_TEST_MODEL_INVARIANTS_FOR_FUZZING_H_
