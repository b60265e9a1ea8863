#include "src/protozero/text_format_test_util.h"

#include <gtest/gtest.h>

#include "zt/protozero/text_format.h"

namespace zt {
namespace protozero {

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
std::string P(std::string_view text, const MessageSchema& schema) {
  std::string out;
  TextFormatError error;
  if (!ParseTextFormat(schema, text, &out, &error))
    return "ERROR " + FormatTextFormatError("", error).substr(1);
  return Hex(out);
}

// "line:col: message" for text that must fail.
std::string E(std::string_view text, const MessageSchema& schema) {
  std::string out = "untouched";
  TextFormatError error;
  if (ParseTextFormat(schema, text, &out, &error))
    return "UNEXPECTED SUCCESS: " + Hex(out.substr(9));
  EXPECT_EQ(out, "untouched");
  return std::to_string(error.line) + ":" + std::to_string(error.column) +
         ": " + error.message;
}

}  // namespace protozero
}  // namespace zt
