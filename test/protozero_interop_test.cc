// protozero vs libprotobuf, both directions, on every field shape of
// interop.proto:
//  * messages written with the generated protozero stubs parse with
//    libprotobuf into exactly the message that was meant;
//  * messages serialized by libprotobuf decode with the generated protozero
//    decoders into exactly the same values;
//  * a randomized round trip (all field types, repeated and packed, nesting
//    depth >= 8) written over random scatter boundaries (ranges of 1..N
//    bytes) is byte-identical to the contiguous write once concatenated.

#include <gtest/gtest.h>

#include <google/protobuf/util/message_differencer.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "zt/protozero/packed_repeated_fields.h"
#include "zt/protozero/proto_decoder.h"
#include "zt/protozero/scattered_heap_buffer.h"
#include "zt/test/interop.pb.h"
#include "zt/test/interop.pbzero.h"

namespace {

using Ref = zt::test::InteropMessage;  // libprotobuf, the reference.
using Zt = zt::test::pbzero::InteropMessage;
using google::protobuf::util::MessageDifferencer;
using zt::protozero::PackedFixedSizeInt;
using zt::protozero::PackedVarInt;

// ---- random reference messages -------------------------------------------

class RandomMessageMaker {
 public:
  explicit RandomMessageMaker(uint32_t seed) : rng_(seed) {}

  // A message with random fields and at least one chain of |min_depth|
  // nested children.
  void Fill(Ref* msg, int depth, int min_depth) {
    if (Chance(2)) msg->set_f_int32(Int<int32_t>());
    if (Chance(2)) msg->set_f_int64(Int<int64_t>());
    if (Chance(2)) msg->set_f_uint32(Int<uint32_t>());
    if (Chance(2)) msg->set_f_uint64(Int<uint64_t>());
    if (Chance(2)) msg->set_f_sint32(Int<int32_t>());
    if (Chance(2)) msg->set_f_sint64(Int<int64_t>());
    if (Chance(2)) msg->set_f_fixed32(Int<uint32_t>());
    if (Chance(2)) msg->set_f_fixed64(Int<uint64_t>());
    if (Chance(2)) msg->set_f_sfixed32(Int<int32_t>());
    if (Chance(2)) msg->set_f_sfixed64(Int<int64_t>());
    if (Chance(2)) msg->set_f_float(Float());
    if (Chance(2)) msg->set_f_double(Double());
    if (Chance(2)) msg->set_f_bool(Chance(2));
    if (Chance(2)) msg->set_f_string(String());
    if (Chance(2)) msg->set_f_bytes(Bytes());
    if (Chance(2)) msg->set_f_color(Color());
    if (Chance(2)) msg->set_f_mode(Mode());
    if (Chance(3)) msg->set_f_big_id(Int<uint32_t>());

    for (int n = Count(); n > 0; n--) {
      msg->add_r_int32(Int<int32_t>());
      msg->add_p_int32(Int<int32_t>());
    }
    for (int n = Count(); n > 0; n--) {
      msg->add_r_int64(Int<int64_t>());
      msg->add_p_int64(Int<int64_t>());
    }
    for (int n = Count(); n > 0; n--) {
      msg->add_r_uint32(Int<uint32_t>());
      msg->add_p_uint32(Int<uint32_t>());
    }
    for (int n = Count(); n > 0; n--) {
      msg->add_r_uint64(Int<uint64_t>());
      msg->add_p_uint64(Int<uint64_t>());
    }
    for (int n = Count(); n > 0; n--) {
      msg->add_r_sint32(Int<int32_t>());
      msg->add_p_sint32(Int<int32_t>());
    }
    for (int n = Count(); n > 0; n--) {
      msg->add_r_sint64(Int<int64_t>());
      msg->add_p_sint64(Int<int64_t>());
    }
    for (int n = Count(); n > 0; n--) {
      msg->add_r_fixed32(Int<uint32_t>());
      msg->add_p_fixed32(Int<uint32_t>());
    }
    for (int n = Count(); n > 0; n--) {
      msg->add_r_fixed64(Int<uint64_t>());
      msg->add_p_fixed64(Int<uint64_t>());
    }
    for (int n = Count(); n > 0; n--) {
      msg->add_r_sfixed32(Int<int32_t>());
      msg->add_p_sfixed32(Int<int32_t>());
    }
    for (int n = Count(); n > 0; n--) {
      msg->add_r_sfixed64(Int<int64_t>());
      msg->add_p_sfixed64(Int<int64_t>());
    }
    for (int n = Count(); n > 0; n--) {
      msg->add_r_float(Float());
      msg->add_p_float(Float());
    }
    for (int n = Count(); n > 0; n--) {
      msg->add_r_double(Double());
      msg->add_p_double(Double());
    }
    for (int n = Count(); n > 0; n--) {
      msg->add_r_bool(Chance(2));
      msg->add_p_bool(Chance(2));
    }
    for (int n = Count(); n > 0; n--) {
      msg->add_r_string(String());
      msg->add_r_bytes(Bytes());
    }
    for (int n = Count(); n > 0; n--) {
      msg->add_r_color(Color());
      msg->add_p_color(Color());
    }

    switch (rng_() % 4) {
      case 0: msg->set_choice_name(String()); break;
      case 1: msg->set_choice_number(Int<int64_t>()); break;
      case 2:
        if (depth < 10) Fill(msg->mutable_choice_child(), depth + 1, 0);
        break;
      default: break;  // oneof left unset.
    }

    if (depth < min_depth || (depth < 10 && Chance(4)))
      Fill(msg->mutable_f_child(), depth + 1, min_depth);
    if (depth < 6) {
      for (int n = static_cast<int>(rng_() % 3); n > 0; n--)
        Fill(msg->add_r_child(), depth + 2, 0);
    }
  }

