#include "src/cmd/ztrace/convert_command.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <string_view>

#include "src/cmd/ztrace/same_file.h"
#include "src/cmd/ztrace/templight_view.h"
#include "src/processor/exporters/background_file_sink.h"
#include "src/processor/exporters/export_json.h"
#include "src/processor/exporters/export_pftrace.h"
#include "src/processor/exporters/html_report.h"
#include "src/processor/exporters/profile_formats.h"
#include "src/processor/exporters/templight_profile_builder.h"
#include "src/processor/exporters/templight_text_dump.h"
#include "src/processor/exporters/templight_writer.h"
#include "src/processor/importers/trace_format.h"
#include "src/processor/exporters/trace_text_dump.h"
#include "zt/processor/mapped_trace_file.h"

namespace zt {
namespace ztrace {
namespace {

using processor::TraceStorage;

// A progress line on a terminal, redrawn at most every 100 ms.
class Progress {
 public:
  Progress(FILE* err, bool on) : err_(err), on_(on) {}
  ~Progress() { Clear(); }

  void Show(const char* what, uint64_t done, uint64_t total, const char* unit) {
    if (!on_) return;
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    const int64_t ms = int64_t{now.tv_sec} * 1000 + now.tv_nsec / 1000000;
    if (drawn_ && ms - last_ms_ < 100 && done != total) return;
    last_ms_ = ms;
    drawn_ = true;
    const unsigned percent = total ? static_cast<unsigned>(done * 100 / total) : 100;
    fprintf(err_, "\rztrace convert: %s %3u%% (%llu/%llu %s)\033[K", what, percent,
            static_cast<unsigned long long>(done), static_cast<unsigned long long>(total), unit);
    fflush(err_);
  }
  void Clear() {
    if (!drawn_) return;
    fputs("\r\033[K", err_);
    fflush(err_);
    drawn_ = false;
  }

