// MemfdSharedMemory: SharedMemory another process can map: a memfd (an
// anonymous file in RAM), mapped MAP_SHARED. The service creates one per
// producer and sends fd() over the socket; the producer maps it with
// AttachToFd().
//
// Sealing: a process holding the fd could ftruncate() it smaller, and the
// other side's next access past the new end would die of SIGBUS. So
// Create() seals the file against shrinking and growing (and against new
// seals) where the kernel allows, and AttachToFd() can refuse a region
// that is not sealed against shrinking (the service must, for memory a
// producer provides). Costs: Create is memfd_create + ftruncate + fcntl +
// mmap (pages are allocated, zeroed, on first touch); AttachToFd is
// fstat + fcntl + mmap. Thread-safe accessors (see SharedMemory).

#ifndef ZT_SRC_BASE_MEMFD_SHARED_MEMORY_H_
#define ZT_SRC_BASE_MEMFD_SHARED_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "src/base/scoped_file.h"
#include "zt/ext/base/shared_memory.h"

namespace zt {
namespace base {

class MemfdSharedMemory : public SharedMemory {
 public:
  class Factory : public SharedMemory::Factory {
   public:
    std::unique_ptr<SharedMemory> CreateSharedMemory(size_t size) override;
  };

  // A new sealed memfd of |size| bytes, mapped read-write. If the kernel
  // refuses the seals it is returned unsealed (sealed() false; a warning
  // is logged). Null and a log line if |size| is 0 or a call fails.
  static std::unique_ptr<MemfdSharedMemory> Create(size_t size);

  // Maps |fd| (e.g. received from a peer), taking ownership of it, after
  // checking with fstat that the file is exactly |size| bytes and, if
  // |require_seals|, that it is sealed against shrinking. Null and a log
  // line otherwise (the fd is closed then): a size mismatch means the two
  // sides disagree on the layout, an unsealed file could be shrunk under
  // the mapping.
  static std::unique_ptr<MemfdSharedMemory> AttachToFd(
      ScopedFile fd, size_t size, bool require_seals = true);

  ~MemfdSharedMemory() override;

  uint8_t* start() const override { return start_; }
  size_t size() const override { return size_; }
  int fd() const override { return fd_.get(); }

  // Whether the file is sealed against shrinking (the seal that matters).
  bool sealed() const { return sealed_; }

 private:
  MemfdSharedMemory(ScopedFile fd, uint8_t* start, size_t size, bool sealed);
  // Maps |fd| read-write and shared; null (logged) on failure.
  static std::unique_ptr<MemfdSharedMemory> Map(ScopedFile fd, size_t size,
                                                bool sealed);

  const ScopedFile fd_;
  uint8_t* const start_;
  const size_t size_;
  const bool sealed_;
};

}  // namespace base
}  // namespace zt

#endif  // ZT_SRC_BASE_MEMFD_SHARED_MEMORY_H_
