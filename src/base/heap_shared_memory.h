// HeapSharedMemory: SharedMemory for in-process tracing, where service and
// producer share an address space: one aligned_alloc, zero-filled. No fd.
// Cost: allocating and zeroing |size| bytes (every page is touched once).
// Thread-safe accessors (see SharedMemory).

#ifndef ZT_SRC_BASE_HEAP_SHARED_MEMORY_H_
#define ZT_SRC_BASE_HEAP_SHARED_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "zt/ext/base/shared_memory.h"

namespace zt {
namespace base {

class HeapSharedMemory : public SharedMemory {
 public:
  class Factory : public SharedMemory::Factory {
   public:
    std::unique_ptr<SharedMemory> CreateSharedMemory(size_t size) override;
  };

  // |size| bytes aligned to the page size (at least 4 KiB), zeroed; null
  // and a log line if |size| is 0 or the allocation fails.
  static std::unique_ptr<HeapSharedMemory> Create(size_t size);

  ~HeapSharedMemory() override;

  uint8_t* start() const override { return start_; }
  size_t size() const override { return size_; }
  int fd() const override { return -1; }

 private:
  HeapSharedMemory(uint8_t* start, size_t size) : start_(start), size_(size) {}

  uint8_t* const start_;
  const size_t size_;
};

}  // namespace base
}  // namespace zt

#endif  // ZT_SRC_BASE_HEAP_SHARED_MEMORY_H_
