#include "zt/base/task_runner.h"

namespace zt {
namespace base {

TaskRunner::~TaskRunner() = default;

}  // namespace base
}  // namespace zt
