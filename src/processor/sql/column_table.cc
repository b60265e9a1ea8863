#include "src/processor/sql/column_table.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {
namespace sql {
namespace {

constexpr uint32_t kAbsent = std::numeric_limits<uint32_t>::max();


// The key of a slot (SlotOf's inverse).
uint32_t KeyOf(ColumnKind kind, uint32_t slot) {
  if (kind == ColumnKind::kStringId)
    return slot;
  if (kind == ColumnKind::kUint32Id && slot == 0)
    return kNullId;
  return slot - 1;
}

}  // namespace

const char* Column::DeclaredType() const {
  switch (kind) {
    case ColumnKind::kDouble:
      return "REAL";
    case ColumnKind::kStringId:
    case ColumnKind::kCString:
      return "TEXT";
    case ColumnKind::kNullOnly:
    case ColumnKind::kCustom:
      return declared_type;
    default:
      return "INTEGER";
  }
}

Cell Column::Get(uint32_t row) const {
  if (kind == ColumnKind::kCustom)
    return custom(data, row);
  return GetFrom(data, row, row);
}

Cell Column::GetFrom(const void* values, uint32_t index, uint32_t row) const {
  Cell cell;
  switch (kind) {
    case ColumnKind::kRowId:
      cell.type = Cell::kInt;
      cell.i = row;
      break;
    case ColumnKind::kInt64: {
      const int64_t v = static_cast<const int64_t*>(values)[index];
      if (v != kNullInt) {
        cell.type = Cell::kInt;
        cell.i = v;
      }
      break;
    }
    case ColumnKind::kUint32Id: {
      const uint32_t v = static_cast<const uint32_t*>(values)[index];
      if (v != kNullId) {
        cell.type = Cell::kInt;
        cell.i = v;
      }
      break;
    }
    case ColumnKind::kUint32:
      cell.type = Cell::kInt;
      cell.i = static_cast<const uint32_t*>(values)[index];
      break;
    case ColumnKind::kStringId: {
      const StringId id = static_cast<const StringId*>(values)[index];
      if (id != kNullStringId) {
        cell.type = Cell::kText;
        cell.text = pool->Get(id);
      }
      break;
    }
    case ColumnKind::kDouble:
      cell.type = Cell::kReal;
      cell.d = static_cast<const double*>(values)[index];
      break;
    case ColumnKind::kBool: {
      const uint8_t v = static_cast<const uint8_t*>(values)[index];
      if (v <= 1) {
        cell.type = Cell::kInt;
        cell.i = v;
      }
      break;
    }
    case ColumnKind::kCString: {
      const char* v = static_cast<const char* const*>(values)[index];
      if (v) {
        cell.type = Cell::kText;
        cell.text = v;
      }
      break;
    }
    case ColumnKind::kNullOnly:
      break;
    case ColumnKind::kCustom:
      return custom(data, row);
  }
  return cell;
}

LargeBuffer::~LargeBuffer() {
  if (mapped_)
    munmap(data_, size_);
  else
    free(data_);
}

void LargeBuffer::Allocate(size_t size) {
  // Large arrays in whole 2 MiB pages, so that the kernel may back them
  // with huge pages: fewer page faults while filling, fewer TLB misses
  // while reading out of order. Small ones from the heap.
  constexpr size_t kHugePage = 2u << 20;
  void* p = nullptr;
  if (size >= kHugePage) {
    size_ = (size + kHugePage - 1) / kHugePage * kHugePage;
    p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) {
      madvise(p, size_, MADV_HUGEPAGE);
      mapped_ = true;
    } else {
      p = nullptr;
    }
  } else {
    size_ = size;
    p = calloc(1, std::max<size_t>(size, 1));
  }
  if (!p) {
    // As operator new does without exceptions: out of memory is fatal.
    fprintf(stderr, "zt processor: cannot allocate %zu bytes for an index\n", size);
    abort();
  }
  data_ = static_cast<char*>(p);
}

ColumnTable::ColumnTable(std::string name, size_t rows)
    : name_(std::move(name)), rows_(static_cast<uint32_t>(rows)) {}

ColumnTable::~ColumnTable() = default;

void ColumnTable::AddRowId(const std::string& name) {
  columns_.push_back(Column{name, ColumnKind::kRowId});
}

