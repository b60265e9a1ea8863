// libFuzzer target: a TraceConfig as a consumer hands it over, in both of
// its forms, through the parsers that take it: `ztrace record -c` (text
// format against the real schema, or the encoded message) and the `.gen`
// value classes that the service decodes EnableTracing with.
//
// The first input byte picks the form (even: text, odd: binary); the rest is
// the config. Beyond "no crash, no sanitizer report, no stack overflow" it
// checks:
//  * an error is a sentence naming the file ("config.pbtxt:LINE:COL: ..."
//    for text), never empty;
//  * a config that parsed re-encodes to bytes that parse again, and encode
//    to the same bytes (the value classes keep what they decoded);
//  * ValidateConfig answers with an error exactly when it refuses.

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "src/cmd/ztrace/record_config.h"
#include "zt/config/trace_config.gen.h"

namespace {

void Check(bool condition) {
  if (!condition)
    abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0)
    return 0;
  const bool text = (data[0] & 1) == 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  zt::protos::gen::TraceConfig config;
  std::string error;
  if (!zt::ztrace::ParseConfig(bytes, text, "config.pbtxt", &config, &error)) {
    Check(!error.empty());
    Check(error.compare(0, 12, "config.pbtxt") == 0 || !text);
    return 0;
  }
  const std::string encoded = config.SerializeAsString();
  zt::protos::gen::TraceConfig again;
  Check(again.ParseFromString(encoded));
  Check(again.SerializeAsString() == encoded);
  std::string refusal;
  const bool valid = zt::ztrace::ValidateConfig(config, &refusal);
  Check(valid == refusal.empty());
  return 0;
}
