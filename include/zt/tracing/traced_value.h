// Structured debug annotation values: dictionaries and arrays, nested to
// any depth, written by a callback the annotation's value is.
//
//   TRACE_EVENT("net", "Send", "request", [&](zt::TracedValue value) {
//     zt::TracedDictionary dict = value.WriteDictionary();
//     dict.Add("url", url);              // any annotation value type
//     dict.Add("retries", retries);
//     zt::TracedArray sizes = dict.AddItem("sizes").WriteArray();
//     for (int size : chunk_sizes)
//       sizes.Append(size);
//   });
//
// Values are written straight into the event (DebugAnnotation.dict_entries
// and array_values, keys inline): nothing is buffered or allocated. The
// callback runs only when the event is recorded.
//
// Each TracedValue holds one value: the first Write*() wins, later ones do
// nothing. A dictionary or array must be finished before its parent is
// written to again (as it is when each is filled where it is made): the
// bytes of an event are appended in order, so adding to a parent closes
// the children written so far.
//
// Thread-compatible: valid on the event's thread, during the callback.
//
// Cost of including: <stddef.h> and <stdint.h>.

#ifndef ZT_TRACING_TRACED_VALUE_H_
#define ZT_TRACING_TRACED_VALUE_H_

#include <stddef.h>
#include <stdint.h>

#include "zt/tracing/internal/type_traits.h"

namespace zt {
namespace protos {
namespace pbzero {
class DebugAnnotation;
}  // namespace pbzero
}  // namespace protos

struct DynamicString;  // zt/tracing/track_event_args.h
struct StaticString;   // zt/tracing/track_event_args.h
class EventContext;
class TracedDictionary;
class TracedArray;

// One value of a debug annotation, a dictionary entry or an array element.
class TracedValue {
 public:
  // Move-only: a moved-from value writes nothing.
  TracedValue(TracedValue&& other) noexcept : annotation_(other.Take()) {}
  TracedValue(const TracedValue&) = delete;
  TracedValue& operator=(const TracedValue&) = delete;
  TracedValue& operator=(TracedValue&&) = delete;

  void WriteInt64(int64_t value);
  void WriteUInt64(uint64_t value);
  void WriteDouble(double value);
  void WriteBoolean(bool value);
  void WriteString(const char* value);  // Null: an empty string.
  void WriteString(const char* value, size_t size);
  void WritePointer(const volatile void* value);
  TracedDictionary WriteDictionary();
  TracedArray WriteArray();
  // Any annotation value: integer, enum, bool, floating-point number,
  // string, pointer, or a callable taking a TracedValue.
  template <typename T>
  void Write(const T& value);

 private:
  friend class EventContext;
  friend class TracedDictionary;
  friend class TracedArray;
  explicit TracedValue(protos::pbzero::DebugAnnotation* annotation)
      : annotation_(annotation) {}
  // The annotation to write the value into, once; then null.
  protos::pbzero::DebugAnnotation* Take() {
    protos::pbzero::DebugAnnotation* annotation = annotation_;
    annotation_ = nullptr;
    return annotation;
  }

  protos::pbzero::DebugAnnotation* annotation_;
};

class TracedDictionary {
 public:
  // The value of a new entry |key| (copied inline).
  TracedValue AddItem(const char* key);
  TracedValue AddItem(const DynamicString& key);
  template <typename T>
  void Add(const char* key, const T& value) {
    AddItem(key).Write(value);
  }
  template <typename T>
  void Add(const DynamicString& key, const T& value) {
    AddItem(key).Write(value);
  }
  // Shorthands for AddItem(key).WriteDictionary() / WriteArray().
  TracedDictionary AddDictionary(const char* key);
  TracedArray AddArray(const char* key);

 private:
  friend class TracedValue;
  explicit TracedDictionary(protos::pbzero::DebugAnnotation* annotation)
      : annotation_(annotation) {}
  protos::pbzero::DebugAnnotation* annotation_;  // Null: writes nothing.
};

class TracedArray {
 public:
  // The value of a new element.
  TracedValue AppendItem();
  template <typename T>
  void Append(const T& value) {
    AppendItem().Write(value);
  }
  // Shorthands for AppendItem().WriteDictionary() / WriteArray().
  TracedDictionary AppendDictionary();
  TracedArray AppendArray();

 private:
  friend class TracedValue;
  explicit TracedArray(protos::pbzero::DebugAnnotation* annotation)
      : annotation_(annotation) {}
  protos::pbzero::DebugAnnotation* annotation_;  // Null: writes nothing.
};

inline TracedDictionary TracedDictionary::AddDictionary(const char* key) {
  return AddItem(key).WriteDictionary();
}
inline TracedArray TracedDictionary::AddArray(const char* key) {
  return AddItem(key).WriteArray();
}
inline TracedDictionary TracedArray::AppendDictionary() {
  return AppendItem().WriteDictionary();
}
inline TracedArray TracedArray::AppendArray() { return AppendItem().WriteArray(); }

namespace internal {

template <typename F, typename = void>
struct IsValueCallback {
  static constexpr bool value = false;
};
template <typename F>
struct IsValueCallback<F, VoidT<decltype(DeclVal<const F&>()(DeclVal<TracedValue>()))>> {
  static constexpr bool value = true;
};

}  // namespace internal

template <typename T>
void TracedValue::Write(const T& value) {
  using V = internal::RemoveCvRef<T>;
  if constexpr (internal::IsSame<V, bool>::value) {
    WriteBoolean(value);
  } else if constexpr (internal::IntegerKind<V>::value == 1) {
    WriteInt64(static_cast<int64_t>(value));
  } else if constexpr (internal::IntegerKind<V>::value == 2) {
    WriteUInt64(static_cast<uint64_t>(value));
  } else if constexpr (__is_enum(V)) {
    WriteInt64(static_cast<int64_t>(value));
  } else if constexpr (internal::IsFloat<V>::value) {
    WriteDouble(static_cast<double>(value));
  } else if constexpr (internal::IsSame<V, DynamicString>::value) {
    WriteString(value.value, value.length);
  } else if constexpr (internal::IsSame<V, StaticString>::value) {
    WriteString(value.value);
  } else if constexpr (internal::IsCharArray<V>::value ||
                       internal::IsSame<V, const char*>::value ||
                       internal::IsSame<V, char*>::value) {
    WriteString(value);
  } else if constexpr (internal::IsStringLike<V>::value) {
    WriteString(value.data(), value.size());
  } else if constexpr (internal::IsValueCallback<V>::value) {
    value(TracedValue(Take()));
  } else if constexpr (internal::IsPointer<V>::value) {
    WritePointer(static_cast<const volatile void*>(value));
  } else {
    static_assert(internal::AlwaysFalse<V>::value,
                  "a debug annotation value must be an integer, enum, bool, "
                  "floating-point number, string, pointer, or a callable "
                  "taking a zt::TracedValue");
  }
}

}  // namespace zt

#endif  // ZT_TRACING_TRACED_VALUE_H_
