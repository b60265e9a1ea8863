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
#include <utility>
#include <vector>

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

// The [lazy = true] fields of one value class that are set: field number ->
// encoded message, sorted by number. Sparse on purpose: a data source config
// declares ~50 lazy sub-configs and carries one, and fifty std::string
// members would make every copy, move and destruction of the class fifty
// times the work (and code). Out of line (cpp_message_internal.cc).
class LazyFields {
 public:
  // The field's encoding, or null when it is not set. O(log set fields).
  const std::string* Find(uint32_t id) const;
  bool Has(uint32_t id) const { return Find(id) != nullptr; }
  // The encoding, or an empty string when not set.
  const std::string& Get(uint32_t id) const;
  // Sets the field (empty if it was not set) and returns its bytes.
  std::string* Mutable(uint32_t id);
  void Set(uint32_t id, std::string value) { *Mutable(id) = std::move(value); }
  void Clear(uint32_t id);
  // Parsing: a repeated occurrence of a singular message merges into it,
  // and concatenated encodings parse as exactly that merge.
  void Append(uint32_t id, const uint8_t* data, size_t size);
  // Appends the field to |msg| if it is set.
  void Serialize(uint32_t id, Message* msg) const;
  bool operator==(const LazyFields& other) const {
    return fields_ == other.fields_;
  }

 private:
  std::vector<std::pair<uint32_t, std::string>> fields_;
};

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
