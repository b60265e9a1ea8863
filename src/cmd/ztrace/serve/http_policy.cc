#include "src/cmd/ztrace/serve/http_policy.h"

#include <strings.h>

#include <cstdio>

namespace zt {
namespace ztrace {
namespace serve {

namespace {

const char* Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 413:
      return "Payload Too Large";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}


}  // namespace

const std::vector<std::string>& HttpPolicy::DefaultOrigins() {
  static const std::vector<std::string> origins = {
      "https://ui.perfetto.dev", "http://localhost:10000", "http://127.0.0.1:10000"};
  return origins;
}

HttpPolicy::HttpPolicy(const std::string& bind_address, uint16_t port,
                       const std::vector<std::string>& additional_origins)
    : origins_(DefaultOrigins()) {
  for (const std::string& origin : additional_origins) {
    // A trailing slash is a common slip when copying a page's address;
    // browsers never send one.
    std::string o = origin;
    while (!o.empty() && o.back() == '/')
      o.pop_back();
    if (!o.empty())
      origins_.push_back(o);
  }
  const std::string p = ":" + std::to_string(port);
  hosts_ = {"127.0.0.1" + p, "localhost" + p, "[::1]" + p};
  if (bind_address == "0.0.0.0" || bind_address == "::" || bind_address == "[::]") {
    any_host_ = true;
  } else if (bind_address.find(':') != std::string::npos && bind_address.front() != '[') {
    hosts_.push_back("[" + bind_address + "]" + p);
  } else {
    hosts_.push_back(bind_address + p);
  }
}

bool HttpPolicy::OriginAllowed(std::string_view origin) const {
  if (origin.empty())
    return true;
  for (const std::string& allowed : origins_) {
    if (origin == allowed)
      return true;
  }
  return false;
}

bool HttpPolicy::HostAllowed(std::string_view host) const {
  if (host.empty() || any_host_)
    return true;
  for (const std::string& allowed : hosts_) {
    // Host names are case-insensitive.
    if (host.size() == allowed.size() &&
        strncasecmp(host.data(), allowed.data(), host.size()) == 0)
      return true;
  }
  return false;
}

HttpHeaders CorsHeaders(std::string_view origin) {
  if (origin.empty())
    return {};
  return {{"Access-Control-Allow-Origin", std::string(origin)}, {"Vary", "Origin"}};
}

HttpHeaders PreflightHeaders(std::string_view origin) {
  HttpHeaders headers = CorsHeaders(origin);
  headers.emplace_back("Access-Control-Allow-Methods", "POST, GET, OPTIONS");
  headers.emplace_back("Access-Control-Allow-Headers", "*");
  headers.emplace_back("Access-Control-Max-Age", "86400");
  headers.emplace_back("Access-Control-Allow-Private-Network", "true");
  return headers;
}

std::string FormatResponse(int status, const HttpHeaders& headers, std::string_view body,
                           bool keep_alive, bool chunked) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + Reason(status) + "\r\n";
  for (const auto& header : headers)
    out += header.first + ": " + header.second + "\r\n";
  if (chunked) {
    out += "Transfer-Encoding: chunked\r\n";
  } else if (status != 204) {
    out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  if (!keep_alive)
    out += "Connection: close\r\n";
  out += "\r\n";
  out.append(body.data(), body.size());
  return out;
}

std::string FormatChunk(std::string_view data) {
  char size[24];
  snprintf(size, sizeof(size), "%zx\r\n", data.size());
  std::string out = size;
  out.append(data.data(), data.size());
  out += "\r\n";
  return out;
}

}  // namespace serve
}  // namespace ztrace
}  // namespace zt
