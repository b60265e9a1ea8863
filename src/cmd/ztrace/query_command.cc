#include "src/cmd/ztrace/query_command.h"

#include <glob.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#include "src/cmd/ztrace/exit_codes.h"
#include "src/cmd/ztrace/trace_glob.h"
#include "src/cmd/ztrace/import_progress.h"

namespace zt {
namespace ztrace {
namespace {

using processor::QueryResult;
using processor::SqlValue;
using processor::TraceProcessor;

constexpr size_t kHistoryKept = 1000;

constexpr char kShellHelp[] =
    R"(Statements end with ';' at the end of a line and may span lines.
  .tables                  the tables and views (the trace's and the session's)
  .schema [NAME]           their columns, as CREATE statements
  .mode table|csv|json     how results print
  .history                 the statements entered (this and earlier sessions)
  !N                       run history entry N again
  .help                    this text
  .quit, .exit             leave (so does end of input, Ctrl-D)
)";

// The tables and views a query may name: the trace's, and those this
// session created (CREATE PERFETTO TABLE, a module's views, ...), sorted.
std::vector<std::string> AllTables(TraceProcessor* tp) {
  std::vector<std::string> names = tp->TableNames();
  const QueryResult created = tp->Query(
      "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') "
      "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_\\_%' ESCAPE '\\'");
  for (const auto& row : created.rows) {
    const std::string name = row[0].ToString();
    if (std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// `name`'s columns as the sqlite3 shell's .schema shows a table:
// "CREATE TABLE slice(id INTEGER, ts INTEGER, ...);". False if there is no
// such table.
bool PrintSchema(TraceProcessor* tp, const std::string& name, FILE* out) {
  std::string quoted = "'";
  for (char c : name)
    quoted += c == '\'' ? std::string("''") : std::string(1, c);
  quoted += "'";
  const QueryResult columns = tp->Query("SELECT name, type FROM pragma_table_info(" + quoted + ")");
  if (!columns.ok() || columns.rows.empty())
    return false;
  std::string line = "CREATE TABLE " + name + "(";
  for (size_t i = 0; i < columns.rows.size(); i++) {
    line += (i ? ", " : "") + columns.rows[i][0].ToString();
    const std::string type = columns.rows[i][1].ToString();
    if (!type.empty())
      line += " " + type;
  }
  fprintf(out, "%s);\n", line.c_str());
  return true;
}

std::string Trim(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos)
    return "";
  const size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

bool IsTerminal(FILE* stream) {
  return isatty(fileno(stream)) == 1;
}

// Runs |sql| and prints every statement's result (columns even without
// rows). False (and the error printed) on failure.
bool RunAndPrint(TraceProcessor* tp, const std::string& sql, QueryFormat format, FILE* out,
                 FILE* err) {
  QueryPrinter printer(format, out);
  std::string error;
  const bool ok = tp->Query(
      sql, [&printer](const std::vector<std::string>& columns) { printer.Begin(columns); },
      [&printer](const std::vector<std::string>&, const std::vector<SqlValue>& row) {
        printer.Row(row);
        return true;
      },
      &error);
  printer.End();
  fflush(out);
  if (!ok)
    fprintf(err, "error: %s\n", error.c_str());
  return ok;
}

bool ParseFormat(const std::string& name, QueryFormat* format) {
  if (name == "table")
    *format = QueryFormat::kTable;
  else if (name == "csv")
    *format = QueryFormat::kCsv;
  else if (name == "json")
    *format = QueryFormat::kJson;
  else
    return false;
  return true;
}

}  // namespace

std::string QueryUsage() {
  return R"(Usage: ztrace query [OPTIONS] TRACE [SQL]
       ztrace query [OPTIONS] --batch GLOB SQL

Runs SQL on a trace (Perfetto's protobuf format, written by zerotrace or
upstream; Chrome JSON; or Templight; any of them gzip-compressed) with the
tables of Perfetto's trace processor: slice, counter, track, thread_track,
process_track, counter_track, thread, process, flow, args, stats,
metadata, trace_bounds (and, for Templight, templight_instantiation and
templight_unit). The SQL
is PerfettoSQL, as upstream's: EXTRACT_ARG, ancestor_slice,
CREATE PERFETTO TABLE/FUNCTION/MACRO, INCLUDE PERFETTO MODULE, ...; what
of it is supported: docs/sql.md. Without SQL, opens an interactive prompt
(.help there); its history is kept in ~/.ztrace_history.

Options:
  --csv           print CSV (a header line, then one line per row)
  --json          print a JSON array of objects, one per row
  --batch GLOB    run SQL on every trace matching GLOB (quote it), in
                  parallel; the rows of all traces, each led by a `trace`
                  column with its path
  -j N            traces read at once with --batch (default 2)
  --drop-after-loss  read losses as upstream does: after a
                  previous_packet_dropped mark, drop every event that needs
                  interned data until the next clear (by default those are
                  kept, with the names interned before the loss)
  -h, --help      this text
  --              the end of options (SQL text with spaces, such as one
                  that starts with a "-- comment", never needs it)

Examples:
  ztrace query trace.pftrace "SELECT name, SUM(dur) FROM slice GROUP BY name"
  ztrace query --csv --batch 'traces/*.pftrace' "SELECT COUNT(*) AS n FROM slice"
  ztrace query main.cpp.trace.pbf "SELECT s.name, s.dur, t.kind_name, t.file, t.line
      FROM slice s JOIN templight_instantiation t ON t.slice_id = s.id
      ORDER BY s.dur DESC LIMIT 10"      # Templight: a slice per instantiation

Exit codes: 0 done, 1 a trace unreadable or an SQL error, 2 bad usage.
)";
}

std::string DefaultHistoryPath() {
  const char* home = getenv("HOME");
  if (!home || !*home)
    return "";
  return std::string(home) + "/.ztrace_history";
}

int RunQueryShell(TraceProcessor* tp, QueryFormat format, FILE* in, FILE* out, FILE* err,
                  const std::string& history_path) {
  const bool interactive = IsTerminal(in);
  std::vector<std::string> history;
  if (!history_path.empty()) {
    if (FILE* file = fopen(history_path.c_str(), "r")) {
      char* line = nullptr;
      size_t capacity = 0;
      ssize_t size;
      while ((size = getline(&line, &capacity, file)) > 0) {
        const std::string entry = Trim(std::string(line, static_cast<size_t>(size)));
        if (!entry.empty())
          history.push_back(entry);
      }
      free(line);
      fclose(file);
      if (history.size() > kHistoryKept)
        history.erase(history.begin(), history.end() - kHistoryKept);
    }
  }
  FILE* history_file = history_path.empty() ? nullptr : fopen(history_path.c_str(), "a");
  auto remember = [&](const std::string& statement) {
    std::string flat = statement;
    for (char& c : flat) {
      if (c == '\n' || c == '\r')
        c = ' ';
    }
    history.push_back(flat);
    if (history_file) {
      fprintf(history_file, "%s\n", flat.c_str());
      fflush(history_file);
    }
  };

  if (interactive)
    fputs("ztrace query: SQL statements end with ';'. .help for more, .quit to leave.\n", out);
  bool failed = false;
  std::string pending;
  char* line = nullptr;
  size_t capacity = 0;
  for (;;) {
    if (interactive) {
      fputs(pending.empty() ? "> " : "...> ", out);
      fflush(out);
    }
    const ssize_t size = getline(&line, &capacity, in);
    if (size < 0)
      break;
    const std::string text = Trim(std::string(line, static_cast<size_t>(size)));
    if (pending.empty()) {
      if (text.empty())
        continue;
      if (text == ".quit" || text == ".exit")
        break;
      if (text == ".help") {
        fputs(kShellHelp, out);
        continue;
      }
      if (text == ".tables") {
        for (const std::string& name : AllTables(tp))
          fprintf(out, "%s\n", name.c_str());
        continue;
      }
      if (text == ".schema" || text.rfind(".schema ", 0) == 0) {
        const std::string name = Trim(text.substr(7));
        if (name.empty()) {
          for (const std::string& table : AllTables(tp))
            PrintSchema(tp, table, out);
        } else if (!PrintSchema(tp, name, out)) {
          fprintf(err, "error: no table or view named %s (.tables lists them)\n", name.c_str());
          failed = true;
        }
        continue;
      }
      if (text == ".history") {
        for (size_t i = 0; i < history.size(); i++)
          fprintf(out, "%5zu  %s\n", i + 1, history[i].c_str());
        continue;
      }
      if (text.rfind(".mode", 0) == 0) {
        if (!ParseFormat(Trim(text.substr(5)), &format))
          fprintf(err, "error: .mode takes table, csv or json\n");
        continue;
      }
      if (text[0] == '.') {
        fprintf(err, "error: unknown command %s (.help lists them)\n", text.c_str());
        failed = true;
        continue;
      }
      if (text[0] == '!') {
        char* end = nullptr;
        const unsigned long n = strtoul(text.c_str() + 1, &end, 10);
        if (!end || *end || n == 0 || n > history.size()) {
          fprintf(err, "error: no history entry %s\n", text.c_str() + 1);
          failed = true;
          continue;
        }
        const std::string statement = history[n - 1];
        if (interactive)
          fprintf(out, "%s\n", statement.c_str());
        remember(statement);
        failed = !RunAndPrint(tp, statement, format, out, err) || failed;
        continue;
      }
    }
    pending += pending.empty() ? text : "\n" + text;
    if (!pending.empty() && pending.back() == ';') {
      remember(pending);
      failed = !RunAndPrint(tp, pending, format, out, err) || failed;
      pending.clear();
    }
  }
  free(line);
  if (!Trim(pending).empty()) {
    // End of input after a statement without its ';'.
    remember(pending);
    failed = !RunAndPrint(tp, pending, format, out, err) || failed;
  }
  if (history_file)
    fclose(history_file);
  if (interactive)
    fputs("\n", out);
  return failed && !interactive ? kExitFailure : kExitOk;
}

int RunQueryBatch(const std::vector<std::string>& traces, const std::string& sql,
                  QueryFormat format, int jobs, const processor::OpenOptions& open_options,
                  FILE* out, FILE* err) {
  struct Outcome {
    QueryResult result;
    std::string open_error;
  };
  std::vector<Outcome> outcomes(traces.size());
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  std::mutex progress_lock;
  const bool progress = IsTerminal(err);
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < traces.size();) {
      std::string error;
      std::unique_ptr<TraceProcessor> tp =
          TraceProcessor::Open(traces[i], open_options, &error);
      if (!tp)
        outcomes[i].open_error = error;
      else
        outcomes[i].result = tp->Query(sql);
      const size_t finished = ++done;
      if (progress) {
        std::lock_guard<std::mutex> lock(progress_lock);
        fprintf(err, "\rqueried %zu of %zu traces", finished, traces.size());
        fflush(err);
      }
    }
  };
  const size_t threads = std::min(traces.size(), static_cast<size_t>(std::max(jobs, 1)));
  std::vector<std::thread> pool;
  for (size_t i = 1; i < threads; i++)
    pool.emplace_back(work);
  work();
  for (std::thread& thread : pool)
    thread.join();
  if (progress)
    fputs("\n", err);

