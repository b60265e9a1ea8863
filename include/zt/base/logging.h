// Logging and checks for every layer of zerotrace (protozero included, so
// header-only and standard-library-only).
//
//   ZT_CHECK(cond)       always on: a contract whose breach would corrupt
//                        data or memory. Prints file:line and the condition,
//                        then aborts.
//   ZT_DCHECK(cond)      only with ZT_DCHECK_IS_ON=1 (the sanitizer CI
//                        build): contracts too costly to check on hot paths.
//                        Otherwise not evaluated (but still compiled).
//   ZT_FATAL(fmt, ...)   prints the message and aborts.
//   ZT_DLOG / ZT_ILOG / ZT_WLOG / ZT_ELOG(fmt, ...)
//                        a line at debug / info / warning / error level, if
//                        at or above the minimum level (default: info).
//   ZT_PLOG(fmt, ...)    an error line followed by strerror(errno).
//
// A line reads "zt 12:34:56.789 E file.cc:42 message" (UTC time), written
// with one fwrite, so lines from several threads do not interleave. Output
// goes to stderr unless SetLogFile() names another stream (the daemon logs
// to a file). Costs: a disabled level is one relaxed atomic load; a printed
// line formats into a 1 KiB stack buffer (longer messages are cut and end
// with "...").

#ifndef ZT_BASE_LOGGING_H_
#define ZT_BASE_LOGGING_H_

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "zt/base/compiler.h"

namespace zt {
namespace base {

enum class LogLevel : int { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3, kFatal = 4 };

namespace logging_internal {
// C++17 inline variables: one instance in the whole program.
inline std::atomic<int> g_min_level{static_cast<int>(LogLevel::kInfo)};
inline std::atomic<std::FILE*> g_file{nullptr};  // Null: stderr.
}  // namespace logging_internal

// Lines below |level| are dropped (fatal ones never are). Thread-safe.
inline void SetLogLevel(LogLevel level) {
  logging_internal::g_min_level.store(static_cast<int>(level),
                                      std::memory_order_relaxed);
}

// Sends lines to |file| (not owned; it must stay open while anything may
// log), or back to stderr when null. Thread-safe.
inline void SetLogFile(std::FILE* file) {
  logging_internal::g_file.store(file, std::memory_order_release);
}

inline bool ShouldLog(LogLevel level) {
  return static_cast<int>(level) >=
         logging_internal::g_min_level.load(std::memory_order_relaxed);
}

namespace logging_internal {

inline void VLogLine(LogLevel level, const char* file, int line,
                     const char* fmt, va_list args) {
  static const char kLevels[] = "DIWEF";
  const char* base = std::strrchr(file, '/');
  base = base ? base + 1 : file;
  std::timespec now{};
  std::timespec_get(&now, TIME_UTC);
  const long day_seconds = static_cast<long>(now.tv_sec % 86400);
  char buf[1024];
  int n = std::snprintf(buf, sizeof(buf), "zt %02ld:%02ld:%02ld.%03ld %c %s:%d ",
                        day_seconds / 3600, day_seconds / 60 % 60,
                        day_seconds % 60, now.tv_nsec / 1000000,
                        kLevels[static_cast<int>(level)], base, line);
  if (n < 0)
    n = 0;
  size_t len = static_cast<size_t>(n) < sizeof(buf) ? static_cast<size_t>(n)
                                                    : sizeof(buf) - 1;
  const int m = std::vsnprintf(buf + len, sizeof(buf) - len, fmt, args);
  if (m > 0)
    len += static_cast<size_t>(m);
  if (len >= sizeof(buf) - 1) {  // Cut: say so.
    len = sizeof(buf) - 5;
    std::memcpy(buf + len, "...", 3);
    len += 3;
  }
  buf[len++] = '\n';
  std::FILE* out = g_file.load(std::memory_order_acquire);
  if (!out)
    out = stderr;
  std::fwrite(buf, 1, len, out);
  std::fflush(out);
}

}  // namespace logging_internal

// One line at |level| (see the macros). Out of line: call sites stay small.
ZT_NOINLINE ZT_PRINTF_FORMAT(4, 5) inline void LogMessage(
    LogLevel level, const char* file, int line, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  logging_internal::VLogLine(level, file, line, fmt, args);
  va_end(args);
}

// An error line ending with |error|'s description (ZT_PLOG passes errno
// as it was before the message's arguments were evaluated).
ZT_NOINLINE ZT_PRINTF_FORMAT(4, 5) inline void ErrnoLogMessage(
    int error, const char* file, int line, const char* fmt, ...) {
  char message[768];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(message, sizeof(message), fmt, args);
  va_end(args);
  LogMessage(LogLevel::kError, file, line, "%s (errno %d: %s)", message, error,
             std::strerror(error));
}

// Prints a fatal line and aborts.
[[noreturn]] ZT_NOINLINE ZT_PRINTF_FORMAT(3, 4) inline void FatalMessage(
    const char* file, int line, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  logging_internal::VLogLine(LogLevel::kFatal, file, line, fmt, args);
  va_end(args);
  std::abort();
}

}  // namespace base
}  // namespace zt

#define ZT_INTERNAL_LOG(level, ...)                                  \
  do {                                                               \
    if (::zt::base::ShouldLog(level))                                \
      ::zt::base::LogMessage(level, __FILE__, __LINE__, __VA_ARGS__); \
  } while (0)

#define ZT_DLOG(...) ZT_INTERNAL_LOG(::zt::base::LogLevel::kDebug, __VA_ARGS__)
#define ZT_ILOG(...) ZT_INTERNAL_LOG(::zt::base::LogLevel::kInfo, __VA_ARGS__)
#define ZT_WLOG(...) ZT_INTERNAL_LOG(::zt::base::LogLevel::kWarning, __VA_ARGS__)
#define ZT_ELOG(...) ZT_INTERNAL_LOG(::zt::base::LogLevel::kError, __VA_ARGS__)
#define ZT_PLOG(...)                                                        \
  do {                                                                      \
    const int zt_plog_errno = errno;                                        \
    if (::zt::base::ShouldLog(::zt::base::LogLevel::kError))                \
      ::zt::base::ErrnoLogMessage(zt_plog_errno, __FILE__, __LINE__,        \
                                  __VA_ARGS__);                             \
  } while (0)

#define ZT_FATAL(...) ::zt::base::FatalMessage(__FILE__, __LINE__, __VA_ARGS__)

#define ZT_CHECK(cond)                                 \
  do {                                                 \
    if (ZT_UNLIKELY(!(cond)))                          \
      ZT_FATAL("CHECK failed: %s", #cond);             \
  } while (0)

#if defined(ZT_DCHECK_IS_ON) && ZT_DCHECK_IS_ON
#define ZT_DCHECK(cond)                                \
  do {                                                 \
    if (ZT_UNLIKELY(!(cond)))                          \
      ZT_FATAL("DCHECK failed: %s", #cond);            \
  } while (0)
#else
// Compiled (names stay checked) but never evaluated.
#define ZT_DCHECK(cond)   \
  do {                    \
    if (false) {          \
      (void)(cond);       \
    }                     \
  } while (0)
#endif

#endif  // ZT_BASE_LOGGING_H_