 private:
  FILE* err_;
  bool on_;
  bool drawn_ = false;
  int64_t last_ms_ = 0;
};

struct Output {
  const char* command;  // "ztrace convert" or "ztrace report", for messages.
  FILE* file;
  const std::string& name;  // In messages: the path or "stdout".
  FILE* err;
  Progress* progress;
};

// What a format reads: the processor's tables (the trace imported), or the
// file's bytes as they are (mapped, nothing parsed).
enum class Reads { kTables, kBytes };

struct Input {
  const TraceStorage* tables;            // Set for Reads::kTables.
  const processor::MappedTraceFile* file;  // Set for Reads::kBytes.
  const std::string& path;               // The trace's path, as given.
};

// Writes the input to out.file; false with *error when the output failed.
using WriteFn = bool (*)(const Input& in, const Output& out, std::string* error);

bool WriteJson(const Input& in, const Output& out, std::string* error) {
  processor::BackgroundFileSink sink(out.file);
  processor::JsonExportOptions options;
  options.progress = [&out](uint64_t done, uint64_t total) {
    out.progress->Show("writing", done, total, "rows");
  };
  const processor::JsonExportResult result = processor::ExportJson(*in.tables, &sink, options);
  out.progress->Clear();
  if (!result.ok) {
    *error = result.error;
    return false;
  }
  for (const std::string& note : result.notes) {
    fprintf(out.err, "%s: not in the JSON: %s\n", out.command, note.c_str());
  }
  return true;
}

bool WritePftrace(const Input& in, const Output& out, std::string* error) {
  processor::BackgroundFileSink sink(out.file);
  processor::PftraceExportOptions options;
  options.progress = [&out](uint64_t done, uint64_t total) {
    out.progress->Show("writing", done, total, "rows");
  };
  const processor::PftraceExportResult result =
      processor::ExportPftrace(*in.tables, &sink, options);
  out.progress->Clear();
  if (!result.ok) {
    *error = result.error;
    return false;
  }
  for (const std::string& note : result.notes) {
    fprintf(out.err, "%s: not in the Perfetto trace: %s\n", out.command, note.c_str());
  }
  return true;
}

// A Templight trace: its own messages (not Perfetto packets), with the
// names its dictionary and zlib hold and the paths its file ids stand for.
bool WriteTemplightText(const Input& in, const Output& out, std::string* error) {
  int write_errno = 0;
  const processor::TemplightTextResult result = processor::DumpTemplightAsText(
      in.file->data(), in.file->size(), [&](std::string_view piece) {
        if (fwrite(piece.data(), 1, piece.size(), out.file) == piece.size())
          return true;
        write_errno = errno;
        return false;
      });
  if (result.sink_failed || fflush(out.file) != 0) {
    *error = strerror(write_errno ? write_errno : errno);
    return false;
  }
  if (!result.damage.empty())
    fprintf(out.err, "%s: damaged, read up to the damage: %s\n", out.command, result.damage.c_str());
  return true;
}

bool WriteText(const Input& in, const Output& out, std::string* error) {
  if (processor::GuessTraceFormat(in.file->data(), in.file->size()) ==
      processor::TraceFormat::kTemplight) {
    return WriteTemplightText(in, out, error);
  }
  int write_errno = 0;
  // The file's pages behind the dump are let go every 64 MiB: a trace
  // larger than memory is read in bounded resident memory.
  constexpr uint64_t kReleaseEvery = 64u << 20;
  uint64_t released = 0;
  const uint64_t total = in.file->size();
  const processor::TextDumpResult result = processor::DumpTraceAsText(
      in.file->data(), in.file->size(),
      [&](std::string_view piece) {
        if (fwrite(piece.data(), 1, piece.size(), out.file) == piece.size())
          return true;
        write_errno = errno;
        return false;
      },
      [&](uint64_t done) {
        if (done - released >= kReleaseEvery) {
          in.file->ReleasePages(released, done - released);
          released = done;
        }
        out.progress->Show("writing", done, total, "bytes");
      });
  out.progress->Clear();
  if (result.sink_failed || fflush(out.file) != 0) {
    *error = strerror(write_errno ? write_errno : errno);
    return false;
  }
  if (result.tokenizer.damage != processor::TraceDamage::kNone) {
    fprintf(out.err, "%s: damaged, read up to the damage: %s\n", out.command,
            processor::DescribeDamage(result.tokenizer).c_str());
  }
  return true;
}

bool WriteTemplightTrace(const Input& in, const Output& out, std::string* error) {
  processor::TemplightProfile profile;
  if (!processor::BuildTemplightProfile(*in.tables, &profile, error))
    return false;
  int write_errno = 0;
  const bool written = processor::WriteTemplight(
      profile, processor::TemplightNameMode::kDictionary, [&](std::string_view piece) {
        if (fwrite(piece.data(), 1, piece.size(), out.file) == piece.size())
          return true;
        write_errno = errno;
        return false;
      });
  if (!written || fflush(out.file) != 0) {
    *error = strerror(write_errno ? write_errno : errno);
    return false;
  }
  return true;
}

bool WriteProfile(processor::ProfileFormat format, const Input& in, const Output& out,
                  std::string* error) {
  processor::BackgroundFileSink sink(out.file);
  const processor::ProfileExportResult result = processor::ExportProfile(*in.tables, format, &sink);
  if (!result.ok) {
    *error = result.error;
    return false;
  }
  for (const std::string& note : result.notes)
    fprintf(out.err, "%s: %s\n", out.command, note.c_str());
  return true;
}

bool WriteFolded(const Input& in, const Output& out, std::string* error) {
  return WriteProfile(processor::ProfileFormat::kFolded, in, out, error);
}
bool WriteCallgrind(const Input& in, const Output& out, std::string* error) {
  return WriteProfile(processor::ProfileFormat::kCallgrind, in, out, error);
}
bool WriteSpeedscope(const Input& in, const Output& out, std::string* error) {
  return WriteProfile(processor::ProfileFormat::kSpeedscope, in, out, error);
}
bool WriteGraphviz(const Input& in, const Output& out, std::string* error) {
  return WriteProfile(processor::ProfileFormat::kGraphviz, in, out, error);
}

bool WriteHtml(const Input& in, const Output& out, std::string* error) {
  processor::BackgroundFileSink sink(out.file);
  processor::HtmlReportOptions options;
  const size_t slash = in.path.rfind('/');
  options.title = slash == std::string::npos ? in.path : in.path.substr(slash + 1);
  const processor::HtmlReportResult result = processor::WriteHtmlReport(*in.tables, options, &sink);
  if (!result.ok) {
    *error = result.error;
    return false;
  }
  return true;
}

struct Format {
  const char* name;
  const char* description;
  Reads reads;
  WriteFn write;  // Null: not built yet.
  // Reads a Templight trace's locations, memory and kind numbers, not only
  // its slices (ImportOptions::templight_details).
  bool templight_details = true;
};

// A format is a row here; the usage text lists them.
constexpr Format kFormats[] = {
    {"json", "Chrome Trace Event JSON (chrome://tracing, Perfetto UI, speedscope)",
     Reads::kTables, WriteJson},
    {"pftrace", "Perfetto protobuf trace (Perfetto UI, trace_processor)", Reads::kTables,
     WritePftrace},
    {"text",
     "every packet in protobuf text format, interned names resolved;\n"
     "             of a Templight trace, its messages, names, files and kinds resolved",
     Reads::kBytes,
     WriteText},
    {"templight",
     "Templight trace, names in Templight's dictionary (from Templight input; its tools read it)",
     Reads::kTables, WriteTemplightTrace},
    {"folded",
     "folded stacks, self time in ns (flamegraph.pl, inferno, speedscope)", Reads::kTables,
     WriteFolded, false},
    {"callgrind",
     "callgrind profile (kcachegrind): time, and for Templight memory, with file:line",
     Reads::kTables, WriteCallgrind},
    {"speedscope", "speedscope's own format: a timeline per thread or translation unit",
     Reads::kTables, WriteSpeedscope},
    {"graphviz", "call graph for dot (for Templight: the instantiation graph)", Reads::kTables,
     WriteGraphviz},
    {"html", "a report to open in a browser: timeline, flame graph, top slices, stats "
     "(ztrace report)", Reads::kTables, WriteHtml, false},
};

const Format* FindFormat(std::string_view name) {
  for (const Format& f : kFormats) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

// SIGPIPE ignored while writing, so that a closed pipe is an EPIPE error
// the command reports rather than a silent death.
class IgnoreSigpipe {
 public:
  IgnoreSigpipe() {
    struct sigaction ignore = {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, &old_);
  }
  ~IgnoreSigpipe() { sigaction(SIGPIPE, &old_, nullptr); }

 private:
  struct sigaction old_ = {};
};

}  // namespace

std::string ConvertUsage() {
  std::string usage =
      "Usage: ztrace convert TRACE OUT --to FORMAT\n"
      "\n"
      "Reads TRACE (a protobuf trace written by ztrace or Perfetto, a Chrome JSON\n"
      "trace, or a Templight trace of clang's template instantiations; any of them\n"
      "may be gzip-compressed) and writes it to OUT (\"-\": standard output) as\n"
      "FORMAT:\n";
  for (const Format& f : kFormats) {
    usage += "  " + std::string(f.name) + std::string(strlen(f.name) < 11 ? 11 - strlen(f.name) : 1, ' ') + f.description +
             (f.write ? "" : " (not supported yet)") + "\n";
  }
  usage +=
      "\n"
      "What FORMAT cannot hold (for json: counter units, stats, a second flow\n"
      "on one slice, ...; for pftrace: metadata, stats, ...) is listed on\n"
      "stderr. Progress is shown on stderr when it is a terminal.\n"
      "\n"
      "Options:\n"
      "  -t, --to FORMAT  the output format (required)\n"
      "  --drop-after-loss  drop events after a loss until the next clear, as\n"
      "                   upstream does (by default they are kept)\n"
      "  -h, --help       this text\n"
      "Templight input (every FORMAT but text):\n";
  usage += TemplightView::Usage();
  usage +=
      "\n"
      "Exit status: 0 done, 1 TRACE unreadable or OUT not written (a partial OUT\n"
      "file is removed), 2 usage error.\n";
  return usage;
}

int RunConvert(const std::vector<std::string>& args, const LoadTraceFn& load,
               const ConvertStreams& streams) {
  FILE* err = streams.err;
  auto usage_error = [&](const std::string& message) {
    fprintf(err, "%s: %s\n\n%s", streams.command, message.c_str(), ConvertUsage().c_str());
    return kExitUsage;
  };
  std::vector<std::string> positional;
  std::string to;
  bool only_positional = false;
  bool drop_after_loss = false;
  TemplightView view;
  std::string view_error;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (only_positional || arg == "-" || arg.empty() || arg[0] != '-') {
      positional.push_back(arg);
    } else if (view.ParseOption(args, &i, &view_error)) {
      continue;
    } else if (!view_error.empty()) {
      return usage_error(view_error);
    } else if (arg == "--") {
      only_positional = true;
    } else if (arg == "-h" || arg == "--help") {
      fputs(ConvertUsage().c_str(), streams.out);
      return kExitOk;
    } else if (arg == "--to" || arg == "-t") {
      if (i + 1 >= args.size()) return usage_error(arg + " needs a format");
      to = args[++i];
    } else if (arg.compare(0, 5, "--to=") == 0) {
      to = arg.substr(5);
    } else if (arg == "--drop-after-loss") {
      drop_after_loss = true;
    } else {
      return usage_error("unknown option \"" + arg + "\"");
    }
  }
  if (positional.size() != 2) {
    return usage_error(positional.size() < 2 ? "TRACE and OUT are required"
                                             : "too many arguments");
  }
  if (to.empty()) return usage_error("--to FORMAT is required");
  const Format* format = FindFormat(to);
  if (!format) return usage_error("unknown format \"" + to + "\"");
  if (!format->write) {
    fprintf(err, "%s: --to %s is not supported yet\n", streams.command, format->name);
    return kExitUsage;
  }
  if (view.active() && format->reads == Reads::kBytes)
    return usage_error("--blacklist and --instantiations-only do not apply to --to " +
                       std::string(format->name) + " (it prints the file as it is)");
  const std::string& trace_path = positional[0];
  const std::string& out_path = positional[1];
  const bool to_stdout = out_path == "-";
  if (!to_stdout && SameFile(trace_path, out_path)) {
    return usage_error("OUT is TRACE itself");
  }

