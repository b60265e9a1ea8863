// `ztrace clone`: a snapshot of a session running in the tracing service,
// written into a file, as upstream's `perfetto --clone` takes one. The
// session goes on; the copy (CloneSession: the service flushes the
// session's producers, then copies its buffers into a read-only session of
// this consumer's) is read with ReadBuffers, and the losses its stats
// record are reported as `ztrace record` reports them.
//
// Runs on its own UnixTaskRunner on the calling thread; reaches the service
// through a ConnectFn (record_command.h) so that tests use an in-process
// service.

#ifndef ZT_SRC_CMD_ZTRACE_CLONE_COMMAND_H_
#define ZT_SRC_CMD_ZTRACE_CLONE_COMMAND_H_

#include <string>
#include <vector>

#include "src/cmd/ztrace/record_command.h"

namespace zt {
namespace ztrace {

// Exit status: kExitOk once the snapshot is written, kExitFailure (with a
// message on stderr) if the service cannot be reached, refuses the clone
// (its reason printed) or the file cannot be written, kExitUsage on a bad
// command line.
int RunClone(const std::vector<std::string>& args, const ConnectFn& connect,
             const std::string& service_address);

std::string CloneUsage();

}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_CLONE_COMMAND_H_