void ColumnTable::AddInt64(const std::string& name, const int64_t* data, Flags flags) {
  Column column{name, ColumnKind::kInt64, data};
  column.sorted = (flags & kSorted) != 0;
  columns_.push_back(column);
}

void ColumnTable::AddUint32Id(const std::string& name, const uint32_t* data) {
  columns_.push_back(Column{name, ColumnKind::kUint32Id, data});
}

void ColumnTable::AddUint32(const std::string& name, const uint32_t* data) {
  columns_.push_back(Column{name, ColumnKind::kUint32, data});
}

void ColumnTable::AddStringId(const std::string& name, const StringId* data,
                              const StringPool* pool) {
  columns_.push_back(Column{name, ColumnKind::kStringId, data, pool});
}

void ColumnTable::AddDouble(const std::string& name, const double* data) {
  columns_.push_back(Column{name, ColumnKind::kDouble, data});
}

void ColumnTable::AddBool(const std::string& name, const uint8_t* data) {
  columns_.push_back(Column{name, ColumnKind::kBool, data});
}

void ColumnTable::AddCString(const std::string& name, const char* const* data) {
  columns_.push_back(Column{name, ColumnKind::kCString, data});
}

void ColumnTable::AddNull(const std::string& name, const char* declared_type) {
  Column column{name, ColumnKind::kNullOnly};
  column.declared_type = declared_type;
  columns_.push_back(column);
}

void ColumnTable::AddCustom(const std::string& name, const char* declared_type, CustomFn fn,
                            const void* data) {
  Column column{name, ColumnKind::kCustom, data};
  column.custom = fn;
  column.declared_type = declared_type;
  columns_.push_back(column);
}

std::string ColumnTable::Schema() const {
  std::string schema = "CREATE TABLE x(";
  for (size_t i = 0; i < columns_.size(); i++) {
    if (i)
      schema += ", ";
    schema += columns_[i].name;
    schema += ' ';
    schema += columns_[i].DeclaredType();
  }
  schema += ')';
  return schema;
}

bool ColumnTable::HasKeyIndex(size_t col) const {
  const ColumnKind kind = columns_[col].kind;
  return kind == ColumnKind::kUint32Id || kind == ColumnKind::kUint32 ||
         kind == ColumnKind::kStringId;
}

const ColumnTable::KeyIndex& ColumnTable::BuildKeyIndex(size_t col) {
  if (key_indexes_.size() < columns_.size())
    key_indexes_.resize(columns_.size());
  if (key_indexes_[col])
    return *key_indexes_[col];
  const Column& column = columns_[col];
  const uint32_t* keys = static_cast<const uint32_t*>(column.data);
  auto index = std::make_unique<KeyIndex>();

  uint32_t max_slot = 0;
  if (column.kind == ColumnKind::kStringId) {
    max_slot = static_cast<uint32_t>(column.pool->size());  // Ids are below.
  } else {
    for (uint32_t row = 0; row < rows_; row++)
      max_slot = std::max(max_slot, SlotOf(column.kind, keys[row]));
  }
  std::vector<uint32_t> counts(rows_ ? size_t{max_slot} + 1 : 0, 0);
  for (uint32_t row = 0; row < rows_; row++)
    counts[SlotOf(column.kind, keys[row])]++;

  std::vector<uint32_t> present;
  for (uint32_t slot = 0; slot < counts.size(); slot++) {
    if (counts[slot])
      present.push_back(slot);
  }
  if (column.kind == ColumnKind::kStringId) {
    const StringPool* pool = column.pool;
    for (uint32_t slot : present) {
      if (slot != 0)
        index->slot_of_text.emplace(pool->Get(slot), slot);
    }
    // Slot 0 (NULL) sorts first; strings by bytes, as SQLite's BINARY.
    std::sort(present.begin(), present.end(), [pool](uint32_t a, uint32_t b) {
      if (a == 0 || b == 0)
        return a == 0 && b != 0;
      return pool->Get(a) < pool->Get(b);
    });
  }
  index->rank_of_slot.assign(counts.size(), kAbsent);
  index->key_of_rank.resize(present.size());
  index->start.resize(present.size() + 1);
  uint32_t offset = 0;
  for (uint32_t rank = 0; rank < present.size(); rank++) {
    index->rank_of_slot[present[rank]] = rank;
    index->key_of_rank[rank] = KeyOf(column.kind, present[rank]);
    index->start[rank] = offset;
    offset += counts[present[rank]];
  }
  index->start[present.size()] = offset;

  std::vector<uint32_t> next(index->start.begin(), index->start.end() - 1);
  index->rows_buffer.Allocate(size_t{rows_} * sizeof(uint32_t));
  uint32_t* rows = reinterpret_cast<uint32_t*>(index->rows_buffer.data());
  for (uint32_t row = 0; row < rows_; row++) {
    const uint32_t rank = index->rank_of_slot[SlotOf(column.kind, keys[row])];
    rows[next[rank]++] = row;
  }
  key_indexes_[col] = std::move(index);
  return *key_indexes_[col];
}

