// How `ztrace query` prints result rows: an aligned table (the default,
// for people), CSV (RFC 4180, for spreadsheets and scripts) or JSON (an
// array of objects, one per row, for programs).
//
//   QueryPrinter printer(QueryFormat::kCsv, stdout);
//   printer.Begin({"name", "dur"});
//   printer.Row(row);  // ...
//   printer.End();
//
// CSV and JSON stream each row as it comes; the table holds the rows until
// End() to size its columns. NULL prints as "[NULL]" in a table (as
// upstream's shell prints it), an empty field in CSV, null in JSON.

#ifndef ZT_SRC_CMD_ZTRACE_QUERY_OUTPUT_H_
#define ZT_SRC_CMD_ZTRACE_QUERY_OUTPUT_H_

#include <cstdio>
#include <string>
#include <vector>

#include "zt/processor/trace_processor.h"

namespace zt {
namespace ztrace {

enum class QueryFormat { kTable, kCsv, kJson };

class QueryPrinter {
 public:
  QueryPrinter(QueryFormat format, FILE* out) : format_(format), out_(out) {}

  // Once, before the rows. Begin() again starts another result (the
  // previous one is ended).
  void Begin(const std::vector<std::string>& columns);
  void Row(const std::vector<processor::SqlValue>& row);
  // Flushes a table; closes the JSON array. Safe to call twice.
  void End();

  size_t rows() const { return rows_; }

 private:
  QueryFormat format_;
  FILE* out_;
  bool open_ = false;
  size_t rows_ = 0;
  std::vector<std::string> columns_;
  std::vector<std::vector<std::string>> table_;  // kTable: cells, as text.
  std::vector<bool> numeric_;                    // kTable: right-aligned.
};

// One field as CSV writes it: quoted when it holds a comma, a quote, or a
// line break (quotes doubled).
std::string CsvField(const std::string& text);
// A JSON string literal, with the escapes JSON requires.
std::string JsonString(const std::string& text);

}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_QUERY_OUTPUT_H_
