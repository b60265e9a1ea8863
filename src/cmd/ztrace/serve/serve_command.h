// `ztrace serve [TRACE]`: zerotrace's processor behind Perfetto UI and
// upstream's Python API, over their TraceProcessorRpc protocol on
// http://127.0.0.1:9001 (docs/design/serve.md). Serves until SIGINT or
// SIGTERM. Exit codes: 0 stopped, 1 the trace or the address failed,
// 2 bad usage.

#ifndef ZT_SRC_CMD_ZTRACE_SERVE_SERVE_COMMAND_H_
#define ZT_SRC_CMD_ZTRACE_SERVE_SERVE_COMMAND_H_

#include <cstdio>
#include <string>
#include <vector>

namespace zt {
namespace ztrace {

// |args| are those after "serve". The address line ("Serving on
// http://ADDR:PORT") goes to |out| once the server listens (a script or
// the Python package reads the port from it); messages go to |err|.
int RunServe(const std::vector<std::string>& args, FILE* out, FILE* err);

std::string ServeUsage();

}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_SERVE_SERVE_COMMAND_H_
