#include "src/cmd/ztrace/export_db_command.h"

#include <unistd.h>

#include <memory>

#include "src/cmd/ztrace/exit_codes.h"
#include "src/cmd/ztrace/import_progress.h"
#include "src/cmd/ztrace/same_file.h"
#include "zt/processor/trace_processor.h"

namespace zt {
namespace ztrace {

std::string ExportDbUsage() {
  return R"(Usage: ztrace export-db TRACE OUT.sqlite

Reads a trace (Perfetto's protobuf format, written by zerotrace or upstream;
Chrome JSON; or Templight; any of them gzip-compressed) and writes the trace processor's tables (slice,
counter, track, thread_track, process_track, counter_track, thread,
process, flow, args, stats, metadata, templight_instantiation,
templight_unit; the columns `ztrace query` shows) as real tables into a new SQLite database,
indexed on slice and counter ts and track_id and on args arg_set_id. Any
SQLite opens it:

  sqlite3 OUT.sqlite 'SELECT name, SUM(dur) FROM slice GROUP BY name'

An existing OUT.sqlite is replaced.

Options:
  --drop-after-loss  drop events after a loss until the next clear, as
              upstream does (by default they are kept: ztrace stats --help)
  -h, --help  this text

Exit codes: 0 written, 1 trace unreadable or OUT not writable, 2 bad usage.
)";
}

int RunExportDb(const std::vector<std::string>& args, FILE* out, FILE* err) {
  std::vector<std::string> positional;
  processor::OpenOptions options;
  for (const std::string& arg : args) {
    if (arg == "-h" || arg == "--help") {
      fputs(ExportDbUsage().c_str(), out);
      return kExitOk;
    }
    if (arg == "--drop-after-loss") {
      options.drop_events_after_loss = true;
      continue;
    }
    if (!arg.empty() && arg[0] == '-') {
      fprintf(err, "ztrace export-db: unknown option '%s'\n\n%s", arg.c_str(),
              ExportDbUsage().c_str());
      return kExitUsage;
    }
    positional.push_back(arg);
  }
  if (positional.size() != 2) {
    fprintf(err, "ztrace export-db: name a trace and the database to write\n\n%s",
            ExportDbUsage().c_str());
    return kExitUsage;
  }
  const std::string& trace = positional[0];
  const std::string& db = positional[1];
  if (SameFile(trace, db)) {
    fprintf(err, "ztrace export-db: the database would replace the trace itself (%s)\n\n%s",
            db.c_str(), ExportDbUsage().c_str());
    return kExitUsage;
  }

  ImportProgress progress(err, trace);
  options.progress = progress.callback();
  std::string error;
  std::unique_ptr<processor::TraceProcessor> tp =
      processor::TraceProcessor::Open(trace, options, &error);
  progress.Done();
  if (!tp) {
    fprintf(err, "ztrace export-db: %s\n", error.c_str());
    return kExitFailure;
  }
  const bool terminal = isatty(fileno(err)) == 1;
  if (terminal)
    fprintf(err, "writing %s...", db.c_str());
  const bool ok = tp->ExportDatabase(db, &error);
  if (terminal)
    fputs(ok ? " done\n" : "\n", err);
  if (!ok) {
    fprintf(err, "ztrace export-db: %s\n", error.c_str());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace ztrace
}  // namespace zt
