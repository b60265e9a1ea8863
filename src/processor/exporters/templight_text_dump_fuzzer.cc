// libFuzzer target: any bytes as a Templight file through
// DumpTemplightAsText() (`ztrace convert --to text` of Templight input).
//
// Beyond "no crash, no out-of-bounds read, no endless loop", it checks
// that the dump sees the units the reader sees (both decide the file's
// layout the same way), that a damaged file says where inside the file,
// and that the text stays within its bounds: each comment's name is cut
// at TemplightPrinter's 64 KiB, so the text is at most a fixed multiple
// of the input plus that per field.

#include <cstdint>
#include <cstdlib>
#include <string>

#include "src/processor/exporters/templight_text_dump.h"
#include "src/processor/importers/templight/templight_reader.h"

namespace {

void Check(bool cond, const char* what) {
  if (!cond) {
    fprintf(stderr, "templight_text_dump_fuzzer: %s\n", what);
    abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  size_t text_bytes = 0;
  const zt::processor::TemplightTextResult result = zt::processor::DumpTemplightAsText(
      data, size, [&](std::string_view piece) {
        text_bytes += piece.size();
        return true;
      });
  Check(!result.sink_failed, "a sink that takes everything was refused");
  // Every input byte is printed at most a few times (octal escapes, the
  // field's line), every field adds at most two bounded comments.
  Check(text_bytes <= 64 * size + (size + 1) * (2 * (64 << 10) + 256) * 4,
        "text past its bound");

  zt::processor::TemplightProfile profile;
  zt::processor::TemplightReadOptions options;
  options.max_name_bytes = 4096;
  zt::processor::ReadTemplight(data, size, options, &profile);
  // The reader also reads the start of a unit cut short (a problem says
  // so); the dump prints that unit's bytes as damage.
  Check(result.units == profile.units.size() ||
            (result.units + 1 == profile.units.size() && !result.damage.empty()),
        "the dump and the reader see different units");
  return 0;
}
