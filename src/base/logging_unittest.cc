#include "zt/base/logging.h"

#include <cerrno>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

namespace zt {
namespace base {
namespace {

// Captures what is logged while it lives, and restores the defaults.
class CapturedLog {
 public:
  CapturedLog() : file_(std::tmpfile()) {
    SetLogFile(file_);
    SetLogLevel(LogLevel::kDebug);
  }
  ~CapturedLog() {
    SetLogFile(nullptr);
    SetLogLevel(LogLevel::kInfo);
    std::fclose(file_);
  }
  std::string Text() {
    std::fflush(file_);
    std::string text;
    std::rewind(file_);
    char buf[512];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), file_)) > 0)
      text.append(buf, n);
    return text;
  }

 private:
  std::FILE* file_;
};

TEST(LoggingTest, LineCarriesLevelFileLineAndMessage) {
  CapturedLog log;
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
  CapturedLog log;
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
  CapturedLog log;
  SetLogLevel(LogLevel::kError);
  int calls = 0;
  auto count = [&] { return ++calls; };
  ZT_ILOG("%d", count());
  EXPECT_EQ(calls, 0);
  ZT_ELOG("%d", count());
  EXPECT_EQ(calls, 1);
}

TEST(LoggingTest, LongMessagesAreCutAndSaySo) {
  CapturedLog log;
  const std::string big(5000, 'x');
  ZT_ILOG("%s", big.c_str());
  const std::string text = log.Text();
  EXPECT_LT(text.size(), 1100u);
  EXPECT_EQ(text.substr(text.size() - 4), "...\n");
}

TEST(LoggingTest, PlogAppendsTheErrnoDescription) {
  CapturedLog log;
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
