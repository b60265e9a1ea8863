// The test events' payload in the system-mode tests: a function of the
// writer's sequence and the packet's index, so that a reader can tell an
// intact packet from a torn or mixed-up one.
#ifndef ZT_TEST_SYSTEM_SYSTEM_TEST_PAYLOAD_H_
#define ZT_TEST_SYSTEM_SYSTEM_TEST_PAYLOAD_H_

#include <cstdint>
#include <cstdio>
#include <string>

namespace zt {
namespace test {

inline std::string SystemTestPayload(uint32_t seq, uint32_t counter) {
  char buf[64];
  snprintf(buf, sizeof(buf), "seq %u packet %u / 0123456789abcdef", seq, counter);
  return buf;
}

}  // namespace test
}  // namespace zt

#endif  // ZT_TEST_SYSTEM_SYSTEM_TEST_PAYLOAD_H_
