#include "src/processor/exporters/html_report.h"

#include <zlib.h>

#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "src/processor/importers/trace_importer.h"

namespace zt {
namespace processor {
namespace {

std::string Between(const std::string& text, const std::string& open, const std::string& close) {
  const size_t a = text.find(open);
  if (a == std::string::npos)
    return "";
  const size_t b = text.find(close, a + open.size());
  return text.substr(a + open.size(), b - a - open.size());
}

std::string Base64Decode(const std::string& text) {
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    int v;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '+') v = 62;
    else if (c == '/') v = 63;
    else continue;
    bits = bits << 6 | static_cast<uint32_t>(v);
    if (++count == 4) {
      out.push_back(static_cast<char>(bits >> 16));
      out.push_back(static_cast<char>(bits >> 8));
      out.push_back(static_cast<char>(bits));
      bits = 0;
      count = 0;
    }
  }
  if (count == 3) {
    out.push_back(static_cast<char>(bits >> 10));
    out.push_back(static_cast<char>(bits >> 2));
  } else if (count == 2) {
    out.push_back(static_cast<char>(bits >> 4));
  }
  return out;
}

TEST(HtmlReportTest, OneFileWithItsDataAndViewer) {
  std::ifstream in(std::string(ZT_TEST_DATA_DIR) + "/perfetto_v14/inprocess_small.pftrace",
                   std::ios::binary);
  const std::string trace((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  TraceStorage storage;
  ImportTrace(trace.data(), trace.size(), &storage);
  std::string html;
  StringJsonSink sink(&html);
  HtmlReportOptions options;
  options.title = "a <title> & </script>";
  const HtmlReportResult result = WriteHtmlReport(storage, options, &sink);
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.slices, 495u);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // Nothing loads from elsewhere.
  EXPECT_EQ(html.find("src=\""), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  // The title escaped in HTML and in the JSON inside <script>.
  EXPECT_NE(html.find("<h1>a &lt;title&gt; &amp; &lt;/script&gt;</h1>"), std::string::npos);
  const std::string meta = Between(html, "id=\"zt-meta\">", "</script>");
  EXPECT_NE(meta.find("\"title\":\"a \\u003ctitle> & \\u003c/script>\""), std::string::npos) << meta;
  EXPECT_EQ(meta.find('<'), std::string::npos);
  EXPECT_NE(meta.find("\"slices\":495"), std::string::npos);
  // The data block: base64 of zlib data, version 2 first.
  const std::string block = Base64Decode(Between(html, "id=\"zt-data\">", "</script>"));
  ASSERT_EQ(block.size(), result.data_bytes);
  std::string raw(1 << 20, '\0');
  uLongf size = raw.size();
  ASSERT_EQ(uncompress(reinterpret_cast<Bytef*>(&raw[0]), &size,
                       reinterpret_cast<const Bytef*>(block.data()), block.size()),
            Z_OK);
  ASSERT_GT(size, 1000u);
  EXPECT_EQ(raw[0], 2);
  EXPECT_NE(raw.find("Outer"), std::string::npos);
  // The viewer and its style are in the file.
  EXPECT_NE(html.find("window.ztReport = report;"), std::string::npos);
  EXPECT_NE(html.find("#tip {"), std::string::npos);
  // Far smaller than the trace.
  EXPECT_LT(html.size(), trace.size() * 2);
}

TEST(HtmlReportTest, AnEmptyTraceStillMakesAPage) {
  TraceStorage storage;
  std::string html;
  StringJsonSink sink(&html);
  const HtmlReportResult result = WriteHtmlReport(storage, HtmlReportOptions(), &sink);
  EXPECT_TRUE(result.ok);
  EXPECT_EQ(result.slices, 0u);
  EXPECT_NE(html.find("</html>"), std::string::npos);
}

}  // namespace
}  // namespace processor
}  // namespace zt
