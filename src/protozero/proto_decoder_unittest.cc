#include "zt/protozero/proto_decoder.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "zt/protozero/field.h"
#include "zt/protozero/proto_utils.h"

namespace zt {
namespace protozero {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using Bytes = std::vector<uint8_t>;
using proto_utils::ProtoWireType;

Bytes Cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts)
    out.insert(out.end(), p.begin(), p.end());
  return out;
}

Bytes VarIntField(uint32_t id, uint64_t v) {
  uint8_t buf[20];
  uint8_t* p = proto_utils::WriteVarInt(proto_utils::MakeTagVarInt(id), buf);
  p = proto_utils::WriteVarInt(v, p);
  return Bytes(buf, p);
}
Bytes BytesField(uint32_t id, const Bytes& data) {
  uint8_t buf[20];
  uint8_t* p =
      proto_utils::WriteVarInt(proto_utils::MakeTagLengthDelimited(id), buf);
  p = proto_utils::WriteVarInt(data.size(), p);
  return Cat({Bytes(buf, p), data});
}
Bytes StrField(uint32_t id, const std::string& s) {
  return BytesField(id, Bytes(s.begin(), s.end()));
}

// Decodes every field; returns them and whether decoding ended in error.
std::vector<Field> ReadAll(const Bytes& in, bool* error) {
  ProtoDecoder dec(in.data(), in.size());
  std::vector<Field> fields;
  for (Field f = dec.ReadField(); f.valid(); f = dec.ReadField())
    fields.push_back(f);
  *error = dec.parse_error();
  // Reading on after the end or an error keeps returning invalid fields.
  EXPECT_FALSE(dec.ReadField().valid());
  EXPECT_EQ(dec.parse_error(), *error);
  EXPECT_EQ(dec.bytes_left(), 0u);
  return fields;
}