 private:
  bool Chance(uint32_t one_in) { return rng_() % one_in == 0; }
  int Count() { return Chance(2) ? 0 : static_cast<int>(rng_() % 5); }

  // Integers spread over every varint length, with the extremes.
  template <typename T>
  T Int() {
    switch (rng_() % 6) {
      case 0: return 0;
      case 1: return std::numeric_limits<T>::max();
      case 2: return std::numeric_limits<T>::min();
      case 3: return static_cast<T>(rng_() % 300);
      case 4: return static_cast<T>(-static_cast<int64_t>(rng_() % 300));
      default: {
        const uint64_t bits = (uint64_t{rng_()} << 32) | rng_();
        return static_cast<T>(bits >> (rng_() % 64));
      }
    }
  }
  // Finite values only: NaN never compares equal to itself.
  float Float() {
    return static_cast<float>(Int<int32_t>()) / static_cast<float>(1 + rng_() % 1000);
  }
  double Double() {
    return static_cast<double>(Int<int64_t>()) / static_cast<double>(1 + rng_() % 1000);
  }
  // string fields hold UTF-8 (ASCII here); bytes fields anything.
  std::string String() {
    std::string s = Bytes();
    for (char& c : s)
      c = static_cast<char>(' ' + static_cast<unsigned char>(c) % 95);
    return s;
  }
  std::string Bytes() {
    std::string s(rng_() % 3 == 0 ? rng_() % 300 : rng_() % 20, '\0');
    for (char& c : s)
      c = static_cast<char>(rng_());
    return s;
  }
  zt::test::InteropColor Color() {
    static const zt::test::InteropColor kColors[] = {
        zt::test::INTEROP_COLOR_UNSPECIFIED, zt::test::INTEROP_COLOR_RED,
        zt::test::INTEROP_COLOR_GREEN, zt::test::INTEROP_COLOR_NEGATIVE};
    return kColors[rng_() % 4];
  }
  Ref::Mode Mode() {
    static const Ref::Mode kModes[] = {Ref::MODE_OFF, Ref::MODE_ON,
                                       Ref::MODE_HUGE};
    return kModes[rng_() % 3];
  }

