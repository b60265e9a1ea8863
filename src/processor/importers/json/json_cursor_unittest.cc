#include "src/processor/importers/json/json_cursor.h"

#include <string>

#include <gtest/gtest.h>

namespace zt {
namespace processor {
namespace {

std::string ReadOneString(const std::string& json) {
  JsonCursor cursor(json.data(), json.size());
  std::string_view value;
  std::string scratch;
  if (!cursor.ReadString(&value, &scratch))
    return "error: " + cursor.error();
  return std::string(value);
}

TEST(JsonCursorTest, StringsAreDecoded) {
  EXPECT_EQ(ReadOneString(R"("plain")"), "plain");
  EXPECT_EQ(ReadOneString(R"("a\"b\\c\/d\n\t")"), "a\"b\\c/d\n\t");
  EXPECT_EQ(ReadOneString(R"("\u00e9\u4e2d")"), "\xC3\xA9\xE4\xB8\xAD");
  // A surrogate pair is one code point; a lone surrogate becomes U+FFFD.
  EXPECT_EQ(ReadOneString(R"("\ud83d\ude00")"), "\xF0\x9F\x98\x80");
  EXPECT_EQ(ReadOneString(R"("\ud83dx")"), "\xEF\xBF\xBDx");
  EXPECT_EQ(ReadOneString(R"("\ude00")"), "\xEF\xBF\xBD");
  EXPECT_EQ(ReadOneString(R"("cut)"), "error: string not closed at byte 4");
  EXPECT_EQ(ReadOneString(R"("bad \q")"), "error: bad escape in string at byte 7");
  EXPECT_EQ(ReadOneString(R"("\u12")"), "error: bad \\u escape at byte 3");
}

TEST(JsonCursorTest, ObjectsAndArraysAreWalked) {
  const std::string json = R"( {"a": 1, "b": [true, null, "x"], "c": {"d": -2.5e1}} )";
  JsonCursor cursor(json.data(), json.size());
  ASSERT_TRUE(cursor.EnterObject());
  std::string_view key, value;
  std::string scratch;
  ASSERT_TRUE(cursor.NextKey(&key, &scratch));
  EXPECT_EQ(key, "a");
  ASSERT_TRUE(cursor.ReadNumber(&value));
  EXPECT_EQ(value, "1");
  ASSERT_TRUE(cursor.NextKey(&key, &scratch));
  EXPECT_EQ(key, "b");
  ASSERT_TRUE(cursor.RawValue(&value));
  EXPECT_EQ(value, R"([true, null, "x"])");
  ASSERT_TRUE(cursor.NextKey(&key, &scratch));
  EXPECT_EQ(key, "c");
  ASSERT_TRUE(cursor.EnterObject());
  ASSERT_TRUE(cursor.NextKey(&key, &scratch));
  ASSERT_TRUE(cursor.ReadNumber(&value));
  EXPECT_EQ(value, "-2.5e1");
  EXPECT_FALSE(cursor.NextKey(&key, &scratch));
  EXPECT_FALSE(cursor.NextKey(&key, &scratch));
  EXPECT_TRUE(cursor.ok());
  EXPECT_TRUE(cursor.AtEnd());
}

TEST(JsonCursorTest, MalformedInputFailsWithWhereItWent) {
  for (const char* bad : {R"({"a" 1})", R"({"a": 1,,})", R"({,})", R"({"a": 1 "b": 2})", R"([1 2])",
                          R"({"a": tru})", R"({"a": 01})", R"({"a": -})", R"({"a": 1.})",
                          R"({"a": })", R"({"a": [1, 2})", "{\"a\": 1"}) {
    JsonCursor cursor(bad, strlen(bad));
    EXPECT_FALSE(cursor.SkipValue()) << bad;
    EXPECT_FALSE(cursor.ok()) << bad;
    EXPECT_NE(cursor.error().find(" at byte "), std::string::npos) << cursor.error();
  }
}

// Upstream accepts a comma before a closing bracket: so do we.
TEST(JsonCursorTest, TrailingCommasAreAccepted) {
  const std::string json = R"({"a": [1, 2,], "b": {"c": 3,},})";
  JsonCursor cursor(json.data(), json.size());
  std::string_view raw;
  ASSERT_TRUE(cursor.RawValue(&raw)) << cursor.error();
  EXPECT_EQ(raw, json);
  EXPECT_TRUE(cursor.AtEnd());
}

TEST(JsonCursorTest, NestingIsBounded) {
  const std::string deep = std::string(64, '[') + std::string(64, ']');
  JsonCursor ok_cursor(deep.data(), deep.size());
  EXPECT_TRUE(ok_cursor.SkipValue()) << ok_cursor.error();
  const std::string too_deep = std::string(65, '[') + std::string(65, ']');
  JsonCursor cursor(too_deep.data(), too_deep.size());
  EXPECT_FALSE(cursor.SkipValue());
  EXPECT_EQ(cursor.error(), "nested deeper than 64 levels at byte 64");
  // A million brackets fail at the limit, without recursion.
  const std::string hostile(1000000, '[');
  JsonCursor hostile_cursor(hostile.data(), hostile.size());
  EXPECT_FALSE(hostile_cursor.SkipValue());
}

TEST(JsonCursorTest, MicrosecondsBecomeNanosecondsExactly) {
  int64_t ns = 0;
  ASSERT_TRUE(JsonNumberToScaledInt("1597071955492308", 1000, &ns));
  EXPECT_EQ(ns, 1597071955492308000);
  ASSERT_TRUE(JsonNumberToScaledInt("12.3456", 1000, &ns));
  EXPECT_EQ(ns, 12346);  // Rounded to nearest.
  ASSERT_TRUE(JsonNumberToScaledInt("0.0005", 1000, &ns));
  EXPECT_EQ(ns, 1);  // Halves round away from zero.
  ASSERT_TRUE(JsonNumberToScaledInt("-0.0005", 1000, &ns));
  EXPECT_EQ(ns, -1);
  // A double would give ...307.999: the decimal is exact.
  ASSERT_TRUE(JsonNumberToScaledInt("4619295550.308", 1000, &ns));
  EXPECT_EQ(ns, 4619295550308);
  ASSERT_TRUE(JsonNumberToScaledInt("1.5e3", 1000, &ns));
  EXPECT_EQ(ns, 1500000);
  ASSERT_TRUE(JsonNumberToScaledInt("25e-4", 1000, &ns));
  EXPECT_EQ(ns, 3);
  ASSERT_TRUE(JsonNumberToScaledInt("0", 1000, &ns));
  EXPECT_EQ(ns, 0);
  EXPECT_FALSE(JsonNumberToScaledInt("9223372036854776", 1000, &ns));  // Overflows int64.
  // Long digit runs leave the fast path before they overflow (UBSan found
  // 2222222222222222222 * 10).
  EXPECT_FALSE(JsonNumberToScaledInt("22222222222222222222222", 1000, &ns));
  ASSERT_TRUE(JsonNumberToScaledInt("0.0000000000000000000000000001", 1000, &ns));
  EXPECT_EQ(ns, 0);
  ASSERT_TRUE(JsonNumberToScaledInt("1234567890123456.5", 1, &ns));
  EXPECT_EQ(ns, 1234567890123457);
  EXPECT_FALSE(JsonNumberToScaledInt("1e400", 1000, &ns));
  EXPECT_FALSE(JsonNumberToScaledInt("abc", 1000, &ns));
}

TEST(JsonCursorTest, IntegersAreExact) {
  int64_t v = 0;
  ASSERT_TRUE(JsonNumberToInt("9223372036854775807", &v));
  EXPECT_EQ(v, INT64_MAX);
  ASSERT_TRUE(JsonNumberToInt("-9223372036854775808", &v));
  EXPECT_EQ(v, INT64_MIN);
  EXPECT_FALSE(JsonNumberToInt("9223372036854775808", &v));
  EXPECT_FALSE(JsonNumberToInt("1.0", &v));
  EXPECT_FALSE(JsonNumberToInt("1e2", &v));
}

}  // namespace
}  // namespace processor
}  // namespace zt
