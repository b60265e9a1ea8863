// The peak resident set of this process (VmHWM from /proc/self/status), in
// bytes; 0 where /proc is not there. For one-shot benchmark programs, which
// run in a fresh process so that the peak is the measured work's own.

#ifndef ZT_TEST_COMMON_PEAK_RSS_H_
#define ZT_TEST_COMMON_PEAK_RSS_H_

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace zt {
namespace test {

inline uint64_t PeakRss() {
  FILE* f = fopen("/proc/self/status", "r");
  if (!f)
    return 0;
  char line[256];
  uint64_t kb = 0;
  while (fgets(line, sizeof(line), f)) {
    if (strncmp(line, "VmHWM:", 6) == 0)
      sscanf(line + 6, "%" SCNu64, &kb);
  }
  fclose(f);
  return kb * 1024;
}

}  // namespace test
}  // namespace zt

#endif  // ZT_TEST_COMMON_PEAK_RSS_H_
