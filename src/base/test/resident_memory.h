// Test support: the process's resident memory, for tests that check what a
// component holds (a buffer's copy, a service under hostile requests).
// Header-only; any thread.

#ifndef ZT_SRC_BASE_TEST_RESIDENT_MEMORY_H_
#define ZT_SRC_BASE_TEST_RESIDENT_MEMORY_H_

#include <stdio.h>
#include <unistd.h>

#include <cstddef>

namespace zt {
namespace test {

// False in sanitizer builds: ASan keeps freed memory in quarantine (256 MB)
// and both ASan and TSan map shadow memory, so resident memory says nothing
// about what the code under test holds. Tests skip their memory checks then.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kResidentMemoryMeaningful = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kResidentMemoryMeaningful = false;
#else
constexpr bool kResidentMemoryMeaningful = true;
#endif
#else
constexpr bool kResidentMemoryMeaningful = true;
#endif

// Resident bytes of this process now (/proc/self/statm); 0 if unknown.
inline size_t ResidentBytes() {
  FILE* f = fopen("/proc/self/statm", "r");
  unsigned long long pages = 0, resident = 0;
  if (f) {
    if (fscanf(f, "%llu %llu", &pages, &resident) != 2)
      resident = 0;
    fclose(f);
  }
  return static_cast<size_t>(resident) * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace test
}  // namespace zt

#endif  // ZT_SRC_BASE_TEST_RESIDENT_MEMORY_H_