TEST(ProtoDecoderTest, ReadFieldAllWireTypes) {
  const Bytes in = Cat({
      {0x08, 0x96, 0x01},                                  // 1: varint 150
      {0x11, 1, 2, 3, 4, 5, 6, 7, 8},                      // 2: fixed64
      {0x1a, 0x03, 'a', 'b', 'c'},                         // 3: "abc"
      {0x25, 0x00, 0x00, 0x80, 0x3f},                      // 4: float 1.0
      {0x28, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
      {0x30, 0x03},                                        // 6: sint -2
      {0x80, 0x01, 0x00},                                  // 16: varint 0
      {0x32, 0x00},                                        // 6: ""
  });
  ProtoDecoder dec(in.data(), in.size());
  EXPECT_EQ(dec.read_offset() + dec.bytes_left(), in.size());
  Field f = dec.ReadField();
  EXPECT_EQ(f.id(), 1u);
  EXPECT_EQ(f.type(), ProtoWireType::kVarInt);
  EXPECT_EQ(f.as_uint32(), 150u);
  EXPECT_EQ(f.as_int64(), 150);
  EXPECT_TRUE(f.as_bool());
  EXPECT_EQ(dec.read_offset(), 3u);

  f = dec.ReadField();
  EXPECT_EQ(f.id(), 2u);
  EXPECT_EQ(f.type(), ProtoWireType::kFixed64);
  EXPECT_EQ(f.as_uint64(), 0x0807060504030201u);

  f = dec.ReadField();
  EXPECT_EQ(f.id(), 3u);
  EXPECT_EQ(f.type(), ProtoWireType::kLengthDelimited);
  EXPECT_EQ(f.as_string(), "abc");
  EXPECT_EQ(f.as_std_string(), "abc");
  EXPECT_EQ(f.size(), 3u);
  EXPECT_EQ(f.data(), in.data() + 14);  // A view, not a copy.
  EXPECT_EQ(f.as_bytes().ToStdString(), "abc");
  EXPECT_EQ(f.as_bytes().ToStringView(), "abc");

  f = dec.ReadField();
  EXPECT_EQ(f.id(), 4u);
  EXPECT_EQ(f.type(), ProtoWireType::kFixed32);
  EXPECT_EQ(f.as_float(), 1.0f);
  EXPECT_EQ(f.as_uint32(), 0x3f800000u);

  f = dec.ReadField();
  EXPECT_EQ(f.id(), 5u);
  EXPECT_EQ(f.as_int32(), -1);
  EXPECT_EQ(f.as_int64(), -1);
  EXPECT_EQ(f.as_uint64(), std::numeric_limits<uint64_t>::max());

  f = dec.ReadField();
  EXPECT_EQ(f.id(), 6u);
  EXPECT_EQ(f.as_sint32(), -2);
  EXPECT_EQ(f.as_sint64(), -2);

  f = dec.ReadField();
  EXPECT_EQ(f.id(), 16u);
  EXPECT_TRUE(f.valid());
  EXPECT_FALSE(f.as_bool());

  f = dec.ReadField();
  EXPECT_EQ(f.id(), 6u);
  EXPECT_TRUE(f.as_string().empty());

  EXPECT_FALSE(dec.ReadField().valid());
  EXPECT_FALSE(dec.parse_error());
  dec.Reset();
  EXPECT_EQ(dec.ReadField().as_uint32(), 150u);
}

TEST(ProtoDecoderTest, DoubleAndFixedSignedValues) {
  Bytes in = {0x09};
  double d = -3.25;
  uint8_t raw[8];
  memcpy(raw, &d, 8);
  in.insert(in.end(), raw, raw + 8);
  in.insert(in.end(), {0x15, 0xfe, 0xff, 0xff, 0xff});  // sfixed32 -2
  ProtoDecoder dec(in.data(), in.size());
  EXPECT_EQ(dec.ReadField().as_double(), -3.25);
  EXPECT_EQ(dec.ReadField().as_int32(), -2);
}

TEST(ProtoDecoderTest, WrongTypeAccessorsAreEmpty) {
  const Bytes in = Cat({VarIntField(1, 0x7fff0000), StrField(2, "hello")});
  ProtoDecoder dec(in.data(), in.size());
  const Field num = dec.ReadField();
  // The number is not mistaken for a pointer.
  EXPECT_EQ(num.data(), nullptr);
  EXPECT_EQ(num.size(), 0u);
  EXPECT_TRUE(num.as_string().empty());
  EXPECT_EQ(num.as_bytes().data, nullptr);
  EXPECT_EQ(num.as_bytes().size, 0u);
  const Field str = dec.ReadField();
  EXPECT_EQ(str.as_uint64(), 0u);
  EXPECT_EQ(str.as_int32(), 0);
  EXPECT_FALSE(str.as_bool());
  EXPECT_EQ(str.as_double(), 0.0);
  const Field absent;
  EXPECT_FALSE(absent.valid());
  EXPECT_FALSE(static_cast<bool>(absent));
  EXPECT_EQ(absent.as_uint64(), 0u);
  EXPECT_TRUE(absent.as_string().empty());
  EXPECT_EQ(absent.as_std_string(), "");
}

TEST(ProtoDecoderTest, NonMinimalVarInts) {
  // Tag 1 in 2 bytes, value 5 in 10 bytes; length 2 in 4 bytes (as protozero
  // writes nested sizes).
  Bytes in = {0x88, 0x00, 0x85};
  in.insert(in.end(), 8, 0x80);
  in.push_back(0x00);
  in.insert(in.end(), {0x12, 0x82, 0x80, 0x80, 0x00, 'o', 'k'});
  bool error = true;
  const std::vector<Field> f = ReadAll(in, &error);
  EXPECT_FALSE(error);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].id(), 1u);
  EXPECT_EQ(f[0].as_uint64(), 5u);
  EXPECT_EQ(f[1].id(), 2u);
  EXPECT_EQ(f[1].as_string(), "ok");
}

TEST(ProtoDecoderTest, LargestFieldId) {
  const Bytes in = VarIntField(proto_utils::kMaxFieldId, 3);
  bool error = true;
  const std::vector<Field> f = ReadAll(in, &error);
  EXPECT_FALSE(error);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id(), proto_utils::kMaxFieldId);
  EXPECT_EQ(f[0].as_uint32(), 3u);
}

