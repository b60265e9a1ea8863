// ContentInternMap: the interning ids a track event sequence gave to byte
// strings (event names, debug annotation names, whatever the low-level ABI
// interns), per InternedData field number. Keyed by content, not address:
// a C caller's name may sit in a buffer it rewrites between events.
//
// Open addressing with linear probing over (hash, type); the bytes live in
// one arena string. A lookup that hits costs a hash of the bytes (8 at a
// time), a probe or two and a memcmp. Ids of a type start at 1. Memory:
// the bytes interned plus 32 bytes a slot, at most half the slots used;
// Clear() (an incremental state clear) keeps the allocations for reuse.
// Not thread-safe: one per sequence.

#ifndef ZT_SRC_C_ABI_CONTENT_INTERN_MAP_H_
#define ZT_SRC_C_ABI_CONTENT_INTERN_MAP_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace zt {
namespace c_abi {

class ContentInternMap {
 public:
  ContentInternMap() : slots_(kInitialSlots) {}

  // The id of |size| bytes at |data| among entries of |type|; |*is_new|
  // tells whether it was just given.
  uint64_t FindOrAssign(int32_t type, const void* data, size_t size, bool* is_new) {
    const uint64_t hash = Hash(type, data, size);
    const size_t mask = slots_.size() - 1;
    for (size_t i = static_cast<size_t>(hash >> 32) & mask;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.hash == hash && slot.type == type && slot.size == size &&
          (size == 0 || memcmp(arena_.data() + slot.offset, data, size) == 0)) {
        *is_new = false;
        return slot.iid;
      }
      if (slot.hash == 0) {
        *is_new = true;
        return Assign(&slot, hash, type, data, size);
      }
    }
  }

  // Forgets every entry; ids start again at 1.
  void Clear();

  size_t size() const { return used_; }
  // Heap bytes held (slots and arena).
  size_t MemoryBytes() const { return slots_.capacity() * sizeof(Slot) + arena_.capacity(); }

 private:
  static constexpr size_t kInitialSlots = 32;
  struct Slot {
    uint64_t hash = 0;  // 0: free (a real hash has its low bit set).
    uint64_t iid = 0;
    int32_t type = 0;
    uint32_t offset = 0;
    uint64_t size = 0;
  };

  static uint64_t Hash(int32_t type, const void* data, size_t size) {
    const auto* p = static_cast<const unsigned char*>(data);
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (static_cast<uint64_t>(static_cast<uint32_t>(type)) << 32) ^ size;
    for (; size >= 8; size -= 8, p += 8) {
      uint64_t word;
      memcpy(&word, p, 8);
      h = (h ^ word) * 0xBF58476D1CE4E5B9ull;
      h ^= h >> 29;
    }
    uint64_t tail = 0;
    for (size_t i = 0; i < size; i++)
      tail |= static_cast<uint64_t>(p[i]) << (8 * i);
    h = (h ^ tail) * 0x94D049BB133111EBull;
    h ^= h >> 31;
    return h | 1;
  }

  uint64_t Assign(Slot* slot, uint64_t hash, int32_t type, const void* data, size_t size);
  void Grow();
  uint64_t NextIid(int32_t type);

  std::vector<Slot> slots_;
  std::string arena_;
  size_t used_ = 0;
  // Next id per type: InternedData's field numbers are small.
  std::vector<uint64_t> next_iid_;
};

}  // namespace c_abi
}  // namespace zt

#endif  // ZT_SRC_C_ABI_CONTENT_INTERN_MAP_H_
