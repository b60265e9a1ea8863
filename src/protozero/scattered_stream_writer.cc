#include "zt/protozero/scattered_stream_writer.h"

#include <algorithm>
#include <cstdlib>

namespace zt {
namespace protozero {

ScatteredStreamWriter::Delegate::~Delegate() = default;

void ScatteredStreamWriter::Extend() {
  ContiguousMemoryRange next = delegate_->GetNewBuffer();
  // A delegate that cannot supply memory must hand out scratch space instead
  // (see StaticBufferDelegate); a too-small range would make reservations
  // write out of bounds, so it is a programming error we refuse to hide.
  if (!next.is_valid() || next.size() < kMinRangeSize)
    abort();
  Reset(next);
}

void ScatteredStreamWriter::WriteBytesSlowPath(const uint8_t* src,
                                               size_t size) {
  while (size > 0) {
    if (write_ptr_ >= cur_range_.end)
      Extend();
    const size_t chunk = std::min(size, bytes_available());
    WriteBytesUnsafe(src, chunk);
    src += chunk;
    size -= chunk;
  }
}

}  // namespace protozero
}  // namespace zt
