#include "src/cmd/ztrace/serve/output_gate.h"

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

namespace zt {
namespace ztrace {
namespace serve {
namespace {

using std::chrono::milliseconds;

TEST(OutputGateTest, WaitsWhileOverTheLimitUntilDrained) {
  OutputGate gate(100, milliseconds(60000));
  ASSERT_TRUE(gate.Add(60));
  EXPECT_TRUE(gate.WaitBelowLimit());  // 60 <= 100: no wait.
  ASSERT_TRUE(gate.Add(60));
  std::thread reader([&gate] { gate.Drained(60); });
  EXPECT_TRUE(gate.WaitBelowLimit());  // Returns once drained (not after 60 s).
  reader.join();
  EXPECT_EQ(gate.queued(), 60u);
  EXPECT_FALSE(gate.closed());
}

TEST(OutputGateTest, AStalledReaderClosesTheGate) {
  OutputGate gate(10, milliseconds(50));
  ASSERT_TRUE(gate.Add(20));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(gate.WaitBelowLimit());
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(50));
  EXPECT_TRUE(gate.closed());
  EXPECT_TRUE(gate.stalled());
  EXPECT_FALSE(gate.Add(1));
}

TEST(OutputGateTest, ClosingWakesTheWriter) {
  OutputGate gate(10, milliseconds(60000));
  ASSERT_TRUE(gate.Add(20));
  std::thread closer([&gate] { gate.Close(); });
  EXPECT_FALSE(gate.WaitBelowLimit());
  closer.join();
  EXPECT_TRUE(gate.closed());
  EXPECT_FALSE(gate.stalled());
}

}  // namespace
}  // namespace serve
}  // namespace ztrace
}  // namespace zt