  bool failed = false;
  bool begun = false;
  std::vector<std::string> columns;
  QueryPrinter printer(format, out);
  std::vector<SqlValue> row;
  for (size_t i = 0; i < traces.size(); i++) {
    const Outcome& outcome = outcomes[i];
    if (!outcome.open_error.empty() || !outcome.result.ok()) {
      fprintf(err, "ztrace query: %s: %s\n", traces[i].c_str(),
              outcome.open_error.empty() ? outcome.result.error.c_str()
                                         : outcome.open_error.c_str());
      failed = true;
      continue;
    }
    if (!begun) {
      columns = {"trace"};
      columns.insert(columns.end(), outcome.result.columns.begin(),
                     outcome.result.columns.end());
      printer.Begin(columns);
      begun = true;
    } else if (outcome.result.columns.size() + 1 != columns.size()) {
      fprintf(err, "ztrace query: %s: the result has other columns than the first trace's\n",
              traces[i].c_str());
      failed = true;
      continue;
    }
    for (const auto& cells : outcome.result.rows) {
      row.assign(1, SqlValue());
      row[0].type = SqlValue::kText;
      row[0].text = traces[i];
      row.insert(row.end(), cells.begin(), cells.end());
      printer.Row(row);
    }
  }
  printer.End();
  if (fflush(out) != 0 || ferror(out)) {
    fprintf(err, "ztrace query: cannot write the result\n");
    return kExitFailure;
  }
  return failed ? kExitFailure : kExitOk;
}

int RunQuery(const std::vector<std::string>& args, FILE* in, FILE* out, FILE* err) {
  QueryFormat format = QueryFormat::kTable;
  std::string batch;
  bool has_batch = false;
  int jobs = 2;
  processor::OpenOptions open_options;
  std::vector<std::string> positional;
  auto usage_error = [err](const std::string& message) {
    fprintf(err, "ztrace query: %s\n\n%s", message.c_str(), QueryUsage().c_str());
    return kExitUsage;
  };
  bool options_done = false;
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& arg = args[i];
    // After "--", and for text with spaces (SQL that starts with a "--"
    // comment, as upstream's .sql files do), no option is looked for.
    if (options_done || arg.find_first_of(" \t\n") != std::string::npos) {
      positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      fputs(QueryUsage().c_str(), out);
      return kExitOk;
    }
    if (arg == "--csv") {
      format = QueryFormat::kCsv;
    } else if (arg == "--json") {
      format = QueryFormat::kJson;
    } else if (arg == "--drop-after-loss") {
      open_options.drop_events_after_loss = true;
    } else if (arg == "--batch") {
      if (i + 1 >= args.size())
        return usage_error("--batch needs a glob");
      batch = args[++i];
      has_batch = true;
    } else if (arg == "-j") {
      char* end = nullptr;
      const long value = i + 1 < args.size() ? strtol(args[i + 1].c_str(), &end, 10) : 0;
      if (value < 1 || value > 256 || !end || *end)
        return usage_error("-j needs a number of threads (1 to 256)");
      jobs = static_cast<int>(value);
      i++;
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      return usage_error("unknown option '" + arg + "'");
    } else {
      positional.push_back(arg);
    }
  }

