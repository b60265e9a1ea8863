#include "src/cmd/ztrace/serve/http_policy.h"

#include <gtest/gtest.h>

namespace zt {
namespace ztrace {
namespace serve {
namespace {

TEST(HttpPolicyTest, OnlyPerfettoUisOriginsAndTheAddedOnesMayCall) {
  const HttpPolicy policy("127.0.0.1", 9001, {"http://localhost:8080/", ""});
  EXPECT_TRUE(policy.OriginAllowed(""));  // A program, not a page.
  EXPECT_TRUE(policy.OriginAllowed("https://ui.perfetto.dev"));
  EXPECT_TRUE(policy.OriginAllowed("http://localhost:10000"));
  EXPECT_TRUE(policy.OriginAllowed("http://127.0.0.1:10000"));
  EXPECT_TRUE(policy.OriginAllowed("http://localhost:8080"));  // Its slash dropped.
  EXPECT_FALSE(policy.OriginAllowed("https://evil.example"));
  EXPECT_FALSE(policy.OriginAllowed("https://ui.perfetto.dev.evil.example"));
  EXPECT_FALSE(policy.OriginAllowed("http://ui.perfetto.dev"));
  EXPECT_FALSE(policy.OriginAllowed("null"));
  EXPECT_EQ(policy.origins().size(), 4u);
}

TEST(HttpPolicyTest, HostMustNameThisServerLocally) {
  const HttpPolicy policy("127.0.0.1", 9001, {});
  EXPECT_TRUE(policy.HostAllowed("127.0.0.1:9001"));
  EXPECT_TRUE(policy.HostAllowed("localhost:9001"));
  EXPECT_TRUE(policy.HostAllowed("LOCALHOST:9001"));
  EXPECT_TRUE(policy.HostAllowed("[::1]:9001"));
  EXPECT_TRUE(policy.HostAllowed(""));
  // DNS rebinding: a page's own name, now resolving to 127.0.0.1.
  EXPECT_FALSE(policy.HostAllowed("evil.example:9001"));
  EXPECT_FALSE(policy.HostAllowed("127.0.0.1:9002"));
  EXPECT_FALSE(policy.HostAllowed("127.0.0.1"));

  const HttpPolicy v6("::1", 9001, {});
  EXPECT_TRUE(v6.HostAllowed("[::1]:9001"));
  const HttpPolicy lan("192.168.1.5", 80, {});
  EXPECT_TRUE(lan.HostAllowed("192.168.1.5:80"));
  EXPECT_FALSE(lan.HostAllowed("evil.example:80"));
  // Every interface: remote names cannot be known.
  EXPECT_TRUE(HttpPolicy("0.0.0.0", 9001, {}).HostAllowed("my-workstation:9001"));
}

TEST(HttpPolicyTest, ResponsesAreWellFormed) {
  EXPECT_EQ(FormatResponse(200, {{"Content-Type", "text/plain"}}, "hi", true),
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi");
  EXPECT_EQ(FormatResponse(204, {}, "", false),
            "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(FormatResponse(200, {}, "", true, /*chunked=*/true),
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
  EXPECT_EQ(FormatChunk(std::string(26, 'x')), "1a\r\n" + std::string(26, 'x') + "\r\n");
  EXPECT_EQ(FormatChunk(""), "0\r\n\r\n");

  EXPECT_TRUE(CorsHeaders("").empty());
  const HttpHeaders preflight = PreflightHeaders("https://ui.perfetto.dev");
  auto value = [&](const std::string& name) {
    for (const auto& h : preflight) {
      if (h.first == name)
        return h.second;
    }
    return std::string("(none)");
  };
  EXPECT_EQ(value("Access-Control-Allow-Origin"), "https://ui.perfetto.dev");
  EXPECT_EQ(value("Access-Control-Allow-Methods"), "POST, GET, OPTIONS");
  EXPECT_EQ(value("Access-Control-Allow-Headers"), "*");
  EXPECT_EQ(value("Access-Control-Max-Age"), "86400");
  EXPECT_EQ(value("Access-Control-Allow-Private-Network"), "true");
}

}  // namespace
}  // namespace serve
}  // namespace ztrace
}  // namespace zt
