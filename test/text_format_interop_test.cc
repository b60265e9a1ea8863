// The text-format parser (zt::protozero::ParseTextFormat over schemas that
// protoc-gen-pbzero generates) against libprotobuf's own TextFormat parser,
// used as the oracle:
//  * every upstream-style config under test/data/configs parses with the
//    generated TraceConfig schema into bytes that libprotobuf decodes to a
//    message equal to what TextFormat::ParseFromString makes of the same
//    text; the .gen value classes parse the bytes too;
//  * on AllTypes (every field type), hand-picked tricky inputs (raw NUL
//    bytes among them) and many random ones, valid and invalid: both
//    parsers accept exactly the same inputs and, when they do, produce
//    equal messages.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/field_comparator.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "zt/config/trace_config.gen.h"
#include "zt/config/trace_config.pb.h"
#include "zt/plugin_test/all_types.gen.h"
#include "zt/plugin_test/all_types.pb.h"
#include "zt/protozero/text_format.h"

namespace {

using ::google::protobuf::Message;
using ::google::protobuf::TextFormat;
using ::google::protobuf::util::DefaultFieldComparator;
using ::google::protobuf::util::MessageDifferencer;
using ::zt::protozero::FormatTextFormatError;
using ::zt::protozero::ParseTextFormat;
using ::zt::protozero::TextFormatError;

class SilentCollector : public ::google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (first.empty())
      first = std::to_string(line + 1) + ":" + std::to_string(column + 1) +
              ": " + message;
  }
  void AddWarning(int, int, const std::string&) override {}
  std::string first;
};

// libprotobuf's verdict on |text|; its error (if any) in |*error|.
bool OracleParse(const std::string& text, Message* msg, std::string* error) {
  TextFormat::Parser parser;
  SilentCollector collector;
  parser.RecordErrorsTo(&collector);
  const bool ok = parser.ParseFromString(text, msg);
  *error = collector.first;
  return ok;
}

// Equal, with NaN == NaN; on difference, the report in |*report|.
bool Equal(const Message& a, const Message& b, std::string* report) {
  DefaultFieldComparator comparator;
  comparator.set_treat_nan_as_equal(true);
  MessageDifferencer differencer;
  differencer.set_field_comparator(&comparator);
  differencer.ReportDifferencesToString(report);
  return differencer.Compare(a, b);
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(TextFormatInteropTest, ConfigFixturesMatchLibprotobuf) {
  const std::filesystem::path dir = ZT_TEXT_FORMAT_CONFIGS_DIR;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".pbtxt")
      files.push_back(entry.path());
  }
  ASSERT_GE(files.size(), 6u) << "fixtures missing in " << dir;
  for (const auto& path : files) {
    SCOPED_TRACE(path.filename().string());
    const std::string text = ReadFile(path);

    std::string bytes;
    TextFormatError error;
    ASSERT_TRUE(ParseTextFormat(*zt::protos::gen::TraceConfig::GetSchema(),
                                text, &bytes, &error))
        << FormatTextFormatError(path.string(), error);
    EXPECT_GT(bytes.size(), 20u);

    zt::protos::TraceConfig expected;
    std::string oracle_error;
    ASSERT_TRUE(OracleParse(text, &expected, &oracle_error)) << oracle_error;

    zt::protos::TraceConfig actual;
    ASSERT_TRUE(actual.ParseFromString(bytes));
    std::string report;
    EXPECT_TRUE(Equal(expected, actual, &report)) << report;
    EXPECT_TRUE(actual.unknown_fields().empty());

    // The value classes take the bytes too, and give the same message back.
    zt::protos::gen::TraceConfig cfg;
    ASSERT_TRUE(cfg.ParseFromString(bytes));
    EXPECT_TRUE(cfg.unknown_fields().empty());
    zt::protos::TraceConfig round_trip;
    ASSERT_TRUE(round_trip.ParseFromString(cfg.SerializeAsString()));
    report.clear();
    EXPECT_TRUE(Equal(expected, round_trip, &report)) << report;
  }
}

