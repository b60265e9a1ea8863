// Rows packed into one BLOB, so that a whole table can be one argument of
// a table-valued function: the aggregate `__zt_pack_rows(a, b, ...)` packs
// the rows it sees (in the order it sees them) and the operators unpack
// them. The standard library's macros use it as
//
//   __zt_graph_search('dfs', (SELECT __zt_pack_rows(src, dst) FROM edges), ...)
//
// so that the inputs may be any table, view, subquery or CTE in scope.
//
// Format: one byte, the values per row (1 to 64), then each value as a
// type byte (0 NULL, 1 integer, 2 real, 3 text) and its payload (8 bytes
// little-endian; text: a 4-byte length and the bytes). A BLOB made by
// anything else is checked as it is read: bad bytes are an error, never a
// read out of bounds. An aggregate over no rows gives NULL (an empty
// table). Cost: 9 bytes per integer; the packer grows one buffer.

#ifndef ZT_SRC_PROCESSOR_SQL_OPERATORS_PACKED_ROWS_H_
#define ZT_SRC_PROCESSOR_SQL_OPERATORS_PACKED_ROWS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "src/processor/sql/operators/computed_table_function.h"

struct sqlite3;
struct sqlite3_value;

namespace zt {
namespace processor {
namespace sql {

// Registers on `db` the aggregate __zt_pack_rows and the table function
// __zt_unpack_rows(rows), which gives packed rows back as columns c0 to
// c7 (NULL past a row's values): C++ hands a table to a statement it runs
// as one bound BLOB, however many rows.
bool RegisterPackRows(sqlite3* db, std::string* error);

// Packs rows of `arity` values (1 to 64) as __zt_pack_rows does.
class PackedRowsWriter {
 public:
  explicit PackedRowsWriter(size_t arity);
  // One value of the current row (rows are `arity` values in turn).
  void Add(const ComputedValue& value);
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

// Reads a packed BLOB row by row.
class PackedRowsReader {
 public:
  // `value` is the argument holding the BLOB (NULL reads as no rows).
  // `what` names it in errors ("the edges").
  PackedRowsReader(sqlite3_value* value, std::string what);

  // Values per row (0 for NULL), or false with *error for a value that is
  // neither NULL nor a packed BLOB of `min`..`max` values per row.
  bool CheckArity(size_t min, size_t max, std::string* error);
  size_t arity() const { return arity_; }

  // The next row into *row; false at the end (then `error` says whether the
  // bytes were bad: empty if the rows simply ended).
  bool Next(std::vector<ComputedValue>* row, std::string* error);

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t pos_ = 0;
  size_t arity_ = 0;
  bool is_blob_ = false;
  bool is_null_ = false;
  std::string what_;
};

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_OPERATORS_PACKED_ROWS_H_
