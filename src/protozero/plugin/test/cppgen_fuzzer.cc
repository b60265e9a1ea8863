// libFuzzer target for the cppgen parser: random bytes into generated value
// classes covering every field shape (all scalar types, packed/unpacked,
// strings, nested and recursive messages, proto3 presence, unknown fields).
// Beyond "no crash, no UB", it checks that whatever parses re-serializes to
// bytes that parse again and serialize to the very same bytes.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "zt/plugin_test/all_types.gen.h"
#include "zt/plugin_test/evolve_v1.gen.h"
#include "zt/plugin_test/proto3_types.gen.h"
#include "zt/plugin_test/recursion.gen.h"

namespace {

template <typename T>
void Check(const uint8_t* data, size_t size) {
  T msg;
  if (!msg.ParseFromArray(data, size))
    return;
  const std::string first = msg.SerializeAsString();
  const T copy = msg;
  T again;
  if (!again.ParseFromString(first)) {
    fprintf(stderr, "cppgen_fuzzer: re-serialized message does not parse\n");
    abort();
  }
  if (again.SerializeAsString() != first ||
      copy.SerializeAsString() != first) {
    fprintf(stderr, "cppgen_fuzzer: serialization is not stable\n");
    abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0)
    return 0;
  // The first byte picks the schema.
  const uint8_t which = data[0] % 4;
  ++data;
  --size;
  switch (which) {
    case 0:
      Check<zt::plugin_test::gen::AllTypes>(data, size);
      break;
    case 1:
      Check<zt::plugin_test::gen::Proto3Msg>(data, size);
      break;
    case 2:
      Check<zt::plugin_test::gen::Forest>(data, size);
      break;
    default:
      Check<zt::plugin_test::v1::gen::Config>(data, size);
      break;
  }
  return 0;
}