// Each malformed input: the valid prefix decodes, then parse_error.
struct Malformed {
  const char* what;
  Bytes bytes;
};

TEST(ProtoDecoderTest, MalformedInputSetsParseError) {
  Bytes eleven_byte_value = {0x08};
  eleven_byte_value.insert(eleven_byte_value.end(), 10, 0x80);
  eleven_byte_value.push_back(0x00);
  Bytes eleven_byte_tag(10, 0x88);
  eleven_byte_tag.push_back(0x00);
  const std::vector<Malformed> cases = {
      {"truncated varint", {0x08, 0x80}},
      {"varint tag with no value", {0x08}},
      {"truncated tag", {0x80}},
      {"truncated 3-byte tag", {0x80, 0x80}},
      {"length past end", {0x0a, 0x05, 'a', 'b'}},
      {"length with no data", {0x0a}},
      {"truncated length", {0x0a, 0x80}},
      {"giant length 2^60",
       {0x0a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10, 'x'}},
      {"max length", {0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                      0xff, 0x01}},
      {"length 2^32 + 1 (wraps to 1 in 32 bits)",
       {0x0a, 0x81, 0x80, 0x80, 0x80, 0x10, 'x'}},
      {"field id 0 varint", {0x00, 0x01}},
      {"field id 0 string", {0x02, 0x00}},
      {"field id 0 redundant tag", {0x80, 0x00, 0x01}},
      {"wire type 3", {0x0b, 0x0c}},
      {"wire type 4", {0x0c}},
      {"wire type 6", {0x0e, 0, 0, 0, 0}},
      {"wire type 7", {0x0f, 0, 0, 0, 0, 0, 0, 0, 0}},
      {"11-byte varint value", eleven_byte_value},
      {"11-byte tag", eleven_byte_tag},
      {"tag above 32 bits", {0x80, 0x80, 0x80, 0x80, 0x10, 0x00}},
      {"truncated fixed32", {0x0d, 1, 2, 3}},
      {"fixed32 with no data", {0x0d}},
      {"truncated fixed64", {0x09, 1, 2, 3, 4, 5, 6, 7}},
  };
  const Bytes good_prefix = Cat({VarIntField(7, 1), StrField(8, "s")});
  for (const Malformed& c : cases) {
    // Heap copies of exactly the input size, so ASan catches over-reads.
    for (const Bytes& in : {c.bytes, Cat({good_prefix, c.bytes})}) {
      bool error = false;
      const std::vector<Field> fields = ReadAll(in, &error);
      EXPECT_TRUE(error) << c.what;
      EXPECT_EQ(fields.size(), in.size() == c.bytes.size() ? 0u : 2u)
          << c.what;
      ProtoDecoder dec(in.data(), in.size());
      // FindField sees only the valid prefix.
      EXPECT_EQ(dec.FindField(8).as_string(),
                in.size() == c.bytes.size() ? "" : "s")
          << c.what;
      TypedProtoDecoder<10, true> typed(in.data(), in.size());
      EXPECT_TRUE(typed.parse_error()) << c.what;
      EXPECT_EQ(typed.Get(7).as_uint32(), in.size() == c.bytes.size() ? 0u : 1u)
          << c.what;
    }
  }
}

