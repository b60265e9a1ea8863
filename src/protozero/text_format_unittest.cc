#include "zt/protozero/text_format.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "zt/protozero/field.h"
#include "zt/protozero/proto_decoder.h"
#include "zt/protozero/proto_utils.h"
#include "zt/protozero/schema.h"

namespace zt {
namespace protozero {
namespace {

// ---------------------------------------------------------------------------
// Hand-written schemas. AllTypes: one field of every type, repeated, packed
// and recursive. The Mini* ones mirror a small TraceConfig subset (docs/wire.md).

const MessageSchema* AllTypesSchema();
const EnumSchema* ColorSchema();

constexpr EnumValueSchema kColorValues[] = {
    {"RED", 0}, {"GREEN", 1}, {"BLUE", 2}, {"NEG", -1}};
constexpr EnumSchema kColor{"zt.test.Color", kColorValues, 4};
const EnumSchema* ColorSchema() { return &kColor; }

constexpr FieldSchema kAllTypesFields[] = {
    {"f_double", 1, FieldType::kDouble, false, false, nullptr, nullptr},
    {"f_float", 2, FieldType::kFloat, false, false, nullptr, nullptr},
    {"f_int64", 3, FieldType::kInt64, false, false, nullptr, nullptr},
    {"f_uint64", 4, FieldType::kUint64, false, false, nullptr, nullptr},
    {"f_int32", 5, FieldType::kInt32, false, false, nullptr, nullptr},
    {"f_fixed64", 6, FieldType::kFixed64, false, false, nullptr, nullptr},
    {"f_fixed32", 7, FieldType::kFixed32, false, false, nullptr, nullptr},
    {"f_bool", 8, FieldType::kBool, false, false, nullptr, nullptr},
    {"f_string", 9, FieldType::kString, false, false, nullptr, nullptr},
    {"child", 11, FieldType::kMessage, false, false, &AllTypesSchema, nullptr},
    {"f_bytes", 12, FieldType::kBytes, false, false, nullptr, nullptr},
    {"f_uint32", 13, FieldType::kUint32, false, false, nullptr, nullptr},
    {"f_enum", 14, FieldType::kEnum, false, false, nullptr, &ColorSchema},
    {"f_sfixed32", 15, FieldType::kSfixed32, false, false, nullptr, nullptr},
    {"f_sfixed64", 16, FieldType::kSfixed64, false, false, nullptr, nullptr},
    {"f_sint32", 17, FieldType::kSint32, false, false, nullptr, nullptr},
    {"f_sint64", 18, FieldType::kSint64, false, false, nullptr, nullptr},
    {"r_int32", 21, FieldType::kInt32, true, false, nullptr, nullptr},
    {"r_string", 22, FieldType::kString, true, false, nullptr, nullptr},
    {"r_child", 23, FieldType::kMessage, true, false, &AllTypesSchema, nullptr},
    {"p_int32", 24, FieldType::kInt32, true, true, nullptr, nullptr},
    {"p_sint64", 25, FieldType::kSint64, true, true, nullptr, nullptr},
    {"p_fixed32", 26, FieldType::kFixed32, true, true, nullptr, nullptr},
    {"p_double", 27, FieldType::kDouble, true, true, nullptr, nullptr},
    {"p_enum", 28, FieldType::kEnum, true, true, nullptr, &ColorSchema},
    {"r_enum", 29, FieldType::kEnum, true, false, nullptr, &ColorSchema},
    {"p_bool", 30, FieldType::kBool, true, true, nullptr, nullptr},
    {"p_float", 31, FieldType::kFloat, true, true, nullptr, nullptr},
};
constexpr MessageSchema kAllTypes{"zt.test.AllTypes", kAllTypesFields,
                                  sizeof(kAllTypesFields) /
                                      sizeof(kAllTypesFields[0])};
const MessageSchema* AllTypesSchema() { return &kAllTypes; }

const MessageSchema* MiniBufferConfigSchema();
const MessageSchema* MiniDataSourceSchema();
const MessageSchema* MiniDataSourceConfigSchema();
const MessageSchema* MiniTrackEventConfigSchema();
const EnumSchema* MiniFillPolicySchema();

constexpr EnumValueSchema kFillPolicyValues[] = {
    {"UNSPECIFIED", 0}, {"RING_BUFFER", 1}, {"DISCARD", 2}};
constexpr EnumSchema kFillPolicy{
    "zt.protos.TraceConfig.BufferConfig.FillPolicy", kFillPolicyValues, 3};
const EnumSchema* MiniFillPolicySchema() { return &kFillPolicy; }

constexpr FieldSchema kMiniTraceConfigFields[] = {
    {"buffers", 1, FieldType::kMessage, true, false, &MiniBufferConfigSchema,
     nullptr},
    {"data_sources", 2, FieldType::kMessage, true, false,
     &MiniDataSourceSchema, nullptr},
    {"duration_ms", 3, FieldType::kUint32, false, false, nullptr, nullptr},
    {"write_into_file", 8, FieldType::kBool, false, false, nullptr, nullptr},
    {"file_write_period_ms", 9, FieldType::kUint32, false, false, nullptr,
     nullptr},
    {"max_file_size_bytes", 10, FieldType::kUint64, false, false, nullptr,
     nullptr},
    {"flush_period_ms", 13, FieldType::kUint32, false, false, nullptr, nullptr},
    {"unique_session_name", 22, FieldType::kString, false, false, nullptr,
     nullptr},
};
constexpr MessageSchema kMiniTraceConfig{"zt.protos.TraceConfig",
                                         kMiniTraceConfigFields, 8};

constexpr FieldSchema kMiniBufferConfigFields[] = {
    {"size_kb", 1, FieldType::kUint32, false, false, nullptr, nullptr},
    {"fill_policy", 4, FieldType::kEnum, false, false, nullptr,
     &MiniFillPolicySchema},
};
constexpr MessageSchema kMiniBufferConfig{
    "zt.protos.TraceConfig.BufferConfig", kMiniBufferConfigFields, 2};
const MessageSchema* MiniBufferConfigSchema() { return &kMiniBufferConfig; }

constexpr FieldSchema kMiniDataSourceFields[] = {
    {"config", 1, FieldType::kMessage, false, false,
     &MiniDataSourceConfigSchema, nullptr},
    {"producer_name_filter", 2, FieldType::kString, true, false, nullptr,
     nullptr},
};
constexpr MessageSchema kMiniDataSource{"zt.protos.TraceConfig.DataSource",
                                        kMiniDataSourceFields, 2};
const MessageSchema* MiniDataSourceSchema() { return &kMiniDataSource; }

constexpr FieldSchema kMiniDataSourceConfigFields[] = {
    {"name", 1, FieldType::kString, false, false, nullptr, nullptr},
    {"target_buffer", 2, FieldType::kUint32, false, false, nullptr, nullptr},
    {"trace_duration_ms", 3, FieldType::kUint32, false, false, nullptr,
     nullptr},
    {"track_event_config", 113, FieldType::kMessage, false, false,
     &MiniTrackEventConfigSchema, nullptr},
};
constexpr MessageSchema kMiniDataSourceConfig{
    "zt.protos.DataSourceConfig", kMiniDataSourceConfigFields, 4};
const MessageSchema* MiniDataSourceConfigSchema() {
  return &kMiniDataSourceConfig;
}

constexpr FieldSchema kMiniTrackEventConfigFields[] = {
    {"disabled_categories", 1, FieldType::kString, true, false, nullptr,
     nullptr},
    {"enabled_categories", 2, FieldType::kString, true, false, nullptr,
     nullptr},
};
constexpr MessageSchema kMiniTrackEventConfig{
    "zt.protos.TrackEventConfig", kMiniTrackEventConfigFields, 2};
const MessageSchema* MiniTrackEventConfigSchema() {
  return &kMiniTrackEventConfig;
}

// ---------------------------------------------------------------------------
// Helpers.

std::string Hex(std::string_view bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    if (!out.empty())
      out += ' ';
    out += kDigits[u >> 4];
    out += kDigits[u & 15];
  }
  return out;
}

// The hex bytes of |text| parsed as AllTypes, or "ERROR line:col: message".
std::string P(std::string_view text, const MessageSchema& schema = kAllTypes) {
  std::string out;
  TextFormatError error;
  if (!ParseTextFormat(schema, text, &out, &error))
    return "ERROR " + FormatTextFormatError("", error).substr(1);
  return Hex(out);
}

// "line:col: message" for text that must fail.
std::string E(std::string_view text, const MessageSchema& schema = kAllTypes) {
  std::string out = "untouched";
  TextFormatError error;
  if (ParseTextFormat(schema, text, &out, &error))
    return "UNEXPECTED SUCCESS: " + Hex(out.substr(9));
  EXPECT_EQ(out, "untouched");
  return std::to_string(error.line) + ":" + std::to_string(error.column) +
         ": " + error.message;
}

// ---------------------------------------------------------------------------
// Bytes for every type.

TEST(TextFormatTest, EmptyInputs) {
  EXPECT_EQ(P(""), "");
  EXPECT_EQ(P("  \n\t # only a comment\n# another\r\n"), "");
}

TEST(TextFormatTest, VarIntTypes) {
  EXPECT_EQ(P("f_int32: 150"), "28 96 01");
  EXPECT_EQ(P("f_int32: -1"), "28 ff ff ff ff ff ff ff ff ff 01");
  EXPECT_EQ(P("f_int32: 2147483647"), "28 ff ff ff ff 07");
  EXPECT_EQ(P("f_int32: -2147483648"), "28 80 80 80 80 f8 ff ff ff ff 01");
  EXPECT_EQ(P("f_int64: 3"), "18 03");
  EXPECT_EQ(P("f_int64: -9223372036854775808"),
            "18 80 80 80 80 80 80 80 80 80 01");
  EXPECT_EQ(P("f_int64: 9223372036854775807"),
            "18 ff ff ff ff ff ff ff ff 7f");
  EXPECT_EQ(P("f_uint64: 18446744073709551615"),
            "20 ff ff ff ff ff ff ff ff ff 01");
  EXPECT_EQ(P("f_uint32: 4294967295"), "68 ff ff ff ff 0f");
  EXPECT_EQ(P("f_uint32: 0"), "68 00");
  EXPECT_EQ(P("f_sint32: -1"), "88 01 01");
  EXPECT_EQ(P("f_sint32: 1"), "88 01 02");
  EXPECT_EQ(P("f_sint32: -2147483648"), "88 01 ff ff ff ff 0f");
  EXPECT_EQ(P("f_sint64: -2"), "90 01 03");
  EXPECT_EQ(P("f_sint64: -9223372036854775808"),
            "90 01 ff ff ff ff ff ff ff ff ff 01");
  EXPECT_EQ(P("f_bool: true"), "40 01");
  EXPECT_EQ(P("f_enum: BLUE"), "70 02");
  EXPECT_EQ(P("f_enum: NEG"), "70 ff ff ff ff ff ff ff ff ff 01");
  EXPECT_EQ(P("f_enum: 1"), "70 01");
  EXPECT_EQ(P("f_enum: -1"), "70 ff ff ff ff ff ff ff ff ff 01");
}

TEST(TextFormatTest, IntegerBases) {
  EXPECT_EQ(P("f_int32: 0x10"), "28 10");
  EXPECT_EQ(P("f_int32: 0XfF"), "28 ff 01");
  EXPECT_EQ(P("f_int32: 010"), "28 08");
  EXPECT_EQ(P("f_int32: 0"), "28 00");
  EXPECT_EQ(P("f_int32: -0x10"), "28 f0 ff ff ff ff ff ff ff ff 01");
  EXPECT_EQ(P("f_int32: - 5"), "28 fb ff ff ff ff ff ff ff ff 01");
  EXPECT_EQ(P("f_uint64: 0xffffffffffffffff"),
            "20 ff ff ff ff ff ff ff ff ff 01");
  EXPECT_EQ(P("f_uint32: 037777777777"), "68 ff ff ff ff 0f");
  EXPECT_EQ(P("f_int32: -0"), "28 00");
}

TEST(TextFormatTest, FixedTypes) {
  EXPECT_EQ(P("f_fixed32: 1"), "3d 01 00 00 00");
  EXPECT_EQ(P("f_fixed32: 0xdeadbeef"), "3d ef be ad de");
  EXPECT_EQ(P("f_fixed64: 1"), "31 01 00 00 00 00 00 00 00");
  EXPECT_EQ(P("f_sfixed32: -2"), "7d fe ff ff ff");
  EXPECT_EQ(P("f_sfixed64: -2"), "81 01 fe ff ff ff ff ff ff ff");
}

TEST(TextFormatTest, FloatingPoint) {
  EXPECT_EQ(P("f_double: 1.5"), "09 00 00 00 00 00 00 f8 3f");
  EXPECT_EQ(P("f_double: -1.5"), "09 00 00 00 00 00 00 f8 bf");
  EXPECT_EQ(P("f_double: .5"), "09 00 00 00 00 00 00 e0 3f");
  EXPECT_EQ(P("f_double: 1e3"), "09 00 00 00 00 00 40 8f 40");
  EXPECT_EQ(P("f_double: 1000"), "09 00 00 00 00 00 40 8f 40");
  EXPECT_EQ(P("f_double: 1E+3"), "09 00 00 00 00 00 40 8f 40");
  EXPECT_EQ(P("f_double: 1.5f"), "09 00 00 00 00 00 00 f8 3f");
  EXPECT_EQ(P("f_double: 2."), "09 00 00 00 00 00 00 00 40");
  EXPECT_EQ(P("f_double: inf"), "09 00 00 00 00 00 00 f0 7f");
  EXPECT_EQ(P("f_double: -Infinity"), "09 00 00 00 00 00 00 f0 ff");
  EXPECT_EQ(P("f_double: 1e400"), "09 00 00 00 00 00 00 f0 7f");
  EXPECT_EQ(P("f_double: 1e-400"), "09 00 00 00 00 00 00 00 00");
  EXPECT_EQ(P("f_float: 1.5"), "15 00 00 c0 3f");
  EXPECT_EQ(P("f_float: 1f"), "15 00 00 80 3f");
  EXPECT_EQ(P("f_float: -inf"), "15 00 00 80 ff");
  EXPECT_EQ(P("f_float: 1e39"), "15 00 00 80 7f");  // Beyond float: inf.
  EXPECT_EQ(P("f_float: -1e39"), "15 00 00 80 ff");
  EXPECT_EQ(P("f_float: 0.1"), "15 cd cc cc 3d");

  std::string out;
  TextFormatError error;
  ASSERT_TRUE(ParseTextFormat(kAllTypes, "f_double: nan f_float: NaN", &out,
                              &error));
  ProtoDecoder dec(out);
  EXPECT_TRUE(std::isnan(dec.ReadField().as_double()));
  EXPECT_TRUE(std::isnan(dec.ReadField().as_float()));
}

TEST(TextFormatTest, Bools) {
  for (const char* t : {"true", "True", "t", "1", "0x1"})
    EXPECT_EQ(P(std::string("f_bool: ") + t), "40 01") << t;
  for (const char* t : {"false", "False", "f", "0"})
    EXPECT_EQ(P(std::string("f_bool: ") + t), "40 00") << t;
}

TEST(TextFormatTest, StringsAndEscapes) {
  EXPECT_EQ(P("f_string: \"hi\""), "4a 02 68 69");
  EXPECT_EQ(P("f_string: 'hi'"), "4a 02 68 69");
  EXPECT_EQ(P("f_string: \"\""), "4a 00");
  EXPECT_EQ(P("f_string: \"a\" 'b' \"c\""), "4a 03 61 62 63");
  EXPECT_EQ(P("f_string: \"a\"\n  # comment between\n  \"b\""),
            "4a 02 61 62");
  EXPECT_EQ(P(R"(f_string: "\n\t\r\\\"\'\?\a\b\f\v")"),
            "4a 0b 0a 09 0d 5c 22 27 3f 07 08 0c 0b");
  EXPECT_EQ(P(R"(f_string: "'" f_bytes: '"')"), "4a 01 27 62 01 22");
  EXPECT_EQ(P(R"(f_string: "\101\0\7\1234")"), "4a 05 41 00 07 53 34");
  EXPECT_EQ(P(R"(f_string: "\x41\x4a\x4G")"), "4a 04 41 4a 04 47");
  EXPECT_EQ(P(R"(f_string: "\u00e9")"), "4a 02 c3 a9");
  EXPECT_EQ(P(R"(f_string: "\u20AC")"), "4a 03 e2 82 ac");
  EXPECT_EQ(P(R"(f_string: "\ud83d\ude00")"), "4a 04 f0 9f 98 80");
  EXPECT_EQ(P(R"(f_string: "\U0001F600")"), "4a 04 f0 9f 98 80");
  EXPECT_EQ(P("f_string: \"caf\xc3\xa9 # not a comment\""),
            "4a 15 63 61 66 c3 a9 20 23 20 6e 6f 74 20 61 20 63 6f 6d 6d 65 "
            "6e 74");
  EXPECT_EQ(P(R"(f_bytes: "\xff\x00\377")"), "62 03 ff 00 ff");
}

// ---------------------------------------------------------------------------
// Syntax forms.

TEST(TextFormatTest, NestedMessageForms) {
  // Nested lengths are protozero's 4-byte redundant varints.
  const std::string expected = "5a 82 80 80 00 28 01";
  EXPECT_EQ(P("child { f_int32: 1 }"), expected);
  EXPECT_EQ(P("child: { f_int32: 1 }"), expected);
  EXPECT_EQ(P("child < f_int32: 1 >"), expected);
  EXPECT_EQ(P("child: <f_int32:1>"), expected);
  EXPECT_EQ(P("child{f_int32:1}"), expected);
  EXPECT_EQ(P("child {}"), "5a 80 80 80 00");
  EXPECT_EQ(P("child { child { child { } } }"),
            "5a 8a 80 80 00 5a 85 80 80 00 5a 80 80 80 00");
}

TEST(TextFormatTest, RepeatedAndLists) {
  const std::string two = "a8 01 01 a8 01 02";
  EXPECT_EQ(P("r_int32: 1 r_int32: 2"), two);
  EXPECT_EQ(P("r_int32: [1, 2]"), two);
  EXPECT_EQ(P("r_int32: [1] r_int32: [2]"), two);
  EXPECT_EQ(P("r_int32: []"), "");
  EXPECT_EQ(P("r_string: [\"a\", 'b' \"c\"]"), "b2 01 01 61 b2 01 02 62 63");
  EXPECT_EQ(P("r_enum: [RED, 2]"), "e8 01 00 e8 01 02");
  const std::string children =
      "ba 01 82 80 80 00 28 01 ba 01 82 80 80 00 28 02";
  EXPECT_EQ(P("r_child { f_int32: 1 } r_child { f_int32: 2 }"), children);
  EXPECT_EQ(P("r_child [ { f_int32: 1 }, < f_int32: 2 > ]"), children);
  EXPECT_EQ(P("r_child: [{f_int32: 1}, {f_int32: 2}]"), children);
  EXPECT_EQ(P("r_child: []"), "");
}

TEST(TextFormatTest, SeparatorsAndComments) {
  EXPECT_EQ(P("f_int32: 1; f_int64: 2, f_uint32: 3\n"), "28 01 18 02 68 03");
  EXPECT_EQ(P("child { f_int32: 1; }; f_int64: 2,"),
            "5a 82 80 80 00 28 01 18 02");
  EXPECT_EQ(P("# header\nf_int32: 1  # trailing\n# footer"), "28 01");
  EXPECT_EQ(P("f_int32:1 f_int64:2"), "28 01 18 02");
  EXPECT_EQ(P("f_int32\n:\n1"), "28 01");
}

TEST(TextFormatTest, PackedFieldsAreCollectedPerMessage) {
  // Every value of a packed field, wherever it appears in the message, ends
  // up in one packed field written when the message closes.
  EXPECT_EQ(P("p_int32: 1 f_int32: 5 p_int32: [2, 3]"),
            "28 05 c2 01 03 01 02 03");
  EXPECT_EQ(P("p_int32: -1"),
            "c2 01 0a ff ff ff ff ff ff ff ff ff 01");
  EXPECT_EQ(P("p_sint64: [-1, 1]"), "ca 01 02 01 02");
  EXPECT_EQ(P("p_fixed32: [1, 2]"), "d2 01 08 01 00 00 00 02 00 00 00");
  EXPECT_EQ(P("p_double: 1.5"), "da 01 08 00 00 00 00 00 00 f8 3f");
  EXPECT_EQ(P("p_float: [1, -inf]"), "fa 01 08 00 00 80 3f 00 00 80 ff");
  EXPECT_EQ(P("p_enum: [RED, BLUE]"), "e2 01 02 00 02");
  EXPECT_EQ(P("p_bool: [true, f]"), "f2 01 02 01 00");
  EXPECT_EQ(P("p_int32: []"), "");
  // Ordered by field number at the end of the message, not by first use.
  EXPECT_EQ(P("p_enum: BLUE p_int32: 7"), "c2 01 01 07 e2 01 01 02");
  // Inside a nested message, flushed when that message closes.
  EXPECT_EQ(P("child { p_int32: 1 f_int32: 2 } f_int32: 3"),
            "5a 86 80 80 00 28 02 c2 01 01 01 28 03");
  // Many values: the packed buffers grow past their inline storage.
  std::string text = "p_int32: [";
  std::string expected_payload;
  for (int i = 0; i < 1000; i++) {
    text += (i ? ", " : "") + std::to_string(100 + i);
  }
  text += "]";
  std::string out;
  TextFormatError error;
  ASSERT_TRUE(ParseTextFormat(kAllTypes, text, &out, &error)) << error.message;
  ProtoDecoder dec(out);
  Field f = dec.ReadField();
  ASSERT_EQ(f.id(), 24u);
  bool parse_error = false;
  PackedRepeatedFieldIterator<PackedKind::kVarInt, int32_t> it(
      f.data(), f.size(), &parse_error);
  for (int i = 0; i < 1000; i++, ++it) {
    ASSERT_TRUE(it);
    EXPECT_EQ(*it, 100 + i);
  }
  EXPECT_FALSE(it);
  EXPECT_FALSE(parse_error);
  EXPECT_FALSE(dec.ReadField().valid());
}

TEST(TextFormatTest, AppendsToOutput) {
  std::string out = "xy";
  TextFormatError error;
  ASSERT_TRUE(ParseTextFormat(kAllTypes, "f_int32: 1", &out, &error));
  EXPECT_EQ(Hex(out), "78 79 28 01");
}

TEST(TextFormatTest, NullErrorIsAllowed) {
  std::string out;
  EXPECT_FALSE(ParseTextFormat(kAllTypes, "nope: 1", &out, nullptr));
  EXPECT_TRUE(out.empty());
}

TEST(TextFormatTest, DepthLimit) {
  std::string ok, too_deep;
  for (size_t i = 0; i < kTextFormatMaxDepth; i++)
    ok += "child {";
  ok += std::string(kTextFormatMaxDepth, '}');
  std::string out;
  TextFormatError error;
  EXPECT_TRUE(ParseTextFormat(kAllTypes, ok, &out, &error)) << error.message;
  // One more level fails at its "{" (column 7 * 100 + 7 = 707).
  for (size_t i = 0; i <= kTextFormatMaxDepth; i++)
    too_deep += "child {";
  too_deep += std::string(kTextFormatMaxDepth + 1, '}');
  EXPECT_EQ(E(too_deep), "1:707: messages nested more than 100 levels deep");
  // A hostile input with no closing braces at all: an error, no overflow.
  std::string hostile;
  for (int i = 0; i < 100000; i++)
    hostile += "child{";
  EXPECT_EQ(E(hostile), "1:606: messages nested more than 100 levels deep");
}

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

// ---------------------------------------------------------------------------
// A TraceConfig-like config, decoded back with ProtoDecoder.

TEST(TextFormatTest, MiniTraceConfigDecodes) {
  const char* kConfig = R"(
# Two buffers, one data source with track_event categories.
buffers {
  size_kb: 65536
  fill_policy: RING_BUFFER
}
buffers: {
  size_kb: 4096
  fill_policy: DISCARD
}
data_sources {
  config {
    name: "track_event"
    target_buffer: 1
    track_event_config {
      enabled_categories: "rendering"
      enabled_categories: ["input", "gpu"]
      disabled_categories: "*"
    }
  }
  producer_name_filter: "com.example.app"
}
duration_ms: 10000
write_into_file: true
file_write_period_ms: 2500
max_file_size_bytes: 10000000000
flush_period_ms: 0x3e8
unique_session_name: "my_session"
)";
  std::string out;
  TextFormatError error;
  ASSERT_TRUE(ParseTextFormat(kMiniTraceConfig, kConfig, &out, &error))
      << FormatTextFormatError("config", error);

