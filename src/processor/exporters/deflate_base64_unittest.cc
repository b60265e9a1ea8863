#include "src/processor/exporters/deflate_base64.h"

#include <zlib.h>

#include <random>
#include <string>

#include <gtest/gtest.h>

#include "src/processor/exporters/json_writer.h"

namespace zt {
namespace processor {
namespace {

// Strict: four characters a group, '=' only as the last group's padding.
bool DecodeBase64(const std::string& text, std::string* out) {
  if (text.size() % 4 != 0)
    return false;
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const int pad = last ? (text[i + 3] == '=') + (text[i + 2] == '=') : 0;
    uint32_t bits = 0;
    for (int k = 0; k < 4; k++) {
      const int v = k >= 4 - pad ? 0 : value(text[i + k]);
      if (v < 0)
        return false;
      bits = bits << 6 | static_cast<uint32_t>(v);
    }
    out->push_back(static_cast<char>(bits >> 16));
    if (pad < 2)
      out->push_back(static_cast<char>(bits >> 8));
    if (pad < 1)
      out->push_back(static_cast<char>(bits));
  }
  return true;
}

std::string RoundTrip(const std::string& data, size_t write_size) {
  std::string text;
  StringJsonSink sink(&text);
  ProfileOutput out(&sink);
  {
    DeflateBase64 encoder(&out, 1);
    for (size_t at = 0; at < data.size(); at += write_size) {
      encoder.input()->append(data, at, write_size);
      encoder.MaybeCompress();
    }
    EXPECT_TRUE(encoder.Finish());
    EXPECT_TRUE(out.Finish());
    std::string compressed;
    EXPECT_TRUE(DecodeBase64(text, &compressed)) << "not base64: " << text.size() << " chars";
    EXPECT_EQ(compressed.size(), encoder.compressed_bytes());
    std::string back(data.size() + 1, '\0');
    uLongf size = back.size();
    EXPECT_EQ(uncompress(reinterpret_cast<Bytef*>(&back[0]), &size,
                         reinterpret_cast<const Bytef*>(compressed.data()), compressed.size()),
              Z_OK);
    back.resize(size);
    return back;
  }
}

TEST(DeflateBase64Test, EverySizeAndSplitComesBack) {
  std::mt19937 random(7);
  for (size_t size : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{4}, size_t{100},
                      DeflateBase64::kPieceBytes - 1, DeflateBase64::kPieceBytes + 1,
                      3 * DeflateBase64::kPieceBytes + 7}) {
    // Random bytes do not compress: the output comes in many pieces of
    // odd sizes, so every carry between base64 groups is met.
    std::string data(size, '\0');
    for (char& c : data)
      c = static_cast<char>(random());
    for (size_t write_size : {size_t{1} << 30, size_t{1000}, size_t{65537}}) {
      if (size > 100000 && write_size < 2000)
        continue;
      EXPECT_EQ(RoundTrip(data, write_size), data) << size << " bytes in writes of " << write_size;
    }
  }
}

TEST(DeflateBase64Test, CompressibleDataShrinks) {
  const std::string data(4 << 20, 'z');
  std::string text;
  StringJsonSink sink(&text);
  ProfileOutput out(&sink);
  DeflateBase64 encoder(&out, 1);
  encoder.input()->append(data);
  encoder.MaybeCompress();
  ASSERT_TRUE(encoder.Finish());
  ASSERT_TRUE(out.Finish());
  EXPECT_LT(text.size(), data.size() / 50);
  EXPECT_EQ(RoundTrip(data, 1 << 20), data);
}

}  // namespace
}  // namespace processor
}  // namespace zt
