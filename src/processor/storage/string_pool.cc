#include "src/processor/storage/string_pool.h"

#include <algorithm>
#include <cstring>

namespace zt {
namespace processor {
namespace {
// Blocks grow from the first to the full size, doubling: a small trace
// (most of what tests, fuzzers and quick commands import) holds a few KiB,
// a large one reaches full blocks after six.
constexpr size_t kFirstBlockBytes = 4 * 1024;
constexpr size_t kBlockBytes = 256 * 1024;
}  // namespace

StringPool::StringPool() : next_block_bytes_(kFirstBlockBytes) {
  strings_.emplace_back();  // kNullStringId.
}

StringId StringPool::Intern(std::string_view text) {
  const uint32_t hash = OpenIndex::HashText(text);
  const StringId found = Find(text, hash);
  if (found != OpenIndex::kNoRow)
    return found;
  const StringId id = static_cast<StringId>(strings_.size());
  strings_.push_back(CopyIntoArena(text));
  index_.Add(hash, id);
  return id;
}

StringId StringPool::InternStable(std::string_view text) {
  return InternStable(text, OpenIndex::HashText(text));
}

StringId StringPool::InternStable(std::string_view text, uint32_t hash) {
  const StringId found = Find(text, hash);
  if (found != OpenIndex::kNoRow)
    return found;
  const StringId id = static_cast<StringId>(strings_.size());
  strings_.push_back(text);
  index_.Add(hash, id);
  viewed_bytes_ += text.size();
  return id;
}

std::string_view StringPool::CopyIntoArena(std::string_view text) {
  if (text.empty())
    return std::string_view("", 0);
  if (text.size() > block_left_) {
    // Long strings get a block of their own; the current block keeps
    // serving short ones.
    if (text.size() > kBlockBytes / 4) {
      blocks_.emplace_back(new char[text.size()]);
      arena_bytes_ += text.size();
      memcpy(blocks_.back().get(), text.data(), text.size());
      return std::string_view(blocks_.back().get(), text.size());
    }
    const size_t block = std::max(next_block_bytes_, text.size());
    next_block_bytes_ = std::min(kBlockBytes, next_block_bytes_ * 2);
    blocks_.emplace_back(new char[block]);
    arena_bytes_ += block;
    block_free_ = blocks_.back().get();
    block_left_ = block;
  }
  char* dest = block_free_;
  memcpy(dest, text.data(), text.size());
  block_free_ += text.size();
  block_left_ -= text.size();
  return std::string_view(dest, text.size());
}

size_t StringPool::memory_bytes() const {
  return arena_bytes_ + strings_.capacity() * sizeof(std::string_view) + index_.memory_bytes();
}

}  // namespace processor
}  // namespace zt
