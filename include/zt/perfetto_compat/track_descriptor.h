// perfetto::protos::gen::TrackDescriptor for zt/perfetto_compat.h: the
// value class Perfetto's SDK hands out from Track::Serialize() and takes in
// TrackEvent::SetTrackDescriptor(). Written by hand, header-only, so that
// the compatibility header needs no library beyond the SDK's.
//
// It has accessors (as the generated value classes name them: has_x(),
// x(), set_x(), clear_x(), mutable_x(), add_x(), x_size()) for the fields
// readers use to name and place tracks:
//   TrackDescriptor:   uuid, parent_uuid, name, description, process, thread
//   ProcessDescriptor: pid, cmdline, process_name, process_labels
//   ThreadDescriptor:  pid, tid, thread_name
// Code that sets any other field does not compile (rather than losing the
// field without a word). Fields without accessors that arrive through
// ParseFromString() (what Serialize() starts from, e.g. a counter track's
// unit) are kept and written back unchanged.

#ifndef ZT_PERFETTO_COMPAT_TRACK_DESCRIPTOR_H_
#define ZT_PERFETTO_COMPAT_TRACK_DESCRIPTOR_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "zt/protozero/field.h"
#include "zt/protozero/proto_decoder.h"
#include "zt/protozero/proto_utils.h"

namespace perfetto {
namespace protos {
namespace gen {
namespace compat_internal {

inline void AppendVarIntField(std::string* out, uint32_t id, uint64_t value) {
  uint8_t buf[2 * ::zt::protozero::proto_utils::kMaxVarIntEncodedSize];
  uint8_t* p = ::zt::protozero::proto_utils::WriteVarInt(
      ::zt::protozero::proto_utils::MakeTagVarInt(id), buf);
  p = ::zt::protozero::proto_utils::WriteVarInt(value, p);
  out->append(reinterpret_cast<const char*>(buf), static_cast<size_t>(p - buf));
}

inline void AppendBytesField(std::string* out, uint32_t id, std::string_view bytes) {
  uint8_t buf[2 * ::zt::protozero::proto_utils::kMaxVarIntEncodedSize];
  uint8_t* p = ::zt::protozero::proto_utils::WriteVarInt(
      ::zt::protozero::proto_utils::MakeTagLengthDelimited(id), buf);
  p = ::zt::protozero::proto_utils::WriteVarInt(bytes.size(), p);
  out->append(reinterpret_cast<const char*>(buf), static_cast<size_t>(p - buf));
  out->append(bytes.data(), bytes.size());
}

// Calls |on_field| with each field of |bytes|; false on malformed input.
template <typename OnField>
bool ForEachField(const void* bytes, size_t size, OnField on_field) {
  ::zt::protozero::ProtoDecoder decoder(bytes, size);
  for (auto field = decoder.ReadField(); field.valid(); field = decoder.ReadField())
    on_field(field);
  return !decoder.parse_error();
}

}  // namespace compat_internal

// One optional field of a value class: its value and whether it is set.
#define ZT_COMPAT_OPTIONAL_FIELD(type, name)                   \
 public:                                                       \
  bool has_##name() const { return has_##name##_; }            \
  const type& name() const { return name##_; }                 \
  void set_##name(type value) {                                \
    name##_ = value;                                           \
    has_##name##_ = true;                                      \
  }                                                            \
  void clear_##name() {                                        \
    name##_ = type();                                          \
    has_##name##_ = false;                                     \
  }                                                            \
                                                               \
 private:                                                      \
  type name##_ = type();                                       \
  bool has_##name##_ = false

#define ZT_COMPAT_STRING_FIELD(name)                           \
  ZT_COMPAT_OPTIONAL_FIELD(std::string, name);                 \
                                                               \
 public:                                                       \
  std::string* mutable_##name() {                              \
    has_##name##_ = true;                                      \
    return &name##_;                                           \
  }                                                            \
                                                               \
 private:                                                      \
  static_assert(true, "")

#define ZT_COMPAT_REPEATED_STRING_FIELD(name)                          \
 public:                                                               \
  const std::vector<std::string>& name() const { return name##_; }     \
  std::vector<std::string>* mutable_##name() { return &name##_; }      \
  int name##_size() const { return static_cast<int>(name##_.size()); } \
  void clear_##name() { name##_.clear(); }                             \
  void add_##name(std::string value) { name##_.push_back(std::move(value)); } \
  std::string* add_##name() {                                          \
    name##_.emplace_back();                                            \
    return &name##_.back();                                            \
  }                                                                    \
                                                                       \
 private:                                                              \
  std::vector<std::string> name##_

class ProcessDescriptor {
  ZT_COMPAT_OPTIONAL_FIELD(int32_t, pid);
  ZT_COMPAT_REPEATED_STRING_FIELD(cmdline);
  ZT_COMPAT_STRING_FIELD(process_name);
  ZT_COMPAT_REPEATED_STRING_FIELD(process_labels);

