#include "zt/protozero/cpp_message_internal.h"

#include "zt/protozero/scattered_heap_buffer.h"

namespace zt {
namespace protozero {
namespace cppgen_internal {

std::string SerializeToString(const void* obj, SerializeFn serialize) {
  HeapBuffered<Message> msg;
  serialize(obj, msg.get());
  return msg.SerializeAsString();
}

std::vector<uint8_t> SerializeToArray(const void* obj, SerializeFn serialize) {
  HeapBuffered<Message> msg;
  serialize(obj, msg.get());
  return msg.SerializeAsArray();
}

}  // namespace cppgen_internal
}  // namespace protozero
}  // namespace zt
