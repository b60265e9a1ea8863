// CloneTraceBuffer: a copy of a buffer for CloneSession's snapshot. Cold
// (once per clone, O(size)); in the daemon's library only.

#include <cstring>
#include <new>

#include "src/tracing/service/trace_buffer_impl.h"

namespace zt {
namespace trace_buffer_internal {

std::unique_ptr<TraceBuffer> TraceBufferImpl::Clone() const {
  std::unique_ptr<uint8_t[]> ring(new (std::nothrow) uint8_t[size_]);
  if (!ring)
    return nullptr;  // The caller refuses the clone, with the reason.
  std::unique_ptr<TraceBufferImpl> copy(new TraceBufferImpl(std::move(ring), size_, policy_));
  // The whole ring, after the constructor's own first record: records are
  // found by walking it from wptr_ (bytes never written are copied too;
  // they are never interpreted).
  memcpy(copy->ring_.get(), ring_.get(), size_);
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
