// Exit codes every ztrace command returns.

#ifndef ZT_SRC_CMD_ZTRACE_EXIT_CODES_H_
#define ZT_SRC_CMD_ZTRACE_EXIT_CODES_H_

namespace zt {
namespace ztrace {

inline constexpr int kExitOk = 0;
// The command ran and failed: a trace that cannot be read, a service that
// refused, a write error.
inline constexpr int kExitFailure = 1;
// The command line is wrong; the usage was printed.
inline constexpr int kExitUsage = 2;

}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_EXIT_CODES_H_
