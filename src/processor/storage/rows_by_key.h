// Rows of a table grouped by a uint32 key column (an arg set, a track): the
// rows with one key, in row order, in O(1). Built by a counting sort (two
// passes over the column); 4 bytes per row and per key. Rows whose key is
// kNullId belong to no group. Read-only once built; the column must not
// change meanwhile. The keys are the model's dense ids: the index is as
// long as the largest key.

#ifndef ZT_SRC_PROCESSOR_STORAGE_ROWS_BY_KEY_H_
#define ZT_SRC_PROCESSOR_STORAGE_ROWS_BY_KEY_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {

class RowsByKey {
 public:
  // The rows of one key, ascending.
  struct Rows {
    const uint32_t* first;
    const uint32_t* last;
    const uint32_t* begin() const { return first; }
    const uint32_t* end() const { return last; }
    bool empty() const { return first == last; }
    size_t size() const { return static_cast<size_t>(last - first); }
  };

  RowsByKey() = default;
  // `keys[row]` is the key of each row; `min_keys`: keys [0, min_keys) get
  // a (possibly empty) group even if no row has them.
  explicit RowsByKey(const std::vector<uint32_t>& keys, uint32_t min_keys = 0) {
    uint32_t count = min_keys;
    for (uint32_t key : keys) {
      if (key != kNullId)
        count = std::max(count, key + 1);
    }
    begin_.assign(static_cast<size_t>(count) + 1, 0);
    for (uint32_t key : keys) {
      if (key != kNullId)
        ++begin_[key + 1];
    }
    for (size_t i = 1; i < begin_.size(); ++i)
      begin_[i] += begin_[i - 1];
    rows_.resize(begin_.back());
    std::vector<uint32_t> fill(begin_.begin(), begin_.end() - 1);
    for (uint32_t row = 0; row < keys.size(); ++row) {
      if (keys[row] != kNullId)
        rows_[fill[keys[row]]++] = row;
    }
  }

  // Empty for kNullId or a key no row has.
  Rows Get(uint32_t key) const {
    if (key == kNullId || static_cast<size_t>(key) + 1 >= begin_.size())
      return Rows{nullptr, nullptr};
    return Rows{rows_.data() + begin_[key], rows_.data() + begin_[key + 1]};
  }

 private:
  std::vector<uint32_t> begin_;  // Key -> its first position in rows_; one past the last.
  std::vector<uint32_t> rows_;   // Rows, by key.
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_STORAGE_ROWS_BY_KEY_H_