const uint32_t* ColumnTable::RowsWithKey(size_t col, uint32_t key, size_t* count) {
  const KeyIndex& index = BuildKeyIndex(col);
  return RowsWithSlot(index, SlotOf(columns_[col].kind, key), count);
}

const uint32_t* ColumnTable::RowsWithText(size_t col, std::string_view text, size_t* count) {
  const KeyIndex& index = BuildKeyIndex(col);
  auto it = index.slot_of_text.find(text);
  *count = 0;
  if (it == index.slot_of_text.end())
    return nullptr;
  return RowsWithSlot(index, it->second, count);
}

const uint32_t* ColumnTable::RowsWithSlot(const KeyIndex& index, uint32_t slot,
                                          size_t* count) {
  *count = 0;
  if (slot == 0 || slot >= index.rank_of_slot.size())
    return nullptr;
  const uint32_t rank = index.rank_of_slot[slot];
  if (rank == kAbsent)
    return nullptr;
  *count = index.start[rank + 1] - index.start[rank];
  return index.rows() + index.start[rank];
}

const uint32_t* ColumnTable::RowsByValue(size_t col) {
  return BuildKeyIndex(col).rows();
}

size_t ValueWidth(ColumnKind kind) {
  switch (kind) {
    case ColumnKind::kInt64:
    case ColumnKind::kDouble:
    case ColumnKind::kCString:
      return 8;
    case ColumnKind::kUint32Id:
    case ColumnKind::kUint32:
    case ColumnKind::kStringId:
      return 4;
    case ColumnKind::kBool:
      return 1;
    default:
      return 0;
  }
}

const void* ColumnTable::ValuesInOrderOf(size_t order_col, size_t col) {
  const Column& column = columns_[col];
  const size_t width = ValueWidth(column.kind);
  if (!width)
    return nullptr;
  LargeBuffer& values = gathered_[{order_col, col}];
  if (values.data())
    return values.data();
  // A scatter in row order, as the index itself was built: sequential
  // reads, and one sequential write stream per key (a gather through
  // RowsByValue would miss the cache on nearly every read).
  const KeyIndex& index = BuildKeyIndex(order_col);
  const Column& order = columns_[order_col];
  const uint32_t* keys = static_cast<const uint32_t*>(order.data);
  std::vector<uint32_t> next(index.start.begin(),
                             index.start.end() - (index.start.empty() ? 0 : 1));
  values.Allocate(size_t{rows_} * width);
  const char* source = static_cast<const char*>(column.data);
  char* out = values.data();
  for (uint32_t row = 0; row < rows_; row++) {
    const uint32_t pos = next[index.rank_of_slot[SlotOf(order.kind, keys[row])]]++;
    switch (width) {
      case 8:
        memcpy(out + size_t{pos} * 8, source + size_t{row} * 8, 8);
        break;
      case 4:
        memcpy(out + size_t{pos} * 4, source + size_t{row} * 4, 4);
        break;
      default:
        out[pos] = source[row];
        break;
    }
  }
  return values.data();
}

uint32_t ColumnTable::LowerBound(size_t col, int64_t value) const {
  const int64_t* data = static_cast<const int64_t*>(columns_[col].data);
  return static_cast<uint32_t>(std::lower_bound(data, data + rows_, value) - data);
}

uint32_t ColumnTable::UpperBound(size_t col, int64_t value) const {
  const int64_t* data = static_cast<const int64_t*>(columns_[col].data);
  return static_cast<uint32_t>(std::upper_bound(data, data + rows_, value) - data);
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