  std::mt19937 rng_;
};

// ---- reference -> protozero stubs ------------------------------------------

// Writes |src| with the generated stubs, field by field in field-number
// order (as libprotobuf does), so unnested output is byte-identical.
void WriteWithStubs(const Ref& src, Zt* dst) {
  if (src.has_f_int32()) dst->set_f_int32(src.f_int32());
  if (src.has_f_int64()) dst->set_f_int64(src.f_int64());
  if (src.has_f_uint32()) dst->set_f_uint32(src.f_uint32());
  if (src.has_f_uint64()) dst->set_f_uint64(src.f_uint64());
  if (src.has_f_sint32()) dst->set_f_sint32(src.f_sint32());
  if (src.has_f_sint64()) dst->set_f_sint64(src.f_sint64());
  if (src.has_f_fixed32()) dst->set_f_fixed32(src.f_fixed32());
  if (src.has_f_fixed64()) dst->set_f_fixed64(src.f_fixed64());
  if (src.has_f_sfixed32()) dst->set_f_sfixed32(src.f_sfixed32());
  if (src.has_f_sfixed64()) dst->set_f_sfixed64(src.f_sfixed64());
  if (src.has_f_float()) dst->set_f_float(src.f_float());
  if (src.has_f_double()) dst->set_f_double(src.f_double());
  if (src.has_f_bool()) dst->set_f_bool(src.f_bool());
  if (src.has_f_string()) dst->set_f_string(src.f_string());
  if (src.has_f_bytes()) dst->set_f_bytes(src.f_bytes());
  if (src.has_f_color())
    dst->set_f_color(static_cast<zt::test::pbzero::InteropColor>(src.f_color()));
  if (src.has_f_mode())
    dst->set_f_mode(static_cast<Zt::Mode>(src.f_mode()));
  if (src.has_f_child()) WriteWithStubs(src.f_child(), dst->set_f_child());

  for (int32_t v : src.r_int32()) dst->add_r_int32(v);
  for (int64_t v : src.r_int64()) dst->add_r_int64(v);
  for (uint32_t v : src.r_uint32()) dst->add_r_uint32(v);
  for (uint64_t v : src.r_uint64()) dst->add_r_uint64(v);
  for (int32_t v : src.r_sint32()) dst->add_r_sint32(v);
  for (int64_t v : src.r_sint64()) dst->add_r_sint64(v);
  for (uint32_t v : src.r_fixed32()) dst->add_r_fixed32(v);
  for (uint64_t v : src.r_fixed64()) dst->add_r_fixed64(v);
  for (int32_t v : src.r_sfixed32()) dst->add_r_sfixed32(v);
  for (int64_t v : src.r_sfixed64()) dst->add_r_sfixed64(v);
  for (float v : src.r_float()) dst->add_r_float(v);
  for (double v : src.r_double()) dst->add_r_double(v);
  for (bool v : src.r_bool()) dst->add_r_bool(v);
  for (const std::string& v : src.r_string()) dst->add_r_string(v);
  for (const std::string& v : src.r_bytes()) dst->add_r_bytes(v);
  for (int v : src.r_color())
    dst->add_r_color(static_cast<zt::test::pbzero::InteropColor>(v));
  for (const Ref& child : src.r_child()) WriteWithStubs(child, dst->add_r_child());

  // Packed fields: libprotobuf omits empty ones.
  auto varints = [](const auto& values, auto setter) {
    if (values.empty()) return;
    PackedVarInt packed;
    for (auto v : values) packed.Append(v);
    setter(packed);
  };
  auto zigzags = [](const auto& values, auto setter) {
    if (values.empty()) return;
    PackedVarInt packed;
    for (auto v : values) packed.AppendZigZag(v);
    setter(packed);
  };
  auto fixeds = [](const auto& values, auto setter) {
    if (values.empty()) return;
    PackedFixedSizeInt<std::decay_t<decltype(*values.begin())>> packed;
    for (auto v : values) packed.Append(v);
    setter(packed);
  };
  varints(src.p_int32(), [&](const auto& p) { dst->set_p_int32(p); });
  varints(src.p_int64(), [&](const auto& p) { dst->set_p_int64(p); });
  varints(src.p_uint32(), [&](const auto& p) { dst->set_p_uint32(p); });
  varints(src.p_uint64(), [&](const auto& p) { dst->set_p_uint64(p); });
  zigzags(src.p_sint32(), [&](const auto& p) { dst->set_p_sint32(p); });
  zigzags(src.p_sint64(), [&](const auto& p) { dst->set_p_sint64(p); });
  fixeds(src.p_fixed32(), [&](const auto& p) { dst->set_p_fixed32(p); });
  fixeds(src.p_fixed64(), [&](const auto& p) { dst->set_p_fixed64(p); });
  fixeds(src.p_sfixed32(), [&](const auto& p) { dst->set_p_sfixed32(p); });
  fixeds(src.p_sfixed64(), [&](const auto& p) { dst->set_p_sfixed64(p); });
  fixeds(src.p_float(), [&](const auto& p) { dst->set_p_float(p); });
  fixeds(src.p_double(), [&](const auto& p) { dst->set_p_double(p); });
  varints(src.p_bool(), [&](const auto& p) { dst->set_p_bool(p); });
  varints(src.p_color(), [&](const auto& p) { dst->set_p_color(p); });

  if (src.has_choice_name()) dst->set_choice_name(src.choice_name());
  if (src.has_choice_number()) dst->set_choice_number(src.choice_number());
  if (src.has_choice_child())
    WriteWithStubs(src.choice_child(), dst->set_choice_child());
  if (src.has_f_big_id()) dst->set_f_big_id(src.f_big_id());
}

// ---- protozero decoder -> reference ------------------------------------------

// Rebuilds a libprotobuf message from what the generated decoder reads.
void ReadWithDecoder(zt::protozero::ConstBytes bytes, Ref* out, bool* error) {
  Zt::Decoder d(bytes.data, bytes.size);
  if (d.parse_error()) *error = true;
  if (d.has_f_int32()) out->set_f_int32(d.f_int32());
  if (d.has_f_int64()) out->set_f_int64(d.f_int64());
  if (d.has_f_uint32()) out->set_f_uint32(d.f_uint32());
  if (d.has_f_uint64()) out->set_f_uint64(d.f_uint64());
  if (d.has_f_sint32()) out->set_f_sint32(d.f_sint32());
  if (d.has_f_sint64()) out->set_f_sint64(d.f_sint64());
  if (d.has_f_fixed32()) out->set_f_fixed32(d.f_fixed32());
  if (d.has_f_fixed64()) out->set_f_fixed64(d.f_fixed64());
  if (d.has_f_sfixed32()) out->set_f_sfixed32(d.f_sfixed32());
  if (d.has_f_sfixed64()) out->set_f_sfixed64(d.f_sfixed64());
  if (d.has_f_float()) out->set_f_float(d.f_float());
  if (d.has_f_double()) out->set_f_double(d.f_double());
  if (d.has_f_bool()) out->set_f_bool(d.f_bool());
  if (d.has_f_string()) out->set_f_string(std::string(d.f_string()));
  if (d.has_f_bytes()) out->set_f_bytes(d.f_bytes().ToStdString());
  if (d.has_f_color())
    out->set_f_color(static_cast<zt::test::InteropColor>(d.f_color()));
  if (d.has_f_mode()) out->set_f_mode(static_cast<Ref::Mode>(d.f_mode()));
  if (d.has_f_big_id()) out->set_f_big_id(d.f_big_id());
  if (d.has_f_child()) ReadWithDecoder(d.f_child(), out->mutable_f_child(), error);

  for (auto it = d.r_int32(error); it; ++it) out->add_r_int32(*it);
  for (auto it = d.r_int64(error); it; ++it) out->add_r_int64(*it);
  for (auto it = d.r_uint32(error); it; ++it) out->add_r_uint32(*it);
  for (auto it = d.r_uint64(error); it; ++it) out->add_r_uint64(*it);
  for (auto it = d.r_sint32(error); it; ++it) out->add_r_sint32(*it);
  for (auto it = d.r_sint64(error); it; ++it) out->add_r_sint64(*it);
  for (auto it = d.r_fixed32(error); it; ++it) out->add_r_fixed32(*it);
  for (auto it = d.r_fixed64(error); it; ++it) out->add_r_fixed64(*it);
  for (auto it = d.r_sfixed32(error); it; ++it) out->add_r_sfixed32(*it);
  for (auto it = d.r_sfixed64(error); it; ++it) out->add_r_sfixed64(*it);
  for (auto it = d.r_float(error); it; ++it) out->add_r_float(*it);
  for (auto it = d.r_double(error); it; ++it) out->add_r_double(*it);
  for (auto it = d.r_bool(error); it; ++it) out->add_r_bool(*it);
  for (auto it = d.r_string(); it; ++it) out->add_r_string(std::string(*it));
  for (auto it = d.r_bytes(); it; ++it) out->add_r_bytes((*it).ToStdString());
  for (auto it = d.r_color(error); it; ++it)
    out->add_r_color(static_cast<zt::test::InteropColor>(*it));
  for (auto it = d.r_child(); it; ++it)
    ReadWithDecoder(*it, out->add_r_child(), error);

  for (auto it = d.p_int32(error); it; ++it) out->add_p_int32(*it);
  for (auto it = d.p_int64(error); it; ++it) out->add_p_int64(*it);
  for (auto it = d.p_uint32(error); it; ++it) out->add_p_uint32(*it);
  for (auto it = d.p_uint64(error); it; ++it) out->add_p_uint64(*it);
  for (auto it = d.p_sint32(error); it; ++it) out->add_p_sint32(*it);
  for (auto it = d.p_sint64(error); it; ++it) out->add_p_sint64(*it);
  for (auto it = d.p_fixed32(error); it; ++it) out->add_p_fixed32(*it);
  for (auto it = d.p_fixed64(error); it; ++it) out->add_p_fixed64(*it);
  for (auto it = d.p_sfixed32(error); it; ++it) out->add_p_sfixed32(*it);
  for (auto it = d.p_sfixed64(error); it; ++it) out->add_p_sfixed64(*it);
  for (auto it = d.p_float(error); it; ++it) out->add_p_float(*it);
  for (auto it = d.p_double(error); it; ++it) out->add_p_double(*it);
  for (auto it = d.p_bool(error); it; ++it) out->add_p_bool(*it);
  for (auto it = d.p_color(error); it; ++it)
    out->add_p_color(static_cast<zt::test::InteropColor>(*it));

  if (d.has_choice_name()) out->set_choice_name(std::string(d.choice_name()));
  if (d.has_choice_number()) out->set_choice_number(d.choice_number());
  if (d.has_choice_child())
    ReadWithDecoder(d.choice_child(), out->mutable_choice_child(), error);
}

// ---- scattered writing -------------------------------------------------------

// Hands out ranges of random sizes in [1, max_size] and records how much of
// each was used, so the output can be concatenated afterwards.
class RandomRanges : public zt::protozero::ScatteredStreamWriter::Delegate {
 public:
  RandomRanges(uint32_t seed, size_t max_size) : rng_(seed), max_size_(max_size) {}

