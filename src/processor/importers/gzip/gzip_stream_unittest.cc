#include "src/processor/importers/gzip/gzip_stream.h"

#include <random>
#include <string>

#include <gtest/gtest.h>

#include "src/processor/test/gzip_for_testing.h"

namespace zt {
namespace processor {
namespace {

std::string SomeText(size_t size) {
  std::mt19937 random(7);
  std::string text;
  while (text.size() < size)
    text += "{\"ph\":\"X\",\"ts\":" + std::to_string(random() % 100000) + "},\n";
  text.resize(size);
  return text;
}

// Decompresses `compressed` fed in pieces of `piece` bytes.
struct Inflated {
  std::string out;
  bool fed_ok = true;
  bool finished_ok = true;
  std::string error;
  uint64_t trailing = 0;
};
Inflated Inflate(const std::string& compressed, size_t piece) {
  Inflated result;
  GzipStream gzip;
  for (size_t i = 0; i < compressed.size() && result.fed_ok; i += piece) {
    result.fed_ok = gzip.Feed(reinterpret_cast<const uint8_t*>(compressed.data()) + i,
                              std::min(piece, compressed.size() - i),
                              [&](const uint8_t* data, size_t size) {
                                result.out.append(reinterpret_cast<const char*>(data), size);
                                return true;
                              });
  }
  result.finished_ok = gzip.Finish();
  result.error = gzip.error();
  result.trailing = gzip.trailing_bytes();
  return result;
}

TEST(GzipStreamTest, RoundTripsInAnyPieces) {
  const std::string text = SomeText(3 << 20);  // Several output buffers.
  const std::string compressed = GzipForTesting(text);
  ASSERT_TRUE(LooksLikeGzip(compressed.data(), compressed.size()));
  for (size_t piece : {size_t{1} << 30, size_t{65536}, size_t{4097}, size_t{7}}) {
    const Inflated inflated = Inflate(compressed, piece);
    EXPECT_TRUE(inflated.fed_ok && inflated.finished_ok) << inflated.error;
    EXPECT_EQ(inflated.out.size(), text.size()) << piece;
    EXPECT_TRUE(inflated.out == text) << piece;
  }
}

TEST(GzipStreamTest, ConcatenatedMembersAreOneStream) {
  const std::string compressed = GzipForTesting("first ") + GzipForTesting("second");
  const Inflated inflated = Inflate(compressed, 5);
  EXPECT_TRUE(inflated.finished_ok) << inflated.error;
  EXPECT_EQ(inflated.out, "first second");
}

TEST(GzipStreamTest, TrailingZerosAreIgnoredAndCounted) {
  const std::string compressed = GzipForTesting("data") + std::string(512, '\0');
  const Inflated inflated = Inflate(compressed, 100);
  EXPECT_TRUE(inflated.finished_ok);
  EXPECT_EQ(inflated.out, "data");
  EXPECT_EQ(inflated.trailing, 512u);
}

TEST(GzipStreamTest, ACutFileKeepsWhatCameBeforeAndSaysSo) {
  const std::string text = SomeText(1 << 20);
  const std::string compressed = GzipForTesting(text);
  const Inflated inflated = Inflate(compressed.substr(0, compressed.size() / 2), 4096);
  EXPECT_TRUE(inflated.fed_ok);
  EXPECT_FALSE(inflated.finished_ok);
  EXPECT_NE(inflated.error.find("ends inside a compressed member"), std::string::npos)
      << inflated.error;
  EXPECT_GT(inflated.out.size(), text.size() / 4);
  EXPECT_EQ(inflated.out, text.substr(0, inflated.out.size()));
}

TEST(GzipStreamTest, CorruptDataIsAnErrorNamingTheByte) {
  std::string compressed = GzipForTesting(SomeText(100000));
  for (size_t i = 40; i < 80; ++i)
    compressed[i] = static_cast<char>(compressed[i] ^ 0x5A);
  const Inflated inflated = Inflate(compressed, 1000);
  EXPECT_FALSE(inflated.fed_ok);
  EXPECT_NE(inflated.error.find("gzip data is corrupt at compressed byte "), std::string::npos)
      << inflated.error;
}

TEST(GzipStreamTest, HeadIsEnoughToTellTheContent) {
  const std::string compressed = GzipForTesting(SomeText(1 << 20));
  const std::string head = InflateHead(compressed.data(), compressed.size(), 4096);
  EXPECT_EQ(head, SomeText(1 << 20).substr(0, 4096));
  EXPECT_EQ(InflateHead("\x1F\x8B\x08", 3, 4096), "");
}

TEST(GrowingBufferTest, GrowsWithoutLosingBytes) {
  GrowingBuffer buffer;
  const std::string piece = SomeText(1 << 20);
  for (int i = 0; i < 100; ++i)
    ASSERT_TRUE(buffer.Append(reinterpret_cast<const uint8_t*>(piece.data()), piece.size()));
  ASSERT_EQ(buffer.size(), 100 * piece.size());
  for (int i = 0; i < 100; i += 33)
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(buffer.data()) + i * piece.size(),
                          piece.size()),
              piece);
}

}  // namespace
}  // namespace processor
}  // namespace zt
