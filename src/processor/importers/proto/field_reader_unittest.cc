#include "src/processor/importers/proto/field_reader.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace zt {
namespace processor {
namespace {

const uint8_t* Bytes(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

TEST(FieldReaderTest, ReadsEveryWireTypeAndStopsAtTheEnd) {
  // 1: varint 300; 2: bytes "ab"; 3: fixed64 1; 4: fixed32 2; 100: varint 1 (two-byte key).
  const std::string in = std::string("\x08\xac\x02\x12\x02" "ab" "\x19", 8) +
                         std::string("\x01\0\0\0\0\0\0\0", 8) + std::string("\x25\x02\0\0\0", 5) +
                         std::string("\xa0\x06\x01", 3);
  FieldReader reader(Bytes(in), in.size());
  RawField f{};
  ASSERT_TRUE(reader.Next(&f));
  EXPECT_EQ(f.id, 1u);
  EXPECT_EQ(f.value, 300u);
  EXPECT_FALSE(f.is_bytes());
  EXPECT_EQ(f.bytes(), nullptr);
  EXPECT_EQ(f.size(), 0u);
  ASSERT_TRUE(reader.Next(&f));
  EXPECT_EQ(f.id, 2u);
  EXPECT_EQ(f.as_string(), "ab");
  ASSERT_TRUE(reader.Next(&f));
  EXPECT_EQ(f.id, 3u);
  EXPECT_EQ(f.value, 1u);
  ASSERT_TRUE(reader.Next(&f));
  EXPECT_EQ(f.id, 4u);
  EXPECT_EQ(f.value, 2u);
  ASSERT_TRUE(reader.Next(&f));
  EXPECT_EQ(f.id, 100u);
  EXPECT_EQ(f.value, 1u);
  EXPECT_FALSE(reader.Next(&f));
  EXPECT_FALSE(reader.error());
}

TEST(FieldReaderTest, MalformedInputIsAnErrorNeverAReadPastTheEnd) {
  for (const std::string& in : {std::string("\x12\x05" "ab", 4),      // Length past the end.
                                std::string("\x08\xff", 2),           // Varint cut.
                                std::string("\x00\x01", 2),           // Field 0.
                                std::string("\x0b", 1),               // Wire type 3.
                                std::string("\x19\x01\x02", 3),       // Fixed64 cut.
                                std::string(11, '\xff')}) {           // Key over 10 bytes.
    FieldReader reader(Bytes(in), in.size());
    RawField f{};
    while (reader.Next(&f)) {
    }
    EXPECT_TRUE(reader.error()) << testing::PrintToString(in);
    EXPECT_FALSE(reader.Next(&f));
  }
}

TEST(FieldReaderTest, RepeatedValuesPackedOrNot) {
  std::vector<uint64_t> values;
  RawField single{1, RawField::kVarint, 7, nullptr};
  ForEachVarint(single, [&](uint64_t v) { values.push_back(v); });
  const std::string packed("\x01\xac\x02\x7f", 4);
  RawField many{1, RawField::kLengthDelimited, packed.size(), Bytes(packed)};
  ForEachVarint(many, [&](uint64_t v) { values.push_back(v); });
  EXPECT_EQ(values, (std::vector<uint64_t>{7, 1, 300, 127}));

  values.clear();
  const std::string cut("\x05\x80", 2);  // The second varint never ends.
  RawField truncated{1, RawField::kLengthDelimited, cut.size(), Bytes(cut)};
  ForEachVarint(truncated, [&](uint64_t v) { values.push_back(v); });
  EXPECT_EQ(values, (std::vector<uint64_t>{5}));

  values.clear();
  const std::string fixed = std::string("\x02\0\0\0\0\0\0\0", 8) + std::string("\x03\0\0", 3);
  RawField fixed64{1, RawField::kLengthDelimited, fixed.size(), Bytes(fixed)};
  ForEachFixed64(fixed64, [&](uint64_t v) { values.push_back(v); });
  EXPECT_EQ(values, (std::vector<uint64_t>{2}));  // The 3-byte tail is no value.
}

TEST(FieldReaderTest, ShortVarintsAreReadAndLongOrCutOnesLeftAlone) {
  auto read = [](const std::string& bytes, uint64_t* value, size_t* used) {
    const uint8_t* p = Bytes(bytes);
    const bool ok = ReadShortVarint(&p, Bytes(bytes) + bytes.size(), value);
    *used = static_cast<size_t>(p - Bytes(bytes));
    return ok;
  };
  uint64_t value = 0;
  size_t used = 0;
  EXPECT_TRUE(read(std::string("\x7f\x01", 2), &value, &used));
  EXPECT_EQ(value, 127u);
  EXPECT_EQ(used, 1u);
  EXPECT_TRUE(read("\xac\x02", &value, &used));
  EXPECT_EQ(value, 300u);
  EXPECT_EQ(used, 2u);
  EXPECT_TRUE(read("\xff\xff\x7f", &value, &used));
  EXPECT_EQ(value, (uint64_t{1} << 21) - 1);
  EXPECT_EQ(used, 3u);
  const std::string nine = std::string(8, '\xff') + "\x7f";
  EXPECT_TRUE(read(nine, &value, &used));
  EXPECT_EQ(value, (uint64_t{1} << 63) - 1);
  EXPECT_EQ(used, 9u);
  // Ten bytes (a negative int64) and a varint cut by the end: false, and
  // nothing consumed, for the caller's full reader.
  value = 42;
  EXPECT_FALSE(read(std::string(9, '\xff') + "\x01", &value, &used));
  EXPECT_EQ(used, 0u);
  EXPECT_FALSE(read("\x80\x80", &value, &used));
  EXPECT_EQ(used, 0u);
  EXPECT_FALSE(read("", &value, &used));
  EXPECT_EQ(value, 42u);
}

}  // namespace
}  // namespace processor
}  // namespace zt
