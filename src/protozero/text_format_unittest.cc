#include "zt/protozero/text_format.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "zt/protozero/field.h"
#include "zt/protozero/proto_decoder.h"
#include "zt/protozero/proto_utils.h"
#include "src/protozero/text_format_test_util.h"
#include "zt/protozero/schema.h"

namespace zt {
namespace protozero {
namespace {


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
