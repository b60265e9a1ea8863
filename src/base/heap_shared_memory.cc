#include "src/base/heap_shared_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

#include "zt/base/logging.h"

namespace zt {
namespace base {

namespace {
// The alignment (and rounding) unit: the system page size, at least 4 KiB.
size_t PageSize() {
  const long page = sysconf(_SC_PAGESIZE);
  return std::max<size_t>(4096, page > 0 ? static_cast<size_t>(page) : 0);
}
}  // namespace

std::unique_ptr<SharedMemory> HeapSharedMemory::Factory::CreateSharedMemory(
    size_t size) {
  return HeapSharedMemory::Create(size);
}

std::unique_ptr<HeapSharedMemory> HeapSharedMemory::Create(size_t size) {
  const size_t page = PageSize();
  if (size == 0 || size > SIZE_MAX - page) {
    ZT_ELOG("cannot create %zu bytes of shared memory: bad size", size);
    return nullptr;
  }
  const size_t rounded = (size + page - 1) / page * page;
  void* memory = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) {
    ZT_ELOG("cannot map %zu bytes of shared memory", size);
    return nullptr;
  }
  return std::unique_ptr<HeapSharedMemory>(
      new HeapSharedMemory(static_cast<uint8_t*>(memory), size, rounded));
}

HeapSharedMemory::~HeapSharedMemory() {
  munmap(start_, mapped_);
}

}  // namespace base
}  // namespace zt