  ProtoDecoder cfg(out);
  std::vector<std::pair<uint32_t, uint32_t>> buffers;
  std::vector<std::string> enabled, disabled, producers;
  std::string ds_name, session;
  uint32_t target_buffer = 0, duration = 0, period = 0, flush = 0;
  uint64_t max_size = 0;
  bool write_into_file = false;
  for (Field f = cfg.ReadField(); f.valid(); f = cfg.ReadField()) {
    switch (f.id()) {
      case 1: {
        ProtoDecoder b(f.as_bytes());
        uint32_t size = 0, policy = 0;
        for (Field g = b.ReadField(); g.valid(); g = b.ReadField()) {
          if (g.id() == 1)
            size = g.as_uint32();
          if (g.id() == 4)
            policy = g.as_uint32();
        }
        EXPECT_FALSE(b.parse_error());
        buffers.emplace_back(size, policy);
        break;
      }
      case 2: {
        ProtoDecoder ds(f.as_bytes());
        for (Field g = ds.ReadField(); g.valid(); g = ds.ReadField()) {
          if (g.id() == 2) {
            producers.push_back(g.as_std_string());
            continue;
          }
          ASSERT_EQ(g.id(), 1u);
          ProtoDecoder dsc(g.as_bytes());
          for (Field h = dsc.ReadField(); h.valid(); h = dsc.ReadField()) {
            if (h.id() == 1)
              ds_name = h.as_std_string();
            if (h.id() == 2)
              target_buffer = h.as_uint32();
            if (h.id() == 113) {
              ProtoDecoder te(h.as_bytes());
              for (Field i = te.ReadField(); i.valid(); i = te.ReadField())
                (i.id() == 2 ? enabled : disabled).push_back(i.as_std_string());
            }
          }
        }
        break;
      }
      case 3: duration = f.as_uint32(); break;
      case 8: write_into_file = f.as_bool(); break;
      case 9: period = f.as_uint32(); break;
      case 10: max_size = f.as_uint64(); break;
      case 13: flush = f.as_uint32(); break;
      case 22: session = f.as_std_string(); break;
      default: ADD_FAILURE() << "unexpected field " << f.id();
    }
  }
  EXPECT_FALSE(cfg.parse_error());
  EXPECT_EQ(buffers, (std::vector<std::pair<uint32_t, uint32_t>>{
                         {65536, 1}, {4096, 2}}));
  EXPECT_EQ(ds_name, "track_event");
  EXPECT_EQ(target_buffer, 1u);
  EXPECT_EQ(enabled, (std::vector<std::string>{"rendering", "input", "gpu"}));
  EXPECT_EQ(disabled, (std::vector<std::string>{"*"}));
  EXPECT_EQ(producers, (std::vector<std::string>{"com.example.app"}));
  EXPECT_EQ(duration, 10000u);
  EXPECT_TRUE(write_into_file);
  EXPECT_EQ(period, 2500u);
  EXPECT_EQ(max_size, 10000000000u);
  EXPECT_EQ(flush, 1000u);
  EXPECT_EQ(session, "my_session");
}

TEST(TextFormatTest, AllTypesDecodeBack) {
  const char* kText = R"(
f_double: -2.25 f_float: 0.5 f_int64: -7 f_uint64: 18446744073709551615
f_int32: -42 f_fixed64: 123456789012 f_fixed32: 4000000000 f_bool: t
f_string: "s\u00e9" f_bytes: "\x00\x01" f_uint32: 77 f_enum: GREEN
f_sfixed32: -5 f_sfixed64: -6 f_sint32: -2147483648 f_sint64: 99
)";
  std::string out;
  TextFormatError error;
  ASSERT_TRUE(ParseTextFormat(kAllTypes, kText, &out, &error)) << error.message;
  ProtoDecoder d(out);
  EXPECT_EQ(d.ReadField().as_double(), -2.25);
  EXPECT_EQ(d.ReadField().as_float(), 0.5f);
  EXPECT_EQ(d.ReadField().as_int64(), -7);
  EXPECT_EQ(d.ReadField().as_uint64(), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(d.ReadField().as_int32(), -42);
  EXPECT_EQ(d.ReadField().as_uint64(), 123456789012u);
  EXPECT_EQ(d.ReadField().as_uint32(), 4000000000u);
  EXPECT_TRUE(d.ReadField().as_bool());
  EXPECT_EQ(d.ReadField().as_std_string(), "s\xc3\xa9");
  EXPECT_EQ(d.ReadField().as_std_string(), std::string("\x00\x01", 2));
  EXPECT_EQ(d.ReadField().as_uint32(), 77u);
  EXPECT_EQ(d.ReadField().as_int32(), 1);
  EXPECT_EQ(d.ReadField().as_int32(), -5);
  EXPECT_EQ(d.ReadField().as_int64(), -6);
  EXPECT_EQ(d.ReadField().as_sint32(), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(d.ReadField().as_sint64(), 99);
  EXPECT_FALSE(d.ReadField().valid());
  EXPECT_FALSE(d.parse_error());
}

}  // namespace
}  // namespace protozero
}  // namespace zt
