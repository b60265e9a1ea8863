// libFuzzer target: any bytes as a Chrome JSON trace, fed to the importer
// in pieces whose size the input's first byte picks, then whole.
//
// Beyond "no crash, no out-of-bounds read, no endless loop": the model's
// invariants hold on what was imported (model_invariants_for_fuzzing.h),
// and where the pieces are cut changes nothing: the same slices, counters,
// flows, args and stats as a single piece. A tenth of the inputs are also
// gzip-compressed and imported through the gzip path, which must agree.

#include <cstdint>
#include <string>

#include "src/base/test/fuzzing.h"
#include "src/processor/importers/json/json_trace_importer.h"
#include "src/processor/importers/trace_importer.h"
#include "src/processor/test/gzip_for_testing.h"
#include "src/processor/test/model_invariants_for_fuzzing.h"

namespace {

using namespace zt::processor;

void ImportInPieces(const char* data, size_t size, size_t piece, TraceStorage* storage) {
  JsonTraceImporter importer(storage);
  for (size_t done = 0; done < size; done += piece) {
    if (!importer.Feed(data + done, std::min(piece, size - done)))
      break;
  }
  importer.Finish();
}

ZT_FUZZ_CHECKER void CheckSame(const TraceStorage& a, const TraceStorage& b) {
  FuzzCheck(a.strings.size() == b.strings.size());
  FuzzCheck(a.slice.ts == b.slice.ts && a.slice.dur == b.slice.dur &&
            a.slice.track_id == b.slice.track_id && a.slice.name == b.slice.name &&
            a.slice.category == b.slice.category && a.slice.parent_id == b.slice.parent_id &&
            a.slice.arg_set_id == b.slice.arg_set_id && a.slice.thread_ts == b.slice.thread_ts);
  FuzzCheck(a.counter.ts == b.counter.ts && a.counter.track_id == b.counter.track_id);
  FuzzCheck(a.flow.slice_out == b.flow.slice_out && a.flow.slice_in == b.flow.slice_in);
  FuzzCheck(a.args.key == b.args.key && a.args.int_value == b.args.int_value &&
            a.args.string_value == b.args.string_value);
  FuzzCheck(a.track.kind == b.track.kind && a.track.name == b.track.name);
  FuzzCheck(a.thread.tid == b.thread.tid && a.process.pid == b.process.pid);
  for (int key = 0; key < stats::kNumKeys; key++)
    FuzzCheck(a.stats.Get(static_cast<stats::Key>(key)) ==
              b.stats.Get(static_cast<stats::Key>(key)));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1)
    return 0;
  const size_t piece = 1 + data[0] % 64;
  const char* const text = reinterpret_cast<const char*>(data + 1);
  const size_t text_size = size - 1;

  TraceStorage whole;
  ImportInPieces(text, text_size, text_size == 0 ? 1 : text_size, &whole);
  CheckModel(whole);
  TraceStorage pieces;
  ImportInPieces(text, text_size, piece, &pieces);
  CheckSame(whole, pieces);

  if (data[0] >= 0xE6) {
    // Through gzip, as ImportTrace reads a compressed file: the same model
    // whenever the text is taken for JSON.
    const std::string compressed = GzipForTesting(std::string(text, text_size), 1);
    TraceStorage from_gzip;
    ImportOptions json;
    json.format = ImportOptions::Format::kJson;
    ImportTrace(compressed.data(), compressed.size(), &from_gzip, json);
    CheckModel(from_gzip);
    if (text_size > 0)
      CheckSame(whole, from_gzip);
  }
  return 0;
}
