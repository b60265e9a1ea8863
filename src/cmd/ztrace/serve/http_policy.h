// Who may talk to `ztrace serve`, and the bytes of its HTTP responses
// (docs/design/serve.md, "Security"): the Origin allow-list browsers are
// held to, the Host check against DNS rebinding, and CORS headers. Plain
// functions over strings, so that the rules are tested without sockets.
//
// Thread-compatible.

#ifndef ZT_SRC_CMD_ZTRACE_SERVE_HTTP_POLICY_H_
#define ZT_SRC_CMD_ZTRACE_SERVE_HTTP_POLICY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zt {
namespace ztrace {
namespace serve {

class HttpPolicy {
 public:
  // The pages allowed to call the server from a browser: Perfetto UI and
  // its development server, as upstream's trace processor allows them.
  static const std::vector<std::string>& DefaultOrigins();

  // `bind_address` and `port`: where the server listens. Origins beyond
  // the defaults come from --additional-cors-origins.
  HttpPolicy(const std::string& bind_address, uint16_t port,
             const std::vector<std::string>& additional_origins);

  // A request without an Origin header (empty) comes from a program, not
  // a page, and is allowed; a page's must be in the list. Exact match,
  // as browsers send it (scheme://host[:port], no path).
  bool OriginAllowed(std::string_view origin) const;

  // The Host header names this server as a local client reaches it
  // (127.0.0.1, localhost, [::1] or the bound address, with the port), so
  // that a page whose own name was rebound to 127.0.0.1 is refused. An
  // empty Host (a program speaking HTTP/1.0) is allowed. When bound to
  // every interface (0.0.0.0, ::), any Host is: the user asked for remote
  // clients, whose names the server cannot know.
  bool HostAllowed(std::string_view host) const;

  const std::vector<std::string>& origins() const { return origins_; }

 private:
  std::vector<std::string> origins_;
  std::vector<std::string> hosts_;
  bool any_host_ = false;
};

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

// The CORS headers of a response to `origin` (already allowed): none for
// a request without an Origin.
HttpHeaders CorsHeaders(std::string_view origin);
// The extra headers of the answer to a preflight (OPTIONS) request.
HttpHeaders PreflightHeaders(std::string_view origin);

// A whole HTTP/1.1 response: status line, `headers`, Content-Length (or
// chunked transfer when `chunked`: then `body` must be empty and the
// chunks follow), Connection: close when !keep_alive, then `body`.
std::string FormatResponse(int status, const HttpHeaders& headers, std::string_view body,
                           bool keep_alive, bool chunked = false);
// One chunk of a chunked body (an empty `data` is the last chunk).
std::string FormatChunk(std::string_view data);

}  // namespace serve
}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_SERVE_HTTP_POLICY_H_
