/* One spelling of "an atomic T" for C and C++, for the flags the library
 * shares with the code that includes it (a data source's or a category's
 * "enabled" flag).
 *
 * The library writes the flags with C++ std::atomic; the including code
 * reads them:
 *  - C++:  std::atomic<T>;
 *  - C11:  _Atomic(T);
 *  - C99:  plain T, read with the compilers' __atomic builtins, which emit
 *          the same instructions (an atomic bool or pointer has the size
 *          and alignment of the plain type on every ABI gcc and clang
 *          target, which the library checks at build time).
 * ZT_C_ATOMIC_LOAD_RELAXED(p) and ZT_C_ATOMIC_LOAD_ACQUIRE(p) read *p in
 * all three. */
#ifndef ZT_C_ABI_ATOMIC_H_
#define ZT_C_ABI_ATOMIC_H_

#if defined(__cplusplus)
#include <atomic>
#define ZT_C_ATOMIC(T) std::atomic<T>
#define ZT_C_ATOMIC_LOAD_RELAXED(p) (p)->load(std::memory_order_relaxed)
#define ZT_C_ATOMIC_LOAD_ACQUIRE(p) (p)->load(std::memory_order_acquire)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && \
    !defined(__STDC_NO_ATOMICS__)
#include <stdatomic.h>
#define ZT_C_ATOMIC(T) _Atomic(T)
#define ZT_C_ATOMIC_LOAD_RELAXED(p) atomic_load_explicit((p), memory_order_relaxed)
#define ZT_C_ATOMIC_LOAD_ACQUIRE(p) atomic_load_explicit((p), memory_order_acquire)
#else
#define ZT_C_ATOMIC(T) T
#define ZT_C_ATOMIC_LOAD_RELAXED(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define ZT_C_ATOMIC_LOAD_ACQUIRE(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#endif

#endif /* ZT_C_ABI_ATOMIC_H_ */
