// Every string of the trace model (names, categories, arg keys and values)
// stored once and named by a 32-bit StringId, so that tables hold ids, not
// strings, and equal strings compare as equal ids.
//
//   StringPool pool;
//   StringId id = pool.Intern("Outer");   // the same id for every "Outer"
//   std::string_view name = pool.Get(id);
//
// Id 0 (kNullStringId) is "no string" (SQL NULL); the empty string has an id
// of its own. Strings are copied into arena blocks that never move (the
// first 4 KiB, each next one twice the last up to 256 KiB, so that a small
// import holds a few KiB), so a view returned by Get() stays valid as long
// as the pool does. Intern()
// costs one hash of the string (OpenIndex::HashText) and, for a new string,
// one copy; Get() is an array index. The index is open-addressed: 8 bytes
// per string, no node each. Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_STORAGE_STRING_POOL_H_
#define ZT_SRC_PROCESSOR_STORAGE_STRING_POOL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "src/processor/storage/open_index.h"

namespace zt {
namespace processor {

using StringId = uint32_t;
constexpr StringId kNullStringId = 0;

class StringPool {
 public:
  StringPool();
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;

  StringId Intern(std::string_view text);
  // The same without a copy: the pool keeps the view, so `text` must stay
  // valid and unchanged as long as the pool (TraceStorage::string_owners
  // keeps such bytes' owners). For names already held elsewhere (a
  // Templight dictionary's expansions), to hold them once, not twice.
  StringId InternStable(std::string_view text);
  // The same for a caller that has hashed `text` already (to index it
  // itself): `hash` must be OpenIndex::HashText(text), or an equal string
  // may get a second id.
  StringId InternStable(std::string_view text, uint32_t hash);
  // Null for kNullStringId; any other id must come from this pool.
  std::string_view Get(StringId id) const { return strings_[id]; }
  bool IsNull(StringId id) const { return id == kNullStringId; }
  // Ids are dense: [1, size()) are the interned strings.
  size_t size() const { return strings_.size(); }
  // Bytes held (arena blocks and index), for memory reports.
  size_t memory_bytes() const;
  // Bytes of the strings interned by InternStable (viewed, not held).
  size_t viewed_bytes() const { return viewed_bytes_; }

 private:
  std::string_view CopyIntoArena(std::string_view text);
  StringId Find(std::string_view text, uint32_t hash) const {
    return index_.Find(hash, [&](uint32_t id) { return strings_[id] == text; });
  }

  std::vector<std::string_view> strings_;  // Index: StringId.
  OpenIndex index_;                         // Over strings_.
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* block_free_ = nullptr;
  size_t block_left_ = 0;
  size_t next_block_bytes_;  // 4 KiB, doubling up to 256 KiB.
  size_t arena_bytes_ = 0;
  size_t viewed_bytes_ = 0;
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_STORAGE_STRING_POOL_H_
