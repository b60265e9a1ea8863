// PerfettoHeapBuffer (zt/c/abi/heap_buffer.h): a protozero heap buffer and
// its writer, allocated together.

#include "zt/c/abi/heap_buffer.h"

#include <algorithm>
#include <cstring>

#include "src/c_abi/stream_writer.h"
#include "zt/base/logging.h"
#include "zt/protozero/scattered_heap_buffer.h"

namespace {

struct HeapBuffer {
  // 4 KiB slices to start, growing as protozero's heap buffer does.
  HeapBuffer() : buffer(4096, 4096), writer(&buffer) { buffer.set_writer(&writer); }
  zt::protozero::ScatteredHeapBuffer buffer;
  zt::protozero::ScatteredStreamWriter writer;
};

HeapBuffer* FromC(PerfettoHeapBuffer* buf) {
  ZT_CHECK(buf != nullptr);
  return reinterpret_cast<HeapBuffer*>(buf);
}

}  // namespace

PerfettoHeapBuffer* PerfettoHeapBufferCreate(PerfettoStreamWriter* w) {
  ZT_CHECK(w != nullptr);
  HeapBuffer* hb = new HeapBuffer();
  zt::c_abi::MirrorWriter(&hb->writer, w);
  return reinterpret_cast<PerfettoHeapBuffer*>(hb);
}

void PerfettoHeapBufferCopyInto(PerfettoHeapBuffer* buf, PerfettoStreamWriter* w, void* dst,
                                size_t size) {
  HeapBuffer* hb = FromC(buf);
  ZT_CHECK(w != nullptr && zt::c_abi::CppWriter(w) == &hb->writer);
  zt::c_abi::SyncWritePtr(w);
  uint8_t* out = static_cast<uint8_t*>(dst);
  for (const zt::protozero::ScatteredHeapBuffer::Slice& slice : hb->buffer.GetSlices()) {
    if (size == 0)
      break;
    const zt::protozero::ContiguousMemoryRange used = slice.GetUsedRange();
    const size_t n = std::min(size, used.size());
    if (n > 0)
      memcpy(out, used.begin, n);
    out += n;
    size -= n;
  }
}

void PerfettoHeapBufferDestroy(PerfettoHeapBuffer* buf, PerfettoStreamWriter* w) {
  delete FromC(buf);
  if (w != nullptr) {
    w->impl = nullptr;
    w->begin = w->end = w->write_ptr = nullptr;
    w->written_previously = 0;
  }
}
