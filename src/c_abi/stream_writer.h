// The bridge between a C PerfettoStreamWriter (zt/c/abi/stream_writer.h)
// and the protozero::ScatteredStreamWriter behind it: `impl` points to the
// C++ writer, whose state the C struct mirrors between calls.

#ifndef ZT_SRC_C_ABI_STREAM_WRITER_H_
#define ZT_SRC_C_ABI_STREAM_WRITER_H_

#include "zt/c/abi/stream_writer.h"
#include "zt/protozero/scattered_stream_writer.h"

namespace zt {
namespace c_abi {

inline protozero::ScatteredStreamWriter* CppWriter(const PerfettoStreamWriter* w) {
  return reinterpret_cast<protozero::ScatteredStreamWriter*>(w->impl);
}

// The C view of |sw|'s current state (and |sw| as its impl).
inline void MirrorWriter(protozero::ScatteredStreamWriter* sw, PerfettoStreamWriter* w) {
  const protozero::ContiguousMemoryRange range = sw->cur_range();
  w->impl = reinterpret_cast<PerfettoStreamWriterImpl*>(sw);
  w->begin = range.begin;
  w->end = range.end;
  w->write_ptr = sw->write_ptr();
  w->written_previously =
      static_cast<size_t>(sw->written() - static_cast<uint64_t>(sw->write_ptr() - range.begin));
}

// Takes the C side's write pointer into the C++ writer (after checking it
// is inside the current range: a pointer outside would make the next
// write corrupt memory).
void SyncWritePtr(PerfettoStreamWriter* w);

}  // namespace c_abi
}  // namespace zt

#endif  // ZT_SRC_C_ABI_STREAM_WRITER_H_
