// The Templight fixtures of test/data/templight/ (see its README), for the
// processor's unit tests. ZT_TEST_DATA_DIR is set by the test's CMake target.

#ifndef ZT_SRC_PROCESSOR_TEST_TEMPLIGHT_TEST_FILES_H_
#define ZT_SRC_PROCESSOR_TEST_TEMPLIGHT_TEST_FILES_H_

#include <fstream>
#include <sstream>
#include <string>

namespace zt {
namespace processor {

// The bytes of test/data/templight/<name>; empty if it cannot be read.
inline std::string ReadTemplightTestFile(const std::string& name) {
  std::ifstream in(std::string(ZT_TEST_DATA_DIR) + "/templight/" + name, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_TEST_TEMPLIGHT_TEST_FILES_H_
