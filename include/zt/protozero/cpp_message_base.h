// Run-time support included by every .gen.h value-class header that
// protoc-gen-pbzero writes with generator=cppgen (docs/design/cppgen.md): an
// owning, deep-copying pointer for singular message fields, per-type default
// instances and the parse limits. What only the generated .gen.cc files need
// is in cpp_message_internal.h. Standard library only.

#ifndef ZT_PROTOZERO_CPP_MESSAGE_BASE_H_
#define ZT_PROTOZERO_CPP_MESSAGE_BASE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

namespace zt {
namespace protozero {

class Message;  // The writer generated Serialize() methods append to.

// ParseFromArray() fails on messages nested deeper than this (the root is
// depth 0), as libprotobuf does by default.
constexpr int kCppGenMaxParseDepth = 100;

// ParseFromArray() fails on an embedded message longer than this. Keeps
// every accepted message re-serializable: re-encoding grows a message by
// less than 8x, and Message::Finalize() stops the process on nested messages
// of 256 MiB or more.
constexpr size_t kCppGenMaxNestedMessageSize = size_t{32} << 20;

// A unique_ptr that copies the pointee. Null = absent. T may be incomplete
// where CopyablePtr<T> is declared; it must be complete where CopyablePtr's
// members are used (generated code defines them in the .gen.cc).
template <typename T>
class CopyablePtr {
 public:
  CopyablePtr() = default;
  CopyablePtr(const CopyablePtr& other)
      : ptr_(other.ptr_ ? std::make_unique<T>(*other.ptr_) : nullptr) {}
  CopyablePtr(CopyablePtr&&) noexcept = default;
  CopyablePtr& operator=(const CopyablePtr& other) {
    if (this != &other)
      ptr_ = other.ptr_ ? std::make_unique<T>(*other.ptr_) : nullptr;
    return *this;
  }
  CopyablePtr& operator=(CopyablePtr&&) noexcept = default;
  ~CopyablePtr() = default;

  T* get() const { return ptr_.get(); }
  T& operator*() const { return *ptr_; }
  T* operator->() const { return ptr_.get(); }
  explicit operator bool() const { return ptr_ != nullptr; }

  // The pointee, created empty first if absent.
  T* GetOrCreate() {
    if (!ptr_)
      ptr_ = std::make_unique<T>();
    return ptr_.get();
  }
  void reset() { ptr_.reset(); }

  // Absent equals absent; present compares the pointees.
  bool operator==(const CopyablePtr& other) const {
    if (!ptr_ || !other.ptr_)
      return !ptr_ && !other.ptr_;
    return *ptr_ == *other.ptr_;
  }
  bool operator!=(const CopyablePtr& other) const { return !(*this == other); }

 private:
  std::unique_ptr<T> ptr_;
};

// An immutable, default-constructed T, returned by the accessor of an absent
// message field. Created on first use, thread-safe, never destroyed (no
// destruction-order problems at exit).
template <typename T>
const T& CppGenDefaultInstance() {
  static const T* const instance = new T();
  return *instance;
}

namespace cppgen_internal {

// True if |v| differs from the type's zero value. Floating-point values are
// compared bitwise, as protobuf does for proto3 implicit presence (-0.0 is
// not the default).
template <typename T>
bool IsNonZero(const T& v) {
  if constexpr (std::is_floating_point<T>::value) {
    T zero = 0;
    return memcmp(&v, &zero, sizeof(T)) != 0;
  } else if constexpr (std::is_enum<T>::value) {
    return static_cast<std::underlying_type_t<T>>(v) != 0;
  } else if constexpr (std::is_same<T, std::string>::value) {
    return !v.empty();
  } else {
    return v != 0;
  }
}

}  // namespace cppgen_internal
}  // namespace protozero
}  // namespace zt

#endif  // ZT_PROTOZERO_CPP_MESSAGE_BASE_H_
