// InternTable: the ids a sequence gave to what it already wrote, keyed by
// a nonzero 64-bit value: a string's address (names are literals or
// StaticStrings, whose address identifies their contents for the session's
// life) or a track's uuid.
//
// Open addressing with linear probing, kept at most half full: a lookup
// that hits costs a multiply, a mask and one or two compares. Ids start at
// 1 and grow by one per new key. Not thread-safe: one per sequence.

#ifndef ZT_SRC_TRACING_SDK_INTERN_TABLE_H_
#define ZT_SRC_TRACING_SDK_INTERN_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace zt {
namespace internal {

class InternTable {
 public:
  InternTable() : slots_(kInitialSlots) {}

  // The id of |key|; |*is_new| tells whether it was just given.
  uint32_t Intern(const void* key, bool* is_new) {
    return Intern(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(key)), is_new);
  }
  uint32_t Intern(uint64_t key, bool* is_new) {
    size_t mask = slots_.size() - 1;
    for (size_t i = Hash(key) & mask;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.key == key) {
        *is_new = false;
        return slot.iid;
      }
      if (slot.key == 0) {
        *is_new = true;
        slot.key = key;
        slot.iid = ++size_;
        if (size_ * 2 > slots_.size())
          Grow();
        return size_;
      }
    }
  }

  // The id of |key|, 0 if it has none (without giving it one).
  uint32_t Find(const void* key) const {
    const uint64_t k = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(key));
    const size_t mask = slots_.size() - 1;
    for (size_t i = Hash(k) & mask;; i = (i + 1) & mask) {
      if (slots_[i].key == k)
        return slots_[i].iid;
      if (slots_[i].key == 0)
        return 0;
    }
  }

  // Whether |key| has an id, without giving it one.
  bool Contains(uint64_t key) const {
    const size_t mask = slots_.size() - 1;
    for (size_t i = Hash(key) & mask;; i = (i + 1) & mask) {
      if (slots_[i].key == key)
        return true;
      if (slots_[i].key == 0)
        return false;
    }
  }

  uint32_t size() const { return size_; }
  // What the table holds in memory.
  size_t memory_bytes() const { return slots_.capacity() * sizeof(Slot); }

 private:
  static constexpr size_t kInitialSlots = 64;
  struct Slot {
    uint64_t key = 0;  // 0: free.
    uint32_t iid = 0;
  };

  static size_t Hash(uint64_t key) {
    const uint64_t x = (key ^ (key >> 29)) * 0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(x >> 32);
  }

  void Grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    const size_t mask = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (!slot.key)
        continue;
      size_t i = Hash(slot.key) & mask;
      while (slots_[i].key)
        i = (i + 1) & mask;
      slots_[i] = slot;
    }
  }

  std::vector<Slot> slots_;
  uint32_t size_ = 0;
};

}  // namespace internal
}  // namespace zt

#endif  // ZT_SRC_TRACING_SDK_INTERN_TABLE_H_