  void set_writer(zt::protozero::ScatteredStreamWriter* w) { writer_ = w; }

  zt::protozero::ContiguousMemoryRange GetNewBuffer() override {
    RecordUsed();
    const size_t size = 1 + rng_() % max_size_;
    buffers_.emplace_back(new uint8_t[size]);
    sizes_.push_back(size);
    used_.push_back(0);
    return {buffers_.back().get(), buffers_.back().get() + size};
  }

  std::string Concatenate() {
    RecordUsed();
    std::string out;
    for (size_t i = 0; i < buffers_.size(); i++)
      out.append(reinterpret_cast<const char*>(buffers_[i].get()), used_[i]);
    return out;
  }
  size_t num_ranges() const { return buffers_.size(); }

 private:
  void RecordUsed() {
    if (!buffers_.empty() && writer_->cur_range().begin == buffers_.back().get())
      used_.back() = sizes_.back() - writer_->bytes_available();
  }

  std::mt19937 rng_;
  const size_t max_size_;
  zt::protozero::ScatteredStreamWriter* writer_ = nullptr;
  std::vector<std::unique_ptr<uint8_t[]>> buffers_;
  std::vector<size_t> sizes_;
  std::vector<size_t> used_;
};

std::string WriteContiguous(const Ref& ref) {
  zt::protozero::HeapBuffered<Zt> msg(1 << 20, 1 << 20);
  WriteWithStubs(ref, msg.get());
  return msg.SerializeAsString();
}

std::string WriteScattered(const Ref& ref, uint32_t seed, size_t max_range,
                           size_t* num_ranges) {
  RandomRanges ranges(seed, max_range);
  zt::protozero::ScatteredStreamWriter writer(&ranges);
  ranges.set_writer(&writer);
  zt::protozero::RootMessage<Zt> msg(&writer);
  WriteWithStubs(ref, &msg);
  msg.Finalize();
  *num_ranges = ranges.num_ranges();
  return ranges.Concatenate();
}

int Depth(const Ref& msg) {
  int depth = 0;
  if (msg.has_f_child()) depth = std::max(depth, 1 + Depth(msg.f_child()));
  if (msg.has_choice_child()) depth = std::max(depth, 1 + Depth(msg.choice_child()));
  for (const Ref& c : msg.r_child()) depth = std::max(depth, 1 + Depth(c));
  return depth;
}

std::string Diff(const Ref& a, const Ref& b) {
  std::string report;
  MessageDifferencer differencer;
  differencer.ReportDifferencesToString(&report);
  differencer.Compare(a, b);
  return report;
}

// ---- tests -----------------------------------------------------------------------

TEST(ProtozeroInterop, FlatMessageIsByteIdenticalToLibprotobuf) {
  Ref ref;
  ref.set_f_int32(-1);
  ref.set_f_uint64(1ull << 63);
  ref.set_f_sint32(-64);
  ref.set_f_sint64(std::numeric_limits<int64_t>::min());
  ref.set_f_fixed32(0xdeadbeef);
  ref.set_f_double(-0.5);
  ref.set_f_bool(true);
  ref.set_f_string("hello");
  ref.set_f_color(zt::test::INTEROP_COLOR_NEGATIVE);
  ref.set_f_mode(Ref::MODE_HUGE);
  ref.add_p_sint32(-1);
  ref.add_p_sint32(1);
  ref.add_p_double(2.5);
  ref.add_r_string("a");
  ref.add_r_string("");
  ref.set_f_big_id(7);
  ref.set_choice_number(-2);

  zt::protozero::HeapBuffered<Zt> msg;
  WriteWithStubs(ref, msg.get());
  std::string expected;
  ASSERT_TRUE(ref.SerializeToString(&expected));
  EXPECT_EQ(msg.SerializeAsString(), expected);
}

TEST(ProtozeroInterop, RandomRoundTripsBothWays) {
  int max_depth_seen = 0;
  for (uint32_t seed = 1; seed <= 300; seed++) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    RandomMessageMaker maker(seed);
    Ref ref;
    maker.Fill(&ref, 0, /*min_depth=*/8 + seed % 4);
    max_depth_seen = std::max(max_depth_seen, Depth(ref));

    // Stubs -> libprotobuf.
    const std::string ours = WriteContiguous(ref);
    Ref parsed;
    ASSERT_TRUE(parsed.ParseFromString(ours));
    ASSERT_TRUE(MessageDifferencer::Equals(parsed, ref)) << Diff(parsed, ref);

    // Random scatter boundaries: byte-identical once concatenated.
    size_t num_ranges = 0;
    // Sizes 1..max_range; a delegate must sometimes offer room for a 4-byte
    // size field (ScatteredStreamWriter::kMaxReserveSize), hence max >= 8.
    const size_t max_range = 8 + seed % 57;
    EXPECT_EQ(WriteScattered(ref, seed, max_range, &num_ranges), ours);
    EXPECT_GT(num_ranges, ours.size() / (max_range + 1));

    // libprotobuf -> decoder, and our own bytes -> decoder.
    for (const std::string& bytes : {ref.SerializeAsString(), ours}) {
      Ref decoded;
      bool error = false;
      ReadWithDecoder({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()},
                      &decoded, &error);
      EXPECT_FALSE(error);
      ASSERT_TRUE(MessageDifferencer::Equals(decoded, ref)) << Diff(decoded, ref);
    }
  }
  EXPECT_GE(max_depth_seen, 8);
}

