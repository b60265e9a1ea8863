// libFuzzer target for the protozero decoder.
//
// Decodes arbitrary bytes with ProtoDecoder (ReadField loop and FindField)
// and TypedProtoDecoder (Get, GetRepeated, every packed kind), recursing into
// length-delimited fields as if they were messages. Besides "no crash, no
// out-of-bounds read" (ASan), it checks invariants that can fail:
//  * every decoder agrees on which fields the valid prefix holds;
//  * Field::SerializeAndAppendTo() output decodes back to the same fields,
//    without error, and equals what a Message writes for the same fields
//    through tiny heap slices;
//  * packed iteration matches a straightforward reference implementation.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "zt/protozero/field.h"
#include "zt/protozero/message.h"
#include "zt/protozero/proto_decoder.h"
#include "zt/protozero/proto_utils.h"
#include "zt/protozero/scattered_heap_buffer.h"

namespace zt {
namespace protozero {
namespace {

using proto_utils::ProtoWireType;

#define FUZZ_CHECK(cond)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      abort();                                                                 \
    }                                                                          \
  } while (0)

constexpr int kMaxDepth = 8;
constexpr uint32_t kMaxTypedId = 32;

using TypedDecoder = TypedProtoDecoder<kMaxTypedId, true>;
using SingularDecoder = TypedProtoDecoder<kMaxTypedId, false>;

bool SameField(const Field& a, const Field& b) {
  if (a.valid() != b.valid() || a.id() != b.id() || a.type() != b.type())
    return false;
  if (a.type() == ProtoWireType::kLengthDelimited)
    return a.as_string() == b.as_string();
  return a.raw_int_value() == b.raw_int_value();
}

// Reads every accessor so that ASan sees any bad pointer.
uint64_t Touch(const Field& f) {
  uint64_t sum = f.as_uint64() + static_cast<uint64_t>(f.as_int32()) +
                 static_cast<uint64_t>(f.as_sint64()) + f.as_bool();
  const float fl = f.as_float();
  const double db = f.as_double();
  sum += (fl == fl) + (db == db);
  for (char c : f.as_string())
    sum += static_cast<uint8_t>(c);
  return sum;
}

// Reference packed decoding: the raw 64-bit values, or false on error.
bool ReferencePacked(PackedKind kind,
                     const std::vector<Field>& occurrences,
                     std::vector<uint64_t>* out) {
  const bool varint =
      kind == PackedKind::kVarInt || kind == PackedKind::kZigZag;
  const size_t width = kind == PackedKind::kFixed32 ? 4 : 8;
  const ProtoWireType wire = varint       ? ProtoWireType::kVarInt
                             : width == 4 ? ProtoWireType::kFixed32
                                          : ProtoWireType::kFixed64;
  for (const Field& f : occurrences) {
    if (f.type() == ProtoWireType::kLengthDelimited) {
      const uint8_t* p = f.data();
      const uint8_t* end = p + f.size();
      while (p < end) {
        uint64_t v = 0;
        if (varint) {
          const uint8_t* next = proto_utils::ParseVarInt(p, end, &v);
          if (next == p)
            return false;
          p = next;
        } else {
          if (static_cast<size_t>(end - p) < width)
            return false;
          memcpy(&v, p, width);
          p += width;
        }
        out->push_back(v);
      }
    } else if (f.type() == wire) {
      out->push_back(f.raw_int_value());
    } else {
      return false;
    }
  }
  return true;
}

template <PackedKind kKind, typename T>
void CheckPacked(const TypedDecoder& dec,
                 uint32_t id,
                 const std::vector<Field>& occurrences) {
  std::vector<uint64_t> expected;
  const bool ok = ReferencePacked(kKind, occurrences, &expected);
  bool error = false;
  size_t i = 0;
  for (auto it = dec.GetPackedRepeated<kKind, T>(id, &error); it; ++it, ++i) {
    FUZZ_CHECK(i < expected.size());
    const T value = *it;
    if constexpr (kKind == PackedKind::kZigZag) {
      FUZZ_CHECK(value == proto_utils::ZigZagDecode(expected[i]));
    } else if constexpr (kKind == PackedKind::kFixed32) {
      FUZZ_CHECK(value == static_cast<uint32_t>(expected[i]));
    } else {
      FUZZ_CHECK(value == expected[i]);
    }
  }
  FUZZ_CHECK(i == expected.size());
  FUZZ_CHECK(error == !ok);
}

// Other element types: only "no crash", and the same count.
template <PackedKind kKind, typename T>
size_t CountPacked(const TypedDecoder& dec, uint32_t id) {
  size_t n = 0;
  bool error = false;
  for (auto it = dec.GetPackedRepeated<kKind, T>(id, &error); it; ++it) {
    volatile T v = *it;
    (void)v;
    ++n;
  }
  return n;
}

class AnyMessage : public Message {};

void Decode(const uint8_t* data, size_t size, int depth) {
  // 1. Sequential decoding.
  ProtoDecoder dec(data, size);
  std::vector<Field> fields;
  std::string reserialized;
  uint64_t sink = 0;
  for (Field f = dec.ReadField(); f.valid(); f = dec.ReadField()) {
    FUZZ_CHECK(f.id() >= 1 && f.id() <= proto_utils::kMaxFieldId);
    if (f.type() == ProtoWireType::kLengthDelimited) {
      FUZZ_CHECK(f.data() >= data && f.size() <= size &&
                 f.data() + f.size() <= data + size);
    } else {
      FUZZ_CHECK(f.data() == nullptr && f.size() == 0);
    }
    sink += Touch(f);
    f.SerializeAndAppendTo(&reserialized);
    fields.push_back(f);
  }
  FUZZ_CHECK(!dec.ReadField().valid());
  FUZZ_CHECK(dec.bytes_left() == 0);
  const bool parse_error = dec.parse_error();
  if (!parse_error && size > 0)
    FUZZ_CHECK(!fields.empty());

  // 2. The re-serialized fields decode to the same fields, cleanly.
  {
    ProtoDecoder again(reserialized);
    for (const Field& f : fields)
      FUZZ_CHECK(SameField(again.ReadField(), f));
    FUZZ_CHECK(!again.ReadField().valid());
    FUZZ_CHECK(!again.parse_error());
    if (!parse_error)
      FUZZ_CHECK(reserialized.size() <= size);
  }

  // 3. A Message writing the same fields through tiny slices produces the
  //    same bytes as SerializeAndAppendTo().
  {
    HeapBuffered<AnyMessage> msg(1 + size % 23, 64);
    for (const Field& f : fields) {
      switch (f.type()) {
        case ProtoWireType::kVarInt:
          msg->AppendVarInt(f.id(), f.as_uint64());
          break;
        case ProtoWireType::kFixed32:
          msg->AppendFixed(f.id(), f.as_uint32());
          break;
        case ProtoWireType::kFixed64:
          msg->AppendFixed(f.id(), f.as_uint64());
          break;
        case ProtoWireType::kLengthDelimited:
          msg->AppendBytes(f.id(), f.data(), f.size());
          break;
      }
    }
    FUZZ_CHECK(msg.SerializeAsString() == reserialized);
    FUZZ_CHECK(msg->Finalize() == reserialized.size());
  }

  // 4. FindField agrees with the last occurrence in the valid prefix.
  for (size_t i = 0; i < fields.size() && i < 16; ++i) {
    const uint32_t id = fields[i].id();
    Field last;
    for (const Field& f : fields) {
      if (f.id() == id)
        last = f;
    }
    FUZZ_CHECK(SameField(dec.FindField(id), last));
  }
  FUZZ_CHECK(!dec.FindField(0).valid());

  // 5. Typed decoders.
  TypedDecoder typed(data, size);
  SingularDecoder singular(data, size);
  FUZZ_CHECK(typed.parse_error() == parse_error);
  FUZZ_CHECK(singular.parse_error() == parse_error);
  // Every id the input holds, and three it does not (0, one past the
  // decoder's range, and the lowest free one in range): checking each of the
  // other absent ids too ran the same code again and took most of the time.
  bool present[kMaxTypedId + 2] = {};
  for (const Field& f : fields) {
    if (f.id() <= kMaxTypedId + 1)
      present[f.id()] = true;
  }
  bool free_id_checked = false;
  for (uint32_t id = 0; id <= kMaxTypedId + 1; ++id) {
    if (!present[id] && id != 0 && id != kMaxTypedId + 1) {
      if (free_id_checked)
        continue;
      free_id_checked = true;
    }
    std::vector<Field> occurrences;
    for (const Field& f : fields) {
      if (f.id() == id && id <= kMaxTypedId)
        occurrences.push_back(f);
    }
    const Field last = occurrences.empty() ? Field() : occurrences.back();
    FUZZ_CHECK(SameField(typed.Get(id), last));
    FUZZ_CHECK(SameField(singular.Get(id), last));
    size_t n = 0;
    for (auto it = typed.GetRepeated<ConstBytes>(id); it; ++it, ++n) {
      FUZZ_CHECK(n < occurrences.size());
      FUZZ_CHECK(SameField(it.field(), occurrences[n]));
      const ConstBytes b = *it;
      FUZZ_CHECK(b.size == occurrences[n].size());
    }
    FUZZ_CHECK(n == occurrences.size());
    size_t singular_n = 0;
    for (auto it = singular.GetRepeated<ConstBytes>(id); it; ++it)
      ++singular_n;
    FUZZ_CHECK(singular_n == (occurrences.empty() ? 0u : 1u));

    CheckPacked<PackedKind::kVarInt, uint64_t>(typed, id, occurrences);
    CheckPacked<PackedKind::kZigZag, int64_t>(typed, id, occurrences);
    CheckPacked<PackedKind::kFixed32, uint32_t>(typed, id, occurrences);
    CheckPacked<PackedKind::kFixed64, uint64_t>(typed, id, occurrences);
    const size_t varints =
        CountPacked<PackedKind::kVarInt, uint64_t>(typed, id);
    FUZZ_CHECK((CountPacked<PackedKind::kVarInt, int32_t>(typed, id)) ==
               varints);
    FUZZ_CHECK((CountPacked<PackedKind::kVarInt, bool>(typed, id)) == varints);
    FUZZ_CHECK((CountPacked<PackedKind::kZigZag, int32_t>(typed, id)) ==
               varints);
    FUZZ_CHECK((CountPacked<PackedKind::kFixed32, float>(typed, id)) ==
               (CountPacked<PackedKind::kFixed32, int32_t>(typed, id)));
    FUZZ_CHECK((CountPacked<PackedKind::kFixed64, double>(typed, id)) ==
               (CountPacked<PackedKind::kFixed64, int64_t>(typed, id)));
  }

  // 6. Length-delimited fields may be nested messages.
  if (depth < kMaxDepth) {
    for (const Field& f : fields) {
      if (f.type() == ProtoWireType::kLengthDelimited && f.size() > 0)
        Decode(f.data(), f.size(), depth + 1);
    }
  }
  volatile uint64_t keep = sink;
  (void)keep;
}

}  // namespace
}  // namespace protozero
}  // namespace zt

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  zt::protozero::Decode(data, size, 0);
  return 0;
}
