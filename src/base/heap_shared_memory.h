// HeapSharedMemory: SharedMemory for in-process tracing, where service and
// producer share an address space: one private anonymous mapping, which the
// kernel hands out zero-filled, page by page as it is first touched (a 1 MiB
// SMB costs a program only the pages its writers reach). No fd.
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
  HeapSharedMemory(uint8_t* start, size_t size, size_t mapped)
      : start_(start), size_(size), mapped_(mapped) {}

  uint8_t* const start_;
  const size_t size_;
  const size_t mapped_;  // |size_| rounded up to pages.
};

}  // namespace base
}  // namespace zt

#endif  // ZT_SRC_BASE_HEAP_SHARED_MEMORY_H_
