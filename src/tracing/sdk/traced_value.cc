// TracedValue, TracedDictionary and TracedArray: debug annotation values
// written straight into the event (zt/tracing/traced_value.h).

#include "zt/tracing/traced_value.h"

#include <cstring>
#include <string_view>

#include "zt/trace/track_event/debug_annotation.pbzero.h"
#include "zt/tracing/track_event_args.h"

namespace zt {

using protos::pbzero::DebugAnnotation;

void TracedValue::WriteInt64(int64_t value) {
  if (DebugAnnotation* annotation = Take())
    annotation->set_int_value(value);
}

void TracedValue::WriteUInt64(uint64_t value) {
  if (DebugAnnotation* annotation = Take())
    annotation->set_uint_value(value);
}

void TracedValue::WriteDouble(double value) {
  if (DebugAnnotation* annotation = Take())
    annotation->set_double_value(value);
}

void TracedValue::WriteBoolean(bool value) {
  if (DebugAnnotation* annotation = Take())
    annotation->set_bool_value(value);
}

void TracedValue::WriteString(const char* value) {
  WriteString(value, value ? strlen(value) : 0);
}

void TracedValue::WriteString(const char* value, size_t size) {
  if (DebugAnnotation* annotation = Take())
    annotation->set_string_value(std::string_view(value, size));
}

void TracedValue::WritePointer(const volatile void* value) {
  if (DebugAnnotation* annotation = Take())
    annotation->set_pointer_value(reinterpret_cast<uintptr_t>(value));
}

// A dictionary or array with no entries leaves the annotation without a
// value, which readers show as an empty one; there is no field that says
// "empty dictionary".
TracedDictionary TracedValue::WriteDictionary() { return TracedDictionary(Take()); }

TracedArray TracedValue::WriteArray() { return TracedArray(Take()); }

TracedValue TracedDictionary::AddItem(const char* key) {
  if (!annotation_)
    return TracedValue(nullptr);
  DebugAnnotation* entry = annotation_->add_dict_entries();
  entry->set_name(key ? std::string_view(key) : std::string_view());
  return TracedValue(entry);
}

TracedValue TracedDictionary::AddItem(const DynamicString& key) {
  if (!annotation_)
    return TracedValue(nullptr);
  DebugAnnotation* entry = annotation_->add_dict_entries();
  entry->set_name(std::string_view(key.value, key.length));
  return TracedValue(entry);
}

TracedValue TracedArray::AppendItem() {
  if (!annotation_)
    return TracedValue(nullptr);
  return TracedValue(annotation_->add_array_values());
}

}  // namespace zt
