// A read-only columnar table as the SQL layer sees it: named columns, each
// a view of one vector of the trace model (no copy), with what the query
// planner can use: the row id (id = row), columns sorted by row (ts), and
// key columns (track_id, name, ...) for which an index is built on first
// use. TableModule (table_module.h) turns it into an SQLite virtual table.
//
//   ColumnTable slice("slice", storage.slice.size());
//   slice.AddRowId("id");
//   slice.AddInt64("ts", storage.slice.ts.data(), ColumnTable::kSorted);
//   slice.AddStringId("name", storage.slice.name.data(), &storage.strings);
//
// Null sentinels of the model (kNullInt, kNullId, kNullStringId, 2 for an
// unknown bool) read as NULL. The vectors must outlive the table and not
// change. Thread-compatible: the lazily built indexes are not locked.

#ifndef ZT_SRC_PROCESSOR_SQL_COLUMN_TABLE_H_
#define ZT_SRC_PROCESSOR_SQL_COLUMN_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "src/processor/storage/string_pool.h"

namespace zt {
namespace processor {
namespace sql {

// One cell, as the SQL layer hands it to SQLite. Text views point into the
// string pool or static storage.
struct Cell {
  enum Type : uint8_t { kNull, kInt, kReal, kText };
  Type type = kNull;
  int64_t i = 0;
  double d = 0;
  std::string_view text;
};

enum class ColumnKind : uint8_t {
  kRowId,     // The row number itself.
  kInt64,     // int64_t, kNullInt = NULL.
  kUint32Id,  // uint32_t, kNullId = NULL.
  kUint32,    // uint32_t, never NULL.
  kStringId,  // StringId into a pool, kNullStringId = NULL.
  kDouble,    // double.
  kBool,      // uint8_t 0 / 1, 2 = NULL.
  kCString,   // const char*, nullptr = NULL.
  kNullOnly,  // Always NULL (upstream columns the model has no data for).
  kCustom,    // A function of the row (values that depend on another column).
};

struct Column;
using CustomFn = Cell (*)(const void* data, uint32_t row);

struct Column {
  std::string name;
  ColumnKind kind;
  const void* data = nullptr;
  const StringPool* pool = nullptr;     // kStringId only.
  CustomFn custom = nullptr;            // kCustom only.
  const char* declared_type = nullptr;  // kNullOnly and kCustom.
  bool sorted = false;                  // Non-decreasing by row, no NULL (int64 only).
  // SQLite's declared type: "INTEGER", "REAL" or "TEXT".
  const char* DeclaredType() const;
  Cell Get(uint32_t row) const;
  // The value at `index` of `values`, a copy of this column's vector in
  // another order (see ColumnTable::ValuesInOrderOf); `row` for the kinds
  // that are no vector.
  Cell GetFrom(const void* values, uint32_t index, uint32_t row) const;
};

// The bytes of one value of a column stored as a vector; 0 for the kinds
// that are not (row id, custom, null).
size_t ValueWidth(ColumnKind kind);

// Memory for an index's arrays: from 2 MiB up, anonymous pages, huge
// where the kernel allows (MADV_HUGEPAGE); below, the heap. Zero-filled.
class LargeBuffer {
 public:
  LargeBuffer() = default;
  ~LargeBuffer();
  LargeBuffer(const LargeBuffer&) = delete;
  LargeBuffer& operator=(const LargeBuffer&) = delete;
  void Allocate(size_t size);  // Once; aborts when out of memory.
  char* data() const { return data_; }

 private:
  char* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
};

class ColumnTable {
 public:
  enum Flags : uint8_t { kNone = 0, kSorted = 1 };

  ColumnTable(std::string name, size_t rows);
  ~ColumnTable();
  ColumnTable(const ColumnTable&) = delete;
  ColumnTable& operator=(const ColumnTable&) = delete;