TEST(TextFormatInteropTest, ConfigErrorsNameTheRealTypes) {
  std::string bytes;
  TextFormatError error;
  EXPECT_FALSE(ParseTextFormat(*zt::protos::gen::TraceConfig::GetSchema(),
                               "buffers {\n  size_kb: 1024\n  fill_policy: RING\n}",
                               &bytes, &error));
  EXPECT_EQ(FormatTextFormatError("c.pbtxt", error),
            "c.pbtxt:3:16: unknown value \"RING\" for enum "
            "zt.protos.TraceConfig.BufferConfig.FillPolicy of field "
            "\"fill_policy\" (valid: UNSPECIFIED, RING_BUFFER, DISCARD)");
  EXPECT_FALSE(ParseTextFormat(*zt::protos::gen::TraceConfig::GetSchema(),
                               "buffers {\n  size_k: 1024\n}", &bytes, &error));
  EXPECT_EQ(FormatTextFormatError("c.pbtxt", error),
            "c.pbtxt:2:3: unknown field \"size_k\" in "
            "zt.protos.TraceConfig.BufferConfig (did you mean \"size_kb\"?)");
  EXPECT_FALSE(ParseTextFormat(*zt::protos::gen::TraceConfig::GetSchema(),
                               "duration_ms: 5000000000", &bytes, &error));
  EXPECT_EQ(error.message,
            "integer 5000000000 out of range for uint32 field "
            "\"duration_ms\"");
  EXPECT_TRUE(bytes.empty());
}

// Runs both parsers on |text| (as an AllTypes) and checks they agree.
// Returns whether it was accepted.
bool CheckAgreement(const std::string& text) {
  std::string bytes;
  TextFormatError error;
  const bool ours = ParseTextFormat(
      *zt::plugin_test::gen::AllTypes::GetSchema(), text, &bytes, &error);
  zt::plugin_test::AllTypes expected;
  std::string oracle_error;
  const bool theirs = OracleParse(text, &expected, &oracle_error);
  EXPECT_EQ(ours, theirs) << "text: " << text << "\nours: "
                          << FormatTextFormatError("", error)
                          << "\nlibprotobuf: " << oracle_error;
  if (ours && theirs) {
    // Invalid UTF-8 in a proto2 string is only logged by libprotobuf.
    ::google::protobuf::LogSilencer silence_utf8_warnings;
    zt::plugin_test::AllTypes actual;
    EXPECT_TRUE(actual.ParseFromString(bytes)) << text;
    std::string report;
    EXPECT_TRUE(Equal(expected, actual, &report))
        << "text: " << text << "\n" << report;
  }
  return ours;
}

