// A compact, constexpr-friendly description of proto messages and enums,
// emitted by protoc-gen-pbzero next to the .gen value classes. It is the
// only "reflection" zerotrace has: enough for schema-driven code such as the
// text-format parser (upstream-style .pbtxt trace configs) to work at run
// time without libprotobuf.
//
// All objects are static constants with program lifetime; thread-safe to
// read from any thread.

#ifndef ZT_PROTOZERO_SCHEMA_H_
#define ZT_PROTOZERO_SCHEMA_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace zt {
namespace protozero {

struct MessageSchema;
struct EnumSchema;

// Field types, numbered as in descriptor.proto's FieldDescriptorProto.Type.
enum class FieldType : uint8_t {
  kDouble = 1,
  kFloat = 2,
  kInt64 = 3,
  kUint64 = 4,
  kInt32 = 5,
  kFixed64 = 6,
  kFixed32 = 7,
  kBool = 8,
  kString = 9,
  kGroup = 10,  // Never emitted: the plugin rejects groups.
  kMessage = 11,
  kBytes = 12,
  kUint32 = 13,
  kEnum = 14,
  kSfixed32 = 15,
  kSfixed64 = 16,
  kSint32 = 17,
  kSint64 = 18,
};

struct FieldSchema {
  const char* name;      // As in the .proto file, e.g. "size_kb".
  uint32_t number;
  FieldType type;
  bool repeated;
  bool packed;           // Repeated scalar written packed.
  // Set for kMessage / kEnum fields. A function rather than a pointer so
  // schemas can refer to each other across files and recursively without
  // static-initialization-order problems.
  const MessageSchema* (*message_type)();
  const EnumSchema* (*enum_type)();
};

struct EnumValueSchema {
  const char* name;
  int32_t number;
};

struct EnumSchema {
  const char* full_name;  // e.g. "zt.protos.TraceConfig.BufferConfig.FillPolicy"
  const EnumValueSchema* values;
  size_t num_values;
};

struct MessageSchema {
  const char* full_name;  // e.g. "zt.protos.TraceConfig"
  const FieldSchema* fields;  // Sorted by number.
  size_t num_fields;

  // Returns the field called |name|, or null. O(num_fields).
  const FieldSchema* FindFieldByName(std::string_view name) const {
    for (size_t i = 0; i < num_fields; i++) {
      if (name == fields[i].name)
        return &fields[i];
    }
    return nullptr;
  }
  // Returns the field numbered |number|, or null. O(log num_fields).
  const FieldSchema* FindFieldByNumber(uint32_t number) const {
    size_t lo = 0, hi = num_fields;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (fields[mid].number < number)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo < num_fields && fields[lo].number == number ? &fields[lo]
                                                          : nullptr;
  }
};

}  // namespace protozero
}  // namespace zt

#endif  // ZT_PROTOZERO_SCHEMA_H_