 public:
  // Field numbers of protos/zt/trace/track_event/process_descriptor.proto.
  enum : uint32_t {
    kPidFieldNumber = 1,
    kCmdlineFieldNumber = 2,
    kProcessNameFieldNumber = 6,
    kProcessLabelsFieldNumber = 8,
  };

  std::string SerializeAsString() const {
    std::string out;
    if (has_pid_)
      compat_internal::AppendVarIntField(&out, kPidFieldNumber, static_cast<uint64_t>(pid_));
    for (const std::string& arg : cmdline_)
      compat_internal::AppendBytesField(&out, kCmdlineFieldNumber, arg);
    if (has_process_name_)
      compat_internal::AppendBytesField(&out, kProcessNameFieldNumber, process_name_);
    for (const std::string& label : process_labels_)
      compat_internal::AppendBytesField(&out, kProcessLabelsFieldNumber, label);
    out += unknown_fields_;
    return out;
  }
  bool ParseFromArray(const void* bytes, size_t size) {
    *this = ProcessDescriptor();
    return compat_internal::ForEachField(bytes, size, [this](const ::zt::protozero::Field& f) {
      switch (f.id()) {
        case kPidFieldNumber: set_pid(f.as_int32()); break;
        case kCmdlineFieldNumber: add_cmdline(f.as_std_string()); break;
        case kProcessNameFieldNumber: set_process_name(f.as_std_string()); break;
        case kProcessLabelsFieldNumber: add_process_labels(f.as_std_string()); break;
        default: f.SerializeAndAppendTo(&unknown_fields_);
      }
    });
  }

 private:
  std::string unknown_fields_;
};

class ThreadDescriptor {
  ZT_COMPAT_OPTIONAL_FIELD(int32_t, pid);
  ZT_COMPAT_OPTIONAL_FIELD(int64_t, tid);
  ZT_COMPAT_STRING_FIELD(thread_name);

 public:
  // Field numbers of protos/zt/trace/track_event/thread_descriptor.proto.
  enum : uint32_t {
    kPidFieldNumber = 1,
    kTidFieldNumber = 2,
    kThreadNameFieldNumber = 5,
  };

  std::string SerializeAsString() const {
    std::string out;
    if (has_pid_)
      compat_internal::AppendVarIntField(&out, kPidFieldNumber, static_cast<uint64_t>(pid_));
    if (has_tid_)
      compat_internal::AppendVarIntField(&out, kTidFieldNumber, static_cast<uint64_t>(tid_));
    if (has_thread_name_)
      compat_internal::AppendBytesField(&out, kThreadNameFieldNumber, thread_name_);
    out += unknown_fields_;
    return out;
  }
  bool ParseFromArray(const void* bytes, size_t size) {
    *this = ThreadDescriptor();
    return compat_internal::ForEachField(bytes, size, [this](const ::zt::protozero::Field& f) {
      switch (f.id()) {
        case kPidFieldNumber: set_pid(f.as_int32()); break;
        case kTidFieldNumber: set_tid(f.as_int64()); break;
        case kThreadNameFieldNumber: set_thread_name(f.as_std_string()); break;
        default: f.SerializeAndAppendTo(&unknown_fields_);
      }
    });
  }

