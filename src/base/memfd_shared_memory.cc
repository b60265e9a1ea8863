#include "src/base/memfd_shared_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <utility>

#include "zt/base/logging.h"

namespace zt {
namespace base {

namespace {
// Shrinking would SIGBUS the other side; growing would change a size both
// sides agreed on; and once these are set, no one may add more (e.g. a
// write seal, which would stop the service's writes).
constexpr int kSeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;
}  // namespace

std::unique_ptr<SharedMemory> MemfdSharedMemory::Factory::CreateSharedMemory(
    size_t size) {
  return MemfdSharedMemory::Create(size);
}

std::unique_ptr<MemfdSharedMemory> MemfdSharedMemory::Create(size_t size) {
  if (size == 0 || size > static_cast<size_t>(INT64_MAX)) {
    ZT_ELOG("cannot create %zu bytes of shared memory: bad size", size);
    return nullptr;
  }
  ScopedFile fd(memfd_create("zt_shmem", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd) {
    ZT_PLOG("memfd_create");
    return nullptr;
  }
  if (ftruncate(fd.get(), static_cast<off_t>(size)) != 0) {
    ZT_PLOG("ftruncate(memfd, %zu)", size);
    return nullptr;
  }
  bool sealed = true;
  if (fcntl(fd.get(), F_ADD_SEALS, kSeals) != 0) {
    // An old kernel or a filesystem without seals: usable, less safe.
    ZT_PLOG("cannot seal the shared memory (a peer could shrink it)");
    sealed = false;
  }
  return Map(std::move(fd), size, sealed);
}

std::unique_ptr<MemfdSharedMemory> MemfdSharedMemory::AttachToFd(
    ScopedFile fd, size_t size, bool require_seals) {
  struct stat st {};
  if (!fd || fstat(fd.get(), &st) != 0) {
    ZT_PLOG("cannot attach shared memory: fstat(%d)", fd.get());
    return nullptr;
  }
  if (size == 0 || st.st_size < 0 ||
      static_cast<uint64_t>(st.st_size) != size) {
    ZT_ELOG("refusing shared memory fd %d: it holds %lld bytes, expected %zu",
            fd.get(), static_cast<long long>(st.st_size), size);
    return nullptr;
  }
  const int seals = fcntl(fd.get(), F_GET_SEALS);
  const bool sealed = seals >= 0 && (seals & F_SEAL_SHRINK);
  if (require_seals && !sealed) {
    ZT_ELOG(
        "refusing shared memory fd %d: not sealed against shrinking "
        "(seals %d), so it could vanish under the mapping",
        fd.get(), seals);
    return nullptr;
  }
  return Map(std::move(fd), size, sealed);
}

std::unique_ptr<MemfdSharedMemory> MemfdSharedMemory::Map(ScopedFile fd,
                                                          size_t size,
                                                          bool sealed) {
  void* start =
      mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
  if (start == MAP_FAILED) {
    ZT_PLOG("mmap(%zu bytes of shared memory)", size);
    return nullptr;
  }
  return std::unique_ptr<MemfdSharedMemory>(new MemfdSharedMemory(
      std::move(fd), static_cast<uint8_t*>(start), size, sealed));
}

MemfdSharedMemory::MemfdSharedMemory(ScopedFile fd, uint8_t* start, size_t size,
                                     bool sealed)
    : fd_(std::move(fd)), start_(start), size_(size), sealed_(sealed) {}

MemfdSharedMemory::~MemfdSharedMemory() {
  if (munmap(start_, size_) != 0)
    ZT_PLOG("munmap(shared memory)");
}

}  // namespace base
}  // namespace zt