// ReadField() takes the common shapes inline and the rest out of line; the
// typed decoder parses every field out of line. On every prefix of a
// message holding each shape at each boundary, the two agree on the fields
// read and on the error.
// ReadField() (inline and out of line) against the typed decoder (out of
// line only) on message[0, size): the same error, and for each field read
// the same type, size and payload (a length-delimited field's bytes, a
// number's value; field 1, repeated, is compared by type and size).
void ExpectPathsAgreeOnPrefix(const Bytes& message, size_t size) {
  const Bytes prefix(message.begin(), message.begin() + static_cast<ptrdiff_t>(size));
  bool error = false;
  const std::vector<Field> fields = ReadAll(prefix, &error);
  TypedProtoDecoder<256, true> typed(prefix.data(), prefix.size());
  EXPECT_EQ(error, typed.parse_error()) << "prefix " << size;
  for (const Field& f : fields) {
    const Field& other = typed.Get(f.id());
    EXPECT_EQ(f.type(), other.type()) << "prefix " << size << " field " << f.id();
    EXPECT_EQ(f.size(), other.size()) << "prefix " << size << " field " << f.id();
    if (f.type() == ProtoWireType::kLengthDelimited) {
      EXPECT_EQ(f.data(), other.data()) << "prefix " << size << " field " << f.id();
    } else if (f.id() != 1) {
      EXPECT_EQ(f.as_uint64(), other.as_uint64()) << "prefix " << size << " field " << f.id();
    }
  }
}

TEST(ProtoDecoderTest, InlineAndOutOfLinePathsAgreeOnEveryPrefix) {
  Bytes fixed64 = {0x19, 1, 2, 3, 4, 5, 6, 7, 8};  // Field 3, fixed64.
  Bytes fixed32 = {0x25, 1, 2, 3, 4};              // Field 4, fixed32.
  const Bytes message =
      Cat({VarIntField(1, 5), VarIntField(2, 300), VarIntField(1, 70000), fixed64, fixed32,
           StrField(5, ""), StrField(6, "x"), BytesField(7, Bytes(127, 'a')),
           BytesField(8, Bytes(200, 'b')), VarIntField(200, 1), VarIntField(9, 127),
           VarIntField(10, 128), VarIntField(11, 16383), VarIntField(12, 16384),
           VarIntField(13, uint64_t{1} << 35), VarIntField(14, UINT64_MAX)});
  for (size_t size = 0; size <= message.size(); size++)
    ExpectPathsAgreeOnPrefix(message, size);
  bool error = false;
  const std::vector<Field> fields = ReadAll(message, &error);
  ASSERT_FALSE(error);
  ASSERT_EQ(fields.size(), 16u);
  EXPECT_EQ(fields[1].as_uint32(), 300u);
  EXPECT_EQ(fields[2].as_uint32(), 70000u);
  EXPECT_EQ(fields[3].as_uint64(), 0x0807060504030201u);
  EXPECT_EQ(fields[7].size(), 127u);
  EXPECT_EQ(fields[8].size(), 200u);
  EXPECT_EQ(fields[9].id(), 200u);
  EXPECT_EQ(fields[11].as_uint32(), 128u);
  EXPECT_EQ(fields[12].as_uint32(), 16383u);
  EXPECT_EQ(fields[13].as_uint32(), 16384u);
  EXPECT_EQ(fields[14].as_uint64(), uint64_t{1} << 35);
  EXPECT_EQ(fields[15].as_uint64(), UINT64_MAX);
}

// Lengths at the two-byte boundary (16383 inline, 16384 out of line): the
// two paths agree on the prefixes around each field's header and end.
TEST(ProtoDecoderTest, InlineAndOutOfLinePathsAgreeAroundTwoByteLengths) {
  const Bytes message = Cat({BytesField(1, Bytes(16383, 'a')), BytesField(2, Bytes(16384, 'b')),
                             BytesField(3, Bytes(128, 'c')), VarIntField(4, 1)});
  for (size_t boundary : {size_t{0}, size_t{16386}, size_t{16386 + 16388},
                          size_t{16386 + 16388 + 131}, message.size()}) {
    for (size_t size = boundary >= 4 ? boundary - 4 : 0;
         size <= std::min(message.size(), boundary + 4); size++)
      ExpectPathsAgreeOnPrefix(message, size);
  }
  bool error = false;
  const std::vector<Field> fields = ReadAll(message, &error);
  ASSERT_FALSE(error);
  ASSERT_EQ(fields.size(), 4u);
  EXPECT_EQ(fields[0].size(), 16383u);
  EXPECT_EQ(fields[1].size(), 16384u);
  EXPECT_EQ(fields[2].size(), 128u);
  EXPECT_EQ(fields[3].as_uint32(), 1u);
}

