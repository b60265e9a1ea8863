#include "zt/protozero/packed_repeated_fields.h"

#include <algorithm>
#include <cstring>

namespace zt {
namespace protozero {

void PackedBufferBase::Grow(size_t bytes) {
  const size_t used = size();
  const size_t capacity = static_cast<size_t>(end_ - begin_);
  const size_t new_capacity = std::max(capacity * 2, used + bytes);
  std::unique_ptr<uint8_t[]> bigger(new uint8_t[new_capacity]);
  memcpy(bigger.get(), begin_, used);
  heap_buf_ = std::move(bigger);
  begin_ = heap_buf_.get();
  end_ = begin_ + new_capacity;
  write_ptr_ = begin_ + used;
}

}  // namespace protozero
}  // namespace zt
