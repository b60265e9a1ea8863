// `ztrace stats TRACE`: imports a trace and prints its summary (packets,
// sequences, span, events by type, every data loss with where and why, the
// problem stats, the slices that took most time). Exit code 0 when the
// trace was read whole, 1 when it cannot be opened or (with --strict) when
// it is damaged or lost data, 2 on a bad command line.

#ifndef ZT_SRC_CMD_ZTRACE_STATS_COMMAND_H_
#define ZT_SRC_CMD_ZTRACE_STATS_COMMAND_H_

#include <cstdio>
#include <string>
#include <vector>

namespace zt {
namespace ztrace {

// |args| are those after "stats". Writes the summary to |out| and messages
// to |err|.
int RunStats(const std::vector<std::string>& args, FILE* out, FILE* err);

std::string StatsUsage();

}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_STATS_COMMAND_H_