TEST(ProtoDecoderTest, ResetAfterAParseErrorReadsNothing) {
  const Bytes in = Cat({VarIntField(1, 5), Bytes{0x0a, 0x05, 'a'}});
  ProtoDecoder dec(in.data(), in.size());
  EXPECT_TRUE(dec.ReadField().valid());
  EXPECT_FALSE(dec.ReadField().valid());
  ASSERT_TRUE(dec.parse_error());
  dec.Reset();
  EXPECT_FALSE(dec.ReadField().valid());
  EXPECT_TRUE(dec.parse_error());
}

TEST(ProtoDecoderTest, EmptyInput) {
  ProtoDecoder dec(static_cast<const uint8_t*>(nullptr), 0);
  EXPECT_FALSE(dec.ReadField().valid());
  EXPECT_FALSE(dec.parse_error());
  EXPECT_FALSE(dec.FindField(1).valid());
  TypedProtoDecoder<4, true> typed{std::string_view()};
  EXPECT_FALSE(typed.parse_error());
  EXPECT_FALSE(typed.Get(1).valid());
  EXPECT_FALSE(typed.GetRepeated<int32_t>(1));
}

TEST(ProtoDecoderTest, FindFieldReturnsLastOccurrence) {
  const Bytes in = Cat({VarIntField(1, 10), StrField(2, "a"),
                        VarIntField(1, 11), VarIntField(3, 12)});
  ProtoDecoder dec(in.data(), in.size());
  EXPECT_EQ(dec.FindField(1).as_uint32(), 11u);
  EXPECT_EQ(dec.FindField(2).as_string(), "a");
  EXPECT_EQ(dec.FindField(3).as_uint32(), 12u);
  EXPECT_FALSE(dec.FindField(4).valid());
  EXPECT_FALSE(dec.FindField(0).valid());
  // FindField does not move the read position.
  EXPECT_EQ(dec.read_offset(), 0u);
  EXPECT_EQ(dec.ReadField().as_uint32(), 10u);
  EXPECT_EQ(dec.FindField(1).as_uint32(), 11u);
  EXPECT_EQ(dec.read_offset(), 2u);
}

TEST(ProtoDecoderTest, ConstructorsAgree) {
  const Bytes in = VarIntField(2, 77);
  const std::string s(in.begin(), in.end());
  EXPECT_EQ(ProtoDecoder(s).ReadField().as_uint32(), 77u);
  EXPECT_EQ(ProtoDecoder(ConstBytes{in.data(), in.size()}).ReadField().id(),
            2u);
  EXPECT_EQ(ProtoDecoder(static_cast<const void*>(s.data()), s.size())
                .ReadField()
                .as_uint32(),
            77u);
  TypedProtoDecoder<2, false> a(s);
  TypedProtoDecoder<2, false> b(ConstBytes{in.data(), in.size()});
  EXPECT_EQ(a.at<2>().as_uint32(), 77u);
  EXPECT_EQ(b.at<2>().as_uint32(), 77u);
}

TEST(ProtoDecoderTest, TypedAtAndGet) {
  const Bytes in = Cat({VarIntField(1, 5), StrField(3, "x"),
                        VarIntField(1, 6),     // Last occurrence wins.
                        VarIntField(100, 9),   // Above MAX_FIELD_ID: skipped.
                        VarIntField(4, 7)});
  TypedProtoDecoder<4, false> dec(in.data(), in.size());
  EXPECT_FALSE(dec.parse_error());
  EXPECT_EQ(dec.at<1>().as_uint32(), 6u);
  EXPECT_FALSE(dec.at<2>().valid());
  EXPECT_EQ(dec.at<3>().as_string(), "x");
  EXPECT_EQ(dec.at<4>().as_uint32(), 7u);
  EXPECT_EQ(dec.Get(1).as_uint32(), 6u);
  EXPECT_FALSE(dec.Get(0).valid());
  EXPECT_FALSE(dec.Get(5).valid());
  EXPECT_FALSE(dec.Get(100).valid());
  EXPECT_FALSE(dec.Get(std::numeric_limits<uint32_t>::max()).valid());
  // Without repeated support only the last one is visible.
  std::vector<uint32_t> seen;
  for (auto it = dec.GetRepeated<uint32_t>(1); it; ++it)
    seen.push_back(*it);
  EXPECT_THAT(seen, ElementsAre(6u));
}