  if (has_batch) {
    if (positional.size() != 1)
      return usage_error("--batch takes a glob and one SQL text");
    std::vector<std::string> traces;
    std::string error;
    if (!ExpandTraceGlob(batch, &traces, &error)) {
      fprintf(err, "ztrace query: %s\n", error.c_str());
      return kExitFailure;
    }
    return RunQueryBatch(traces, positional[0], format, jobs, open_options, out, err);
  }

  if (positional.empty())
    return usage_error("which trace?");
  if (positional.size() > 2)
    return usage_error("one trace and one SQL text ('" + positional[2] +
                       "' is extra; quote the SQL)");
  const std::string& path = positional[0];
  processor::OpenOptions options = open_options;
  ImportProgress progress(err, path);
  options.progress = progress.callback();
  std::string error;
  std::unique_ptr<TraceProcessor> tp = TraceProcessor::Open(path, options, &error);
  progress.Done();
  if (!tp) {
    fprintf(err, "ztrace query: %s\n", error.c_str());
    return kExitFailure;
  }
  if (positional.size() == 1)
    return RunQueryShell(tp.get(), format, in, out, err, DefaultHistoryPath());
  if (!RunAndPrint(tp.get(), positional[1], format, out, err))
    return kExitFailure;
  if (ferror(out)) {
    fprintf(err, "ztrace query: cannot write the result\n");
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace ztrace
}  // namespace zt
