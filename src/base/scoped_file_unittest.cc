#include "src/base/scoped_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <utility>

#include <gtest/gtest.h>

namespace zt {
namespace base {
namespace {

bool IsOpen(int fd) {
  return fcntl(fd, F_GETFD) != -1;
}

int OpenDevNull() {
  const int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ZT_CHECK(fd >= 0);
  return fd;
}

TEST(ScopedFileTest, ClosesOnDestructionAndReset) {
  const int a = OpenDevNull();
  const int b = OpenDevNull();
  {
    ScopedFile file(a);
    EXPECT_TRUE(file);
    EXPECT_EQ(file.get(), a);
    file.reset(b);  // Closes a, owns b.
    EXPECT_FALSE(IsOpen(a));
    EXPECT_TRUE(IsOpen(b));
  }
  EXPECT_FALSE(IsOpen(b));
  EXPECT_FALSE(ScopedFile());
}

TEST(ScopedFileTest, ReleaseGivesTheFdUp) {
  const int fd = OpenDevNull();
  {
    ScopedFile file(fd);
    EXPECT_EQ(file.release(), fd);
    EXPECT_FALSE(file);
  }
  EXPECT_TRUE(IsOpen(fd));
  close(fd);
}

TEST(ScopedFileTest, MovesOwnership) {
  const int fd = OpenDevNull();
  ScopedFile a(fd);
  ScopedFile b(std::move(a));
  EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): the point.
  EXPECT_EQ(b.get(), fd);
  ScopedFile c;
  c = std::move(b);
  EXPECT_EQ(c.get(), fd);
  EXPECT_TRUE(IsOpen(fd));
  c = ScopedFile();
  EXPECT_FALSE(IsOpen(fd));
}

TEST(ScopedFileDeathTest, ClosingTwiceIsFatal) {
  EXPECT_DEATH(
      {
        ScopedFile file(OpenDevNull());
        close(file.get());  // Someone else closed it.
        file.reset();
      },
      "closed twice");
}

}  // namespace
}  // namespace base
}  // namespace zt