TEST(ProtoDecoderTest, RepeatedInWireOrderBeyondInlineCapacity) {
  // 30 occurrences of field 2 interleaved with 25 of field 5: far more than
  // the 8 inline overflow slots.
  Bytes in;
  for (uint32_t i = 0; i < 30; ++i) {
    in = Cat({in, StrField(2, "s" + std::to_string(i))});
    if (i < 25)
      in = Cat({in, VarIntField(5, 1000 + i)});
    if (i == 10)
      in = Cat({in, VarIntField(3, 42)});
  }
  TypedProtoDecoder<8, true> dec(in.data(), in.size());
  EXPECT_FALSE(dec.parse_error());
  std::vector<std::string> strs;
  for (auto it = dec.GetRepeated<std::string_view>(2); it; ++it) {
    EXPECT_EQ(it->id(), 2u);
    EXPECT_EQ(it.field().id(), 2u);
    strs.emplace_back(*it);
  }
  ASSERT_EQ(strs.size(), 30u);
  for (uint32_t i = 0; i < 30; ++i)
    EXPECT_EQ(strs[i], "s" + std::to_string(i));
  std::vector<uint64_t> nums;
  for (auto it = dec.GetRepeated<uint64_t>(5); it; it++)
    nums.push_back(*it);
  ASSERT_EQ(nums.size(), 25u);
  for (uint32_t i = 0; i < 25; ++i)
    EXPECT_EQ(nums[i], 1000u + i);
  // Singular access gives the last occurrence.
  EXPECT_EQ(dec.at<2>().as_string(), "s29");
  EXPECT_EQ(dec.at<5>().as_uint32(), 1024u);
  // A field seen once, and one never seen.
  std::vector<int32_t> once;
  for (auto it = dec.GetRepeated<int32_t>(3); it; ++it)
    once.push_back(*it);
  EXPECT_THAT(once, ElementsAre(42));
  EXPECT_FALSE(dec.GetRepeated<int32_t>(4));
  EXPECT_FALSE(dec.GetRepeated<int32_t>(9));
  EXPECT_FALSE(RepeatedFieldIterator<int32_t>());
}

TEST(ProtoDecoderTest, RepeatedExactlyAtInlineCapacity) {
  for (uint32_t n = 7; n <= 11; ++n) {
    Bytes in;
    for (uint32_t i = 0; i < n; ++i)
      in = Cat({in, VarIntField(1, i)});
    TypedProtoDecoder<1, true> dec(in.data(), in.size());
    uint32_t expected = 0;
    for (auto it = dec.GetRepeated<uint32_t>(1); it; ++it)
      EXPECT_EQ(*it, expected++);
    EXPECT_EQ(expected, n);
  }
}

TEST(ProtoDecoderTest, RepeatedSkipsUnknownIds) {
  Bytes in;
  for (uint32_t i = 0; i < 20; ++i)
    in = Cat({in, VarIntField(50, i), VarIntField(1, i)});
  TypedProtoDecoder<2, true> dec(in.data(), in.size());
  uint32_t count = 0;
  for (auto it = dec.GetRepeated<uint32_t>(1); it; ++it)
    EXPECT_EQ(*it, count++);
  EXPECT_EQ(count, 20u);
  EXPECT_FALSE(dec.GetRepeated<uint32_t>(50));
}

template <PackedKind kKind, typename T>
std::vector<T> Collect(PackedRepeatedFieldIterator<kKind, T> it) {
  std::vector<T> out;
  for (; it; ++it)
    out.push_back(*it);
  return out;
}

