#include "src/cmd/ztrace/stats_command.h"

#include <unistd.h>

#include <cinttypes>
#include <cstdlib>

#include "src/cmd/ztrace/exit_codes.h"
#include "src/cmd/ztrace/import_progress.h"
#include "src/cmd/ztrace/templight_view.h"
#include "src/cmd/ztrace/trace_glob.h"
#include "src/processor/importers/trace_importer.h"
#include "src/processor/summary/templight_build_summary.h"
#include "src/processor/summary/trace_summary.h"

namespace zt {
namespace ztrace {

namespace {

// A stat of data_loss severity that is not zero (a Templight file's damage
// has no place in the trace to mark, only its count).
bool HasDataLossStat(const processor::StatsTable& stats) {
  for (int k = 0; k < processor::stats::kNumKeys; k++) {
    const auto key = static_cast<processor::stats::Key>(k);
    const processor::stats::Descriptor& d = processor::stats::Describe(key);
    if (d.severity != processor::stats::kDataLoss)
      continue;
    if (d.type == processor::stats::kSingle ? stats.Get(key) != 0
                                            : stats.GetIndexedTotal(key) != 0)
      return true;
  }
  return false;
}

}  // namespace

std::string StatsUsage() {
  std::string usage = R"(Usage: ztrace stats [OPTIONS] TRACE
       ztrace stats [OPTIONS] TRACE... | 'build/**/*.trace.pbf'

Reads a trace (Perfetto's protobuf format, written by zerotrace or upstream;
Chrome JSON; a Templight trace of clang's template instantiations; any of
them gzip-compressed or not) and prints what it holds: packets, sequences,
time span, events by type, every data loss with where it happened and why,
the stats that flag a problem, and the slices that took the most time
(total and self).

For a Templight trace (templight++'s .trace.pbf, one translation unit or
several): its units, then the costliest templates (arguments folded:
every std::vector<...> together), instantiations by time and by memory,
the files that requested them, and every kind of instantiation. Total time
counts a template once per stack (not again inside itself); self time
leaves out what was instantiated inside. The same data is in SQL:
ztrace query's templight_instantiation and templight_unit tables.

Several Templight traces (arguments, or a quoted pattern where ** is any
number of directories): the templates that cost the whole build the most,
by total time and by count, each with the translation units it appears in.

Options:
  --top N     rows per list (default 10)
  --strict    exit with 1 if the trace is incomplete in any way it records:
               * the file is damaged (cut or corrupt);
               * a loss is marked in it (previous_packet_dropped);
               * any stat of data_loss severity is not 0 (listed under
                 "problems");
               * a buffer's ring wrapped and overwrote chunks unread, or a
                 full buffer discarded chunks (TraceStats, per buffer);
               * packets were skipped because their sequence's interned
                 data or state is not in the trace.
              Service-wide counters (traced_chunks_discarded,
              traced_patches_discarded: every session's) do not count.
  --drop-after-loss
              read losses as upstream does: after a previous_packet_dropped
              mark, drop every event that needs interned data until the
              next clear (by default those are kept, with the names
              interned before the loss; "recovered" says how many)
%VIEW%  -h, --help  this text

Exit codes: 0 read, 1 unreadable (or, with --strict, lossy), 2 bad usage.
)";
  const size_t at = usage.find("%VIEW%");
  return usage.replace(at, 6, TemplightView::Usage());
}

namespace {

// Imports `path` with a progress line labelled `label`; null (the error
// said on `err`) when it cannot be read.
std::unique_ptr<processor::TraceStorage> Import(const std::string& path, const std::string& label,
                                                bool drop_after_loss, FILE* err,
                                                processor::ImportResult* result) {
  processor::ImportOptions options;
  options.drop_events_after_loss = drop_after_loss;
  ImportProgress progress(err, label);
  options.progress = progress.callback();
  std::string error;
  std::unique_ptr<processor::TraceStorage> storage =
      processor::ImportTraceFile(path, options, result, &error);
  progress.Done();
  if (!storage)
    fprintf(err, "ztrace stats: %s\n", error.c_str());
  return storage;
}

// Several traces (or a pattern): a whole build's Templight traces, summed.
int RunBuildStats(const std::vector<std::string>& paths, size_t top, bool strict,
                  const TemplightView& view, FILE* out, FILE* err) {
  processor::TemplightBuildSummary build;
  std::vector<std::string> skipped;
  bool failed = false;
  for (size_t i = 0; i < paths.size(); i++) {
    const std::string& path = paths[i];
    processor::ImportResult result;
    std::unique_ptr<processor::TraceStorage> storage = Import(
        path, "(" + std::to_string(i + 1) + "/" + std::to_string(paths.size()) + ") " + path,
        /*drop_after_loss=*/false, err, &result);
    if (!storage) {
      failed = true;
      continue;
    }
    if (!storage->templight_units.empty())
      view.Apply(storage.get(), path, err);
    if (!build.Add(path, *storage)) {
      skipped.push_back(path);
      continue;
    }
    if (strict && (HasDataLossStat(storage->stats) || !storage->import_problems.empty())) {
      fprintf(err, "ztrace stats: %s: incomplete (problems recorded; ztrace stats %s says which)\n",
              path.c_str(), path.c_str());
      failed = true;
    }
  }
  for (const std::string& path : skipped)
    fprintf(err, "ztrace stats: %s is not a Templight trace: not in the build summary (ztrace stats %s alone describes it)\n",
            path.c_str(), path.c_str());
  if (build.traces() == 0) {
    fprintf(err, "ztrace stats: none of the %zu traces is a Templight trace\n", paths.size());
    return kExitFailure;
  }
  fputs(build.Format(top).c_str(), out);
  if (fflush(out) != 0 || ferror(out)) {
    fprintf(err, "ztrace stats: cannot write the summary\n");
    return kExitFailure;
  }
  return failed ? kExitFailure : kExitOk;
}

}  // namespace

int RunStats(const std::vector<std::string>& args, FILE* out, FILE* err) {
  std::vector<std::string> patterns;
  size_t top = 10;
  bool strict = false;
  bool drop_after_loss = false;
  TemplightView view;
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      fputs(StatsUsage().c_str(), out);
      return kExitOk;
    }
    std::string view_error;
    if (view.ParseOption(args, &i, &view_error))
      continue;
    if (!view_error.empty()) {
      fprintf(err, "ztrace stats: %s\n\n%s", view_error.c_str(), StatsUsage().c_str());
      return kExitUsage;
    }
    if (arg == "--strict") {
      strict = true;
    } else if (arg == "--drop-after-loss") {
      drop_after_loss = true;
    } else if (arg == "--top") {
      char* end = nullptr;
      const long value = i + 1 < args.size() ? strtol(args[i + 1].c_str(), &end, 10) : -1;
      if (value < 0 || !end || *end != '\0') {
        fprintf(err, "ztrace stats: --top needs a number\n\n%s", StatsUsage().c_str());
        return kExitUsage;
      }
      top = static_cast<size_t>(value);
      i++;
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      fprintf(err, "ztrace stats: unknown option '%s'\n\n%s", arg.c_str(),
              StatsUsage().c_str());
      return kExitUsage;
    } else {
      patterns.push_back(arg);
    }
  }
  if (patterns.empty()) {
    fprintf(err, "ztrace stats: which trace?\n\n%s", StatsUsage().c_str());
    return kExitUsage;
  }
  std::string view_error;
  if (!view.Load(&view_error)) {
    fprintf(err, "ztrace stats: %s\n", view_error.c_str());
    return kExitFailure;
  }
  std::vector<std::string> paths;
  for (const std::string& pattern : patterns) {
    std::string error;
    if (!ExpandTraceGlob(pattern, &paths, &error)) {
      fprintf(err, "ztrace stats: %s\n", error.c_str());
      return kExitFailure;
    }
  }
  if (paths.size() > 1) {
    if (drop_after_loss) {
      fprintf(err, "ztrace stats: --drop-after-loss is for one trace at a time\n");
      return kExitUsage;
    }
    return RunBuildStats(paths, top, strict, view, out, err);
  }
  const std::string& path = paths[0];

  processor::ImportResult result;
  std::unique_ptr<processor::TraceStorage> storage =
      Import(path, path, drop_after_loss, err, &result);
  if (!storage)
    return kExitFailure;
  view.Apply(storage.get(), path, err);
  processor::SummaryOptions summary;
  summary.trace_name = path;
  summary.top_slices = top;
  fputs(processor::FormatSummary(*storage, result, summary).c_str(), out);
  if (fflush(out) != 0 || ferror(out)) {
    fprintf(err, "ztrace stats: cannot write the summary\n");
    return kExitFailure;
  }
  if (strict && (!storage->data_losses.empty() || HasDataLossStat(storage->stats) ||
                 processor::CountIncompleteData(*storage).any()))
    return kExitFailure;
  return kExitOk;
}

}  // namespace ztrace
}  // namespace zt
