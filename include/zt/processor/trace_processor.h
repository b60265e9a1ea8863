// SQL over a trace: loads a protobuf trace (zerotrace's or upstream
// Perfetto's, v14 and later), a Chrome JSON trace, or a Templight trace of
// clang's template instantiations, any of them gzip-compressed, and
// answers SQLite queries on tables named as upstream
// Perfetto's trace processor names them, so that its common queries work
// here unchanged:
//
//   std::string error;
//   auto tp = zt::processor::TraceProcessor::Open("trace.pftrace", {}, &error);
//   if (!tp) Die(error);                    // "cannot open ...: No such file",
//                                           // "x.db is an SQLite database,
//                                           // not a ... trace"
//   zt::processor::QueryResult r =
//       tp->Query("SELECT name, SUM(dur) FROM slice GROUP BY name");
//   if (!r.ok()) Die(r.error);              // SQLite's message, e.g. "no such
//                                           // column: nmae"
//   for (const auto& row : r.rows) Use(row[0].text, row[1].int_value);
//
// Tables (docs/design/trace_processor.md, stage 6): slice, counter, track,
// thread_track, process_track, counter_track, thread, process, flow, args,
// stats, metadata; and for Templight input templight_instantiation (kind,
// location, origin, memory of each slice, joined by slice_id) and
// templight_unit (docs/design/templight.md). Absent values (a slice without
// parent, a thread of no known process) are SQL NULL.
//
// Cost: Open() reads the whole trace into memory-resident columns (see the
// design note for the figures); the tables are then exposed to SQLite
// without copying (virtual tables). Lookups by id, by a range of ts and by
// track_id are logarithmic or indexed; `GROUP BY name` and `ORDER BY name`
// stream rows already grouped (measured: 1.5 s for 20 M slices on 2 cores).
// The indexes this needs are built on first use, O(rows), and kept: 4 bytes
// a row per key column used, plus a copy of each column read in that order.
// Query() with the QueryResult form holds every row in memory; the
// callback form streams them.
//
// Thread-safety: thread-compatible. One query at a time per TraceProcessor
// (calls from several threads need a lock of the caller's); distinct
// TraceProcessors are independent and may run queries concurrently.

#ifndef ZT_PROCESSOR_TRACE_PROCESSOR_H_
#define ZT_PROCESSOR_TRACE_PROCESSOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace zt {
namespace processor {

// One cell of a result: SQLite's storage classes. A BLOB's bytes are in
// `text`, as a string's are.
struct SqlValue {
  enum Type : uint8_t { kNull, kInt, kReal, kText, kBlob };
  Type type = kNull;
  int64_t int_value = 0;
  double real_value = 0;
  std::string text;

  bool is_null() const { return type == kNull; }
  // The cell as the sqlite3 shell prints it: "" for NULL, "%lld", "%.17g"
  // trimmed the way SQLite does ("1.5", "2.0"), the text (or bytes) itself.
  std::string ToString() const;
};

struct QueryResult {
  std::vector<std::string> columns;
  std::vector<std::vector<SqlValue>> rows;
  // Empty on success; else why the statement failed (bad SQL: SQLite's own
  // message, which names the unknown table or column).
  std::string error;
  bool ok() const { return error.empty(); }
};

struct OpenOptions {
  // (bytes read, total bytes) about every 64 MiB and at the end of the
  // import; may be empty.
  std::function<void(uint64_t done, uint64_t total)> progress;
  // After a loss (a previous_packet_dropped mark), events that need
  // interned data are kept by default: names interned before the loss
  // still hold (an id interned nowhere is NULL). True reads as upstream
  // Perfetto does: every such event is dropped until the next clear.
  bool drop_events_after_loss = false;
};

class TraceProcessor {
 public:
  // Called once per result row, after `columns` has been filled (the same
  // vectors each call; the cells are valid during the call only). Return
  // false to stop early (not an error).
  using RowCallback = std::function<bool(const std::vector<std::string>& columns,
                                         const std::vector<SqlValue>& row)>;

  // Imports the trace at `path`. Null with *error set when the file cannot
  // be read or is not a trace (the error names what it looks like: an
  // SQLite database, zip, gzip-compressed text, ...); a damaged trace loads its valid
  // part (see the stats table).
  static std::unique_ptr<TraceProcessor> Open(const std::string& path,
                                              const OpenOptions& options, std::string* error);

  virtual ~TraceProcessor();

  // Runs `sql`: one statement, or several separated by ';', run in turn
  // (each statement's rows are delivered, with its own columns). True on
  // success; false with *error (SQLite's message, e.g. "no such table:
  // slcie") at the first failing statement, possibly after some rows were
  // delivered. Empty SQL is an error.
  bool Query(const std::string& sql, const RowCallback& on_row, std::string* error);
  // The same, with |on_columns| called once per statement that returns
  // columns, before its rows (also when it has none); it may be empty.
  using ColumnsCallback = std::function<void(const std::vector<std::string>& columns)>;
  virtual bool Query(const std::string& sql, const ColumnsCallback& on_columns,
                     const RowCallback& on_row, std::string* error) = 0;
  // The same, collected: the columns and rows of the last statement that
  // returns columns (its columns even when it has no rows).
  virtual QueryResult Query(const std::string& sql) = 0;

  // Writes every table as a real SQLite table (not virtual) into a new
  // database file at `path`, which the `sqlite3` shell and any SQLite
  // library open. An existing file is replaced once the new one is
  // complete; a failure (a full disk) leaves it as it was. Cost: one pass
  // over every table, written in a single transaction.
  virtual bool ExportDatabase(const std::string& path, std::string* error) = 0;

  // The tables and views a query may name, sorted.
  virtual std::vector<std::string> TableNames() = 0;

 protected:
  TraceProcessor() = default;
  TraceProcessor(const TraceProcessor&) = delete;
  TraceProcessor& operator=(const TraceProcessor&) = delete;
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_PROCESSOR_TRACE_PROCESSOR_H_