TEST(ProtoDecoderTest, PackedAndUnpackedAndMixed) {
  // Field 1 as a packed blob {1, 300}, then unpacked 5, then packed {-1},
  // then an empty packed blob, then unpacked 7.
  Bytes neg(10, 0xff);
  neg[9] = 0x01;
  const Bytes in = Cat({BytesField(1, {0x01, 0xac, 0x02}), VarIntField(1, 5),
                        VarIntField(2, 99), BytesField(1, neg),
                        BytesField(1, {}), VarIntField(1, 7)});
  TypedProtoDecoder<2, true> dec(in.data(), in.size());
  bool error = false;
  EXPECT_THAT(Collect(dec.GetPackedRepeated<PackedKind::kVarInt, int32_t>(
                  1, &error)),
              ElementsAre(1, 300, 5, -1, 7));
  EXPECT_FALSE(error);
  EXPECT_THAT(Collect(dec.GetPackedRepeated<PackedKind::kVarInt, uint64_t>(
                  1, &error)),
              ElementsAre(1u, 300u, 5u, std::numeric_limits<uint64_t>::max(),
                          7u));
  EXPECT_THAT(
      Collect(dec.GetPackedRepeated<PackedKind::kVarInt, bool>(1, &error)),
      ElementsAre(true, true, true, true, true));
  EXPECT_FALSE(error);
  // A field that is absent yields nothing and no error.
  EXPECT_TRUE(
      Collect(dec.GetPackedRepeated<PackedKind::kVarInt, int32_t>(3, &error))
          .empty());
  EXPECT_FALSE(error);
}

TEST(ProtoDecoderTest, PackedKinds) {
  // zigzag: {0, -1, 1, -64, INT32_MIN}
  const Bytes zz = {0x00, 0x01, 0x02, 0x7f, 0xff, 0xff, 0xff, 0xff, 0x0f};
  Bytes f32 = {1, 0, 0, 0, 0, 0, 0x80, 0x3f};  // 1, 1.0f bits
  Bytes f64 = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
               0, 0, 0, 0, 0, 0, 0xe0, 0x3f};  // -1, 0.5 bits
  const Bytes in =
      Cat({BytesField(1, zz), VarIntField(1, 3),  // unpacked zigzag -2
           BytesField(2, f32), {0x15, 2, 0, 0, 0},  // unpacked fixed32 2
           BytesField(3, f64), {0x19, 7, 0, 0, 0, 0, 0, 0, 0}});
  TypedProtoDecoder<3, true> dec(in.data(), in.size());
  bool error = false;
  EXPECT_THAT(
      Collect(dec.GetPackedRepeated<PackedKind::kZigZag, int32_t>(1, &error)),
      ElementsAre(0, -1, 1, -64, std::numeric_limits<int32_t>::min(), -2));
  EXPECT_THAT(
      Collect(dec.GetPackedRepeated<PackedKind::kZigZag, int64_t>(1, &error)),
      // 0xffffffff read as a 64-bit zigzag value.
      ElementsAre(0, -1, 1, -64, int64_t{-2147483648}, -2));
  EXPECT_THAT(
      Collect(dec.GetPackedRepeated<PackedKind::kFixed32, uint32_t>(2, &error)),
      ElementsAre(1u, 0x3f800000u, 2u));
  const std::vector<float> floats =
      Collect(dec.GetPackedRepeated<PackedKind::kFixed32, float>(2, &error));
  ASSERT_EQ(floats.size(), 3u);
  EXPECT_EQ(floats[1], 1.0f);
  EXPECT_THAT(
      Collect(dec.GetPackedRepeated<PackedKind::kFixed64, int64_t>(3, &error)),
      ElementsAre(-1, 0x3fe0000000000000, 7));
  const std::vector<double> doubles =
      Collect(dec.GetPackedRepeated<PackedKind::kFixed64, double>(3, &error));
  ASSERT_EQ(doubles.size(), 3u);
  EXPECT_EQ(doubles[1], 0.5);
  EXPECT_FALSE(error);
}

