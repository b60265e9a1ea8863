// Many call sites, each with its own literal annotation key, for tests and
// benchmarks of keys at scale: CallSiteKey<N>::value is a const char array
// ("k000" to "k999"), as a string literal is, with an address of its own;
// CallSitesWithKeys<F, Count>() lists F's instances for 0..Count-1.

#ifndef ZT_SRC_TRACING_TEST_CALL_SITE_KEYS_H_
#define ZT_SRC_TRACING_TEST_CALL_SITE_KEYS_H_

#include <cstdint>
#include <utility>
#include <vector>

namespace zt {
namespace test {

template <int N>
struct CallSiteKey {
  static_assert(N >= 0 && N < 1000, "three digits");
  static constexpr char value[] = {'k', static_cast<char>('0' + N / 100 % 10),
                                   static_cast<char>('0' + N / 10 % 10),
                                   static_cast<char>('0' + N % 10), '\0'};
};

// |Site| is a template of one int: Site<N>::Run(int64_t) is the call site.
template <template <int> class Site, int... Ns>
std::vector<void (*)(int64_t)> CallSites(std::integer_sequence<int, Ns...>) {
  return {&Site<Ns>::Run...};
}
template <template <int> class Site, int kCount>
std::vector<void (*)(int64_t)> CallSites() {
  return CallSites<Site>(std::make_integer_sequence<int, kCount>());
}

}  // namespace test
}  // namespace zt

#endif  // ZT_SRC_TRACING_TEST_CALL_SITE_KEYS_H_