  // The input first: an unreadable trace leaves no empty OUT behind.
  Progress progress(err, streams.err_is_terminal);
  std::string error;
  std::unique_ptr<TraceStorage> storage;
  std::unique_ptr<processor::MappedTraceFile> file;
  if (format->reads == Reads::kTables) {
    processor::ImportOptions import_options;
    import_options.drop_events_after_loss = drop_after_loss;
    // The Templight filters read the kinds and locations.
    import_options.templight_details = format->templight_details || view.active();
    import_options.progress = [&progress](uint64_t done, uint64_t total) {
      progress.Show("reading", done, total, "bytes");
    };
    processor::ImportResult imported;
    if (!view.Load(&error)) {
      fprintf(err, "%s: %s\n", streams.command, error.c_str());
      return kExitFailure;
    }
    storage = load(trace_path, import_options, &imported, &error);
    if (storage)
      view.Apply(storage.get(), trace_path, err);
    progress.Clear();
    if (storage && imported.tokenizer.damage != processor::TraceDamage::kNone) {
      fprintf(err, "%s: %s: damaged, read up to the damage: %s\n", streams.command,
              trace_path.c_str(), processor::DescribeDamage(imported.tokenizer).c_str());
    }
  } else {
    file = processor::MappedTraceFile::Open(trace_path, &error);
    if (file) {
      error = processor::NotATraceError(trace_path, file->data(), file->size());
      // The packet dump reads protobuf as it is on disk: not JSON, not
      // compressed input.
      const processor::TraceFormat what = processor::GuessTraceFormat(file->data(), file->size());
      if (error.empty() && (what == processor::TraceFormat::kJson ||
                            what == processor::TraceFormat::kGzip)) {
        error = trace_path + " is " +
                (what == processor::TraceFormat::kJson ? std::string("a Chrome JSON trace")
                                                       : std::string("gzip-compressed")) +
                "; --to " + format->name + " reads protobuf traces as they are on disk" +
                (what == processor::TraceFormat::kGzip ? " (gunzip it first)" : "");
      }
      if (!error.empty())
        file.reset();
    }
  }
  if (!storage && !file) {
    fprintf(err, "%s: %s\n", streams.command, error.c_str());
    return kExitFailure;
  }

