#include "src/processor/rpc/query_result_writer.h"

#include <chrono>
#include <cstring>
#include <utility>

#include "src/processor/rpc/wire_writer.h"
#include "zt/base/logging.h"

namespace zt {
namespace processor {
namespace rpc {

namespace {

// QueryResult and QueryResult.CellsBatch fields
// (protos/zt/trace_processor/trace_processor.proto).
constexpr uint32_t kColumnNames = 1;
constexpr uint32_t kError = 2;
constexpr uint32_t kBatch = 3;
constexpr uint32_t kStatementCount = 4;
constexpr uint32_t kStatementWithOutputCount = 5;
constexpr uint32_t kLastStatementSql = 6;
constexpr uint32_t kElapsedTimeMs = 7;
constexpr uint32_t kBatchCells = 1;
constexpr uint32_t kBatchVarints = 2;
constexpr uint32_t kBatchDoubles = 3;
constexpr uint32_t kBatchBlobs = 4;
constexpr uint32_t kBatchStrings = 5;
constexpr uint32_t kBatchIsLast = 6;
constexpr uint32_t kBatchPadding = 7;

enum CellType : uint8_t {
  kCellNull = 1,
  kCellVarint = 2,
  kCellFloat64 = 3,
  kCellString = 4,
  kCellBlob = 5
};
// A length field is written in 4 redundant bytes, so that a batch's length
// need not be known before it is laid out: at most 2^28 - 1.
constexpr size_t kMaxBatchBytes = (size_t{1} << 28) - 1;

using wire::AppendTag;
using wire::AppendVarint;
using wire::kFixed64;
using wire::kLengthDelimited;
using wire::kVarint;
using wire::VarintSize;

void AppendBytesField(uint32_t field, const char* data, size_t size, std::string* out) {
  wire::AppendBytesField(field, std::string_view(data, size), out);
}

void AppendRedundantLength(size_t length, std::string* out) {
  ZT_CHECK(length <= kMaxBatchBytes);
  out->push_back(static_cast<char>((length & 0x7f) | 0x80));
  out->push_back(static_cast<char>(((length >> 7) & 0x7f) | 0x80));
  out->push_back(static_cast<char>(((length >> 14) & 0x7f) | 0x80));
  out->push_back(static_cast<char>((length >> 21) & 0x7f));
}

}  // namespace

QueryResultWriter::QueryResultWriter(EmitFn emit, Limits limits)
    : emit_(std::move(emit)), limits_(limits) {
  ZT_CHECK(limits_.max_batch_bytes <= kMaxBatchBytes);
}

void QueryResultWriter::Begin(const std::vector<std::string>& column_names,
                              uint32_t statement_count, uint32_t statement_with_output_count,
                              const std::string& last_statement_sql) {
  ZT_CHECK(!began_);
  began_ = true;
  columns_ = column_names.size();
  for (const std::string& name : column_names)
    AppendBytesField(kColumnNames, name.data(), name.size(), &metadata_);
  AppendTag(kStatementCount, kVarint, &metadata_);
  AppendVarint(statement_count, &metadata_);
  AppendTag(kStatementWithOutputCount, kVarint, &metadata_);
  AppendVarint(statement_with_output_count, &metadata_);
  AppendBytesField(kLastStatementSql, last_statement_sql.data(), last_statement_sql.size(),
                   &metadata_);
  approx_bytes_ = 16;
  start_ns_ = NowNs();
}

void QueryResultWriter::AddRow(const std::vector<SqlValue>& row) {
  ZT_CHECK(began_ && row.size() == columns_);
  if (ended_)
    return;  // A row too big for a message ended the result.
  if (cells_ > 0 &&
      (cells_ + columns_ > limits_.cells_per_batch || approx_bytes_ > limits_.batch_bytes))
    FlushBatch(/*last=*/false, std::string());
  for (const SqlValue& cell : row) {
    switch (cell.type) {
      case SqlValue::kNull:
        cell_types_.push_back(static_cast<char>(kCellNull));
        break;
      case SqlValue::kInt:
        cell_types_.push_back(static_cast<char>(kCellVarint));
        AppendVarint(static_cast<uint64_t>(cell.int_value), &varints_);
        approx_bytes_ += 4;
        break;
      case SqlValue::kReal:
        cell_types_.push_back(static_cast<char>(kCellFloat64));
        doubles_.push_back(cell.real_value);
        approx_bytes_ += 8;
        break;
      case SqlValue::kText:
        cell_types_.push_back(static_cast<char>(kCellString));
        // A string ends at its first NUL for the clients, which split on it.
        strings_.append(cell.text.c_str(), strlen(cell.text.c_str()));
        strings_.push_back('\0');
        approx_bytes_ += cell.text.size() + 5;
        break;
      case SqlValue::kBlob:
        // Bytes, NULs and all: a field each.
        cell_types_.push_back(static_cast<char>(kCellBlob));
        AppendBytesField(kBatchBlobs, cell.text.data(), cell.text.size(), &blob_fields_);
        approx_bytes_ += cell.text.size() + 5;
        break;
    }
  }
  cells_ += row.size();
}

void QueryResultWriter::Finish(const std::string& error) {
  ZT_CHECK(began_);
  if (!ended_)
    FlushBatch(/*last=*/true, error);
}

int64_t QueryResultWriter::NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void QueryResultWriter::FlushBatch(bool last, const std::string& error) {
  std::string message;
  if (messages_ == 0)
    message = metadata_;
  const size_t batch_header = message.size();
  AppendTag(kBatch, kLengthDelimited, &message);
  const size_t length_at = message.size();
  AppendRedundantLength(0, &message);  // Set below.
  const size_t batch_start = message.size();

  AppendBytesField(kBatchStrings, strings_.data(), strings_.size(), &message);
  if (cells_ > 0)
    AppendBytesField(kBatchCells, cell_types_.data(), cell_types_.size(), &message);
  if (!varints_.empty())
    AppendBytesField(kBatchVarints, varints_.data(), varints_.size(), &message);
  message += blob_fields_;
  if (!doubles_.empty()) {
    const size_t bytes = doubles_.size() * sizeof(double);
    // Where the doubles would start without padding; a padding field (a
    // varint of value 0, `pad` bytes with its tag) moves them to a multiple
    // of 8. The smallest such field is 2 bytes: a pad of 1 takes 9.
    const size_t start = message.size() + 1 + VarintSize(bytes);
    size_t pad = (8 - start % 8) % 8;
    if (pad == 1)
      pad = 9;
    if (pad > 0) {
      AppendTag(kBatchPadding, kVarint, &message);
      message.append(pad - 2, static_cast<char>(0x80));
      message.push_back(0);
    }
    AppendTag(kBatchDoubles, kLengthDelimited, &message);
    AppendVarint(bytes, &message);
    ZT_CHECK(message.size() % 8 == 0);
    const size_t at = message.size();
    message.resize(at + bytes);
    memcpy(&message[at], doubles_.data(), bytes);
  }
  if (last) {
    AppendTag(kBatchIsLast, kVarint, &message);
    message.push_back(1);
  }
  const size_t batch_bytes = message.size() - batch_start;
  std::string error_text = error;
  if (batch_bytes > limits_.max_batch_bytes) {
    // One row too big for a message (a value of hundreds of MiB): the
    // result ends here, and says why.
    message.resize(batch_header);
    AppendTag(kBatch, kLengthDelimited, &message);
    AppendVarint(2, &message);
    AppendTag(kBatchIsLast, kVarint, &message);
    message.push_back(1);
    error_text = "the query's result has a batch of " + std::to_string(batch_bytes) +
                 " bytes, more than a message may hold (" +
                 std::to_string(limits_.max_batch_bytes) +
                 "): a row is too large; write large values to a file instead";
    last = true;
  } else {
    std::string length;
    AppendRedundantLength(batch_bytes, &length);
    message.replace(length_at, length.size(), length);
  }
  if (last && !error_text.empty())
    AppendBytesField(kError, error_text.data(), error_text.size(), &message);
  const double elapsed_ms = static_cast<double>(NowNs() - start_ns_) / 1e6;
  AppendTag(kElapsedTimeMs, kFixed64, &message);
  char elapsed[sizeof(double)];
  memcpy(elapsed, &elapsed_ms, sizeof(elapsed));
  message.append(elapsed, sizeof(elapsed));
  messages_++;
  ended_ = last;
  cell_types_.clear();
  varints_.clear();
  doubles_.clear();
  strings_.clear();
  blob_fields_.clear();
  cells_ = 0;
  approx_bytes_ = 16;
  emit_(std::move(message));
}

}  // namespace rpc
}  // namespace processor
}  // namespace zt
