// Zero-copy protobuf decoding. ProtoDecoder walks the fields of an encoded
// message one at a time; TypedProtoDecoder (the base of generated *_Decoder
// classes) parses a whole message up front into an array indexed by field
// id, for O(1) access to each field and in-order iteration of repeated ones.
//
// Decoders never copy or own the input, which must outlive them and every
// Field or view they return. Malformed input (truncated varints or tags,
// varints over 10 bytes, field id 0, wire types 3/4/6/7, fixed values or
// lengths running past the end) stops decoding and sets parse_error(); the
// decoder never reads outside its input and never aborts.
//
// Thread-compatible; a decoder is cheap to construct on the stack.

#ifndef ZT_PROTOZERO_PROTO_DECODER_H_
#define ZT_PROTOZERO_PROTO_DECODER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "zt/protozero/field.h"
#include "zt/protozero/proto_utils.h"

namespace zt {
namespace protozero {

class ProtoDecoder {
 public:
  ProtoDecoder(const uint8_t* buffer, size_t length)
      : begin_(buffer), end_(buffer + length), read_ptr_(buffer) {}
  ProtoDecoder(const void* buffer, size_t length)
      : ProtoDecoder(static_cast<const uint8_t*>(buffer), length) {}
  explicit ProtoDecoder(std::string_view bytes)
      : ProtoDecoder(bytes.data(), bytes.size()) {}
  explicit ProtoDecoder(ConstBytes bytes)
      : ProtoDecoder(bytes.data, bytes.size) {}

  // Returns the next field and moves past it. Returns an invalid Field at the
  // end of the input, or on malformed input (parse_error() then stays true and
  // every later call returns an invalid Field). O(1): inline for the end
  // and the common fields (a one-byte tag, then a varint of up to two bytes,
  // a length of up to two bytes, or a fixed64), a call for the others.
  ZT_ALWAYS_INLINE Field ReadField() {
    using proto_utils::ProtoWireType;
    const uint8_t* const p = read_ptr_;
    const ptrdiff_t left = end_ - p;
    if (left <= 0)
      return Field();  // The end, or a parse error (which moved read_ptr_ to end_).
    const uint32_t tag = p[0];
    if (ZT_LIKELY(left >= 2 && tag >= 8 && tag < 0x80)) {
      const uint32_t value = p[1];
      Field field;
      switch (static_cast<ProtoWireType>(tag & 7)) {
        case ProtoWireType::kVarInt:
          if (value < 0x80) {
            field.initialize_from_tag(tag, value, 0);
            read_ptr_ = p + 2;
            return field;
          }
          if (left >= 3 && p[2] < 0x80) {  // Two bytes: ids and lines past 127.
            field.initialize_from_tag(tag, (value & 0x7f) | uint32_t{p[2]} << 7, 0);
            read_ptr_ = p + 3;
            return field;
          }
          break;
        case ProtoWireType::kLengthDelimited:
          if (value < 0x80) {
            if (value > static_cast<size_t>(left - 2))
              break;
            field.initialize_from_tag(tag, reinterpret_cast<uintptr_t>(p + 2), value);
            read_ptr_ = p + 2 + value;
            return field;
          }
          if (left >= 3 && p[2] < 0x80) {  // Two bytes: up to 16 KiB (names, nested messages).
            const uint32_t length = (value & 0x7f) | uint32_t{p[2]} << 7;
            if (length > static_cast<size_t>(left - 3))
              break;
            field.initialize_from_tag(tag, reinterpret_cast<uintptr_t>(p + 3), length);
            read_ptr_ = p + 3 + length;
            return field;
          }
          break;
        case ProtoWireType::kFixed64: {
          if (left < 9)
            break;
          uint64_t fixed;
          memcpy(&fixed, p + 1, sizeof(fixed));
          field.initialize_from_tag(tag, fixed, 0);
          read_ptr_ = p + 9;
          return field;
        }
        default:
          break;
      }
    }
    return ReadFieldSlow();
  }

  // Returns the last occurrence of |field_id| in the whole message, or an
  // invalid Field. Does not move the read position. O(message size).
  Field FindField(uint32_t field_id) const;

  // Rewinds to the first field (a parse error is kept: nothing more is read).
  void Reset() { read_ptr_ = parse_error_ ? end_ : begin_; }

  bool parse_error() const { return parse_error_; }
  size_t read_offset() const { return static_cast<size_t>(read_ptr_ - begin_); }
  size_t bytes_left() const { return static_cast<size_t>(end_ - read_ptr_); }
  // No begin()/end()/length(): generated decoders add one accessor per
  // proto field, and common field names must not clash with base members.

 protected:
  // Every field ReadField() does not take inline.
  Field ReadFieldSlow();