  FILE* out = to_stdout ? streams.out : fopen(out_path.c_str(), "wb");
  const std::string out_name = to_stdout ? "stdout" : out_path;
  if (!out) {
    fprintf(err, "%s: cannot write %s: %s\n", streams.command, out_path.c_str(), strerror(errno));
    return kExitFailure;
  }
  // Only a regular file is removed after a failure: never a device (OUT may
  // be /dev/full, and the command may run as root), a pipe or a socket.
  struct stat out_stat;
  const bool remove_on_failure =
      !to_stdout && fstat(fileno(out), &out_stat) == 0 && S_ISREG(out_stat.st_mode);
  bool ok;
  {
    IgnoreSigpipe ignore_sigpipe;
    ok = format->write(Input{storage.get(), file.get(), trace_path}, Output{streams.command, out, out_name, err, &progress},
                       &error);
    if (!to_stdout && fclose(out) != 0 && ok) {
      ok = false;
      error = strerror(errno);
    }
  }
  if (!ok) {
    fprintf(err, "%s: writing %s: %s%s\n", streams.command, out_name.c_str(), error.c_str(),
            remove_on_failure ? " (the partial file is removed)" : "");
    if (remove_on_failure) unlink(out_path.c_str());
    return kExitFailure;
  }
  return kExitOk;
}

int RunConvert(const std::vector<std::string>& args, const LoadTraceFn& load) {
  ConvertStreams streams;
  streams.err_is_terminal = isatty(fileno(stderr)) == 1;
  return RunConvert(args, load, streams);
}

std::string ReportUsage() {
  std::string usage =
      "Usage: ztrace report TRACE [-o OUT.html] [OPTIONS]\n"
      "\n"
      "Writes one self-contained HTML file (no network, no server: open it in a\n"
      "browser, or send it) that shows TRACE (Perfetto protobuf, Chrome JSON or\n"
      "Templight, gzip-compressed or not):\n"
      "  Timeline     every thread (for Templight: every translation unit) with its\n"
      "               nested slices, counters as graphs, flows as arrows and red\n"
      "               marks where data was lost; drag to pan, ctrl+wheel or W/S to\n"
      "               zoom; a million slices stay fluid (what is narrower than a\n"
      "               pixel is drawn as one column per pixel)\n"
      "  Flame graph  stacks merged by name over every thread (click to zoom)\n"
      "  Top slices   by self and by total time\n"
      "  Stats        the trace's stats, losses in red\n"
      "\n"
      "Options:\n"
      "  -o, --output OUT  the HTML file (default: TRACE's file name + .html, here)\n";
  usage += TemplightView::Usage();
  usage +=
      "  -h, --help        this text\n"
      "\n"
      "Exit status: 0 written, 1 TRACE unreadable or OUT not written (a partial\n"
      "OUT is removed), 2 usage error.\n";
  return usage;
}

int RunReport(const std::vector<std::string>& args, const LoadTraceFn& load,
              const ConvertStreams& streams) {
  std::vector<std::string> convert_args;
  std::string trace, output;
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      fputs(ReportUsage().c_str(), streams.out);
      return kExitOk;
    }
    if (arg == "-o" || arg == "--output") {
      if (i + 1 >= args.size() || args[i + 1].empty()) {
        fprintf(streams.err, "ztrace report: %s needs a file\n\n%s", arg.c_str(),
                ReportUsage().c_str());
        return kExitUsage;
      }
      output = args[++i];
    } else if (arg == "--blacklist" && i + 1 < args.size()) {
      convert_args.push_back(arg);
      convert_args.push_back(args[++i]);
    } else if (arg == "--instantiations-only") {
      convert_args.push_back(arg);
    } else if (!arg.empty() && arg[0] == '-') {
      fprintf(streams.err, "ztrace report: unknown option '%s'\n\n%s", arg.c_str(),
              ReportUsage().c_str());
      return kExitUsage;
    } else if (trace.empty()) {
      trace = arg;
    } else {
      fprintf(streams.err, "ztrace report: one trace at a time ('%s' is extra)\n\n%s",
              arg.c_str(), ReportUsage().c_str());
      return kExitUsage;
    }
  }
  if (trace.empty()) {
    fprintf(streams.err, "ztrace report: which trace?\n\n%s", ReportUsage().c_str());
    return kExitUsage;
  }
  if (output.empty()) {
    const size_t slash = trace.rfind('/');
    output = (slash == std::string::npos ? trace : trace.substr(slash + 1)) + ".html";
  }
  convert_args.insert(convert_args.begin(), {"--to", "html", "--", trace, output});
  // Options before "--": move them ahead of it.
  std::vector<std::string> ordered(convert_args.begin() + 5, convert_args.end());
  ordered.insert(ordered.end(), convert_args.begin(), convert_args.begin() + 5);
  ConvertStreams report_streams = streams;
  report_streams.command = "ztrace report";
  const int status = RunConvert(ordered, load, report_streams);
  if (status == kExitOk && output != "-")
    fprintf(streams.err, "ztrace report: wrote %s; open it in a browser\n", output.c_str());
  return status;
}

}  // namespace ztrace
}  // namespace zt
