#include "zt/base/logging.h"

#include <cerrno>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "src/base/test/captured_log.h"

namespace zt {
namespace base {
namespace {

using test::CapturedLog;

TEST(LoggingTest, LineCarriesLevelFileLineAndMessage) {
  CapturedLog log(LogLevel::kDebug);
  ZT_ILOG("hello %d", 42);
  const int line = __LINE__ - 1;
  const std::string text = log.Text();
  EXPECT_EQ(text.rfind("zt ", 0), 0u) << text;
  EXPECT_NE(text.find(" I logging_unittest.cc:" + std::to_string(line) +
                      " hello 42\n"),
            std::string::npos)
      << text;
}

TEST(LoggingTest, LevelsBelowTheMinimumAreDropped) {
  CapturedLog log(LogLevel::kDebug);
  SetLogLevel(LogLevel::kWarning);
  ZT_DLOG("debug");
  ZT_ILOG("info");
  ZT_WLOG("warning");
  ZT_ELOG("error");
  const std::string text = log.Text();
  EXPECT_EQ(text.find("debug"), std::string::npos);
  EXPECT_EQ(text.find("info"), std::string::npos);
  EXPECT_NE(text.find(" W "), std::string::npos) << text;
  EXPECT_NE(text.find(" E "), std::string::npos) << text;
}

TEST(LoggingTest, ArgumentsOfDroppedLinesAreNotEvaluated) {
  CapturedLog log(LogLevel::kDebug);
  SetLogLevel(LogLevel::kError);
  int calls = 0;
  auto count = [&] { return ++calls; };
  ZT_ILOG("%d", count());
  EXPECT_EQ(calls, 0);
  ZT_ELOG("%d", count());
  EXPECT_EQ(calls, 1);
}

TEST(LoggingTest, LongMessagesAreCutAndSaySo) {
  CapturedLog log(LogLevel::kDebug);
  const std::string big(5000, 'x');
  ZT_ILOG("%s", big.c_str());
  const std::string text = log.Text();
  EXPECT_LT(text.size(), 1100u);
  EXPECT_EQ(text.substr(text.size() - 4), "...\n");
}

TEST(LoggingTest, PlogAppendsTheErrnoDescription) {
  CapturedLog log(LogLevel::kDebug);
  errno = ENOENT;
  ZT_PLOG("open %s", "/nonexistent");
  const std::string text = log.Text();
  EXPECT_NE(text.find("open /nonexistent (errno 2: "), std::string::npos) << text;
  EXPECT_NE(text.find(std::strerror(ENOENT)), std::string::npos) << text;
}

TEST(LoggingDeathTest, CheckAbortsWithTheCondition) {
  EXPECT_DEATH(ZT_CHECK(1 + 1 == 3), "CHECK failed: 1 \\+ 1 == 3");
  ZT_CHECK(1 + 1 == 2);  // Holds: nothing happens.
}

TEST(LoggingDeathTest, FatalAbortsWithTheMessage) {
  EXPECT_DEATH(ZT_FATAL("broken %s", "contract"), "broken contract");
}

TEST(LoggingDeathTest, DcheckFollowsTheBuild) {
#if defined(ZT_DCHECK_IS_ON) && ZT_DCHECK_IS_ON
  EXPECT_DEATH(ZT_DCHECK(false), "DCHECK failed: false");
#else
  int evaluated = 0;
  ZT_DCHECK(++evaluated == 100);  // Compiled, never evaluated.
  EXPECT_EQ(evaluated, 0);
#endif
}

}  // namespace
}  // namespace base
}  // namespace zt