TEST(ProtozeroInterop, UnpackedEncodingOfPackedFieldDecodes) {
  // Parsers must accept either encoding for a repeated scalar: write the
  // packed field's values one by one and the unpacked field packed.
  zt::protozero::HeapBuffered<Zt> msg;
  for (int32_t v : {5, -6, 7})
    msg->AppendVarInt(Zt::kPInt32FieldNumber, v);
  PackedVarInt packed;
  for (int32_t v : {1, 2})
    packed.Append(v);
  msg->AppendBytes(Zt::kRInt32FieldNumber, packed.data(), packed.size());
  const std::string bytes = msg.SerializeAsString();

  Ref ref;
  ASSERT_TRUE(ref.ParseFromString(bytes));
  Ref decoded;
  bool error = false;
  ReadWithDecoder({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()},
                  &decoded, &error);
  EXPECT_FALSE(error);
  EXPECT_TRUE(MessageDifferencer::Equals(decoded, ref));
  ASSERT_EQ(decoded.p_int32_size(), 3);
  EXPECT_EQ(decoded.p_int32(1), -6);
  ASSERT_EQ(decoded.r_int32_size(), 2);
}

TEST(ProtozeroInterop, LargeNestedPayloadsUpTo16MiB) {
  for (size_t size : {size_t{0}, size_t{1}, size_t{127}, size_t{128},
                      size_t{16383}, size_t{16384}, size_t{(1u << 21) - 1},
                      size_t{1u << 21}, size_t{16u << 20}}) {
    SCOPED_TRACE("payload " + std::to_string(size));
    const std::string payload(size, 'x');
    zt::protozero::HeapBuffered<Zt> msg(4096, 64 * 1024);
    Zt* child = msg->set_f_child();
    child->set_f_int32(1);
    child->set_f_child()->set_f_bytes(payload);
    child->set_f_bool(true);  // Finalizes the grandchild implicitly.
    msg->set_f_int32(2);      // Finalizes the child implicitly.
    Ref ref;
    ASSERT_TRUE(ref.ParseFromString(msg.SerializeAsString()));
    EXPECT_EQ(ref.f_int32(), 2);
    EXPECT_EQ(ref.f_child().f_int32(), 1);
    EXPECT_TRUE(ref.f_child().f_bool());
    EXPECT_EQ(ref.f_child().f_child().f_bytes().size(), size);
    EXPECT_EQ(ref.f_child().f_child().f_bytes(), payload);
  }
}

TEST(ProtozeroInterop, EnumNamesAndFieldNumbers) {
  EXPECT_STREQ(zt::test::pbzero::InteropColor_Name(
                   zt::test::pbzero::INTEROP_COLOR_NEGATIVE),
               "INTEROP_COLOR_NEGATIVE");
  EXPECT_STREQ(Zt::Mode_Name(Zt::MODE_HUGE), "MODE_HUGE");
  EXPECT_EQ(static_cast<int>(Zt::kFBigIdFieldNumber), 536870911);
  EXPECT_EQ(static_cast<int>(Zt::kChoiceChildFieldNumber), 62);
}

}  // namespace
