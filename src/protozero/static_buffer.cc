#include "zt/protozero/static_buffer.h"

namespace zt {
namespace protozero {

StaticBufferDelegate::~StaticBufferDelegate() = default;

ContiguousMemoryRange StaticBufferDelegate::GetNewBuffer() {
  overflowed_ = true;
  return {scratch_, scratch_ + sizeof(scratch_)};
}

}  // namespace protozero
}  // namespace zt
