// SharedMemory: a region of memory that the tracing service and a producer
// both see: the shared memory buffer (SMB) whose layout SharedMemoryABI
// defines. In process it is an anonymous mapping (HeapSharedMemory); across
// processes a memfd that the service creates, maps, and passes to the
// producer over the socket (MemfdSharedMemory, fd sent with SCM_RIGHTS).
// Whoever needs one asks a Factory, so the service does not care which.
//
// The region is page-aligned (the ABI's atomics and page layout need at
// least 4 KiB), zero-filled when created, and stays mapped, at the same
// address and size, until the object is destroyed. Thread-safety: the
// accessors are const and safe from any thread; what threads do with the
// bytes is the ABI's business (docs/design/shared_memory_abi.md).
// Implementations and their costs: src/base (docs/design/base.md).

#ifndef ZT_EXT_BASE_SHARED_MEMORY_H_
#define ZT_EXT_BASE_SHARED_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <memory>

namespace zt {
namespace base {

class SharedMemory {
 public:
  class Factory {
   public:
    virtual ~Factory();
    // A new zero-filled, page-aligned region of |size| bytes, or null (and
    // a log line saying why) if it cannot be made. Thread-safe.
    virtual std::unique_ptr<SharedMemory> CreateSharedMemory(size_t size) = 0;
  };

  // Unmaps or frees the region (and closes its fd, if any).
  virtual ~SharedMemory();

  // The first byte, page-aligned. The pointer's constness is the handle's,
  // not the memory's: both sides write.
  virtual uint8_t* start() const = 0;
  virtual size_t size() const = 0;

  // The fd through which another process maps the same region (send it
  // with SCM_RIGHTS; the receiver maps it with MemfdSharedMemory's
  // AttachToFd), or -1 for memory only this process sees. Owned by this
  // object: valid while it lives.
  virtual int fd() const = 0;
};

}  // namespace base
}  // namespace zt

#endif  // ZT_EXT_BASE_SHARED_MEMORY_H_
