#include "zt/ext/base/shared_memory.h"

namespace zt {
namespace base {

SharedMemory::~SharedMemory() = default;
SharedMemory::Factory::~Factory() = default;

}  // namespace base
}  // namespace zt