TEST(TextFormatInteropTest, TrickyInputsAgree) {
  const char* kCases[] = {
      // Numbers.
      "f_int32: 0x7fffffff", "f_int32: -0x80000000", "f_int32: 0x80000000",
      "f_int32: 017", "f_int32: -017", "f_int32: 08", "f_int32: - 5",
      "f_int32: 1.0", "f_int32: 1e3", "f_int32: 1f", "f_int32: 12a",
      "f_uint32: -0", "f_uint32: 4294967295", "f_uint32: 4294967296",
      "f_int64: -9223372036854775808", "f_int64: 9223372036854775808",
      "f_uint64: 18446744073709551615", "f_uint64: 18446744073709551616",
      "f_sint32: -2147483648", "f_sint64: -9223372036854775808",
      "f_fixed32: 0xffffffff", "f_sfixed32: -2147483648",
      "f_fixed64: 18446744073709551615", "f_sfixed64: -1",
      // Floats.
      "f_float: 1.5", "f_float: .5", "f_float: 1.", "f_float: 1e39",
      "f_float: -1e39", "f_float: 1.5f", "f_float: 1F", "f_float: inf",
      "f_float: -Infinity", "f_float: nan", "f_float: -NaN", "f_double: 1e400",
      "f_double: 1e-400", "f_double: 0.1", "f_double: 123456789012345678901",
      "f_double: 0x10", "f_double: 010", "f_double: 0", "f_double: -0",
      "f_double: 3.14159265358979323846", "f_double: infinity",
      "f_double: abc", "f_double: 1e", "f_double: 1.5.5",
      // Bools.
      "f_bool: true", "f_bool: True", "f_bool: t", "f_bool: false",
      "f_bool: False", "f_bool: f", "f_bool: 1", "f_bool: 0", "f_bool: 0x1",
      "f_bool: 2", "f_bool: TRUE", "f_bool: yes",
      // Enums.
      "f_color: RED", "f_color: BLUE", "f_color: -3", "f_color: 2",
      "f_color: 5", "f_color: red", "f_mode: MODE_DEFAULT", "f_mode: 1",
      "f_color: \"RED\"",
      // Strings and bytes.
      "f_string: \"a\" 'b' \"c\"", R"(f_string: "\n\t\\\"\'\?")",
      R"(f_string: "\101\x41\u00e9\U0001F600")", R"(f_bytes: "\377\x00")",
      R"(f_string: "\ud83d\ude00")", R"(f_string: "\q")",
      R"(f_string: "\x")", "f_string: \"unterminated", "f_string: 'a\nb'",
      "f_string: abc", "f_bytes: 5",
      // Structure.
      "f_inner { label: \"x\" }", "f_inner: { label: \"x\" }",
      "f_inner < depth: DEEP >", "f_inner: < >", "f_inner {",
      "f_inner { label: \"x\" >", "f_inner: 5", "f_inner [ {} ]",
      "r_inner [ {label: 'a'}, <label: 'b'> ]", "r_inner: []",
      "r_inner [ {} {} ]", "r_int32: [1, 2, 3]", "r_int32: []",
      "r_int32 [1]", "r_int32: [1, 2,]", "r_int32: [1 2]",
      "r_string: ['a', \"b\" 'c']", "r_color: [RED, BLUE, 1]",
      "f_int32: 1; f_int64: 2, f_uint32: 3", "f_int32: 1 ;;",
      "f_int32: 1\nf_int32: 2", "f_inner {} f_inner {}",
      "f_inner { leaves { id: 1 } leaves: [ {id: 2}, {id: 3} ] }",
      "f_int32 1", "nope: 1", "[ext]: 1", "5: 1", "}", "f_int32: 1 #c\n",
      "f_inner { label: 'a' label: 'b' }", "",
  };
  int accepted = 0;
  for (const char* text : kCases)
    accepted += CheckAgreement(text) ? 1 : 0;
  EXPECT_GT(accepted, 40);
}

// libprotobuf's tokenizer ends a string literal or a comment at a NUL byte
// and then refuses the NUL itself, so a raw NUL anywhere is an error; the
// escape \0 is an ordinary byte.
TEST(TextFormatInteropTest, NulBytesAgree) {
  using std::string_literals::operator""s;
  const std::string kRefused[] = {
      // Between and inside tokens.
      "\0"s, "\0f_int32: 1"s, "f_int32: 1\0"s, "f_int32:\0 1"s, "f_in\0t32: 1"s,
      "f_int32: 12\0"s, "f_int32: 0x\0"s, "f_double: 1.5\0"s,
      "f_int32: 1 \0\0"s,
      // In string literals, escaped or not.
      "f_string: \"\0\""s, "f_string: \"a\0b\""s, "f_bytes: 'a\0'"s,
      "f_string: \"\\\0\""s, "f_string: \"a\" '\0'"s, "f_string: \"\0"s,
      "r_string: ['a', '\0']"s, "f_inner { label: '\0' }"s,
      // In comments.
      "# \0\nf_int32: 1"s, "f_int32: 1 # c\0c\n"s, "f_int32: 1 #\0"s,
      "f_int32: 1\n#\0\n"s, "f_inner { # \0\n}"s};
  for (const std::string& text : kRefused)
    EXPECT_FALSE(CheckAgreement(text));
  const std::string kAccepted[] = {R"(f_string: "a\0b")",
                                   R"(f_bytes: '\0\00\000\x00')",
                                   "f_int32: 1 # c\\0\n"};
  for (const std::string& text : kAccepted)
    EXPECT_TRUE(CheckAgreement(text));
}