  const uint8_t* const begin_;
  const uint8_t* const end_;
  const uint8_t* read_ptr_;  // end_ once parse_error_ is set.
  bool parse_error_ = false;
};

// Walks every occurrence of one field id in a TypedProtoDecoder, in wire
// order, reading each as a T (any type Field::get() takes). Usage:
//   for (auto it = decoder.names(); it; ++it) Use(*it);
// The iterator points into the decoder's field table: the decoder (not only
// the input) must outlive it. Generated accessors refuse to be called on a
// temporary decoder for that reason.
template <typename T>
class RepeatedFieldIterator {
 public:
  // An iterator with nothing to visit.
  RepeatedFieldIterator() = default;

  // Visits the fields with |field_id| in [begin, end), then |*last| if valid.
  RepeatedFieldIterator(uint32_t field_id, const Field* begin, const Field* end,
                        const Field* last)
      : field_id_(field_id), iter_(begin), end_(end), last_(last) {
    FindNextMatch();
  }

  explicit operator bool() const { return iter_ != nullptr; }
  const Field& field() const { return *iter_; }
  const Field* operator->() const { return iter_; }
  T operator*() const {
    T value{};
    iter_->get(&value);
    return value;
  }

  RepeatedFieldIterator& operator++() {
    if (iter_ == last_) {
      iter_ = nullptr;
    } else {
      ++iter_;
      FindNextMatch();
    }
    return *this;
  }
  RepeatedFieldIterator operator++(int) {
    RepeatedFieldIterator copy = *this;
    ++*this;
    return copy;
  }

 private:
  void FindNextMatch() {
    for (; iter_ != end_; ++iter_) {
      if (iter_->id() == field_id_)
        return;
    }
    iter_ = (last_ && last_->valid()) ? last_ : nullptr;
  }

  uint32_t field_id_ = 0;
  const Field* iter_ = nullptr;
  const Field* end_ = nullptr;
  const Field* last_ = nullptr;
};

// How the values of a repeated scalar field are encoded.
enum class PackedKind { kVarInt, kZigZag, kFixed32, kFixed64 };

// Walks the values of a repeated scalar field across all its occurrences,
// accepting the packed encoding (one length-delimited blob of values) and the
// unpacked one (one field per value), as protobuf parsers must. A malformed
// packed blob ends the iteration and sets *parse_error (if not null).
template <PackedKind kKind, typename T>
class PackedRepeatedFieldIterator {
 public:
  // Over every occurrence visited by |occurrences|.
  PackedRepeatedFieldIterator(RepeatedFieldIterator<ConstBytes> occurrences,
                              bool* parse_error)
      : occurrences_(occurrences), parse_error_(parse_error) {
    Next();
  }
  // Over one packed blob.
  PackedRepeatedFieldIterator(const uint8_t* data, size_t size,
                              bool* parse_error)
      : pos_(data), end_(data + size), parse_error_(parse_error) {
    Next();
  }

  explicit operator bool() const { return valid_; }
  T operator*() const { return value_; }

  PackedRepeatedFieldIterator& operator++() {
    Next();
    return *this;
  }
  PackedRepeatedFieldIterator operator++(int) {
    PackedRepeatedFieldIterator copy = *this;
    Next();
    return copy;
  }

 private:
  static constexpr proto_utils::ProtoWireType kWireType =
      kKind == PackedKind::kFixed32   ? proto_utils::ProtoWireType::kFixed32
      : kKind == PackedKind::kFixed64 ? proto_utils::ProtoWireType::kFixed64
                                      : proto_utils::ProtoWireType::kVarInt;

  static T Convert(uint64_t raw) {
    if constexpr (kKind == PackedKind::kZigZag) {
      using U = std::make_unsigned_t<T>;
      return proto_utils::ZigZagDecode(static_cast<U>(raw));
    } else if constexpr (std::is_floating_point<T>::value) {
      T value;
      if constexpr (sizeof(T) == 4) {
        const uint32_t bits = static_cast<uint32_t>(raw);
        memcpy(&value, &bits, sizeof(value));
      } else {
        memcpy(&value, &raw, sizeof(value));
      }
      return value;
    } else if constexpr (std::is_same<T, bool>::value) {
      return raw != 0;
    } else {
      return static_cast<T>(raw);
    }
  }

  void Fail() {
    valid_ = false;
    pos_ = end_ = nullptr;
    occurrences_ = RepeatedFieldIterator<ConstBytes>();
    if (parse_error_)
      *parse_error_ = true;
  }

  void Next() {
    for (;;) {
      if (pos_ < end_) {
        uint64_t raw = 0;
        if constexpr (kWireType == proto_utils::ProtoWireType::kVarInt) {
          const uint8_t* next = proto_utils::ParseVarInt(pos_, end_, &raw);
          if (next == pos_)
            return Fail();
          pos_ = next;
        } else {
          constexpr size_t kSize =
              kWireType == proto_utils::ProtoWireType::kFixed32 ? 4 : 8;
          if (static_cast<size_t>(end_ - pos_) < kSize)
            return Fail();
          memcpy(&raw, pos_, kSize);  // Little-endian host (see proto_utils).
          pos_ += kSize;
        }
        value_ = Convert(raw);
        valid_ = true;
        return;
      }
      if (!occurrences_) {
        valid_ = false;
        return;
      }
      const Field& field = occurrences_.field();
      ++occurrences_;
      if (field.type() == proto_utils::ProtoWireType::kLengthDelimited) {
        pos_ = field.data();
        end_ = pos_ + field.size();
        continue;
      }
      if (field.type() != kWireType)
        return Fail();
      value_ = Convert(field.raw_int_value());
      valid_ = true;
      return;
    }
  }

