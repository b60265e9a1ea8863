// A query's rows as the QueryResult messages Perfetto UI and upstream's
// Python API read (docs/design/serve.md, "Batches"): one message per batch
// of whole rows; column names and statement counts on the first message
// only, before its batch; strings NUL-terminated (the last too); an error
// and `is_last_batch` on the last message, which alone may hold no row.
//
// A batch ends before a row that would take it past `cells_per_batch`
// cells or about `batch_bytes` bytes, as upstream's server splits them.
// Doubles start 8-byte aligned in each message (a padding field before
// them), which lets the UI read them in place.
//
// Cost: each cell is appended once to its type's buffer, then copied once
// into the message; no allocation per cell once the buffers have grown.
// Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_RPC_QUERY_RESULT_WRITER_H_
#define ZT_SRC_PROCESSOR_RPC_QUERY_RESULT_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "zt/processor/trace_processor.h"

namespace zt {
namespace processor {
namespace rpc {

class QueryResultWriter {
 public:
  struct Limits {
    size_t cells_per_batch = 50000;
    size_t batch_bytes = 128 * 1024;
    // A batch larger than this (one row of hundreds of MiB) cannot be a
    // message: the result ends there with an error. At most 2^28 - 1.
    size_t max_batch_bytes = (size_t{1} << 28) - 1;
  };
  // Receives each finished message (a serialized QueryResult), in order.
  using EmitFn = std::function<void(std::string message)>;

  explicit QueryResultWriter(EmitFn emit) : QueryResultWriter(std::move(emit), Limits()) {}
  QueryResultWriter(const QueryResultWriter&) = delete;
  QueryResultWriter& operator=(const QueryResultWriter&) = delete;
  QueryResultWriter(EmitFn emit, Limits limits);

  // Once, before the rows. The counts describe the whole SQL text (its
  // statements, those that return rows); `last_statement_sql` is the one
  // whose rows follow.
  void Begin(const std::vector<std::string>& column_names, uint32_t statement_count,
             uint32_t statement_with_output_count, const std::string& last_statement_sql);
  // A row of as many cells as there are columns (CHECKed).
  void AddRow(const std::vector<SqlValue>& row);
  // The last message: the rows left, and `error` if not empty. Every
  // message carries the time since Begin().
  void Finish(const std::string& error);

  uint64_t messages() const { return messages_; }
  // Whether the last message was sent (by Finish(), or early: a row too
  // big for a message ends the result with an error, and later rows are
  // dropped).
  bool ended() const { return ended_; }

 private:
  void FlushBatch(bool last, const std::string& error);
  static int64_t NowNs();

  EmitFn emit_;
  const Limits limits_;
  size_t columns_ = 0;
  bool began_ = false;
  bool ended_ = false;
  int64_t start_ns_ = 0;
  std::string metadata_;  // The first message's fields before its batch.
  // The batch being filled.
  std::string cell_types_;  // One byte per cell (a CellType, < 128).
  std::string varints_;     // Packed.
  std::vector<double> doubles_;
  std::string strings_;      // NUL after each.
  std::string blob_fields_;  // Each blob as its field of the batch.
  size_t cells_ = 0;
  size_t approx_bytes_ = 0;
  uint64_t messages_ = 0;
};

}  // namespace rpc
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_RPC_QUERY_RESULT_WRITER_H_