 private:
  std::string unknown_fields_;
};

class TrackDescriptor {
  ZT_COMPAT_OPTIONAL_FIELD(uint64_t, uuid);
  ZT_COMPAT_OPTIONAL_FIELD(uint64_t, parent_uuid);
  ZT_COMPAT_STRING_FIELD(name);
  ZT_COMPAT_STRING_FIELD(description);

 public:
  // Field numbers of protos/zt/trace/track_event/track_descriptor.proto.
  enum : uint32_t {
    kUuidFieldNumber = 1,
    kNameFieldNumber = 2,
    kProcessFieldNumber = 3,
    kThreadFieldNumber = 4,
    kParentUuidFieldNumber = 5,
    kDescriptionFieldNumber = 14,
  };

  bool has_process() const { return has_process_; }
  const ProcessDescriptor& process() const { return process_; }
  ProcessDescriptor* mutable_process() {
    has_process_ = true;
    return &process_;
  }
  void clear_process() {
    process_ = ProcessDescriptor();
    has_process_ = false;
  }

  bool has_thread() const { return has_thread_; }
  const ThreadDescriptor& thread() const { return thread_; }
  ThreadDescriptor* mutable_thread() {
    has_thread_ = true;
    return &thread_;
  }
  void clear_thread() {
    thread_ = ThreadDescriptor();
    has_thread_ = false;
  }

  std::string SerializeAsString() const {
    std::string out;
    if (has_uuid_)
      compat_internal::AppendVarIntField(&out, kUuidFieldNumber, uuid_);
    if (has_name_)
      compat_internal::AppendBytesField(&out, kNameFieldNumber, name_);
    if (has_process_)
      compat_internal::AppendBytesField(&out, kProcessFieldNumber, process_.SerializeAsString());
    if (has_thread_)
      compat_internal::AppendBytesField(&out, kThreadFieldNumber, thread_.SerializeAsString());
    if (has_parent_uuid_)
      compat_internal::AppendVarIntField(&out, kParentUuidFieldNumber, parent_uuid_);
    if (has_description_)
      compat_internal::AppendBytesField(&out, kDescriptionFieldNumber, description_);
    out += unknown_fields_;
    return out;
  }
  bool ParseFromArray(const void* bytes, size_t size) {
    *this = TrackDescriptor();
    bool nested_ok = true;
    const bool ok = compat_internal::ForEachField(
        bytes, size, [this, &nested_ok](const ::zt::protozero::Field& f) {
          switch (f.id()) {
            case kUuidFieldNumber: set_uuid(f.as_uint64()); break;
            case kNameFieldNumber: set_name(f.as_std_string()); break;
            case kProcessFieldNumber:
              nested_ok &= mutable_process()->ParseFromArray(f.data(), f.size());
              break;
            case kThreadFieldNumber:
              nested_ok &= mutable_thread()->ParseFromArray(f.data(), f.size());
              break;
            case kParentUuidFieldNumber: set_parent_uuid(f.as_uint64()); break;
            case kDescriptionFieldNumber: set_description(f.as_std_string()); break;
            default: f.SerializeAndAppendTo(&unknown_fields_);
          }
        });
    return ok && nested_ok;
  }
  bool ParseFromString(const std::string& bytes) {
    return ParseFromArray(bytes.data(), bytes.size());
  }

 private:
  ProcessDescriptor process_;
  ThreadDescriptor thread_;
  bool has_process_ = false;
  bool has_thread_ = false;
  std::string unknown_fields_;
};

#undef ZT_COMPAT_OPTIONAL_FIELD
#undef ZT_COMPAT_STRING_FIELD
#undef ZT_COMPAT_REPEATED_STRING_FIELD

}  // namespace gen
}  // namespace protos
}  // namespace perfetto

#endif  // ZT_PERFETTO_COMPAT_TRACK_DESCRIPTOR_H_
