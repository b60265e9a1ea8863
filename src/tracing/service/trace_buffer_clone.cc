// CloneTraceBuffer: a copy of a buffer for CloneSession's snapshot. Cold
// (once per clone, O(records + bytes held)); in the daemon's library only.

#include <cstring>
#include <new>

#include "src/tracing/service/trace_buffer_impl.h"
#include "zt/base/logging.h"

namespace zt {
namespace trace_buffer_internal {

std::unique_ptr<TraceBuffer> TraceBufferImpl::Clone() const {
  std::unique_ptr<uint8_t[]> ring(new (std::nothrow) uint8_t[size_]);
  if (!ring)
    return nullptr;  // The caller refuses the clone, with the reason.
  std::unique_ptr<TraceBufferImpl> copy(new TraceBufferImpl(std::move(ring), size_, policy_));
  // The records tile the ring from offset 0 (the constructor's first
  // record, split by every write). Only what is interpreted is copied:
  // every record's header, and the payload of the chunks still to read.
  // Free, padding and consumed records' payloads are never read, so the
  // copy's pages under them stay untouched: a clone of a large buffer that
  // holds little costs what it holds, not its size (a 64 MiB buffer
  // holding 7 KiB: 77 ms and 64 MiB resident when it was copied whole).
  for (size_t pos = 0; pos < size_;) {
    const RecordHeader h = ReadRecordHeader(pos);
    const size_t len = size_t{h.size_units} * kAlign;
    ZT_CHECK(len >= kFillerHeaderSize && len <= size_ - pos);  // Tiled, or corrupt.
    size_t copied = kFillerHeaderSize;
    if (h.kind == kChunk)
      copied = len;
    else if (h.kind == kConsumed)
      copied = kRecordHeaderSize < len ? kRecordHeaderSize : len;
    memcpy(copy->ring_.get() + pos, ring_.get() + pos, copied);
    pos += len;
  }
  copy->wptr_ = wptr_;
  copy->discard_latched_ = discard_latched_;
  copy->max_seqs_ = max_seqs_;
  copy->seqs_ = seqs_;
  copy->read_order_ = read_order_;
  copy->read_idx_ = read_idx_;
  copy->pass_ = pass_;
  copy->stats_ = stats_;
  copy->writer_stats_ = writer_stats_;
  // Each sequence points at its histogram: at the copy's own now. Nothing
  // more will come into the copy: to it every writer is gone, so that its
  // scraped chunks are read to their end (a packet left unfinished in them
  // dropped and counted, as for a producer that left) instead of waiting
  // for a complete copy that only the source will get.
  for (auto& entry : copy->seqs_) {
    SeqState& s = entry.second;
    s.writer_gone = true;
    if (s.histogram)
      s.histogram = &copy->writer_stats_[{ProducerOf(s.key), WriterOf(s.key)}];
  }
  return copy;
}

}  // namespace trace_buffer_internal

std::unique_ptr<TraceBuffer> CloneTraceBuffer(const TraceBuffer& buffer) {
  // TraceBufferImpl is the only implementation (TraceBuffer::Create).
  return static_cast<const trace_buffer_internal::TraceBufferImpl&>(buffer).Clone();
}
}  // namespace zt
