#include "zt/protozero/packed_repeated_fields.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "zt/protozero/message.h"
#include "zt/protozero/proto_decoder.h"
#include "zt/protozero/scattered_heap_buffer.h"

namespace zt {
namespace protozero {
namespace {

using ::testing::ElementsAre;
using Bytes = std::vector<uint8_t>;

Bytes Contents(const PackedBufferBase& p) {
  return Bytes(p.data(), p.data() + p.size());
}

class Msg : public Message {
 public:
  void set_ints(const PackedVarInt& p) { AppendBytes(1, p.data(), p.size()); }
  void set_floats(const PackedFixedSizeInt<float>& p) {
    AppendBytes(2, p.data(), p.size());
  }
};

TEST(PackedRepeatedFieldsTest, EmptyBuffer) {
  PackedVarInt p;
  EXPECT_EQ(p.size(), 0u);
  HeapBuffered<Msg> msg;
  msg->set_ints(p);
  EXPECT_EQ(msg.SerializeAsString(), std::string("\x0a\x00", 2));
}

TEST(PackedRepeatedFieldsTest, VarIntExactBytes) {
  PackedVarInt p;
  p.Append(0);
  p.Append(1);
  p.Append(127);
  p.Append(128);
  p.Append(int32_t{-1});
  p.Append(std::numeric_limits<uint64_t>::max());
  p.Append(true);
  p.Append(uint32_t{300});
  EXPECT_EQ(Contents(p),
            (Bytes{0x00, 0x01, 0x7f, 0x80, 0x01,
                   0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
                   0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
                   0x01, 0xac, 0x02}));
}

TEST(PackedRepeatedFieldsTest, ZigZagExactBytes) {
  PackedVarInt p;
  p.AppendZigZag(int32_t{0});
  p.AppendZigZag(int32_t{-1});
  p.AppendZigZag(int32_t{1});
  p.AppendZigZag(int32_t{-64});
  p.AppendZigZag(int32_t{64});
  p.AppendZigZag(std::numeric_limits<int32_t>::min());
  p.AppendZigZag(int64_t{-2});
  EXPECT_EQ(Contents(p), (Bytes{0x00, 0x01, 0x02, 0x7f, 0x80, 0x01, 0xff,
                                0xff, 0xff, 0xff, 0x0f, 0x03}));
}

TEST(PackedRepeatedFieldsTest, FixedExactBytes) {
  PackedFixedSizeInt<uint32_t> u32;
  u32.Append(1);
  u32.Append(0xdeadbeef);
  EXPECT_EQ(Contents(u32), (Bytes{1, 0, 0, 0, 0xef, 0xbe, 0xad, 0xde}));

  PackedFixedSizeInt<float> f;
  f.Append(1.0f);
  f.Append(-0.0f);
  EXPECT_EQ(Contents(f), (Bytes{0, 0, 0x80, 0x3f, 0, 0, 0, 0x80}));

  PackedFixedSizeInt<double> d;
  d.Append(0.5);
  EXPECT_EQ(Contents(d), (Bytes{0, 0, 0, 0, 0, 0, 0xe0, 0x3f}));

  PackedFixedSizeInt<int64_t> i64;
  i64.Append(-1);
  i64.Append(int64_t{0x0102030405060708});
  EXPECT_EQ(Contents(i64), (Bytes{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                  0xff, 8, 7, 6, 5, 4, 3, 2, 1}));
}

TEST(PackedRepeatedFieldsTest, WrittenAsALengthDelimitedField) {
  PackedVarInt ints;
  ints.Append(3);
  ints.Append(270);
  ints.Append(86942);
  PackedFixedSizeInt<float> floats;
  floats.Append(2.0f);
  HeapBuffered<Msg> msg(8, 8);
  msg->set_ints(ints);
  msg->set_floats(floats);
  // The protobuf documentation's packed example, then the floats.
  EXPECT_EQ(msg.SerializeAsString(),
            std::string("\x0a\x06\x03\x8e\x02\x9e\xa7\x05"
                        "\x12\x04\x00\x00\x00\x40",
                        14));
}

TEST(PackedRepeatedFieldsTest, FixedGrowsPastTheInlineSize) {
  static_assert(PackedBufferBase::kInlineSize == 256, "");
  PackedFixedSizeInt<uint32_t> p;
  const uint8_t* inline_data = p.data();
  for (uint32_t i = 0; i < 64; ++i)
    p.Append(i * 0x01010101u);
  EXPECT_EQ(p.size(), 256u);
  EXPECT_EQ(p.data(), inline_data);  // Exactly full, still inline.
  for (uint32_t i = 64; i < 1000; ++i)
    p.Append(i * 0x01010101u);
  EXPECT_NE(p.data(), inline_data);
  ASSERT_EQ(p.size(), 4000u);
  for (uint32_t i = 0; i < 1000; ++i) {
    uint32_t v;
    memcpy(&v, p.data() + 4 * i, 4);
    ASSERT_EQ(v, i * 0x01010101u) << i;
  }
}

TEST(PackedRepeatedFieldsTest, VarIntGrowsPastTheInlineSize) {
  PackedVarInt p;
  std::vector<uint64_t> values;
  for (uint64_t i = 0; i < 3000; ++i)
    values.push_back((i * 0x9e3779b97f4a7c15u) >> (i % 64));
  for (uint64_t v : values)
    p.Append(v);
  size_t expected_size = 0;
  for (uint64_t v : values)
    expected_size += proto_utils::VarIntSize(v);
  ASSERT_EQ(p.size(), expected_size);
  bool error = false;
  PackedRepeatedFieldIterator<PackedKind::kVarInt, uint64_t> it(
      p.data(), p.size(), &error);
  for (uint64_t v : values) {
    ASSERT_TRUE(it);
    ASSERT_EQ(*it, v);
    ++it;
  }
  EXPECT_FALSE(it);
  EXPECT_FALSE(error);
}

TEST(PackedRepeatedFieldsTest, GrowthAtEveryFillLevel) {
  // The 10-byte worst case is reserved even when the room left is 1..9.
  for (size_t prefix = 240; prefix <= 256; ++prefix) {
    PackedVarInt p;
    for (size_t i = 0; i < prefix; ++i)
      p.Append(uint32_t{5});
    p.Append(std::numeric_limits<uint64_t>::max());
    p.Append(uint32_t{6});
    ASSERT_EQ(p.size(), prefix + 11);
    EXPECT_EQ(p.data()[prefix - 1], 5);
    EXPECT_EQ(p.data()[prefix], 0xff);
    EXPECT_EQ(p.data()[prefix + 9], 0x01);
    EXPECT_EQ(p.data()[prefix + 10], 6);
  }
}

TEST(PackedRepeatedFieldsTest, ResetKeepsHeapStorage) {
  PackedFixedSizeInt<double> p;
  for (int i = 0; i < 100; ++i)
    p.Append(i);
  const uint8_t* heap = p.data();
  p.Reset();
  EXPECT_EQ(p.size(), 0u);
  EXPECT_EQ(p.data(), heap);
  p.Append(2.0);
  EXPECT_EQ(Contents(p), (Bytes{0, 0, 0, 0, 0, 0, 0, 0x40}));
  PackedVarInt v;
  v.Append(1);
  v.Reset();
  v.Append(2);
  EXPECT_EQ(Contents(v), Bytes{2});
}

}  // namespace
}  // namespace protozero
}  // namespace zt
