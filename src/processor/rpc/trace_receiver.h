// A trace a client sends in pieces (/parse, TPM_APPEND_TRACE_DATA),
// imported while it arrives: the pieces go to an anonymous file
// (StreamedTrace), and a thread of its own reads them from a mapping of
// that file as they come (ImportGrowingProtoTrace), so that the import
// ends soon after the last piece instead of starting then.
//
//   auto receiver = TraceReceiver::Create(options, max_bytes, &error);
//   receiver->Append(piece, n, &error);   // as often as pieces come
//   std::unique_ptr<TraceStorage> storage = receiver->Finish(&result, &error);
//
// Only a Perfetto protobuf trace is read as it comes (its first 4 KiB
// tell). Gzip, JSON and Templight are read more than once or whole: they
// are imported after the last piece, from the file, exactly as a file on
// disk (ImportTraceFile) is, errors included. So is a protobuf trace
// whose whole turns out to be another format, and any trace when the
// address range for it cannot be reserved. Whichever way, the model is
// the one ImportTraceFile makes of the same bytes.
//
// Memory: the trace once, in the anonymous file (pages read by the import
// are dropped from the mapping behind it, not from the file), plus the
// tables. Address space: `max_bytes` (at most 1 TiB) reserved, not used.
//
// Thread-safety: Append, Finish and the destructor are called from one
// thread (the session's); the import runs on its own thread (from
// kStreamFromBytes on; a smaller trace is read in Finish), which Finish
// waits for and the destructor joins. After Finish, that thread
// frees the input (its mapping and the file's bytes) by itself: a
// finished receiver costs nothing to keep, and its destruction waits at
// most for that. ImportOptions' callbacks are made on the import thread.

#ifndef ZT_SRC_PROCESSOR_RPC_TRACE_RECEIVER_H_
#define ZT_SRC_PROCESSOR_RPC_TRACE_RECEIVER_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "src/processor/importers/trace_importer.h"
#include "src/processor/rpc/streamed_trace.h"
#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {
namespace rpc {

class TraceReceiver {
 public:
  // A trace is read as it comes once it has this many bytes: a smaller
  // one is read at its end, on the thread that calls Finish (a thread and
  // an address range for it would cost more than they save).
  static constexpr uint64_t kStreamFromBytes = uint64_t{1} << 20;

  // Null with *error if no anonymous file can be made. `max_bytes`: the
  // most the trace may grow to (Append refuses more).
  static std::unique_ptr<TraceReceiver> Create(const ImportOptions& options, uint64_t max_bytes,
                                               std::string* error,
                                               uint64_t stream_from_bytes = kStreamFromBytes);
  // Abandons an import still waiting for bytes (it stops at its next look
  // at the input, within one piece's reading) and waits for its thread.
  ~TraceReceiver();
  TraceReceiver(const TraceReceiver&) = delete;
  TraceReceiver& operator=(const TraceReceiver&) = delete;

  // Keeps `size` more bytes and hands them to the import. False with
  // *error when they cannot be kept (no memory, or past `max_bytes`):
  // what came before stays.
  bool Append(const void* data, size_t size, std::string* error);
  uint64_t size() const { return trace_->size(); }

  // The input's end: waits for the import and returns its tables, or null
  // with *error (the trace is not one we read: ImportTraceFile's words,
  // with the file named "the trace"). Once only.
  std::unique_ptr<TraceStorage> Finish(ImportResult* result, std::string* error);

  // The memory the trace's bytes hold now: 0 soon after Finish (tests).
  uint64_t held_bytes() const { return trace_->held_bytes(); }

  // Whether the import has been reading the pieces as they came (tests).
  bool streamed() const { return streamed_; }

 private:
  TraceReceiver(std::unique_ptr<StreamedTrace> trace, const ImportOptions& options,
                uint64_t max_bytes, uint64_t stream_from_bytes);
  // Reserves the address range and starts the import thread (Append, once
  // the trace reaches stream_from_bytes_).
  void StartImportThread();
  void Import();
  GrowingInput WaitForMore(uint64_t have);
  void ReleasePages(uint64_t offset, uint64_t length) const;
  // Unmaps the input and frees the file's bytes (import thread, or after it).
  void FreeInput();

  const std::unique_ptr<StreamedTrace> trace_;
  ImportOptions options_;
  const uint64_t max_bytes_;
  const uint64_t stream_from_bytes_;
  // The whole trace's address range, mapped from the anonymous file as it
  // grows (null: none could be reserved; the import waits for the end).
  const uint8_t* map_ = nullptr;
  size_t map_bytes_ = 0;

  std::mutex mutex_;
  std::condition_variable more_;
  uint64_t published_ = 0;  // Bytes the import may read.
  bool ended_ = false;
  bool abandoned_ = false;
  bool imported_ = false;  // The import thread has done all but free the input.
  std::condition_variable imported_cv_;

  // Written by the import thread, read after it is joined.
  bool streamed_ = false;
  std::unique_ptr<TraceStorage> storage_;
  ImportResult result_;
  std::string error_;
  std::thread thread_;
  bool finished_ = false;
};

}  // namespace rpc
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_RPC_TRACE_RECEIVER_H_
