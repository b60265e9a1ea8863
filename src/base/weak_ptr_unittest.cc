#include "zt/ext/base/weak_ptr.h"

#include <functional>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

namespace zt {
namespace base {
namespace {

struct Target {
  int value = 7;
  WeakPtrFactory<Target> weak_factory{this};
};

TEST(WeakPtrTest, PointsAtItsTargetWhileItLives) {
  auto target = std::make_unique<Target>();
  WeakPtr<Target> weak = target->weak_factory.GetWeakPtr();
  ASSERT_TRUE(weak);
  EXPECT_EQ(weak.get(), target.get());
  EXPECT_EQ(weak->value, 7);
  EXPECT_EQ((*weak).value, 7);
  WeakPtr<Target> copy = weak;
  target.reset();
  EXPECT_FALSE(weak);
  EXPECT_FALSE(copy);
  EXPECT_EQ(weak.get(), nullptr);
}

TEST(WeakPtrTest, ADefaultOneIsNull) {
  WeakPtr<Target> weak;
  EXPECT_FALSE(weak);
  EXPECT_EQ(weak.get(), nullptr);
}

// The use it is made for: queued tasks that must not outlive their target.
TEST(WeakPtrTest, QueuedTasksSkipATargetThatIsGone) {
  std::vector<std::function<void()>> queue;
  int ran = 0;
  {
    Target target;
    for (int i = 0; i < 3; i++) {
      queue.push_back([weak = target.weak_factory.GetWeakPtr(), &ran] {
        if (weak)
          ran += weak->value;
      });
    }
    queue[0]();  // While the target lives.
  }
  queue[1]();  // After: nothing happens.
  queue[2]();
  EXPECT_EQ(ran, 7);
}

}  // namespace
}  // namespace base
}  // namespace zt
