// The text-format parser's errors: what it refuses, where (line:column),
// and what it says (quotes cut to 40 bytes), agreeing with libprotobuf's
// parser on what is refused.

#include <string>

#include <gtest/gtest.h>

#include "src/protozero/text_format_test_util.h"
#include "zt/protozero/text_format.h"

namespace zt {
namespace protozero {
namespace {

// ---------------------------------------------------------------------------
// Errors: one per class, with exact positions.

TEST(TextFormatErrorTest, UnknownFields) {
  EXPECT_EQ(E("buffers {\n  size_k: 1\n}", kMiniTraceConfig),
            "2:3: unknown field \"size_k\" in "
            "zt.protos.TraceConfig.BufferConfig (did you mean \"size_kb\"?)");
  EXPECT_EQ(E("duration_MS: 1", kMiniTraceConfig),
            "1:1: unknown field \"duration_MS\" in zt.protos.TraceConfig "
            "(did you mean \"duration_ms\"?)");
  EXPECT_EQ(E("  buffer_size: 1", kMiniTraceConfig),
            "1:3: unknown field \"buffer_size\" in zt.protos.TraceConfig");
  EXPECT_EQ(E("f_int32: 1\nzzzzzzz: 2"),
            "2:1: unknown field \"zzzzzzz\" in zt.test.AllTypes");
  // Long names are shown truncated, with no suggestion search.
  EXPECT_EQ(E(std::string(100000, 'f') + ": 1"),
            "1:1: unknown field \"" + std::string(37, 'f') +
                "...\" in zt.test.AllTypes");
}

TEST(TextFormatErrorTest, ExtensionsAndFieldNumbers) {
  EXPECT_EQ(E("f_int32: 1\n  [zt.ext.foo]: 1"),
            "2:3: extension and Any syntax \"[...]\" is not supported "
            "(in zt.test.AllTypes)");
  EXPECT_EQ(E("child { [type.googleapis.com/x] {} }"),
            "1:9: extension and Any syntax \"[...]\" is not supported "
            "(in zt.test.AllTypes)");
  EXPECT_EQ(E("5: 1"),
            "1:1: expected a field name in zt.test.AllTypes, found \"5\" "
            "(field numbers are not accepted)");
  EXPECT_EQ(E("\"f_int32\": 1"),
            "1:1: expected a field name in zt.test.AllTypes, found string "
            "\"f_int32\"");
}

TEST(TextFormatErrorTest, Structure) {
  EXPECT_EQ(E("f_int32 1"),
            "1:9: expected \":\" after field \"f_int32\", found \"1\"");
  EXPECT_EQ(E("f_int32 { }"),
            "1:9: expected \":\" after field \"f_int32\", found \"{\"");
  EXPECT_EQ(E("f_int32"),
            "1:8: expected \":\" after field \"f_int32\", found end of input");
  EXPECT_EQ(E("child: 1"),
            "1:8: expected \"{\" or \"<\" for message field \"child\", found "
            "\"1\"");
  EXPECT_EQ(E("child {\n  f_int32: 1\n"),
            "3:1: unexpected end of input: \"{\" of field \"child\" at 1:7 is "
            "not closed");
  EXPECT_EQ(E("child < f_int32: 1 }"),
            "1:20: expected \">\" to close \"<\" of field \"child\" at 1:7, "
            "found \"}\"");
  EXPECT_EQ(E("f_int32: 1 }"),
            "1:12: unexpected \"}\": no open message to close here");
  EXPECT_EQ(E("f_int32: 1 ;;"),
            "1:13: expected a field name in zt.test.AllTypes, found \";\"");
  EXPECT_EQ(E("f_int32: [1]"),
            "1:10: list syntax \"[...]\" used for non-repeated field "
            "\"f_int32\"");
  EXPECT_EQ(E("child [ {} ]"),
            "1:7: list syntax \"[...]\" used for non-repeated field \"child\"");
  EXPECT_EQ(E("r_int32 [1, 2]"),
            "1:9: expected \":\" after field \"r_int32\", found \"[\"");
  EXPECT_EQ(E("r_int32: [1, 2, ]"),
            "1:17: expected an integer for int32 field \"r_int32\", found "
            "\"]\"");
  EXPECT_EQ(E("r_int32: [1 2]"),
            "1:13: expected \",\" or \"]\" in the list of field \"r_int32\", "
            "found \"2\"");
  EXPECT_EQ(E("r_child [ {} {} ]"),
            "1:14: expected \",\" or \"]\" in the list of field \"r_child\", "
            "found \"{\"");
  EXPECT_EQ(E("r_int32: [1"),
            "1:12: expected \",\" or \"]\" in the list of field \"r_int32\", "
            "found end of input");
}

TEST(TextFormatErrorTest, DuplicateSingularField) {
  EXPECT_EQ(E("f_int32: 1\nf_int64: 2\nf_int32: 3"),
            "3:1: non-repeated field \"f_int32\" is specified more than once "
            "in zt.test.AllTypes");
  EXPECT_EQ(E("child {}\nchild {}"),
            "2:1: non-repeated field \"child\" is specified more than once in "
            "zt.test.AllTypes");
  // Per message: the same field in two sibling children is fine.
  EXPECT_EQ(P("r_child { f_int32: 1 } r_child { f_int32: 2 }").substr(0, 2),
            "ba");
}

TEST(TextFormatErrorTest, IntegerRanges) {
  EXPECT_EQ(E("f_int32: 2147483648"),
            "1:10: integer 2147483648 out of range for int32 field "
            "\"f_int32\"");
  EXPECT_EQ(E("f_int32: -2147483649"),
            "1:10: integer -2147483649 out of range for int32 field "
            "\"f_int32\"");
  EXPECT_EQ(E("f_sint32: 0x80000000"),
            "1:11: integer 0x80000000 out of range for sint32 field "
            "\"f_sint32\"");
  EXPECT_EQ(E("f_sfixed32: 3000000000"),
            "1:13: integer 3000000000 out of range for sfixed32 field "
            "\"f_sfixed32\"");
  EXPECT_EQ(E("f_uint32: 4294967296"),
            "1:11: integer 4294967296 out of range for uint32 field "
            "\"f_uint32\"");
  EXPECT_EQ(E("f_fixed32: 4294967296"),
            "1:12: integer 4294967296 out of range for fixed32 field "
            "\"f_fixed32\"");
  EXPECT_EQ(E("f_int64: 9223372036854775808"),
            "1:10: integer 9223372036854775808 out of range for int64 field "
            "\"f_int64\"");
  EXPECT_EQ(E("f_int64: -9223372036854775809"),
            "1:10: integer -9223372036854775809 out of range for int64 field "
            "\"f_int64\"");
  EXPECT_EQ(E("f_uint64: 18446744073709551616"),
            "1:11: integer 18446744073709551616 out of range for uint64 "
            "field \"f_uint64\"");
  EXPECT_EQ(E("f_uint64: 0x10000000000000000"),
            "1:11: integer 0x10000000000000000 out of range for uint64 field "
            "\"f_uint64\"");
  EXPECT_EQ(E("f_uint32: -1"),
            "1:11: negative value -1 for uint32 field \"f_uint32\"");
  EXPECT_EQ(E("f_fixed64: -1"),
            "1:12: negative value -1 for fixed64 field \"f_fixed64\"");
  EXPECT_EQ(E("r_int32: [1,\n 99999999999]"),
            "2:2: integer 99999999999 out of range for int32 field "
            "\"r_int32\"");
}

TEST(TextFormatErrorTest, WrongValueKind) {
  EXPECT_EQ(E("f_int32: 1.5"),
            "1:10: expected an integer for int32 field \"f_int32\", found "
            "\"1.5\"");
  EXPECT_EQ(E("f_int32: 1e3"),
            "1:10: expected an integer for int32 field \"f_int32\", found "
            "\"1e3\"");
  EXPECT_EQ(E("f_int32: \"1\""),
            "1:10: expected an integer for int32 field \"f_int32\", found "
            "string \"1\"");
  EXPECT_EQ(E("f_int32: -"),
            "1:11: expected an integer for int32 field \"f_int32\", found end "
            "of input");
  EXPECT_EQ(E("f_int32: --1"),
            "1:11: expected an integer for int32 field \"f_int32\", found "
            "\"-\"");
  EXPECT_EQ(E("f_string: hello"),
            "1:11: expected a string for string field \"f_string\", found "
            "\"hello\"");
  EXPECT_EQ(E("f_bytes: 12"),
            "1:10: expected a string for bytes field \"f_bytes\", found "
            "\"12\"");
  EXPECT_EQ(E("f_double: abc"),
            "1:11: expected a number for double field \"f_double\", found "
            "\"abc\"");
  EXPECT_EQ(E("f_double: 0x10"),
            "1:11: expected a decimal number for double field \"f_double\", "
            "found \"0x10\"");
  EXPECT_EQ(E("f_bool: 2"),
            "1:9: invalid value \"2\" for bool field \"f_bool\" (expected "
            "true, false, 1 or 0)");
  EXPECT_EQ(E("f_bool: yes"),
            "1:9: invalid value \"yes\" for bool field \"f_bool\" (expected "
            "true, false, 1 or 0)");
  EXPECT_EQ(E("f_bool: TRUE"),
            "1:9: invalid value \"TRUE\" for bool field \"f_bool\" (expected "
            "true, false, 1 or 0)");
}

TEST(TextFormatErrorTest, Enums) {
  EXPECT_EQ(E("buffers { fill_policy: RING }", kMiniTraceConfig),
            "1:24: unknown value \"RING\" for enum "
            "zt.protos.TraceConfig.BufferConfig.FillPolicy of field "
            "\"fill_policy\" (valid: UNSPECIFIED, RING_BUFFER, DISCARD)");
  EXPECT_EQ(E("f_enum: 7"),
            "1:9: unknown number 7 for enum zt.test.Color of field \"f_enum\" "
            "(valid: RED, GREEN, BLUE, NEG)");
  EXPECT_EQ(E("f_enum: -2"),
            "1:9: unknown number -2 for enum zt.test.Color of field "
            "\"f_enum\" (valid: RED, GREEN, BLUE, NEG)");
  EXPECT_EQ(E("f_enum: \"RED\""),
            "1:9: expected an enum value name or number for field \"f_enum\", "
            "found string \"RED\"");
  EXPECT_EQ(E("p_enum: [RED, red]"),
            "1:15: unknown value \"red\" for enum zt.test.Color of field "
            "\"p_enum\" (valid: RED, GREEN, BLUE, NEG)");
}

TEST(TextFormatErrorTest, Lexical) {
  EXPECT_EQ(E("f_string: \"abc"), "1:11: unterminated string literal");
  EXPECT_EQ(E("f_string: \"abc\\"), "1:11: unterminated string literal");
  EXPECT_EQ(E("f_string: 'ab\ncd'"),
            "1:11: string literal cannot span lines (use \\n)");
  EXPECT_EQ(E("f_string: \"ab\\qcd\""),
            "1:14: invalid escape sequence \"\\q\" in string literal");
  EXPECT_EQ(E("f_string: \"\\xZZ\""),
            "1:12: \\x must be followed by hex digits");
  EXPECT_EQ(E("f_string: \"\\u12\""),
            "1:12: \\u must be followed by 4 hex digits");
  EXPECT_EQ(E("f_string: \"\\U00110000\""),
            "1:12: \\U escape beyond U+10FFFF");
  EXPECT_EQ(E("f_string: \"ok\" \"\\z\""),
            "1:17: invalid escape sequence \"\\z\" in string literal");
  EXPECT_EQ(E("f_int32: 1\n  @"), "2:3: unexpected character '@'");
  EXPECT_EQ(E("f_int32: \x01"), "1:10: unexpected character \"\\x01\"");
  EXPECT_EQ(E("f_int32: 12ab"), "1:12: unexpected 'a' right after a number");
  EXPECT_EQ(E("f_int32: 1.2.3"), "1:13: unexpected '.' right after a number");
  EXPECT_EQ(E("f_int32: 08"),
            "1:10: numbers starting with 0 are octal: digit '8' is not "
            "allowed");
  EXPECT_EQ(E("f_int32: 0x"), "1:10: \"0x\" must be followed by hex digits");
  EXPECT_EQ(E("f_double: 1e"), "1:11: exponent in number has no digits");
  EXPECT_EQ(E("f_double: 1e+"), "1:11: exponent in number has no digits");
}

// libprotobuf refuses a raw NUL anywhere; inside a literal or a comment it
// would otherwise pass unnoticed.
TEST(TextFormatErrorTest, NulBytes) {
  using std::string_literals::operator""s;
  EXPECT_EQ(E("f_string: \"a\0b\""s),
            "1:13: string literal cannot contain a NUL byte (use \\0)");
  EXPECT_EQ(E("f_bytes: 'a\\\0'"s),
            "1:13: string literal cannot contain a NUL byte (use \\0)");
  EXPECT_EQ(E("f_int32: 1 # a\0b\nf_int32: 2"s),
            "1:15: comment cannot contain a NUL byte");
  EXPECT_EQ(E("# ok\n#\0"s), "2:2: comment cannot contain a NUL byte");
  EXPECT_EQ(E("f_int32: 1\0"s), "1:11: unexpected character \"\\x00\"");
  EXPECT_EQ(E("\0f_int32: 1"s), "1:1: unexpected character \"\\x00\"");
  EXPECT_EQ(P(R"(f_bytes: "a\0b")"), "62 03 61 00 62");
}

// However long the offending token, a message quotes at most 40 bytes of it.
TEST(TextFormatErrorTest, LongTokensAreCutInMessages) {
  const std::string digits(4 << 20, '9'), name(4 << 20, 'X');
  const std::string cut_digits = std::string(37, '9') + "...";
  const std::string cut_negative = "-" + std::string(36, '9') + "...";
  const std::string cut_name = std::string(37, 'X') + "...";
  const std::string enum_of =
      " for enum zt.test.Color of field \"f_enum\" "
      "(valid: RED, GREEN, BLUE, NEG)";
  const std::pair<std::string, std::string> kCases[] = {
      {"f_int32: " + digits, "1:10: integer " + cut_digits +
                                 " out of range for int32 field \"f_int32\""},
      {"f_int64: -" + digits, "1:10: integer " + cut_negative +
                                  " out of range for int64 field \"f_int64\""},
      {"f_uint64: 0x" + std::string(4 << 20, 'f'),
       "1:11: integer 0x" + std::string(35, 'f') +
           "... out of range for uint64 field \"f_uint64\""},
      {"f_uint32: -" + digits, "1:11: negative value " + cut_negative +
                                   " for uint32 field \"f_uint32\""},
      {"f_enum: " + name, "1:9: unknown value \"" + cut_name + "\"" + enum_of},
      {"f_enum: " + digits, "1:9: unknown number " + cut_digits + enum_of},
      {"f_enum: - " + digits, "1:9: unknown number " + cut_negative + enum_of},
      // Messages that quote through Describe(), cut already.
      {"f_bool: " + name, "1:9: invalid value \"" + cut_name +
                              "\" for bool field \"f_bool\" (expected true, "
                              "false, 1 or 0)"},
      {"f_int32: '" + name + "'",
       "1:10: expected an integer for int32 field \"f_int32\", found string '" +
           std::string(36, 'X') + "..."},
  };
  for (const auto& [text, expected] : kCases) {
    SCOPED_TRACE(expected.substr(0, 40));
    const std::string message = E(text);
    ASSERT_LT(message.size(), 200u) << message.substr(0, 200);
    EXPECT_EQ(message, expected);
  }
}

TEST(TextFormatErrorTest, PositionsCountTabsAndCrLfAsOneColumn) {
  EXPECT_EQ(E("f_int32: 1\r\n\tf_int32: 2"),
            "2:2: non-repeated field \"f_int32\" is specified more than once "
            "in zt.test.AllTypes");
  EXPECT_EQ(E("# c1\n# c2\n\n   nope: 1"),
            "4:4: unknown field \"nope\" in zt.test.AllTypes");
}

TEST(TextFormatErrorTest, FormatHelper) {
  TextFormatError e{3, 12, "boom"};
  EXPECT_EQ(FormatTextFormatError("config.pbtxt", e), "config.pbtxt:3:12: boom");
}

}  // namespace
}  // namespace protozero
}  // namespace zt
