// A hash index over rows kept elsewhere (a vector of structs): open
// addressing with linear probing over (32-bit hash, row) pairs in a
// power-of-two table at most half full. No division and no node per entry,
// so a lookup costs one or two cache lines: the exporters key millions of
// slices by (parent, name) or (caller, callee, line) this way.
//
//   OpenIndex index;
//   uint32_t row = index.Find(hash, [&](uint32_t r) { return rows[r].key == key; });
//   if (row == kNoRow) { row = rows.size(); rows.push_back(...); index.Add(hash, row); }
//
// Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_EXPORTERS_OPEN_INDEX_H_
#define ZT_SRC_PROCESSOR_EXPORTERS_OPEN_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace zt {
namespace processor {

class OpenIndex {
 public:
  static constexpr uint32_t kNoRow = UINT32_MAX;

  OpenIndex() : slots_(1024, kEmpty) {}

  // A 64-bit mix of two words, for callers' keys.
  static uint32_t Hash(uint64_t a, uint64_t b = 0) {
    uint64_t h = a * 0x9e3779b97f4a7c15u ^ (b + 0x632be59bd9b4e019u);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9u;
    h ^= h >> 29;
    return static_cast<uint32_t>(h ^ (h >> 32));
  }

  // The row `equals` accepts among those added under `hash`, or kNoRow.
  template <typename Equals>
  uint32_t Find(uint32_t hash, Equals equals) const {
    const size_t mask = slots_.size() - 1;
    for (size_t slot = hash & mask;; slot = (slot + 1) & mask) {
      const uint64_t entry = slots_[slot];
      if (entry == kEmpty)
        return kNoRow;
      const uint32_t row = static_cast<uint32_t>(entry);
      if (static_cast<uint32_t>(entry >> 32) == hash && equals(row))
        return row;
    }
  }

  // Adds `row` under `hash` (not already there).
  void Add(uint32_t hash, uint32_t row) {
    if (2 * (count_ + 1) > slots_.size())
      Grow();
    Place(hash, row);
    count_++;
  }

 private:
  static constexpr uint64_t kEmpty = UINT64_MAX;

  void Place(uint32_t hash, uint32_t row) {
    const size_t mask = slots_.size() - 1;
    size_t slot = hash & mask;
    while (slots_[slot] != kEmpty)
      slot = (slot + 1) & mask;
    slots_[slot] = uint64_t{hash} << 32 | row;
  }
  void Grow() {
    std::vector<uint64_t> old(slots_.size() * 2, kEmpty);
    old.swap(slots_);
    for (uint64_t entry : old) {
      if (entry != kEmpty)
        Place(static_cast<uint32_t>(entry >> 32), static_cast<uint32_t>(entry));
    }
  }

  std::vector<uint64_t> slots_;
  size_t count_ = 0;
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_EXPORTERS_OPEN_INDEX_H_
