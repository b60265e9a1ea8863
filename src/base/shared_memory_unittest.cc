#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "src/base/heap_shared_memory.h"
#include "src/base/memfd_shared_memory.h"
#include "src/base/scoped_file.h"
#include "src/base/test/captured_log.h"
#include "zt/base/logging.h"
#include "zt/ext/base/shared_memory.h"

namespace zt {
namespace base {
namespace {

constexpr size_t kPage = 4096;

using test::CapturedLog;

bool AllZero(const SharedMemory& m) {
  for (size_t i = 0; i < m.size(); i++) {
    if (m.start()[i] != 0)
      return false;
  }
  return true;
}

void Fill(const SharedMemory& m, uint8_t seed) {
  for (size_t i = 0; i < m.size(); i++)
    m.start()[i] = static_cast<uint8_t>(seed + i * 7);
}

// --- Heap ---

TEST(HeapSharedMemoryTest, ZeroedPageAlignedWritableWithoutFd) {
  // Not a page multiple: the size is what was asked, the memory is rounded.
  std::unique_ptr<SharedMemory> m =
      HeapSharedMemory::Factory().CreateSharedMemory(3 * kPage + 5);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->size(), 3 * kPage + 5);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(m->start()) % kPage, 0u);
  EXPECT_TRUE(AllZero(*m));
  Fill(*m, 1);  // Every byte writable (ASan checks the bounds).
  EXPECT_EQ(m->start()[m->size() - 1],
            static_cast<uint8_t>(1 + (m->size() - 1) * 7));
  EXPECT_EQ(m->fd(), -1);
}

TEST(HeapSharedMemoryTest, RefusesZeroSize) {
  CapturedLog log;
  EXPECT_FALSE(HeapSharedMemory::Create(0));
  EXPECT_NE(log.Text().find("bad size"), std::string::npos) << log.Text();
}

// --- memfd ---

TEST(MemfdSharedMemoryTest, SecondMappingOfTheFdSeesTheSameBytes) {
  std::unique_ptr<SharedMemory> m =
      MemfdSharedMemory::Factory().CreateSharedMemory(4 * kPage);
  ASSERT_TRUE(m);
  ASSERT_GE(m->fd(), 0);
  EXPECT_EQ(m->size(), 4 * kPage);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(m->start()) % kPage, 0u);
  EXPECT_TRUE(AllZero(*m));
  Fill(*m, 3);

  // What a peer does with the fd it received (SCM_RIGHTS duplicates it).
  std::unique_ptr<MemfdSharedMemory> peer =
      MemfdSharedMemory::AttachToFd(ScopedFile(dup(m->fd())), m->size());
  ASSERT_TRUE(peer);
  EXPECT_NE(peer->start(), m->start());  // Another mapping...
  EXPECT_EQ(std::memcmp(peer->start(), m->start(), m->size()),
            0);  // ...same bytes.
  EXPECT_TRUE(peer->sealed());
  // Both ways.
  peer->start()[kPage + 1] = 0xab;
  EXPECT_EQ(m->start()[kPage + 1], 0xab);
  // The fd stays private to this process across exec.
  EXPECT_TRUE(fcntl(m->fd(), F_GETFD) & FD_CLOEXEC);
}

TEST(MemfdSharedMemoryTest, AttachRefusesASizeMismatch) {
  std::unique_ptr<MemfdSharedMemory> m = MemfdSharedMemory::Create(2 * kPage);
  ASSERT_TRUE(m);
  for (size_t size : {size_t{0}, 2 * kPage - 1, 2 * kPage + 1, 4 * kPage}) {
    CapturedLog log;
    EXPECT_FALSE(MemfdSharedMemory::AttachToFd(ScopedFile(dup(m->fd())), size))
        << size;
    EXPECT_NE(log.Text().find("expected " + std::to_string(size)),
              std::string::npos)
        << log.Text();
  }
  // Something that is not shared memory at all.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ScopedFile wr(fds[1]);
  EXPECT_FALSE(MemfdSharedMemory::AttachToFd(ScopedFile(fds[0]), kPage));
}

TEST(MemfdSharedMemoryTest, CreateRefusesZeroSize) {
  CapturedLog log;
  EXPECT_FALSE(MemfdSharedMemory::Create(0));
  EXPECT_NE(log.Text().find("bad size"), std::string::npos) << log.Text();
}

TEST(MemfdSharedMemoryTest, SealedAgainstShrinkingGrowingAndNewSeals) {
  std::unique_ptr<MemfdSharedMemory> m = MemfdSharedMemory::Create(2 * kPage);
  ASSERT_TRUE(m);
  if (!m->sealed())
    GTEST_SKIP() << "this kernel refuses memfd seals";
  const int seals = fcntl(m->fd(), F_GET_SEALS);
  EXPECT_EQ(seals & (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL),
            F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
  EXPECT_NE(ftruncate(m->fd(), kPage), 0);      // Shrink: refused.
  EXPECT_NE(ftruncate(m->fd(), 4 * kPage), 0);  // Grow: refused.
  EXPECT_NE(fcntl(m->fd(), F_ADD_SEALS, F_SEAL_WRITE), 0);
  struct stat st {};
  ASSERT_EQ(fstat(m->fd(), &st), 0);
  EXPECT_EQ(st.st_size, static_cast<off_t>(2 * kPage));
  m->start()[2 * kPage - 1] = 1;  // Still mapped and writable.
}

// The service refuses a producer's memory that the producer could shrink.
TEST(MemfdSharedMemoryTest, AttachRefusesUnsealedWhenSealsAreRequired) {
  ScopedFile fd(memfd_create("unsealed", MFD_CLOEXEC));
  ASSERT_TRUE(fd);
  ASSERT_EQ(ftruncate(fd.get(), 2 * kPage), 0);
  {
    CapturedLog log;
    EXPECT_FALSE(
        MemfdSharedMemory::AttachToFd(ScopedFile(dup(fd.get())), 2 * kPage));
    EXPECT_NE(log.Text().find("not sealed"), std::string::npos) << log.Text();
  }
  std::unique_ptr<MemfdSharedMemory> m = MemfdSharedMemory::AttachToFd(
      std::move(fd), 2 * kPage, /*require_seals=*/false);
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->sealed());
}

// Sanitizers catch SIGBUS themselves, report it and exit.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define ZT_TEST_SANITIZER_HANDLES_SIGBUS 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ZT_TEST_SANITIZER_HANDLES_SIGBUS 1
#endif

// Why the seals: shrinking an unsealed memfd under a mapping makes the
// mapping's next access past the new end fatal (SIGBUS).
TEST(MemfdSharedMemoryDeathTest, ShrinkingUnsealedMemoryKillsTheMapper) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto shrink_and_touch = [] {
    ScopedFile fd(memfd_create("unsealed", MFD_CLOEXEC));
    ZT_CHECK(ftruncate(fd.get(), 2 * kPage) == 0);
    auto m = MemfdSharedMemory::AttachToFd(std::move(fd), 2 * kPage,
                                           /*require_seals=*/false);
    ZT_CHECK(m);
    ZT_CHECK(ftruncate(m->fd(), 0) == 0);  // What a hostile peer does.
    volatile uint8_t* p = m->start();
    p[kPage] = 1;
  };
#if defined(ZT_TEST_SANITIZER_HANDLES_SIGBUS)
  EXPECT_DEATH(shrink_and_touch(), "BUS");
#else
  EXPECT_EXIT(shrink_and_touch(), testing::KilledBySignal(SIGBUS), "");
#endif
}

}  // namespace
}  // namespace base
}  // namespace zt
