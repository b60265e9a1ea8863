// libFuzzer target: any bytes as a trace file through the whole importer
// (tokenizer, sequence state, clocks, sorter, track event parser).
//
// Beyond "no crash, no out-of-bounds read, no endless loop", it checks the
// model's invariants on whatever was imported: columns of equal length,
// every id pointing at an existing row, depth and parent agreeing, slices
// and counters in time order, durations not below -1; for Templight input,
// a templight row per slice and both name expansion methods agreeing.
// The format sniffer that guards file imports sees the same bytes: what it
// calls a Templight trace, the importer must read as one.
//
// The differential passes (the import on two threads; a protobuf trace
// read in pieces as they arrive; Templight's sequential name expansion) each cost a whole import again: they run for
// one input in four, chosen by a hash of its bytes so that every run of an
// input does the same. That makes a run about 1.6 times cheaper, for the
// campaigns of 10 M executions (tools/fuzz); the passes still see millions.
// The checks run without coverage hooks: they guide nothing.

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "src/base/test/fuzzing.h"
#include "src/processor/importers/templight/templight_importer.h"
#include "src/processor/importers/trace_format.h"
#include "src/processor/importers/trace_importer.h"
#include "src/processor/test/model_invariants_for_fuzzing.h"

namespace {

using namespace zt::processor;

ZT_FUZZ_CHECKER bool RunDifferentialPasses(const uint8_t* data, size_t size) {
  uint32_t hash = 2166136261u;  // FNV-1a
  for (size_t i = 0; i < size; i++)
    hash = (hash ^ data[i]) * 16777619u;
  return hash % 4 == 0;
}

// `other` is the same model as `storage`.
ZT_FUZZ_CHECKER void CheckSameModel(const TraceStorage& other, const ImportResult& other_result,
                                   const TraceStorage& storage, const ImportResult& result) {
  const SliceTable& slice = storage.slice;
  const CounterTable& counter = storage.counter;
  const ArgTable& args = storage.args;
  const TrackTable& track = storage.track;
  FuzzCheck(other_result.packets_parsed == result.packets_parsed);
  FuzzCheck(other_result.tokenizer.damage == result.tokenizer.damage &&
            other_result.tokenizer.damage_offset == result.tokenizer.damage_offset &&
            other_result.tokenizer.packets == result.tokenizer.packets);
  FuzzCheck(other.strings.size() == storage.strings.size());
  FuzzCheck(other.slice.ts == slice.ts && other.slice.dur == slice.dur &&
        other.slice.track_id == slice.track_id && other.slice.name == slice.name &&
        other.slice.category == slice.category && other.slice.parent_id == slice.parent_id &&
        other.slice.arg_set_id == slice.arg_set_id);
  FuzzCheck(other.counter.ts == counter.ts && other.counter.value.size() == counter.value.size() &&
        other.counter.track_id == counter.track_id);
  FuzzCheck(other.flow.slice_out == storage.flow.slice_out &&
        other.flow.slice_in == storage.flow.slice_in);
  FuzzCheck(other.args.key == args.key && other.args.int_value == args.int_value);
  FuzzCheck(other.track.uuid == track.uuid && other.track.kind == track.kind);
  for (int key = 0; key < stats::kNumKeys; key++)
    FuzzCheck(other.stats.Get(static_cast<stats::Key>(key)) ==
          storage.stats.Get(static_cast<stats::Key>(key)));
}

// Both passes on two threads build the same model from any bytes.
ZT_FUZZ_CHECKER void CheckTwoThreadsAgree(const uint8_t* data, size_t size,
                                         const TraceStorage& storage,
                                         const ImportResult& result) {
  ImportOptions two_threads;
  two_threads.two_threads_min_bytes = 0;
  TraceStorage other;
  const ImportResult other_result = ImportTrace(data, size, &other, two_threads);
  CheckSameModel(other, other_result, storage, result);
}

// A protobuf trace read as it arrives (`ztrace serve`), in pieces of a
// size the input chooses, builds the model of the whole.
ZT_FUZZ_CHECKER void CheckGrowingImportAgrees(const uint8_t* data, size_t size,
                                             const TraceStorage& storage,
                                             const ImportResult& result) {
  const uint64_t step = 1 + (size > 0 ? data[size - 1] % 61 : 0);
  TraceStorage other;
  const ImportResult other_result = ImportGrowingProtoTrace(
      data,
      [size, step](uint64_t have) {
        GrowingInput input;
        input.available = std::min<uint64_t>(size, have + step);
        input.ended = input.available == size;
        return input;
      },
      &other);
  CheckSameModel(other, other_result, storage, result);
}

// Templight input: the sequential expansion method builds the same
// timeline, with the same name wherever it could expand one (it refuses
// forward references the batch allows).
ZT_FUZZ_CHECKER void CheckSequentialTemplightAgrees(const uint8_t* data, size_t size,
                                                   const TraceStorage& storage) {
  const SliceTable& slice = storage.slice;
  ImportOptions sequential_options;
  sequential_options.templight_method = NameExpander::Method::kSequential;
  TraceStorage sequential;
  ImportTrace(data, size, &sequential, sequential_options);
  FuzzCheck(sequential.slice.ts == slice.ts && sequential.slice.dur == slice.dur &&
        sequential.slice.parent_id == slice.parent_id &&
        sequential.slice.track_id == slice.track_id);
  const StringId unreadable = sequential.strings.Intern("(unreadable name)");
  for (size_t i = 0; i < slice.size(); i++) {
    if (sequential.slice.name[i] != unreadable)
      FuzzCheck(sequential.strings.Get(sequential.slice.name[i]) == storage.strings.Get(slice.name[i]));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const TraceFormat format = GuessTraceFormat(data, size);
  FuzzCheck(!DescribeTraceFormat(format, data, size).empty());
  FuzzCheck((format == TraceFormat::kTemplight) ==
        (IsImportable(format) && LooksLikeTemplight(data, size)));
  // Gzip is judged by what it holds.
  if (format != TraceFormat::kGzip)
    FuzzCheck(NotATraceError("f", data, size).empty() == IsImportable(format));
  TraceStorage storage;
  const ImportResult result = ImportTrace(data, size, &storage);
  FuzzCheck(result.tokenizer.packets <= size);
  CheckModel(storage);
  if (!RunDifferentialPasses(data, size))
    return 0;
  CheckTwoThreadsAgree(data, size, storage, result);
  // As `ztrace serve` keeps it: what its first bytes show to be a
  // protobuf trace (gzip's magic before garbage is not, and the whole
  // import refuses it) and the whole reads as one (not as Templight).
  if (format == TraceFormat::kProto && result.format == ImportOptions::Format::kProto &&
      !result.gzip)
    CheckGrowingImportAgrees(data, size, storage, result);
  if (!storage.templight_units.empty())
    CheckSequentialTemplightAgrees(data, size, storage);
  return 0;
}
