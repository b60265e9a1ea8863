// A hash index over rows kept elsewhere (a vector of structs): open
// addressing with linear probing over (32-bit hash, row) pairs in a
// power-of-two table at most three quarters full (with the hashes stored,
// a probe rarely reads a row). No division and no node per entry,
// so a lookup costs one or two cache lines: the exporters key millions of
// slices by (parent, name) or (caller, callee, line) this way, and the
// string pool its strings by HashText.
//
//   OpenIndex index;
//   uint32_t row = index.Find(hash, [&](uint32_t r) { return rows[r].key == key; });
//   if (row == kNoRow) { row = rows.size(); rows.push_back(...); index.Add(hash, row); }
//
// Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_STORAGE_OPEN_INDEX_H_
#define ZT_SRC_PROCESSOR_STORAGE_OPEN_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
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

  // A hash of a text's bytes for this index (not across processes or
  // versions: nothing stores it). Two lanes of 8 bytes, so that a long
  // name (a C++ template's: hundreds of bytes) costs about a cycle per 3
  // bytes.
  static uint32_t HashText(std::string_view text) {
    const char* p = text.data();
    size_t n = text.size();
    uint64_t a = 0x243f6a8885a308d3u ^ n;
    uint64_t b = 0x13198a2e03707344u;
    for (; n >= 16; p += 16, n -= 16) {
      a = Lane(a, Load8(p), 0x9e3779b97f4a7c15u);
      b = Lane(b, Load8(p + 8), 0xbf58476d1ce4e5b9u);
    }
    if (n >= 8) {
      a = Lane(a, Load8(p), 0x9e3779b97f4a7c15u);
      p += 8;
      n -= 8;
    }
    if (n > 0) {
      // The last n (< 8) bytes: the 8 ending at the text's end when it has
      // them (the overlap is harmless), else one by one.
      uint64_t tail;
      if (text.size() >= 8) {
        tail = Load8(p + n - 8) >> (8 * (8 - n));
      } else if (n >= 4) {
        tail = Load4(p) | uint64_t{Load4(p + n - 4)} << 32;  // Overlapping: every byte.
      } else {
        // One to three bytes: the first, the middle and the last are all.
        tail = uint64_t{static_cast<unsigned char>(p[0])} |
               uint64_t{static_cast<unsigned char>(p[n / 2])} << 8 |
               uint64_t{static_cast<unsigned char>(p[n - 1])} << 16;
      }
      b = Lane(b, tail, 0x94d049bb133111ebu);
    }
    return Hash(a, b);
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

  // Room for `count` rows without growing.
  void Reserve(size_t count) {
    size_t slots = slots_.size();
    while (3 * slots < 4 * count)
      slots *= 2;
    if (slots != slots_.size())
      Rehash(slots);
  }
  size_t size() const { return count_; }
  size_t memory_bytes() const { return slots_.capacity() * sizeof(uint64_t); }

  // Adds `row` under `hash` (not already there).
  void Add(uint32_t hash, uint32_t row) {
    if (4 * (count_ + 1) > 3 * slots_.size())
      Grow();
    Place(hash, row);
    count_++;
  }

 private:
  static constexpr uint64_t kEmpty = UINT64_MAX;

  static uint64_t Load8(const char* p) {
    uint64_t word;
    memcpy(&word, p, sizeof(word));
    return word;
  }
  static uint32_t Load4(const char* p) {
    uint32_t word;
    memcpy(&word, p, sizeof(word));
    return word;
  }
  static uint64_t Lane(uint64_t state, uint64_t word, uint64_t multiplier) {
    state = (state ^ word) * multiplier;
    return state ^ (state >> 32);
  }

  void Place(uint32_t hash, uint32_t row) {
    const size_t mask = slots_.size() - 1;
    size_t slot = hash & mask;
    while (slots_[slot] != kEmpty)
      slot = (slot + 1) & mask;
    slots_[slot] = uint64_t{hash} << 32 | row;
  }
  void Grow() { Rehash(slots_.size() * 2); }
  void Rehash(size_t slots) {
    std::vector<uint64_t> old(slots, kEmpty);
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

#endif  // ZT_SRC_PROCESSOR_STORAGE_OPEN_INDEX_H_
