// Many call sites, each with its own literal annotation key, for tests and
// benchmarks of keys at scale: CallSiteKey<N>::value is a const char array
// ("k000" to "k999"), as a string literal is, with an address of its own;
// CallSitesWithKeys<F, Count>() lists F's instances for 0..Count-1. And
// many names, cycled through: ManyStrings(), NextOf(). Standard library
// only: upstream's reference program (tools/upstream_reference) uses it.

#ifndef ZT_SRC_TRACING_TEST_CALL_SITE_KEYS_H_
#define ZT_SRC_TRACING_TEST_CALL_SITE_KEYS_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
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

// |count| strings "<prefix>0", "<prefix>1", ..., made once per prefix and
// kept for the program's life (their addresses are names' identities). A
// prefix always comes with the same count (else: abort, said on stderr).
inline const std::vector<std::string>& ManyStrings(const char* prefix, int64_t count) {
  static auto* all = new std::map<std::string, std::vector<std::string>>();
  std::vector<std::string>& strings = (*all)[prefix];
  if (strings.empty()) {
    for (int64_t i = 0; i < count; i++)
      strings.push_back(std::string(prefix) + std::to_string(i));
  }
  if (strings.size() != static_cast<size_t>(count)) {  // One count per prefix.
    fprintf(stderr, "ManyStrings(\"%s\"): asked for %lld, made %zu before\n", prefix,
            static_cast<long long>(count), strings.size());
    abort();
  }
  return strings;
}

// The same strings packed back to back in one buffer, each ended by its
// NUL, as a compiler lays out string literals: for names passed as
// addresses (StaticString), whose spacing is then a literal's length and
// not std::string's size.
inline const std::vector<const char*>& ManyPackedStrings(const char* prefix, int64_t count) {
  static auto* all = new std::map<std::string, std::vector<const char*>>();
  std::vector<const char*>& packed = (*all)[prefix];
  if (packed.empty()) {
    const std::vector<std::string>& strings = ManyStrings(prefix, count);
    size_t bytes = 0;
    for (const std::string& s : strings)
      bytes += s.size() + 1;
    char* buffer = new char[bytes];  // Kept for the program's life.
    for (const std::string& s : strings) {
      memcpy(buffer, s.c_str(), s.size() + 1);
      packed.push_back(buffer);
      buffer += s.size() + 1;
    }
  }
  if (packed.size() != static_cast<size_t>(count)) {  // One count per prefix.
    fprintf(stderr, "ManyPackedStrings(\"%s\"): asked for %lld, made %zu before\n", prefix,
            static_cast<long long>(count), packed.size());
    abort();
  }
  return packed;
}

// The next of |count| in turn (no division: a benchmark's literal case to
// compare with has none).
inline size_t NextOf(size_t* index, int64_t count) {
  const size_t i = *index;
  *index = i + 1 == static_cast<size_t>(count) ? 0 : i + 1;
  return i;
}

}  // namespace test
}  // namespace zt

#endif  // ZT_SRC_TRACING_TEST_CALL_SITE_KEYS_H_
