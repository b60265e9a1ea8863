#include "zt/protozero/scattered_stream_writer.h"

#include <algorithm>
#include <cstdlib>

#include "zt/base/logging.h"

namespace zt {
namespace protozero {

ScatteredStreamWriter::Delegate::~Delegate() = default;

uint8_t* ScatteredStreamWriter::Delegate::AnnotatePatch(uint8_t* patch_addr) { return patch_addr; }

void ScatteredStreamWriter::Extend(size_t min_size) {
  // A delegate that runs out of memory must hand out scratch space instead
  // (see StaticBufferDelegate). Returning nothing, or only ranges too small
  // to ever hold a reservation, is a broken delegate: writing on would go out
  // of bounds or never end, so we stop loudly rather than corrupt memory.
  constexpr int kMaxTooSmallRanges = 1024;
  for (int attempt = 0; attempt < kMaxTooSmallRanges; attempt++) {
    ContiguousMemoryRange next = delegate_->GetNewBuffer();
    if (!next.is_valid() || next.size() == 0)
      ZT_FATAL("protozero: the stream writer's delegate returned no memory");
    Reset(next);
    if (next.size() >= min_size)
      return;
  }
  ZT_FATAL("protozero: the stream writer's delegate returned %d ranges smaller "
           "than the %zu bytes needed", kMaxTooSmallRanges, min_size);
}

void ScatteredStreamWriter::WriteBytesSlowPath(const uint8_t* src,
                                               size_t size) {
  while (size > 0) {
    if (write_ptr_ >= cur_range_.end)
      Extend(1);
    const size_t chunk = std::min(size, bytes_available());
    WriteBytesUnsafe(src, chunk);
    src += chunk;
    size -= chunk;
  }
}

}  // namespace protozero
}  // namespace zt
