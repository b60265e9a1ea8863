#include "src/processor/sql/operators/packed_rows.h"

#include <sqlite3.h>

#include <cstring>
#include <memory>
#include <new>
#include <utility>

namespace zt {
namespace processor {
namespace sql {
namespace packed_rows {

constexpr size_t kMaxArity = 64;
enum Tag : uint8_t { kNullTag = 0, kIntTag = 1, kRealTag = 2, kTextTag = 3 };

void AppendU64(std::string* out, uint64_t v) {
  char bytes[8];
  for (int i = 0; i < 8; i++)
    bytes[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  out->append(bytes, 8);
}

uint64_t ReadU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

// The aggregate's state: a pointer to the buffer (SQLite's aggregate
// context is plain zeroed memory, so the std::string lives outside it).
struct State {
  std::string* packed;
};

void Step(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  auto* state = static_cast<State*>(sqlite3_aggregate_context(ctx, sizeof(State)));
  if (!state) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (argc < 1 || static_cast<size_t>(argc) > kMaxArity) {
    sqlite3_result_error(ctx, "__zt_pack_rows: takes 1 to 64 values", -1);
    return;
  }
  if (!state->packed) {
    state->packed = new (std::nothrow) std::string();
    if (!state->packed) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
    state->packed->push_back(static_cast<char>(argc));
  }
  std::string& out = *state->packed;
  for (int i = 0; i < argc; i++) {
    switch (sqlite3_value_type(argv[i])) {
      case SQLITE_INTEGER:
        out.push_back(static_cast<char>(kIntTag));
        AppendU64(&out, static_cast<uint64_t>(sqlite3_value_int64(argv[i])));
        break;
      case SQLITE_FLOAT: {
        const double d = sqlite3_value_double(argv[i]);
        uint64_t bits;
        std::memcpy(&bits, &d, 8);
        out.push_back(static_cast<char>(kRealTag));
        AppendU64(&out, bits);
        break;
      }
      case SQLITE_TEXT:
      case SQLITE_BLOB: {
        const auto* text = sqlite3_value_text(argv[i]);
        const auto size = static_cast<uint32_t>(sqlite3_value_bytes(argv[i]));
        out.push_back(static_cast<char>(kTextTag));
        const char len[4] = {static_cast<char>(size & 0xff), static_cast<char>((size >> 8) & 0xff),
                             static_cast<char>((size >> 16) & 0xff),
                             static_cast<char>((size >> 24) & 0xff)};
        out.append(len, 4);
        out.append(reinterpret_cast<const char*>(text), size);
        break;
      }
      default:
        out.push_back(static_cast<char>(kNullTag));
        break;
    }
  }
}

void Final(sqlite3_context* ctx) {
  auto* state = static_cast<State*>(sqlite3_aggregate_context(ctx, 0));
  if (!state || !state->packed) {
    sqlite3_result_null(ctx);
    return;
  }
  std::string* packed = state->packed;
  state->packed = nullptr;
  sqlite3_result_blob64(ctx, packed->data(), packed->size(), SQLITE_TRANSIENT);
  delete packed;
}

void AppendValue(std::string* out, const ComputedValue& value) {
  switch (value.type) {
    case ComputedValue::kInt:
      out->push_back(static_cast<char>(kIntTag));
      AppendU64(out, static_cast<uint64_t>(value.i));
      break;
    case ComputedValue::kReal: {
      uint64_t bits;
      std::memcpy(&bits, &value.d, 8);
      out->push_back(static_cast<char>(kRealTag));
      AppendU64(out, bits);
      break;
    }
    case ComputedValue::kText: {
      const auto size = static_cast<uint32_t>(value.text.size());
      out->push_back(static_cast<char>(kTextTag));
      const char len[4] = {static_cast<char>(size & 0xff), static_cast<char>((size >> 8) & 0xff),
                           static_cast<char>((size >> 16) & 0xff),
                           static_cast<char>((size >> 24) & 0xff)};
      out->append(len, 4);
      out->append(value.text);
      break;
    }
    case ComputedValue::kNull:
      out->push_back(static_cast<char>(kNullTag));
      break;
  }
}

constexpr size_t kUnpackedColumns = 8;

bool Unpack(void*, sqlite3_value** args, std::vector<std::vector<ComputedValue>>* rows,
            std::string* error) {
  PackedRowsReader reader(args[0], "the rows");
  if (!reader.CheckArity(1, kUnpackedColumns, error))
    return false;
  std::vector<ComputedValue> row;
  while (reader.Next(&row, error)) {
    row.resize(kUnpackedColumns);
    rows->push_back(std::move(row));
  }
  return error->empty();
}

}  // namespace packed_rows

PackedRowsWriter::PackedRowsWriter(size_t arity) {
  bytes_.push_back(static_cast<char>(arity));
}

void PackedRowsWriter::Add(const ComputedValue& value) {
  packed_rows::AppendValue(&bytes_, value);
}

bool RegisterPackRows(sqlite3* db, std::string* error) {
  if (sqlite3_create_function_v2(db, "__zt_pack_rows", -1, SQLITE_UTF8, nullptr, nullptr,
                                 &packed_rows::Step, &packed_rows::Final,
                                 nullptr) != SQLITE_OK) {
    *error = std::string("cannot register __zt_pack_rows: ") + sqlite3_errmsg(db);
    return false;
  }
  std::unique_ptr<ComputedTableFunction> unpack(new ComputedTableFunction());
  unpack->name = "__zt_unpack_rows";
  for (size_t c = 0; c < packed_rows::kUnpackedColumns; c++)
    unpack->columns.push_back("c" + std::to_string(c));
  unpack->args = {"rows"};
  unpack->compute = &packed_rows::Unpack;
  return RegisterComputedTableFunction(db, std::move(unpack), error);
}

PackedRowsReader::PackedRowsReader(sqlite3_value* value, std::string what)
    : what_(std::move(what)) {
  const int type = sqlite3_value_type(value);
  is_null_ = type == SQLITE_NULL;
  is_blob_ = type == SQLITE_BLOB;
  if (is_blob_) {
    data_ = static_cast<const uint8_t*>(sqlite3_value_blob(value));
    size_ = static_cast<size_t>(sqlite3_value_bytes(value));
  }
}

bool PackedRowsReader::CheckArity(size_t min, size_t max, std::string* error) {
  if (is_null_)
    return true;
  if (!is_blob_ || size_ == 0 || data_[0] < min || data_[0] > max) {
    *error = what_ + " must be rows packed by __zt_pack_rows with " + std::to_string(min) +
             (min == max ? "" : " to " + std::to_string(max)) + " values each";
    return false;
  }
  arity_ = data_[0];
  pos_ = 1;
  return true;
}

bool PackedRowsReader::Next(std::vector<ComputedValue>* row, std::string* error) {
  error->clear();
  if (arity_ == 0 || pos_ >= size_)
    return false;
  row->resize(arity_);
  for (size_t i = 0; i < arity_; i++) {
    ComputedValue& value = (*row)[i];
    if (pos_ >= size_) {
      *error = what_ + ": the packed rows end inside a row";
      return false;
    }
    const uint8_t tag = data_[pos_++];
    value.text.clear();
    if (tag == packed_rows::kNullTag) {
      value.type = ComputedValue::kNull;
      continue;
    }
    if (tag > packed_rows::kTextTag || size_ - pos_ < (tag == packed_rows::kTextTag ? 4u : 8u)) {
      *error = what_ + ": bad packed rows at byte " + std::to_string(pos_ - 1);
      return false;
    }
    if (tag == packed_rows::kTextTag) {
      const size_t len = data_[pos_] | (static_cast<size_t>(data_[pos_ + 1]) << 8) |
                         (static_cast<size_t>(data_[pos_ + 2]) << 16) |
                         (static_cast<size_t>(data_[pos_ + 3]) << 24);
      pos_ += 4;
      if (size_ - pos_ < len) {
        *error = what_ + ": bad packed rows at byte " + std::to_string(pos_ - 4);
        return false;
      }
      value.type = ComputedValue::kText;
      value.text.assign(reinterpret_cast<const char*>(data_ + pos_), len);
      pos_ += len;
      continue;
    }
    const uint64_t bits = packed_rows::ReadU64(data_ + pos_);
    pos_ += 8;
    if (tag == packed_rows::kIntTag) {
      value.type = ComputedValue::kInt;
      value.i = static_cast<int64_t>(bits);
    } else {
      value.type = ComputedValue::kReal;
      std::memcpy(&value.d, &bits, 8);
    }
  }
  return true;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
