// The C ABI's protobuf decoder (zt/c/abi/pb_decoder.h) on any bytes: it
// never reads outside them, every field it returns lies inside them,
// Parse and Skip agree on where a field ends, an ERROR leaves the decoder
// where it was, and a read ends (each OK moves forward).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "zt/c/abi/pb_decoder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A copy of exactly `size` bytes, so that ASan sees any read past them.
  std::unique_ptr<uint8_t[]> bytes(new uint8_t[size == 0 ? 1 : size]);
  if (size > 0)
    memcpy(bytes.get(), data, size);
  const uint8_t* const begin = bytes.get();
  const uint8_t* const end = begin + size;
  PerfettoPbDecoder parse = {begin, end};
  PerfettoPbDecoder skip = {begin, end};
  for (size_t fields = 0;; fields++) {
    if (fields > size)
      abort();  // More fields than bytes: a field did not move forward.
    const uint8_t* before = parse.read_ptr;
    PerfettoPbDecoderField f = PerfettoPbDecoderParseField(&parse);
    const uint32_t skipped = PerfettoPbDecoderSkipField(&skip);
    if (skipped != f.status || skip.read_ptr != parse.read_ptr)
      abort();
    if (f.status != PERFETTO_PB_DECODER_OK) {
      if (parse.read_ptr != before)
        abort();
      break;
    }
    if (parse.read_ptr <= before || parse.read_ptr > end)
      abort();
    if (f.wire_type == 2) {
      const uint8_t* start = f.value.delimited.start;
      if (start < before || start > parse.read_ptr ||
          f.value.delimited.len != static_cast<size_t>(parse.read_ptr - start))
        abort();
      // Touch the bytes: ASan checks they are the input's.
      volatile uint8_t sum = 0;
      for (size_t i = 0; i < f.value.delimited.len; i++)
        sum = static_cast<uint8_t>(sum + start[i]);
    } else if (f.wire_type != 0 && f.wire_type != 1 && f.wire_type != 5) {
      abort();
    }
  }
  return 0;
}
