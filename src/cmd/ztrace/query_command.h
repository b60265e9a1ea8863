// `ztrace query`: SQL over traces, with the trace processor's tables
// (include/zt/processor/trace_processor.h; upstream Perfetto's names).
//
//   ztrace query TRACE "SQL"          one query, printed as a table (or
//                                     --csv, --json)
//   ztrace query TRACE                an interactive prompt (history in
//                                     memory and in ~/.ztrace_history)
//   ztrace query --batch GLOB "SQL"   the query on every matching trace,
//                                     in parallel (-j N, default 2), the
//                                     union printed with a leading `trace`
//                                     column
//
// Exit codes (exit_codes.h): 0 done; 1 a trace unreadable or an SQL error
// (in --batch: any trace's); 2 a bad command line. Results go to the
// output stream, messages and progress (only on a terminal) to the error
// stream.

#ifndef ZT_SRC_CMD_ZTRACE_QUERY_COMMAND_H_
#define ZT_SRC_CMD_ZTRACE_QUERY_COMMAND_H_

#include <cstdio>
#include <string>
#include <vector>

#include "src/cmd/ztrace/query_output.h"
#include "zt/processor/trace_processor.h"

namespace zt {
namespace ztrace {

// The whole command: |args| are those after "query". |in| feeds the
// interactive prompt.
int RunQuery(const std::vector<std::string>& args, FILE* in, FILE* out, FILE* err);

std::string QueryUsage();

// The prompt's loop on an open trace: reads statements from |in| (each
// ends with ';' at the end of a line; dot commands on a line of their own),
// runs them, prints results to |out| and errors to |err|. |history_path|
// (may be empty: none) is read at start and appended to, one statement a
// line. The prompt is printed only when |in| is a terminal. Returns 0, or
// 1 when |in| is no terminal and a statement failed (a script's status).
int RunQueryShell(processor::TraceProcessor* tp, QueryFormat format, FILE* in, FILE* out,
                  FILE* err, const std::string& history_path);

// --batch: runs |sql| on each trace on |jobs| threads; prints the union in
// the order of |traces|. Returns 0, or 1 if any trace failed (each failure
// is reported; the others still print).
int RunQueryBatch(const std::vector<std::string>& traces, const std::string& sql,
                  QueryFormat format, int jobs, FILE* out, FILE* err);

// ~/.ztrace_history, or empty without $HOME.
std::string DefaultHistoryPath();

}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_QUERY_COMMAND_H_
