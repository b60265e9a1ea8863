#include "src/tracing/test/test_runner.h"

namespace zt {
namespace test {

TestRunner::~TestRunner() = default;

}  // namespace test
}  // namespace zt
