// Helpers shared by the cppgen tests: a seeded random source and a
// reflection-driven filler of libprotobuf messages.

#ifndef ZT_SRC_PROTOZERO_PLUGIN_TEST_CPPGEN_TEST_UTIL_H_
#define ZT_SRC_PROTOZERO_PLUGIN_TEST_CPPGEN_TEST_UTIL_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/reflection.h>
#include <google/protobuf/unknown_field_set.h>

namespace zt {
namespace cppgen_test {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

class Random {
 public:
  explicit Random(uint32_t seed) : rng_(seed) {}
  uint64_t U64() {
    // Mostly small numbers, sometimes any 64 bits.
    switch (rng_() % 4) {
      case 0: return rng_() % 4;
      case 1: return rng_() % 300;
      case 2: return static_cast<uint64_t>(-static_cast<int64_t>(rng_() % 300));
      default: return (static_cast<uint64_t>(rng_()) << 32) | rng_();
    }
  }
  bool Chance(int percent) { return static_cast<int>(rng_() % 100) < percent; }
  int Int(int n) { return static_cast<int>(rng_() % static_cast<uint32_t>(n)); }
  double Double() {
    return (static_cast<double>(U64() % 2000000) - 1e6) / 64.0;
  }
  std::string Ascii() {
    std::string s(static_cast<size_t>(Int(12)), ' ');
    for (char& c : s)
      c = static_cast<char>('a' + Int(26));
    return s;
  }
  std::string Bytes() {
    std::string s(static_cast<size_t>(Int(12)), '\0');
    for (char& c : s)
      c = static_cast<char>(rng_());
    return s;
  }

 private:
  std::mt19937 rng_;
};

// Sets random values in random fields of |msg| through libprotobuf
// reflection. Strings are ASCII (proto3 requires UTF-8), floats finite.
inline void FillRandom(Random* rnd, Message* msg, int depth,
                       int max_depth = 4) {
  const Descriptor* d = msg->GetDescriptor();
  const Reflection* r = msg->GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* fd = d->field(i);
    if (!rnd->Chance(60))
      continue;
    const int count = fd->is_repeated() ? rnd->Int(4) : 1;
    for (int j = 0; j < count; ++j) {
      const bool rep = fd->is_repeated();
      switch (fd->cpp_type()) {
#define ZT_SET(SETTER, ADDER, VALUE)      \
  if (rep)                               \
    r->ADDER(msg, fd, VALUE);            \
  else                                   \
    r->SETTER(msg, fd, VALUE);           \
  break;
        case FieldDescriptor::CPPTYPE_INT32:
          ZT_SET(SetInt32, AddInt32, static_cast<int32_t>(rnd->U64()))
        case FieldDescriptor::CPPTYPE_INT64:
          ZT_SET(SetInt64, AddInt64, static_cast<int64_t>(rnd->U64()))
        case FieldDescriptor::CPPTYPE_UINT32:
          ZT_SET(SetUInt32, AddUInt32, static_cast<uint32_t>(rnd->U64()))
        case FieldDescriptor::CPPTYPE_UINT64:
          ZT_SET(SetUInt64, AddUInt64, rnd->U64())
        case FieldDescriptor::CPPTYPE_DOUBLE:
          ZT_SET(SetDouble, AddDouble, rnd->Double())
        case FieldDescriptor::CPPTYPE_FLOAT:
          ZT_SET(SetFloat, AddFloat, static_cast<float>(rnd->Double()))
        case FieldDescriptor::CPPTYPE_BOOL:
          ZT_SET(SetBool, AddBool, rnd->Chance(50))
        case FieldDescriptor::CPPTYPE_ENUM: {
          const auto* en = fd->enum_type();
          ZT_SET(SetEnum, AddEnum, en->value(rnd->Int(en->value_count())))
        }
        case FieldDescriptor::CPPTYPE_STRING:
          ZT_SET(SetString, AddString,
                 fd->type() == FieldDescriptor::TYPE_BYTES ? rnd->Bytes()
                                                           : rnd->Ascii())
#undef ZT_SET
        case FieldDescriptor::CPPTYPE_MESSAGE:
          if (depth >= max_depth)
            break;
          FillRandom(rnd,
                     rep ? r->AddMessage(msg, fd) : r->MutableMessage(msg, fd),
                     depth + 1, max_depth);
          break;
      }
    }
  }
}

// True if |msg| and every message below it have no unknown fields.
inline bool NoUnknownFields(const Message& msg) {
  const Reflection* r = msg.GetReflection();
  if (!r->GetUnknownFields(msg).empty())
    return false;
  std::vector<const FieldDescriptor*> fields;
  r->ListFields(msg, &fields);
  for (const FieldDescriptor* fd : fields) {
    if (fd->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE)
      continue;
    if (fd->is_repeated()) {
      for (int i = 0; i < r->FieldSize(msg, fd); ++i) {
        if (!NoUnknownFields(r->GetRepeatedMessage(msg, fd, i)))
          return false;
      }
    } else if (!NoUnknownFields(r->GetMessage(msg, fd))) {
      return false;
    }
  }
  return true;
}

}  // namespace cppgen_test
}  // namespace zt

#endif  // ZT_SRC_PROTOZERO_PLUGIN_TEST_CPPGEN_TEST_UTIL_H_