// Random AllTypes texts built from fields, values (valid for some types,
// invalid for others), list syntax and separators.
TEST(TextFormatInteropTest, RandomInputsAgree) {
  const std::vector<std::string> kScalarFields = {
      "f_int32",   "f_int64",    "f_uint32",   "f_uint64", "f_sint32",
      "f_sint64",  "f_fixed32",  "f_fixed64",  "f_sfixed32", "f_sfixed64",
      "f_float",   "f_double",   "f_bool",     "f_string", "f_bytes",
      "f_color",   "f_mode",     "r_int32",    "r_int64",  "r_uint32",
      "r_uint64",  "r_sint32",   "r_sint64",   "r_fixed32", "r_fixed64",
      "r_sfixed32", "r_sfixed64", "r_float",   "r_double", "r_bool",
      "r_string",  "r_bytes",    "r_color"};
  const std::vector<std::string> kValues = {
      "0", "1", "-1", "7", "0x10", "017", "2147483647", "2147483648",
      "-2147483648", "-2147483649", "4294967295", "4294967296",
      "9223372036854775807", "9223372036854775808", "-9223372036854775808",
      "18446744073709551615", "18446744073709551616", "1.5", "-2.25", ".5",
      "1e3", "1e39", "2.5f", "inf", "-inf", "nan", "true", "false", "t",
      "f", "True", "RED", "BLUE", "-3", "MODE_AUTO", "MODE_DEFAULT", "\"s\"",
      "'q\\n'", "\"\\xff\\u00e9\"", "\"a\" 'b'", "- 4", "-0"};
  std::mt19937 rng(20261122);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };

  std::function<std::string(int)> message_text = [&](int depth) {
    std::string text;
    const size_t num_fields = pick(5);
    for (size_t i = 0; i < num_fields; i++) {
      const size_t kind = pick(10);
      if (kind == 0 && depth < 3) {
        text += pick(2) ? "f_inner " : "f_inner: ";
        text += "{ label: 'l' depth: DEEP leaves { id: " +
                kValues[pick(kValues.size())] + " } }";
      } else if (kind == 1 && depth < 3) {
        text += "r_inner [ { label: " + kValues[pick(kValues.size())] +
                " }, < leaves: [ { id: 3 } ] > ]";
      } else {
        const std::string& field = kScalarFields[pick(kScalarFields.size())];
        if (pick(4) == 0) {
          text += field + ": [";
          const size_t n = pick(4);
          for (size_t k = 0; k < n; k++)
            text += (k ? ", " : "") + kValues[pick(kValues.size())];
          text += "]";
        } else {
          text += field + ": " + kValues[pick(kValues.size())];
        }
      }
      static const char* kSeparators[] = {" ", "\n", "; ", ", ", " # c\n"};
      text += kSeparators[pick(5)];
    }
    return text;
  };

  int accepted = 0;
  const int kIterations = 20000;
  for (int i = 0; i < kIterations && !HasFailure(); i++)
    accepted += CheckAgreement(message_text(0)) ? 1 : 0;
  // Both outcomes must be well represented for the comparison to mean much.
  EXPECT_GT(accepted, kIterations / 10);
  EXPECT_LT(accepted, kIterations * 9 / 10);
}

}  // namespace
