#include "zt/protozero/cpp_message_internal.h"

#include <algorithm>

#include "zt/protozero/scattered_heap_buffer.h"

namespace zt {
namespace protozero {

namespace {
using LazyEntry = std::pair<uint32_t, std::string>;
bool IdLess(const LazyEntry& e, uint32_t id) { return e.first < id; }
}  // namespace

const std::string* LazyFields::Find(uint32_t id) const {
  auto it = std::lower_bound(fields_.begin(), fields_.end(), id, IdLess);
  return it != fields_.end() && it->first == id ? &it->second : nullptr;
}

const std::string& LazyFields::Get(uint32_t id) const {
  static const std::string* const kEmpty = new std::string();
  const std::string* value = Find(id);
  return value ? *value : *kEmpty;
}

std::string* LazyFields::Mutable(uint32_t id) {
  auto it = std::lower_bound(fields_.begin(), fields_.end(), id, IdLess);
  if (it == fields_.end() || it->first != id)
    it = fields_.insert(it, LazyEntry(id, std::string()));
  return &it->second;
}

void LazyFields::Clear(uint32_t id) {
  auto it = std::lower_bound(fields_.begin(), fields_.end(), id, IdLess);
  if (it != fields_.end() && it->first == id)
    fields_.erase(it);
}

void LazyFields::Append(uint32_t id, const uint8_t* data, size_t size) {
  Mutable(id)->append(reinterpret_cast<const char*>(data), size);
}

void LazyFields::Serialize(uint32_t id, Message* msg) const {
  if (const std::string* value = Find(id))
    msg->AppendBytes(id, value->data(), value->size());
}

namespace cppgen_internal {

void AppendVarIntField(Message* msg, uint32_t id, int32_t value) { msg->AppendVarInt(id, value); }
void AppendVarIntField(Message* msg, uint32_t id, int64_t value) { msg->AppendVarInt(id, value); }
void AppendVarIntField(Message* msg, uint32_t id, uint32_t value) { msg->AppendVarInt(id, value); }
void AppendVarIntField(Message* msg, uint32_t id, uint64_t value) { msg->AppendVarInt(id, value); }
void AppendVarIntField(Message* msg, uint32_t id, bool value) { msg->AppendVarInt(id, value); }
void AppendSignedVarIntField(Message* msg, uint32_t id, int32_t value) { msg->AppendSignedVarInt(id, value); }
void AppendSignedVarIntField(Message* msg, uint32_t id, int64_t value) { msg->AppendSignedVarInt(id, value); }
void AppendFixedField(Message* msg, uint32_t id, int32_t value) { msg->AppendFixed(id, value); }
void AppendFixedField(Message* msg, uint32_t id, int64_t value) { msg->AppendFixed(id, value); }
void AppendFixedField(Message* msg, uint32_t id, uint32_t value) { msg->AppendFixed(id, value); }
void AppendFixedField(Message* msg, uint32_t id, uint64_t value) { msg->AppendFixed(id, value); }
void AppendFixedField(Message* msg, uint32_t id, float value) { msg->AppendFixed(id, value); }
void AppendFixedField(Message* msg, uint32_t id, double value) { msg->AppendFixed(id, value); }

void AppendBytesField(Message* msg, uint32_t id, const std::string& value) {
  msg->AppendBytes(id, value.data(), value.size());
}

Message* BeginNestedField(Message* msg, uint32_t id) {
  return msg->BeginNestedMessage<Message>(id);
}

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
