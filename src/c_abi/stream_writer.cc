// PerfettoStreamWriter's slow paths (zt/c/abi/stream_writer.h).

#include "src/c_abi/stream_writer.h"

#include <cstring>

#include "zt/base/logging.h"

namespace zt {
namespace c_abi {

void SyncWritePtr(PerfettoStreamWriter* w) {
  ZT_CHECK(w != nullptr && w->impl != nullptr);
  zt::protozero::ScatteredStreamWriter* sw = CppWriter(w);
  const zt::protozero::ContiguousMemoryRange range = sw->cur_range();
  if (w->write_ptr < range.begin || w->write_ptr > range.end || w->begin != range.begin) {
    ZT_FATAL("PerfettoStreamWriter: write_ptr %p is outside the writer's current range "
             "[%p, %p] (the struct was changed, copied or used after its packet ended)",
             static_cast<void*>(w->write_ptr), static_cast<void*>(range.begin),
             static_cast<void*>(range.end));
  }
  sw->set_write_ptr(w->write_ptr);
}

}  // namespace c_abi
}  // namespace zt

using zt::c_abi::CppWriter;
using zt::c_abi::MirrorWriter;
using zt::c_abi::SyncWritePtr;

void PerfettoStreamWriterUpdateWritePtr(PerfettoStreamWriter* w) { SyncWritePtr(w); }

void PerfettoStreamWriterNewChunk(PerfettoStreamWriter* w) {
  SyncWritePtr(w);
  CppWriter(w)->MoveToNextRange();
  MirrorWriter(CppWriter(w), w);
}

void PerfettoStreamWriterAppendBytesSlowpath(PerfettoStreamWriter* w, const uint8_t* src,
                                             size_t size) {
  SyncWritePtr(w);
  CppWriter(w)->WriteBytes(src, size);
  MirrorWriter(CppWriter(w), w);
}

uint8_t* PerfettoStreamWriterAnnotatePatch(PerfettoStreamWriter* w, uint8_t* patch_addr) {
  ZT_CHECK(w != nullptr && w->impl != nullptr);
  zt::protozero::ScatteredStreamWriter* sw = CppWriter(w);
  const zt::protozero::ContiguousMemoryRange range = sw->cur_range();
  // Only a field wholly inside the current range can be redirected; the C
  // side never asks for others.
  if (patch_addr == nullptr || patch_addr < range.begin ||
      patch_addr + PERFETTO_STREAM_WRITER_PATCH_SIZE > range.end) {
    return nullptr;
  }
  // Zero: a patch is "filled" once its first byte is not.
  memset(patch_addr, 0, PERFETTO_STREAM_WRITER_PATCH_SIZE);
  return sw->delegate()->AnnotatePatch(patch_addr);
}

void PerfettoStreamWriterReserveBytesSlowpath(PerfettoStreamWriter* w, size_t size) {
  SyncWritePtr(w);
  // Every range the library hands out holds 1 KiB at least (trace chunks
  // are 4 KiB and up, the drop mode's scratch range 1 KiB, heap slices
  // 4 KiB): a larger reservation might fit no range.
  constexpr size_t kMaxCReserve = 1024;
  if (size > kMaxCReserve) {
    ZT_FATAL("PerfettoStreamWriterReserveBytesSlowpath: %zu bytes asked, at most %zu can be "
             "reserved at once",
             size, kMaxCReserve);
  }
  CppWriter(w)->ReserveBytes(size);
  MirrorWriter(CppWriter(w), w);
}