  void AddRowId(const std::string& name);
  void AddInt64(const std::string& name, const int64_t* data, Flags flags = kNone);
  void AddUint32Id(const std::string& name, const uint32_t* data);
  void AddUint32(const std::string& name, const uint32_t* data);
  void AddStringId(const std::string& name, const StringId* data, const StringPool* pool);
  void AddDouble(const std::string& name, const double* data);
  void AddBool(const std::string& name, const uint8_t* data);
  void AddCString(const std::string& name, const char* const* data);
  // declared_type: "INTEGER", "REAL" or "TEXT".
  void AddNull(const std::string& name, const char* declared_type);
  void AddCustom(const std::string& name, const char* declared_type, CustomFn fn,
                 const void* data);

  const std::string& name() const { return name_; }
  uint32_t rows() const { return rows_; }
  const std::vector<Column>& columns() const { return columns_; }
  const Column& column(size_t i) const { return columns_[i]; }
  // "CREATE TABLE x(a INTEGER, ...)" for sqlite3_declare_vtab.
  std::string Schema() const;

  // Rows grouped by key: rows[start[k] .. start[k+1]) have rank k and the
  // value key_of_rank[k] (in the column's own encoding: kNullId,
  // kNullStringId for NULL), ranks ordered as SQLite orders values.
  struct KeyIndex {
    std::vector<uint32_t> rank_of_slot;  // Slot (SlotOf) -> rank; ~0u: absent.
    std::vector<uint32_t> key_of_rank;
    std::vector<uint32_t> start;  // Per rank, plus the end.
    LargeBuffer rows_buffer;      // rows() uint32_t: the rows, rank by rank.
    const uint32_t* rows() const {
      return reinterpret_cast<const uint32_t*>(rows_buffer.data());
    }
    // String columns: text -> slot, for the keys present.
    std::unordered_map<std::string_view, uint32_t> slot_of_text;
  };
  // The column's index, built on first use: O(rows).
  const KeyIndex& Index(size_t col) { return BuildKeyIndex(col); }
  // The slot of a key of a key-indexed column (KeyIndex::rank_of_slot's
  // index): NULL is slot 0 for every kind.
  static uint32_t SlotOf(ColumnKind kind, uint32_t key) {
    if (kind == ColumnKind::kStringId)
      return key;
    if (kind == ColumnKind::kUint32Id && key == UINT32_MAX)  // kNullId
      return 0;
    return key + 1;
  }

  // Whether an equality index / an order by value can be built for the
  // column: uint32 id and string id columns. The index counts keys in an
  // array as long as the largest key: meant for the model's ids, which are
  // dense (row numbers, string ids, depths), not for arbitrary numbers.
  bool HasKeyIndex(size_t col) const;
  // Rows whose key equals `key` (kNullId / kNullStringId: the NULL rows,
  // which SQL equality never matches), ascending. Built on first use: O(rows).
  const uint32_t* RowsWithKey(size_t col, uint32_t key, size_t* count);
  // The same for a string column, by text (no string ever interned: none).
  const uint32_t* RowsWithText(size_t col, std::string_view text, size_t* count);
  // Every row, ordered by the column's value as SQLite orders it (NULL
  // first, strings by bytes, ties by row). Built on first use: O(rows).
  // rows() entries.
  const uint32_t* RowsByValue(size_t col);
  // A copy of column `col`'s values in the order of RowsByValue(order_col)
  // (a covering index: rows delivered in that order read it sequentially
  // instead of one cache miss per value). Built on first use with one
  // gather pass, then kept: rows() * ValueWidth bytes. Null for columns
  // that are not vectors.
  const void* ValuesInOrderOf(size_t order_col, size_t col);
  // The rows [lo, hi) of a sorted column with lo <= value <= hi (binary
  // search).
  uint32_t LowerBound(size_t col, int64_t value) const;
  uint32_t UpperBound(size_t col, int64_t value) const;

 private:
  const uint32_t* RowsWithSlot(const KeyIndex& index, uint32_t slot, size_t* count);
  const KeyIndex& BuildKeyIndex(size_t col);

  std::string name_;
  uint32_t rows_;
  std::vector<Column> columns_;
  std::vector<std::unique_ptr<KeyIndex>> key_indexes_;  // Per column.
  std::map<std::pair<size_t, size_t>, LargeBuffer> gathered_;
};

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_COLUMN_TABLE_H_
