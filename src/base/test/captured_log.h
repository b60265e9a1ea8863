// Test support: captures what is logged (ZT_LOG, checks' messages) while it
// lives, then restores the defaults (stderr, info level). Not thread-safe
// against other captures: one at a time per process.

#ifndef ZT_SRC_BASE_TEST_CAPTURED_LOG_H_
#define ZT_SRC_BASE_TEST_CAPTURED_LOG_H_

#include <cstdio>
#include <string>

#include "zt/base/logging.h"

namespace zt {
namespace base {
namespace test {

class CapturedLog {
 public:
  explicit CapturedLog(LogLevel level = LogLevel::kInfo) : file_(std::tmpfile()) {
    SetLogFile(file_);
    SetLogLevel(level);
  }
  ~CapturedLog() {
    SetLogFile(nullptr);
    SetLogLevel(LogLevel::kInfo);
    std::fclose(file_);
  }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;

  // Everything logged so far.
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

}  // namespace test
}  // namespace base
}  // namespace zt

#endif  // ZT_SRC_BASE_TEST_CAPTURED_LOG_H_
