// InternTable: the ids a sequence gave to what it already wrote, keyed by
// a nonzero 64-bit value: a string's address (names are literals or
// StaticStrings, whose address identifies their contents for the session's
// life) or a track's uuid. Key 0 is never interned (it marks free slots):
// it has no id and no slot. Each id is also kept encoded as a varint, so
// that writers that miss their bytes cache compose an event's bytes with
// a few stores instead of encoding its ids again.
//
// Open addressing with linear probing, kept at most half full: a lookup
// that hits costs a multiply, a mask and one or two compares. Ids start at
// 1 and grow by one per new key; those below 2^21 (three varint bytes)
// have their varint kept, the others 0 (the SDK clears a sequence's
// tables far earlier, at kMaxInternedPerSequence; the C ABI's track sets
// use no varints). Memory: 16 bytes a slot, at most four slots per id. Not
// thread-safe: one per sequence.

#ifndef ZT_SRC_TRACING_SDK_INTERN_TABLE_H_
#define ZT_SRC_TRACING_SDK_INTERN_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "zt/base/compiler.h"

namespace zt {
namespace internal {

// An id's varint bytes (at most 3, little-endian order) with their count in
// the top byte: stored as is after a field's tag, it is the field's value.
// 0: none (an id past kMaxIid).
using IidVarint = uint32_t;
constexpr uint32_t kMaxIid = (1u << 21) - 1;
constexpr IidVarint EncodeIidVarint(uint32_t iid) {
  return iid < (1u << 7)    ? (iid | 1u << 24)
         : iid < (1u << 14) ? ((iid & 0x7F) | 0x80 | (iid >> 7) << 8 | 2u << 24)
                            : ((iid & 0x7F) | 0x80 | ((iid >> 7) & 0x7F) << 8 | 0x8000 |
                               (iid >> 14) << 16 | 3u << 24);
}
constexpr uint32_t VarintBytes(IidVarint varint) { return varint & 0xFFFFFF; }
constexpr uint32_t VarintSize(IidVarint varint) { return varint >> 24; }

class InternTable {
 public:
  struct Slot {
    uint64_t key = 0;  // 0: free.
    uint32_t iid = 0;
    IidVarint varint = 0;  // EncodeIidVarint(iid).
  };

  InternTable() : slots_(new Slot[kInitialSlots]), offset_mask_(OffsetMask(kInitialSlots)) {}
  // A moved-from table is empty and usable (it takes the other's).
  InternTable(InternTable&& other) noexcept : InternTable() { Swap(other); }
  InternTable& operator=(InternTable&& other) noexcept {
    Swap(other);
    return *this;
  }
  InternTable(const InternTable&) = delete;
  InternTable& operator=(const InternTable&) = delete;

  // The id of |key|; |*is_new| tells whether it was just given.
  uint32_t Intern(const void* key, bool* is_new) {
    return Intern(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(key)), is_new);
  }
  uint32_t Intern(uint64_t key, bool* is_new) {
    if (ZT_UNLIKELY(key == 0)) {
      *is_new = false;
      return 0;
    }
    for (size_t offset = HashOffset(key);; offset = NextOffset(offset)) {
      Slot& slot = SlotAt(offset);
      if (slot.key == key) {
        *is_new = false;
        return slot.iid;
      }
      if (slot.key == 0) {
        *is_new = true;
        slot.key = key;
        slot.iid = ++size_;
        slot.varint = size_ <= kMaxIid ? EncodeIidVarint(size_) : 0;
        if (size_ * 2 > slot_count())
          Grow();
        return size_;
      }
    }
  }

  // |key|'s slot (its id and the id's varint), null if it has none
  // (without giving it one).
  const Slot* Lookup(const void* key) const {
    const uint64_t k = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(key));
    if (ZT_UNLIKELY(k == 0))
      return nullptr;
    for (size_t offset = HashOffset(k);; offset = NextOffset(offset)) {
      const Slot& slot = SlotAt(offset);
      if (slot.key == k)
        return &slot;
      if (slot.key == 0)
        return nullptr;
    }
  }

  // The slot where a lookup of |key| (nonzero) looks first: its own when
  // |key| has one and no other key took it first (most keys, the table
  // being at most half full). For callers that try it inline and call
  // Lookup() only when it holds another key.
  const Slot& HomeSlot(const void* key) const {
    return SlotAt(HashOffset(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(key))));
  }

  // The id of |key|, 0 if it has none (without giving it one).
  uint32_t Find(const void* key) const {
    const Slot* slot = Lookup(key);
    return slot ? slot->iid : 0;
  }

  // Whether |key| has an id, without giving it one.
  bool Contains(uint64_t key) const {
    if (ZT_UNLIKELY(key == 0))
      return false;
    for (size_t offset = HashOffset(key);; offset = NextOffset(offset)) {
      const uint64_t slot_key = SlotAt(offset).key;
      if (slot_key == key)
        return true;
      if (slot_key == 0)
        return false;
    }
  }

  uint32_t size() const { return size_; }
  // What the table holds in memory.
  size_t memory_bytes() const { return slot_count() * sizeof(Slot); }

 private:
  static constexpr size_t kInitialSlots = 64;

  void Swap(InternTable& other) noexcept {
    slots_.swap(other.slots_);
    std::swap(offset_mask_, other.offset_mask_);
    std::swap(size_, other.size_);
  }

  // Slots are found by their byte offset in slots_: a probe is then one
  // compare with an indexed operand, where an index would be scaled by 16
  // (no addressing mode does) in a register of its own.
  static_assert(sizeof(Slot) == 16, "a slot's offset is its index times 16");
  static constexpr size_t OffsetMask(size_t slot_count) {
    return (slot_count - 1) * sizeof(Slot);
  }
  size_t slot_count() const { return offset_mask_ / sizeof(Slot) + 1; }
  // The product's bits 40 and up pick the slot (rotated down to bit 4, a
  // slot's offset; past 2^24 slots its low bits follow). Measured on keys
  // that count up, addresses 32 bytes apart, literals' addresses and
  // random keys (intern_table_unittest.cc, FewKeysAwayFrom...): as few keys
  // away from their first slot as random keys would have or fewer, where
  // bits 32 and up left up to three times as many. A multiplier that is a
  // sign-extended 32-bit immediate would save a register, but its
  // product's high bits move by less than a slot per key for keys that
  // count up, as the C ABI's track uuids may.
  size_t HashOffset(uint64_t key) const {
    const uint64_t x = (key ^ (key >> 29)) * 0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(x >> 36 | x << 28) & offset_mask_;
  }
  size_t NextOffset(size_t offset) const { return (offset + sizeof(Slot)) & offset_mask_; }
  Slot& SlotAt(size_t offset) const {
    return *reinterpret_cast<Slot*>(reinterpret_cast<char*>(slots_.get()) + offset);
  }

  void Grow() {
    const size_t old_count = slot_count();
    std::unique_ptr<Slot[]> old(new Slot[old_count * 2]);
    old.swap(slots_);
    offset_mask_ = OffsetMask(old_count * 2);
    for (size_t j = 0; j < old_count; j++) {
      const Slot& slot = old[j];
      if (!slot.key)
        continue;
      size_t offset = HashOffset(slot.key);
      while (SlotAt(offset).key)
        offset = NextOffset(offset);
      SlotAt(offset) = slot;
    }
  }

  std::unique_ptr<Slot[]> slots_;
  size_t offset_mask_;  // (slot count - 1) * sizeof(Slot).
  uint32_t size_ = 0;
};

}  // namespace internal
}  // namespace zt

#endif  // ZT_SRC_TRACING_SDK_INTERN_TABLE_H_
