// A span of writable bytes, [begin, end). The unit in which scattered writers
// receive memory from their delegate (a heap slice, a shared-memory chunk).
// A plain value type: thread-compatible.

#ifndef ZT_PROTOZERO_CONTIGUOUS_MEMORY_RANGE_H_
#define ZT_PROTOZERO_CONTIGUOUS_MEMORY_RANGE_H_

#include <cstddef>
#include <cstdint>

namespace zt {
namespace protozero {

struct ContiguousMemoryRange {
  uint8_t* begin = nullptr;
  uint8_t* end = nullptr;

  size_t size() const { return static_cast<size_t>(end - begin); }
  bool is_valid() const { return begin != nullptr; }
  bool Contains(const uint8_t* p) const { return p >= begin && p < end; }
};

}  // namespace protozero
}  // namespace zt

#endif  // ZT_PROTOZERO_CONTIGUOUS_MEMORY_RANGE_H_