  RepeatedFieldIterator<ConstBytes> occurrences_;
  const uint8_t* pos_ = nullptr;
  const uint8_t* end_ = nullptr;
  bool* parse_error_ = nullptr;
  T value_{};
  bool valid_ = false;
};

// The non-template part of TypedProtoDecoder.
class TypedProtoDecoderBase : public ProtoDecoder {
 public:
  // The last occurrence of |field_id|, or an invalid Field (also for ids the
  // schema does not know). O(1).
  const Field& Get(uint32_t field_id) const {
    return ZT_LIKELY(field_id < num_fields_) ? fields_[field_id] : fields_[0];
  }

  // Every occurrence of |field_id| in wire order, read as T. O(1) to create;
  // iterating costs O(occurrences of any duplicated field).
  template <typename T>
  RepeatedFieldIterator<T> GetRepeated(uint32_t field_id) const {
    return RepeatedFieldIterator<T>(field_id, &fields_[num_fields_],
                                    &fields_[size_], &Get(field_id));
  }

  // Every value of repeated scalar field |field_id|, packed or not.
  template <PackedKind kKind, typename T>
  PackedRepeatedFieldIterator<kKind, T> GetPackedRepeated(
      uint32_t field_id, bool* parse_error = nullptr) const {
    return PackedRepeatedFieldIterator<kKind, T>(
        GetRepeated<ConstBytes>(field_id), parse_error);
  }

  TypedProtoDecoderBase(const TypedProtoDecoderBase&) = delete;
  TypedProtoDecoderBase& operator=(const TypedProtoDecoderBase&) = delete;

 protected:
  // |storage| holds |capacity| zero-initialized Fields: ids [0, num_fields)
  // and then room for earlier occurrences of duplicated ids.
  TypedProtoDecoderBase(Field* storage, uint32_t num_fields, uint32_t capacity,
                        const uint8_t* buffer, size_t length)
      : ProtoDecoder(buffer, length),
        fields_(storage),
        num_fields_(num_fields),
        size_(num_fields),
        capacity_(capacity) {}

  // Parses the whole input. With |keep_duplicates|, earlier occurrences of a
  // repeated id are kept (for GetRepeated); otherwise the last one wins.
  void ParseAllFields(bool keep_duplicates);

  Field* fields_;  // storage, or heap_storage_ once that outgrew it.

 private:
  ZT_NOINLINE void ExpandHeapStorage();

  const uint32_t num_fields_;
  size_t size_;      // Entries used: num_fields_ + duplicates kept.
  size_t capacity_;
  std::unique_ptr<Field[]> heap_storage_;
};

// Decodes a message whose schema has field ids up to MAX_FIELD_ID (higher
// ids are skipped). HAS_REPEATED_FIELDS keeps every occurrence of duplicated
// ids for iteration. Generated *_Decoder classes derive from this.
template <uint32_t MAX_FIELD_ID, bool HAS_REPEATED_FIELDS>
class TypedProtoDecoder : public TypedProtoDecoderBase {
 public:
  // Parses [buffer, buffer + length) completely. O(length).
  TypedProtoDecoder(const uint8_t* buffer, size_t length)
      : TypedProtoDecoderBase(storage_, MAX_FIELD_ID + 1, kCapacity, buffer,
                              length) {
    ParseAllFields(HAS_REPEATED_FIELDS);
  }
  TypedProtoDecoder(const void* buffer, size_t length)
      : TypedProtoDecoder(static_cast<const uint8_t*>(buffer), length) {}
  explicit TypedProtoDecoder(std::string_view bytes)
      : TypedProtoDecoder(bytes.data(), bytes.size()) {}
  explicit TypedProtoDecoder(ConstBytes bytes)
      : TypedProtoDecoder(bytes.data, bytes.size) {}

  // The last occurrence of FIELD_ID, checked at compile time. O(1).
  template <uint32_t FIELD_ID>
  const Field& at() const {
    static_assert(FIELD_ID <= MAX_FIELD_ID, "field id beyond the schema");
    return fields_[FIELD_ID];
  }

 private:
  // Room for a few duplicated occurrences before going to the heap.
  static constexpr uint32_t kInlineDuplicates = HAS_REPEATED_FIELDS ? 8 : 0;
  static constexpr uint32_t kCapacity = MAX_FIELD_ID + 1 + kInlineDuplicates;

  Field storage_[kCapacity]{};
};

}  // namespace protozero
}  // namespace zt

#endif  // ZT_PROTOZERO_PROTO_DECODER_H_
