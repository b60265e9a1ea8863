// `ztrace export-db TRACE OUT.sqlite`: imports a trace and writes every
// table of the trace processor (slice, counter, track, thread_track, ...,
// as `ztrace query` sees them) as real tables into a new SQLite database
// file, which the `sqlite3` shell, Python's sqlite3 or any SQLite library
// opens without zerotrace. An existing OUT is replaced.
//
// Exit codes (exit_codes.h): 0 written; 1 the trace unreadable or OUT not
// writable; 2 a bad command line.

#ifndef ZT_SRC_CMD_ZTRACE_EXPORT_DB_COMMAND_H_
#define ZT_SRC_CMD_ZTRACE_EXPORT_DB_COMMAND_H_

#include <cstdio>
#include <string>
#include <vector>

namespace zt {
namespace ztrace {

// |args| are those after "export-db".
int RunExportDb(const std::vector<std::string>& args, FILE* out, FILE* err);

std::string ExportDbUsage();

}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_EXPORT_DB_COMMAND_H_