TEST(ProtoDecoderTest, MalformedPackedSetsParseError) {
  struct Case {
    const char* what;
    Bytes in;
  };
  const std::vector<Case> cases = {
      {"truncated varint in blob", BytesField(1, {0x01, 0x80})},
      {"fixed32 blob not a multiple of 4", BytesField(2, {1, 0, 0, 0, 1})},
      {"fixed64 blob not a multiple of 8", BytesField(3, {1, 2, 3})},
      {"fixed32 unpacked as varint", VarIntField(2, 1)},
      {"varint unpacked as fixed32", Bytes{0x0d, 1, 0, 0, 0}},
      {"fixed64 unpacked as fixed32", Bytes{0x1d, 1, 0, 0, 0}},
  };
  for (const Case& c : cases) {
    const Bytes in = Cat({BytesField(1, {0x05}), c.in});
    TypedProtoDecoder<3, true> dec(in.data(), in.size());
    ASSERT_FALSE(dec.parse_error()) << c.what;
    bool e1 = false, e2 = false, e3 = false;
    const auto v = Collect(dec.GetPackedRepeated<PackedKind::kVarInt,
                                                 uint32_t>(1, &e1));
    Collect(dec.GetPackedRepeated<PackedKind::kFixed32, uint32_t>(2, &e2));
    Collect(dec.GetPackedRepeated<PackedKind::kFixed64, uint64_t>(3, &e3));
    EXPECT_TRUE(e1 || e2 || e3) << c.what;
    // Values before the malformed part are still delivered.
    ASSERT_GE(v.size(), 1u) << c.what;
    EXPECT_EQ(v[0], 5u);
    // A null error pointer is allowed.
    Collect(dec.GetPackedRepeated<PackedKind::kFixed32, uint32_t>(2));
  }
  // Direct blob iteration.
  const Bytes blob = {0x01, 0x02, 0x80};
  bool error = false;
  EXPECT_THAT(Collect(PackedRepeatedFieldIterator<PackedKind::kVarInt, int>(
                  blob.data(), blob.size(), &error)),
              ElementsAre(1, 2));
  EXPECT_TRUE(error);
}

TEST(ProtoDecoderTest, NestedMessageDecoding) {
  const Bytes inner = Cat({VarIntField(1, 4), StrField(2, "in")});
  const Bytes in = Cat({BytesField(3, inner), VarIntField(1, 8)});
  TypedProtoDecoder<3, false> outer(in.data(), in.size());
  const ConstBytes nested = outer.at<3>().as_bytes();
  TypedProtoDecoder<2, false> dec(nested);
  EXPECT_EQ(dec.at<1>().as_uint32(), 4u);
  EXPECT_EQ(dec.at<2>().as_string(), "in");
  EXPECT_EQ(dec.read_offset() + dec.bytes_left(), inner.size());
}

TEST(ProtoDecoderTest, SerializeAndAppendToRoundTrips) {
  Bytes in = Cat({VarIntField(1, 300), StrField(2, "abc"),
                  Bytes{0x1d, 1, 2, 3, 4}, Bytes{0x21, 1, 2, 3, 4, 5, 6, 7, 8},
                  VarIntField(proto_utils::kMaxFieldId,
                              std::numeric_limits<uint64_t>::max())});
  ProtoDecoder dec(in.data(), in.size());
  std::string out;
  for (Field f = dec.ReadField(); f.valid(); f = dec.ReadField())
    f.SerializeAndAppendTo(&out);
  Field().SerializeAndAppendTo(&out);  // Invalid: appends nothing.
  EXPECT_EQ(Bytes(out.begin(), out.end()), in);
  // Non-minimal input is re-encoded minimally.
  const Bytes redundant = {0x88, 0x00, 0x81, 0x80, 0x00};
  ProtoDecoder dec2(redundant.data(), redundant.size());
  std::string out2;
  dec2.ReadField().SerializeAndAppendTo(&out2);
  EXPECT_EQ(out2, std::string("\x08\x01"));
}

}  // namespace
}  // namespace protozero
}  // namespace zt
