#include "zt/protozero/proto_utils.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace zt {
namespace protozero {
namespace proto_utils {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

template <typename T>
std::vector<uint8_t> Encode(T value) {
  uint8_t buf[kMaxVarIntEncodedSize + 4];
  memset(buf, 0xcc, sizeof(buf));
  uint8_t* end = WriteVarInt(value, buf);
  // Nothing is written past the returned end.
  for (uint8_t* p = end; p < buf + sizeof(buf); ++p)
    EXPECT_EQ(*p, 0xcc);
  return std::vector<uint8_t>(buf, end);
}

// Decodes |bytes| completely; fails the test if it does not consume them all.
uint64_t Decode(const std::vector<uint8_t>& bytes) {
  uint64_t value = 0xdeadbeef;
  const uint8_t* end =
      ParseVarInt(bytes.data(), bytes.data() + bytes.size(), &value);
  EXPECT_EQ(end, bytes.data() + bytes.size());
  return value;
}

TEST(ProtoUtilsTest, WireTypeValues) {
  EXPECT_EQ(static_cast<uint32_t>(ProtoWireType::kVarInt), 0u);
  EXPECT_EQ(static_cast<uint32_t>(ProtoWireType::kFixed64), 1u);
  EXPECT_EQ(static_cast<uint32_t>(ProtoWireType::kLengthDelimited), 2u);
  EXPECT_EQ(static_cast<uint32_t>(ProtoWireType::kFixed32), 5u);
}

TEST(ProtoUtilsTest, Limits) {
  EXPECT_EQ(kMessageLengthFieldSize, 4u);
  EXPECT_EQ(kMaxMessageLength, 268435455u);  // 2^28 - 1
  EXPECT_EQ(kMaxFieldId, 536870911u);        // 2^29 - 1
  EXPECT_EQ(kMaxTagEncodedSize, 5u);
  EXPECT_EQ(kMaxVarIntEncodedSize, 10u);
  EXPECT_EQ(kMaxSimpleFieldEncodedSize, 15u);
}

TEST(ProtoUtilsTest, Tags) {
  EXPECT_EQ(MakeTag(1, ProtoWireType::kVarInt), 0x08u);
  EXPECT_EQ(MakeTag(1, ProtoWireType::kFixed64), 0x09u);
  EXPECT_EQ(MakeTag(1, ProtoWireType::kLengthDelimited), 0x0au);
  EXPECT_EQ(MakeTag(1, ProtoWireType::kFixed32), 0x0du);
  EXPECT_EQ(MakeTagVarInt(15), 0x78u);
  EXPECT_EQ(MakeTagVarInt(16), 0x80u);
  EXPECT_EQ(MakeTagLengthDelimited(2), 0x12u);
  EXPECT_EQ(MakeTagFixed<uint32_t>(3), 0x1du);
  EXPECT_EQ(MakeTagFixed<float>(3), 0x1du);
  EXPECT_EQ(MakeTagFixed<int32_t>(3), 0x1du);
  EXPECT_EQ(MakeTagFixed<uint64_t>(3), 0x19u);
  EXPECT_EQ(MakeTagFixed<double>(3), 0x19u);
  EXPECT_EQ(MakeTagFixed<int64_t>(3), 0x19u);
  EXPECT_EQ(MakeTagLengthDelimited(kMaxFieldId), 0xfffffffau);
  // Tags are constexpr.
  static_assert(MakeTagVarInt(2) == 0x10, "");
  // Encoded tag sizes: 1 byte up to id 15, 5 bytes for the largest id.
  EXPECT_THAT(Encode(MakeTagVarInt(16)), ElementsAre(0x80, 0x01));
  EXPECT_THAT(Encode(MakeTagLengthDelimited(kMaxFieldId)),
              ElementsAre(0xfa, 0xff, 0xff, 0xff, 0x0f));
}

TEST(ProtoUtilsTest, VarIntBoundaries) {
  EXPECT_THAT(Encode(uint32_t{0}), ElementsAre(0x00));
  EXPECT_THAT(Encode(uint32_t{1}), ElementsAre(0x01));
  EXPECT_THAT(Encode(uint32_t{127}), ElementsAre(0x7f));
  EXPECT_THAT(Encode(uint32_t{128}), ElementsAre(0x80, 0x01));
  EXPECT_THAT(Encode(uint32_t{300}), ElementsAre(0xac, 0x02));
  EXPECT_THAT(Encode(uint32_t{16383}), ElementsAre(0xff, 0x7f));
  EXPECT_THAT(Encode(uint32_t{16384}), ElementsAre(0x80, 0x80, 0x01));
  EXPECT_THAT(Encode(uint32_t{0xffffffffu}),
              ElementsAre(0xff, 0xff, 0xff, 0xff, 0x0f));
  EXPECT_THAT(Encode(uint64_t{1} << 32),
              ElementsAre(0x80, 0x80, 0x80, 0x80, 0x10));
  EXPECT_THAT(
      Encode(uint64_t{1} << 63),
      ElementsAre(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01));
  EXPECT_THAT(
      Encode(std::numeric_limits<uint64_t>::max()),
      ElementsAre(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01));
}

TEST(ProtoUtilsTest, VarIntSignedAndSmallTypes) {
  // Negative int32 and int64 are sign-extended to 64 bits: 10 bytes.
  const std::vector<uint8_t> minus_one = {0xff, 0xff, 0xff, 0xff, 0xff,
                                          0xff, 0xff, 0xff, 0xff, 0x01};
  EXPECT_EQ(Encode(int32_t{-1}), minus_one);
  EXPECT_EQ(Encode(int64_t{-1}), minus_one);
  EXPECT_EQ(Encode(int8_t{-1}), minus_one);
  EXPECT_THAT(
      Encode(std::numeric_limits<int32_t>::min()),
      ElementsAre(0x80, 0x80, 0x80, 0x80, 0xf8, 0xff, 0xff, 0xff, 0xff, 0x01));
  EXPECT_THAT(Encode(std::numeric_limits<int32_t>::max()),
              ElementsAre(0xff, 0xff, 0xff, 0xff, 0x07));
  EXPECT_THAT(
      Encode(std::numeric_limits<int64_t>::min()),
      ElementsAre(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01));
  EXPECT_THAT(Encode(true), ElementsAre(0x01));
  EXPECT_THAT(Encode(false), ElementsAre(0x00));
  EXPECT_THAT(Encode(uint8_t{200}), ElementsAre(0xc8, 0x01));
  enum class E : int32_t { kNeg = -2, kPos = 150 };
  EXPECT_THAT(Encode(E::kPos), ElementsAre(0x96, 0x01));
  EXPECT_EQ(Encode(E::kNeg).size(), 10u);
  EXPECT_EQ(Decode(Encode(E::kNeg)), static_cast<uint64_t>(-2));
}

TEST(ProtoUtilsTest, VarIntSize) {
  EXPECT_EQ(VarIntSize(uint32_t{0}), 1u);
  EXPECT_EQ(VarIntSize(uint32_t{127}), 1u);
  EXPECT_EQ(VarIntSize(uint32_t{128}), 2u);
  EXPECT_EQ(VarIntSize(uint32_t{16383}), 2u);
  EXPECT_EQ(VarIntSize(uint32_t{16384}), 3u);
  EXPECT_EQ(VarIntSize(uint32_t{0xffffffffu}), 5u);
  EXPECT_EQ(VarIntSize(uint64_t{1} << 63), 10u);
  EXPECT_EQ(VarIntSize(std::numeric_limits<uint64_t>::max()), 10u);
  EXPECT_EQ(VarIntSize(int32_t{-1}), 10u);
  EXPECT_EQ(VarIntSize(int32_t{1}), 1u);
  static_assert(VarIntSize(uint32_t{300}) == 2, "constexpr");
  // Agrees with WriteVarInt on every power of two and its neighbours.
  for (int shift = 0; shift < 64; ++shift) {
    for (uint64_t v : {(uint64_t{1} << shift) - 1, uint64_t{1} << shift,
                       (uint64_t{1} << shift) + 1}) {
      EXPECT_EQ(VarIntSize(v), Encode(v).size()) << v;
    }
  }
}

TEST(ProtoUtilsTest, VarIntRoundTrip) {
  const uint64_t values[] = {0,
                             1,
                             127,
                             128,
                             16383,
                             16384,
                             0xffffffffu,
                             uint64_t{1} << 32,
                             uint64_t{1} << 63,
                             (uint64_t{1} << 63) - 1,
                             std::numeric_limits<uint64_t>::max()};
  for (uint64_t v : values)
    EXPECT_EQ(Decode(Encode(v)), v);
  for (int shift = 0; shift < 64; ++shift) {
    const uint64_t v = (uint64_t{1} << shift) | 0x5a5a;
    EXPECT_EQ(Decode(Encode(v)), v);
  }
}

TEST(ProtoUtilsTest, ZigZag) {
  EXPECT_EQ(ZigZagEncode(int32_t{0}), 0u);
  EXPECT_EQ(ZigZagEncode(int32_t{-1}), 1u);
  EXPECT_EQ(ZigZagEncode(int32_t{1}), 2u);
  EXPECT_EQ(ZigZagEncode(int32_t{-2}), 3u);
  EXPECT_EQ(ZigZagEncode(int32_t{2147483647}), 4294967294u);
  EXPECT_EQ(ZigZagEncode(std::numeric_limits<int32_t>::min()), 4294967295u);
  EXPECT_EQ(ZigZagEncode(int64_t{-1}), 1u);
  EXPECT_EQ(ZigZagEncode(std::numeric_limits<int64_t>::max()),
            std::numeric_limits<uint64_t>::max() - 1);
  EXPECT_EQ(ZigZagEncode(std::numeric_limits<int64_t>::min()),
            std::numeric_limits<uint64_t>::max());
  static_assert(
      std::is_same<decltype(ZigZagEncode(int32_t{})), uint32_t>::value, "");
  static_assert(
      std::is_same<decltype(ZigZagEncode(int64_t{})), uint64_t>::value, "");

  EXPECT_EQ(ZigZagDecode(uint32_t{0}), 0);
  EXPECT_EQ(ZigZagDecode(uint32_t{1}), -1);
  EXPECT_EQ(ZigZagDecode(uint32_t{2}), 1);
  EXPECT_EQ(ZigZagDecode(uint32_t{3}), -2);
  EXPECT_EQ(ZigZagDecode(uint32_t{4294967295u}),
            std::numeric_limits<int32_t>::min());
  EXPECT_EQ(ZigZagDecode(uint32_t{4294967294u}),
            std::numeric_limits<int32_t>::max());
  EXPECT_EQ(ZigZagDecode(std::numeric_limits<uint64_t>::max()),
            std::numeric_limits<int64_t>::min());
  for (int64_t v :
       {int64_t{0}, int64_t{-1}, int64_t{63}, int64_t{-64}, int64_t{1} << 40,
        -(int64_t{1} << 40), std::numeric_limits<int64_t>::max(),
        std::numeric_limits<int64_t>::min()}) {
    EXPECT_EQ(ZigZagDecode(ZigZagEncode(v)), v);
  }
  // Small magnitudes of either sign stay one byte.
  EXPECT_THAT(Encode(ZigZagEncode(int32_t{-64})), ElementsAre(0x7f));
  EXPECT_THAT(Encode(ZigZagEncode(int32_t{64})), ElementsAre(0x80, 0x01));
}

TEST(ProtoUtilsTest, RedundantVarInt) {
  uint8_t buf[6];
  memset(buf, 0xcc, sizeof(buf));
  WriteRedundantVarInt(0, buf);
  EXPECT_THAT(buf, ElementsAre(0x80, 0x80, 0x80, 0x00, 0xcc, 0xcc));
  WriteRedundantVarInt(7, buf);
  EXPECT_THAT(buf, ElementsAre(0x87, 0x80, 0x80, 0x00, 0xcc, 0xcc));
  WriteRedundantVarInt(300, buf);
  EXPECT_THAT(buf, ElementsAre(0xac, 0x82, 0x80, 0x00, 0xcc, 0xcc));
  WriteRedundantVarInt(static_cast<uint32_t>(kMaxMessageLength), buf);
  EXPECT_THAT(buf, ElementsAre(0xff, 0xff, 0xff, 0x7f, 0xcc, 0xcc));
  WriteRedundantVarInt(5, buf, 2);
  EXPECT_THAT(buf, ElementsAre(0x85, 0x00, 0xff, 0x7f, 0xcc, 0xcc));
  WriteRedundantVarInt(5, buf, 1);
  EXPECT_EQ(buf[0], 0x05);

  // Decoders read the padded form back.
  for (uint32_t v : {0u, 1u, 127u, 128u, 16383u, 16384u, 2097151u, 2097152u,
                     static_cast<uint32_t>(kMaxMessageLength)}) {
    uint8_t field[4];
    WriteRedundantVarInt(v, field);
    uint64_t decoded = 0;
    EXPECT_EQ(ParseVarInt(field, field + 4, &decoded), field + 4);
    EXPECT_EQ(decoded, v);
  }
}

// The single-store 4-byte form must produce exactly the bytes of the loop,
// for every bit position below 2^28, and touch nothing past the 4 bytes.
TEST(ProtoUtilsTest, RedundantVarInt4MatchesTheGenericForm) {
  std::vector<uint32_t> values = {0u, 1u, 127u, 128u, 16383u, 16384u,
                                  2097151u, 2097152u,
                                  static_cast<uint32_t>(kMaxMessageLength)};
  for (uint32_t bit = 0; bit < 28; bit++) {
    values.push_back(1u << bit);
    values.push_back((1u << bit) - 1);
    values.push_back(0x0AAAAAAAu >> bit);
    values.push_back(0x05555555u >> bit);
  }
  for (uint32_t v : values) {
    uint8_t expected[6];
    uint8_t actual[6];
    memset(expected, 0xcc, sizeof(expected));
    memset(actual, 0xcc, sizeof(actual));
    WriteRedundantVarInt(v, expected + 1);
    WriteRedundantVarInt4(v, actual + 1);
    EXPECT_EQ(memcmp(expected, actual, sizeof(actual)), 0) << v;
  }
}

// Every length around the size classes, at every misalignment: exactly n
// bytes copied, nothing before or after touched.
TEST(ProtoUtilsTest, CopyBytesCopiesExactlyNBytes) {
  uint8_t src[80];
  for (size_t i = 0; i < sizeof(src); i++)
    src[i] = static_cast<uint8_t>(i * 7 + 1);
  for (size_t n = 0; n <= 70; n++) {
    for (size_t shift = 0; shift < 8; shift++) {
      uint8_t dst[96];
      memset(dst, 0xEE, sizeof(dst));
      CopyBytes(dst + 8 + shift, src + shift, n);
      for (size_t i = 0; i < sizeof(dst); i++) {
        const bool inside = i >= 8 + shift && i < 8 + shift + n;
        const uint8_t want = inside ? src[shift + i - 8 - shift] : 0xEE;
        ASSERT_EQ(dst[i], want) << "n " << n << " shift " << shift << " at " << i;
      }
    }
  }
  CopyBytes(nullptr, nullptr, 0);
}

TEST(ProtoUtilsTest, ParseVarIntStopsAtTheEndOfTheVarInt) {
  const uint8_t buf[] = {0xac, 0x02, 0x7f, 0x80};
  uint64_t value = 0;
  const uint8_t* pos = ParseVarInt(buf, buf + sizeof(buf), &value);
  EXPECT_EQ(pos, buf + 2);
  EXPECT_EQ(value, 300u);
  pos = ParseVarInt(pos, buf + sizeof(buf), &value);
  EXPECT_EQ(pos, buf + 3);
  EXPECT_EQ(value, 127u);
}

TEST(ProtoUtilsTest, ParseVarIntTruncated) {
  const uint8_t buf[] = {0x80, 0x80, 0x80};
  uint64_t value = 42;
  // Empty input.
  EXPECT_EQ(ParseVarInt(buf, buf, &value), buf);
  EXPECT_EQ(value, 42u);
  // Every prefix of a continuation-only sequence fails and writes nothing.
  for (size_t len = 1; len <= sizeof(buf); ++len) {
    EXPECT_EQ(ParseVarInt(buf, buf + len, &value), buf) << len;
    EXPECT_EQ(value, 42u);
  }
  // A complete 2-byte varint whose end is cut off by |end|.
  const uint8_t two[] = {0xac, 0x02};
  EXPECT_EQ(ParseVarInt(two, two + 1, &value), two);
  EXPECT_EQ(value, 42u);
}

TEST(ProtoUtilsTest, ParseVarIntTenAndElevenBytes) {
  // Ten bytes is the maximum and is accepted.
  std::vector<uint8_t> ten(9, 0xff);
  ten.push_back(0x01);
  EXPECT_EQ(Decode(ten), std::numeric_limits<uint64_t>::max());
  // Bits beyond 64 in the tenth byte are dropped (libprotobuf does too).
  std::vector<uint8_t> ten_high(9, 0x80);
  ten_high.push_back(0x7f);
  EXPECT_EQ(Decode(ten_high), uint64_t{1} << 63);

  // Eleven bytes: rejected even though a terminator follows.
  std::vector<uint8_t> eleven(10, 0x80);
  eleven.push_back(0x00);
  uint64_t value = 7;
  EXPECT_EQ(ParseVarInt(eleven.data(), eleven.data() + eleven.size(), &value),
            eleven.data());
  EXPECT_EQ(value, 7u);
  // Ten continuation bytes and nothing else: rejected too.
  EXPECT_EQ(ParseVarInt(eleven.data(), eleven.data() + 10, &value),
            eleven.data());
  EXPECT_EQ(value, 7u);
}

TEST(ProtoUtilsTest, ParseNonMinimalVarInt) {
  // 1 encoded in 5 and 10 bytes.
  const std::vector<uint8_t> five = {0x81, 0x80, 0x80, 0x80, 0x00};
  EXPECT_EQ(Decode(five), 1u);
  std::vector<uint8_t> ten = {0x81};
  ten.insert(ten.end(), 8, 0x80);
  ten.push_back(0x00);
  EXPECT_EQ(Decode(ten), 1u);
}

TEST(ProtoUtilsTest, WriteFixedIsLittleEndian) {
  uint8_t buf[8];
  WriteFixed(uint32_t{0x01020304}, buf);
  EXPECT_THAT(std::vector<uint8_t>(buf, buf + 4),
              ElementsAre(0x04, 0x03, 0x02, 0x01));
  WriteFixed(uint64_t{0x0102030405060708}, buf);
  EXPECT_THAT(buf, ElementsAre(0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01));
  WriteFixed(1.0f, buf);
  EXPECT_THAT(std::vector<uint8_t>(buf, buf + 4),
              ElementsAre(0x00, 0x00, 0x80, 0x3f));
  WriteFixed(-2.0, buf);
  EXPECT_THAT(buf, ElementsAre(0, 0, 0, 0, 0, 0, 0x00, 0xc0));
  WriteFixed(int32_t{-1}, buf);
  EXPECT_THAT(std::vector<uint8_t>(buf, buf + 4),
              ElementsAre(0xff, 0xff, 0xff, 0xff));
  const uint8_t expected_sixteen[] = {0x10, 0, 0, 0};
  WriteFixed(int32_t{16}, buf);
  EXPECT_THAT(std::vector<uint8_t>(buf, buf + 4),
              ElementsAreArray(expected_sixteen));
}

}  // namespace
}  // namespace proto_utils
}  // namespace protozero
}  // namespace zt
