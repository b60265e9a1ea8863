#include "src/processor/rpc/rpc_stream_reader.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace zt {
namespace processor {
namespace rpc {
namespace {

std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

// A message as a TraceProcessorRpcStream holds it: field 1, length-delimited.
std::string Framed(const std::string& body, uint32_t field = 1) {
  return Varint(field << 3 | 2) + Varint(body.size()) + body;
}

struct Read {
  std::vector<std::string> messages;
  bool ok = true;
  std::string error;
};

Read Feed(RpcStreamReader* reader, const std::vector<std::string>& pieces) {
  Read read;
  for (const std::string& piece : pieces) {
    read.ok = reader->Append(reinterpret_cast<const uint8_t*>(piece.data()), piece.size(),
                             [&read](std::string_view m) { read.messages.emplace_back(m); },
                             &read.error);
    if (!read.ok)
      break;
  }
  return read;
}

TEST(RpcStreamReaderTest, SeveralMessagesInOnePiece) {
  RpcStreamReader reader;
  const Read read = Feed(&reader, {Framed("a") + Framed("") + Framed(std::string(300, 'x'))});
  ASSERT_TRUE(read.ok) << read.error;
  EXPECT_EQ(read.messages, (std::vector<std::string>{"a", "", std::string(300, 'x')}));
  EXPECT_EQ(reader.buffered(), 0u);
}

TEST(RpcStreamReaderTest, AMessageCutAnywhereIsReadOnceWhole) {
  const std::string stream = Framed(std::string(200, 'y')) + Framed("tail");
  for (size_t cut = 0; cut <= stream.size(); cut++) {
    RpcStreamReader reader;
    const Read read = Feed(&reader, {stream.substr(0, cut), stream.substr(cut)});
    ASSERT_TRUE(read.ok) << read.error;
    EXPECT_EQ(read.messages, (std::vector<std::string>{std::string(200, 'y'), "tail"})) << cut;
  }
  // One byte at a time.
  RpcStreamReader reader;
  std::vector<std::string> bytes;
  for (char c : stream)
    bytes.emplace_back(1, c);
  const Read read = Feed(&reader, bytes);
  EXPECT_EQ(read.messages.size(), 2u);
  EXPECT_EQ(reader.buffered(), 0u);
}

TEST(RpcStreamReaderTest, AnyFieldNumberIsAMessageAsUpstreamReadsIt) {
  RpcStreamReader reader;
  const Read read = Feed(&reader, {Framed("m", 7) + Framed("n", 1000)});
  ASSERT_TRUE(read.ok);
  EXPECT_EQ(read.messages, (std::vector<std::string>{"m", "n"}));
}

TEST(RpcStreamReaderTest, FramingErrorsStopTheStream) {
  {
    RpcStreamReader reader;
    const Read read = Feed(&reader, {Varint(1 << 3 | 0) + Varint(5)});
    EXPECT_FALSE(read.ok);
    EXPECT_NE(read.error.find("wire type 0"), std::string::npos) << read.error;
    // Later bytes are refused too.
    EXPECT_FALSE(Feed(&reader, {Framed("ok")}).ok);
  }
  {
    RpcStreamReader reader;
    const Read read = Feed(&reader, {Varint(1 << 3 | 2) + Varint((64u << 20) + 1)});
    EXPECT_FALSE(read.ok);
    EXPECT_NE(read.error.find("more than the 67108864 allowed"), std::string::npos)
        << read.error;
  }
  {
    RpcStreamReader reader;
    const Read read = Feed(&reader, {std::string(11, '\x82')});
    EXPECT_FALSE(read.ok);
    EXPECT_NE(read.error.find("longer than 10 bytes"), std::string::npos) << read.error;
  }
}

TEST(RpcStreamReaderTest, AnIncompleteMessageIsHeldNotDelivered) {
  RpcStreamReader reader;
  const std::string stream = Framed(std::string(1000, 'z'));
  const Read read = Feed(&reader, {stream.substr(0, 500)});
  EXPECT_TRUE(read.ok);
  EXPECT_TRUE(read.messages.empty());
  EXPECT_EQ(reader.buffered(), 500u);
}

TEST(RpcStreamReaderTest, AMessageInManySmallPiecesIsKeptWithoutRecopying) {
  // 1 MiB in 1 KiB pieces: the held bytes grow in place (their buffer is
  // the same one all along, not a copy per piece).
  std::string message(1 << 20, 'x');
  std::string stream;
  stream.push_back(0x0a);
  uint64_t n = message.size();
  while (n >= 0x80) {
    stream.push_back(static_cast<char>((n & 0x7f) | 0x80));
    n >>= 7;
  }
  stream.push_back(static_cast<char>(n));
  stream += message;
  RpcStreamReader reader;
  std::string error;
  size_t got = 0;
  for (size_t at = 0; at < stream.size(); at += 1024) {
    const size_t size = std::min<size_t>(1024, stream.size() - at);
    ASSERT_TRUE(reader.Append(reinterpret_cast<const uint8_t*>(stream.data()) + at, size,
                              [&got](std::string_view m) { got = m.size(); }, &error))
        << error;
  }
  EXPECT_EQ(got, message.size());
  EXPECT_EQ(reader.buffered(), 0u);
}

}  // namespace
}  // namespace rpc
}  // namespace processor
}  // namespace zt
