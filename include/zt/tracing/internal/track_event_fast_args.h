// Internals of the track event macros: the arguments the SDK's fast path
// writes without the message API (up to four debug annotations with
// literal keys, of the kinds below, and flows). A call site's argument
// types decide at compile time whether it takes this path; the values are
// packed into FastArgs by one function per argument type list, shared by
// every call site with that list. docs/design/track_event_args_fast_path.md.

#ifndef ZT_TRACING_INTERNAL_TRACK_EVENT_FAST_ARGS_H_
#define ZT_TRACING_INTERNAL_TRACK_EVENT_FAST_ARGS_H_

#include <stddef.h>
#include <stdint.h>

#include "zt/base/compiler.h"
#include "zt/tracing/internal/type_traits.h"
#include "zt/tracing/traced_value.h"
#include "zt/tracing/track_event_args.h"

namespace zt {
namespace internal {

// What an argument is on the wire: the DebugAnnotation value field, or a
// flow id.
enum class FastArgKind : uint32_t {
  kNone = 0,  // Not for the fast path.
  kInt = 1,   // int_value, a varint of the int64.
  kUint = 2,  // uint_value.
  kBool = 3,
  kDouble = 4,
  kPointer = 5,
  kString = 6,  // string_value, at most kMaxFastString bytes.
  kFlow = 7,    // flow_ids, fixed64; no key.
  kTerminatingFlow = 8,
};

constexpr size_t kMaxFastArgs = 4;
constexpr size_t kMaxFastString = 64;

// One event's arguments for the SDK's fast path. |shape| names the kinds:
// argument i's FastArgKind in bits 4i..4i+3, 0 after the last.
struct FastArgs {
  uint32_t shape;
  uint32_t count;
  const char* keys[kMaxFastArgs];  // Null for flows and past |count|.
  uint64_t values[kMaxFastArgs];   // Bits of a double; a string's address.
  size_t sizes[kMaxFastArgs];      // A string's length.
};

// The packet a fast event makes is at most 127 bytes (one-byte lengths):
// the timestamp and the event's fields take at most kFastEventHeadBytes,
// each annotation at most kFastArgPrefixBytes before its value.
constexpr size_t kFastEventRoom = 127;
constexpr size_t kFastEventHeadBytes = 11 + 15;
constexpr size_t kFastArgPrefixBytes = 8;

template <typename T>
constexpr FastArgKind FastKindOf() {
  using V = RemoveCvRef<T>;
  if constexpr (IsSame<V, bool>::value) {
    return FastArgKind::kBool;
  } else if constexpr (IntegerKind<V>::value == 1 || __is_enum(V)) {
    return FastArgKind::kInt;
  } else if constexpr (IntegerKind<V>::value == 2) {
    return FastArgKind::kUint;
  } else if constexpr (IsSame<V, double>::value || IsSame<V, float>::value) {
    return FastArgKind::kDouble;
  } else if constexpr (IsCharArray<V>::value || IsSame<V, const char*>::value ||
                       IsSame<V, char*>::value || IsSame<V, DynamicString>::value ||
                       IsSame<V, StaticString>::value || IsStringLike<V>::value) {
    return FastArgKind::kString;
  } else if constexpr (IsPointer<V>::value && !IsValueCallback<V>::value) {
    return FastArgKind::kPointer;
  } else {
    return FastArgKind::kNone;
  }
}

// A flow's kind, or a value's.
template <typename T>
constexpr FastArgKind FastFlowOrValueKind() {
  using V = RemoveCvRef<T>;
  if constexpr (IsSame<V, Flow>::value) {
    return FastArgKind::kFlow;
  } else if constexpr (IsSame<V, TerminatingFlow>::value) {
    return FastArgKind::kTerminatingFlow;
  } else {
    return FastKindOf<V>();
  }
}

// Most bytes an argument's value takes (a string's: its length byte; the
// string itself is counted at run time).
constexpr size_t FastValueBytes(FastArgKind kind) {
  switch (kind) {
    case FastArgKind::kBool:
      return 1;
    case FastArgKind::kDouble:
    case FastArgKind::kFlow:
    case FastArgKind::kTerminatingFlow:
      return 8;
    case FastArgKind::kString:
      return 1;
    default:
      return 10;  // A varint.
  }
}

// The shape of an argument list: ok when every argument is a flow or a
// literal key followed by a value of a fast kind, at most kMaxFastArgs.
struct FastShape {
  bool ok;
  uint32_t code;
  uint32_t count;
  size_t fixed_bytes;  // Most bytes the arguments take, strings aside.
};

template <typename... Args>
constexpr FastShape FastShapeOf();
template <typename First, typename... Rest>
constexpr FastShape FastShapeOfFirst();

template <typename Key, typename Value, typename... Rest>
constexpr FastShape FastShapeOfAnnotation() {
  constexpr FastArgKind kind = FastKindOf<Value>();
  constexpr FastShape rest = FastShapeOf<Rest...>();
  if constexpr (!IsConstCharArray<RemoveRef<Key>>::value || kind == FastArgKind::kNone) {
    return FastShape{false, 0, 0, 0};
  } else {
    return FastShape{rest.ok && rest.count < kMaxFastArgs,
                     static_cast<uint32_t>(kind) | rest.code << 4, rest.count + 1,
                     kFastArgPrefixBytes + FastValueBytes(kind) + rest.fixed_bytes};
  }
}

template <typename... Args>
constexpr FastShape FastShapeOf() {
  if constexpr (sizeof...(Args) == 0) {
    return FastShape{true, 0, 0, kFastEventHeadBytes};
  } else {
    return FastShapeOfFirst<Args...>();
  }
}

template <typename First, typename... Rest>
constexpr FastShape FastShapeOfFirst() {
  using F = RemoveCvRef<First>;
  if constexpr (IsSame<F, Flow>::value || IsSame<F, TerminatingFlow>::value) {
    constexpr FastArgKind kind = IsSame<F, Flow>::value ? FastArgKind::kFlow
                                                        : FastArgKind::kTerminatingFlow;
    constexpr FastShape rest = FastShapeOf<Rest...>();
    return FastShape{rest.ok && rest.count < kMaxFastArgs,
                     static_cast<uint32_t>(kind) | rest.code << 4, rest.count + 1,
                     2 + FastValueBytes(kind) + rest.fixed_bytes};
  } else if constexpr (sizeof...(Rest) >= 1) {
    return FastShapeOfAnnotation<First, Rest...>();
  } else {
    return FastShape{false, 0, 0, 0};
  }
}

// Whether a call site's arguments take the fast path.
template <typename... Args>
struct IsFastArgList {
  static constexpr FastShape shape = FastShapeOf<Args...>();
  static constexpr bool value = shape.ok && shape.count != 0;
};

// The shape of the same list without its keys (FastSiteTable holds them):
// every argument a flow or a value of a fast kind.
template <typename... Values>
constexpr FastShape FastShapeOfValues() {
  FastShape shape{true, 0, 0, kFastEventHeadBytes};
  const FastArgKind kinds[] = {FastArgKind::kNone, FastFlowOrValueKind<Values>()...};
  const size_t count = sizeof...(Values);
  for (size_t i = count; i >= 1; i--) {
    const FastArgKind kind = kinds[i];
    const bool flow = kind == FastArgKind::kFlow || kind == FastArgKind::kTerminatingFlow;
    shape.ok = shape.ok && kind != FastArgKind::kNone;
    shape.code = static_cast<uint32_t>(kind) | shape.code << 4;
    shape.fixed_bytes += (flow ? 2 : kFastArgPrefixBytes) + FastValueBytes(kind);
  }
  shape.count = static_cast<uint32_t>(count);
  shape.ok = shape.ok && count != 0 && count <= kMaxFastArgs;
  return shape;
}

// A string value's bytes and exact length (the caller sends a string
// past kMaxFastString to the general path).
struct FastString {
  const char* data;
  size_t size;
};
// A char array's string: up to its first NUL, as the general path reads
// it; the whole array when it holds none (never past it). Short arrays by
// a loop the compiler unrolls (a literal's folds to its length), longer
// ones by memchr.
template <size_t N>
inline FastString FastStringOfArray(const char* array) {
  if constexpr (N <= 16) {
    size_t size = 0;
    while (size < N && array[size] != '\0')
      size++;
    return FastString{array, size};
  } else {
    const void* nul = __builtin_memchr(array, 0, N);
    return FastString{array, nul ? static_cast<size_t>(static_cast<const char*>(nul) - array)
                                 : N};
  }
}
// One function, not overloads: a const char* overload would take arrays.
template <typename V>
inline FastString FastStringOf(const V& value) {
  if constexpr (IsCharArray<V>::value) {
    return FastStringOfArray<sizeof(V)>(value);
  } else if constexpr (IsSame<V, const char*>::value || IsSame<V, char*>::value) {
    return value ? FastString{value, __builtin_strlen(value)} : FastString{"", 0};
  } else if constexpr (IsSame<V, StaticString>::value) {
    return FastStringOf(value.value);
  } else if constexpr (IsSame<V, DynamicString>::value) {
    return FastString{value.value, value.length};
  } else {
    return FastString{value.data(), value.size()};
  }
}

// Fills |args| from index |i| on; returns the bytes of the strings (each
// its length), more than the room if one is longer than kMaxFastString.
// The keys past the last argument are null.
inline size_t PackFastArgs(FastArgs* args, uint32_t i) {
  for (; i < kMaxFastArgs; i++)
    args->keys[i] = nullptr;
  return 0;
}

template <typename First, typename... Rest>
size_t PackFastArgs(FastArgs* args, uint32_t i, const First& first, const Rest&... rest);

// Stores argument |i|'s value (not its key); returns its string's length,
// more than the room if it is longer than kMaxFastString.
template <typename Value>
ZT_ALWAYS_INLINE inline size_t PackFastValue(FastArgs* args, uint32_t i, const Value& value) {
  constexpr FastArgKind kind = FastFlowOrValueKind<Value>();
  if constexpr (kind == FastArgKind::kFlow || kind == FastArgKind::kTerminatingFlow) {
    args->values[i] = value.id;
  } else if constexpr (kind == FastArgKind::kString) {
    const FastString str = FastStringOf(value);
    args->values[i] = reinterpret_cast<uintptr_t>(str.data);
    args->sizes[i] = str.size;
    return str.size <= kMaxFastString ? str.size : kFastEventRoom + 1;
  } else if constexpr (kind == FastArgKind::kDouble) {
    const double d = static_cast<double>(value);
    __builtin_memcpy(&args->values[i], &d, sizeof(d));
  } else if constexpr (kind == FastArgKind::kPointer) {
    args->values[i] = reinterpret_cast<uintptr_t>(value);
  } else if constexpr (kind == FastArgKind::kBool) {
    args->values[i] = value ? 1 : 0;
  } else if constexpr (kind == FastArgKind::kInt) {
    args->values[i] = static_cast<uint64_t>(static_cast<int64_t>(value));
  } else {
    args->values[i] = static_cast<uint64_t>(value);
  }
  return 0;
}

// The values of a list without keys, from index 0; returns the bytes of
// their strings as PackFastValue counts them.
template <typename... Values>
ZT_ALWAYS_INLINE inline size_t PackFastValues(FastArgs* args, const Values&... values) {
  uint32_t i = 0;
  size_t strings = 0;
  ((strings += PackFastValue(args, i++, values)), ...);
  return strings;
}

template <typename Value, typename... Rest>
size_t PackFastAnnotation(FastArgs* args, uint32_t i, const char* key, const Value& value,
                          const Rest&... rest) {
  args->keys[i] = key;
  const size_t strings = PackFastValue(args, i, value);
  return strings + PackFastArgs(args, i + 1, rest...);
}

template <typename First, typename... Rest>
size_t PackFastArgs(FastArgs* args, uint32_t i, const First& first, const Rest&... rest) {
  using F = RemoveCvRef<First>;
  if constexpr (IsSame<F, Flow>::value || IsSame<F, TerminatingFlow>::value) {
    args->keys[i] = nullptr;
    PackFastValue(args, i, first);
    return PackFastArgs(args, i + 1, rest...);
  } else {
    return PackFastAnnotation(args, i, first, rest...);
  }
}

// How a call site passes an argument to the shared function: arrays and
// classes by reference, scalars by value (in registers).
template <typename T>
using FastParam = Conditional<IsArray<T>::value || IsClass<T>::value, const T&, T>;

}  // namespace internal
}  // namespace zt

#endif  // ZT_TRACING_INTERNAL_TRACK_EVENT_FAST_ARGS_H_
