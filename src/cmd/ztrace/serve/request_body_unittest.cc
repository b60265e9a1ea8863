#include "src/cmd/ztrace/serve/request_body.h"

#include <memory>
#include <string>

#include <boost/beast/http/parser.hpp>
#include <gtest/gtest.h>

namespace zt {
namespace ztrace {
namespace serve {
namespace rpc_server_internal {
namespace {

namespace http = boost::beast::http;

// Parses `wire` (a whole request) into a body whose storage comes from
// `storage` (null: the reader makes its own).
std::shared_ptr<RequestBytes> Parse(const std::string& wire,
                                    std::shared_ptr<RequestBytes> storage, size_t feed,
                                    std::string* error) {
  http::request_parser<RequestBody> parser;
  parser.eager(true);
  parser.get().body() = std::move(storage);
  size_t at = 0;
  while (!parser.is_done()) {
    boost::beast::error_code ec;
    const size_t n = std::min(feed, wire.size() - at);
    const size_t used = parser.put(boost::asio::buffer(wire.data() + at, n), ec);
    if (ec == http::error::need_more) {
      if (n == 0) {
        *error = "the request ended early";
        return nullptr;
      }
      // Beast wants the whole header at once: offer more of it.
      feed *= 2;
      continue;
    }
    if (ec) {
      *error = ec.message();
      return nullptr;
    }
    at += used;
  }
  return parser.release().body();
}

std::string Post(const std::string& body) {
  return "POST /parse HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

TEST(RequestBodyTest, BodyReadInAnyPiecesIsTheBytesSent) {
  std::string body;
  for (int i = 0; i < 100000; i++)
    body.push_back(static_cast<char>(i * 7 + i / 251));
  for (size_t feed : {size_t{1}, size_t{4096}, size_t{1} << 20}) {
    std::string error;
    std::shared_ptr<RequestBytes> got = Parse(Post(body), nullptr, feed, &error);
    ASSERT_TRUE(got) << error;
    EXPECT_EQ(got->view(), body) << "fed " << feed << " bytes at a time";
  }
}

TEST(RequestBodyTest, ChunkedBodyOfUnknownLengthGrows) {
  const std::string wire =
      "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";
  std::string error;
  std::shared_ptr<RequestBytes> got = Parse(wire, nullptr, 3, &error);
  ASSERT_TRUE(got) << error;
  EXPECT_EQ(got->view(), "hello world");
}

// Reused storage holds the new body only: nothing of the last one shows,
// and no new storage is made for a body that fits.
TEST(RequestBodyTest, ReusedStorageHoldsOnlyTheNewBody) {
  std::string error;
  std::shared_ptr<RequestBytes> first = Parse(Post(std::string(5000, 'a')), nullptr, 1 << 20,
                                              &error);
  ASSERT_TRUE(first) << error;
  const uint8_t* storage = first->data();
  first->Clear();
  std::shared_ptr<RequestBytes> second = Parse(Post("bcd"), first, 1 << 20, &error);
  ASSERT_TRUE(second) << error;
  EXPECT_EQ(second->view(), "bcd");
  EXPECT_EQ(second->data(), storage);
}

// A body of known length takes exactly its room when storage must grow
// (doubling would take up to twice the largest body the server allows).
TEST(RequestBodyTest, AKnownLengthIsReservedExactly) {
  std::string error;
  std::shared_ptr<RequestBytes> small = Parse(Post(std::string(5000, 'a')), nullptr, 1 << 20,
                                              &error);
  ASSERT_TRUE(small) << error;
  small->Clear();
  std::shared_ptr<RequestBytes> large =
      Parse(Post(std::string(300000, 'b')), small, 1 << 20, &error);
  ASSERT_TRUE(large) << error;
  EXPECT_EQ(large->capacity(), 300000u);
}

TEST(RequestBodyTest, PoolReusesStorageOnlyOnceItsJobLetGo) {
  RequestBytesPool pool;
  std::shared_ptr<RequestBytes> bytes = pool.Take();
  bytes->AppendSpace(1 << 20);
  bytes->AppendDone(1 << 20);
  pool.Keep(bytes);
  // A job still reads it: the next request gets storage of its own.
  std::shared_ptr<RequestBytes> other = pool.Take();
  EXPECT_NE(other.get(), bytes.get());
  pool.Keep(bytes);  // `other` is empty: the larger stays kept.
  pool.Keep(other);
  other.reset();
  // The job is done with it: taken again, emptied, its room kept.
  const RequestBytes* kept = bytes.get();
  bytes.reset();
  std::shared_ptr<RequestBytes> again = pool.Take();
  EXPECT_EQ(again.get(), kept);
  EXPECT_EQ(again->size(), 0u);
  EXPECT_GE(again->capacity(), size_t{1} << 20);
}

}  // namespace
}  // namespace rpc_server_internal
}  // namespace serve
}  // namespace ztrace
}  // namespace zt
