// Compiler hints used across zerotrace: branch likelihood and inlining.
// Header-only and dependency-free, so that every layer (protozero included)
// may use it.

#ifndef ZT_BASE_COMPILER_H_
#define ZT_BASE_COMPILER_H_

#if defined(__GNUC__) || defined(__clang__)
#define ZT_LIKELY(x) __builtin_expect(!!(x), 1)
#define ZT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define ZT_ALWAYS_INLINE __attribute__((always_inline))
#define ZT_NOINLINE __attribute__((noinline))
#define ZT_PRINTF_FORMAT(fmt_index, first_arg) \
  __attribute__((format(printf, fmt_index, first_arg)))
// A small thread-local the hot path reads: addressed from the thread
// pointer directly, even in position-independent code.
#define ZT_INITIAL_EXEC_TLS __attribute__((tls_model("initial-exec")))
#else
#define ZT_INITIAL_EXEC_TLS
#define ZT_LIKELY(x) (x)
#define ZT_UNLIKELY(x) (x)
#define ZT_ALWAYS_INLINE
#define ZT_NOINLINE
#define ZT_PRINTF_FORMAT(fmt_index, first_arg)
#endif

#endif  // ZT_BASE_COMPILER_H_
