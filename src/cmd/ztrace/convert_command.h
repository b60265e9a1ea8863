// `ztrace convert TRACE OUT --to FORMAT`: reads a protobuf trace into the
// processor's tables and writes them in another format, as upstream's
// traceconv does. Formats: json (Chrome Trace Event JSON, export_json.h);
// pftrace (a Perfetto protobuf trace of track events, export_pftrace.h: the
// model written back, Templight traces included); text (every packet in
// protobuf text format, trace_text_dump.h). A format is one row of the
// table in convert_command.cc, which says whether it reads the imported
// tables or the file's bytes (mapped; the text dump reads those) and names
// its write function.
//
// Exit codes (exit_codes.h): 0 done (notes about what the format cannot hold go to stderr,
// never silently dropped), 1 the trace cannot be read or the output cannot
// be written (EPIPE, a full disk, ...: reported, a partial output file is
// removed), 2 usage. "-" as OUT is standard output. Progress goes to
// stderr only when stderr is a terminal.
//
// The trace is read through a LoadTraceFn so that tests run the command on
// storage they build; the program passes processor::ImportTraceFile.

#ifndef ZT_SRC_CMD_ZTRACE_CONVERT_COMMAND_H_
#define ZT_SRC_CMD_ZTRACE_CONVERT_COMMAND_H_

#include <stdio.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "src/cmd/ztrace/exit_codes.h"
#include "src/processor/importers/trace_importer.h"
#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace ztrace {

// As processor::ImportTraceFile: null with *error set when `path` cannot be
// read.
using LoadTraceFn = std::function<std::unique_ptr<processor::TraceStorage>(
    const std::string& path, const processor::ImportOptions& options,
    processor::ImportResult* result, std::string* error)>;

struct ConvertStreams {
  const char* command = "ztrace convert";  // What messages start with.
  FILE* out = stdout;  // Where "-" writes.
  FILE* err = stderr;  // Messages, notes, progress.
  // Progress lines are drawn when this is a terminal; tests set it.
  bool err_is_terminal = false;
};

// The whole command: |args| after "convert".
int RunConvert(const std::vector<std::string>& args, const LoadTraceFn& load,
               const ConvertStreams& streams);
// The same, on stdout and stderr (progress if stderr is a terminal).
int RunConvert(const std::vector<std::string>& args, const LoadTraceFn& load);

// `ztrace report TRACE [-o OUT.html] [OPTIONS]`: convert's --to html, with
// OUT named after TRACE (in the current directory) when not given.
std::string ReportUsage();
int RunReport(const std::vector<std::string>& args, const LoadTraceFn& load,
              const ConvertStreams& streams);

std::string ConvertUsage();

}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_CONVERT_COMMAND_H_
