// The args table grouped by arg set, for the exporters, which read each
// slice's args in turn: the rows of a set, in row order, in O(1). Built by
// a counting sort (two passes over the args); 4 bytes per row and per set.
// Read-only once built; the table must not change meanwhile.

#ifndef ZT_SRC_PROCESSOR_STORAGE_ARG_SET_INDEX_H_
#define ZT_SRC_PROCESSOR_STORAGE_ARG_SET_INDEX_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {

class ArgSetIndex {
 public:
  // The rows of one set.
  struct Rows {
    const uint32_t* first;
    const uint32_t* last;
    const uint32_t* begin() const { return first; }
    const uint32_t* end() const { return last; }
    bool empty() const { return first == last; }
  };

  ArgSetIndex() = default;
  explicit ArgSetIndex(const TraceStorage& s) {
    uint32_t sets = s.next_arg_set_id;
    for (uint32_t id : s.args.arg_set_id)
      sets = std::max(sets, id + 1);
    begin_.assign(static_cast<size_t>(sets) + 1, 0);
    for (uint32_t id : s.args.arg_set_id)
      ++begin_[id + 1];
    for (size_t i = 1; i < begin_.size(); ++i)
      begin_[i] += begin_[i - 1];
    rows_.resize(s.args.size());
    std::vector<uint32_t> fill(begin_.begin(), begin_.end() - 1);
    for (uint32_t row = 0; row < s.args.size(); ++row)
      rows_[fill[s.args.arg_set_id[row]]++] = row;
  }

  // Empty for kNullId or a set with no rows.
  Rows Get(uint32_t set) const {
    if (set == kNullId || static_cast<size_t>(set) + 1 >= begin_.size())
      return Rows{nullptr, nullptr};
    return Rows{rows_.data() + begin_[set], rows_.data() + begin_[set + 1]};
  }

 private:
  std::vector<uint32_t> begin_;  // Set -> its first position in rows_; one past the last.
  std::vector<uint32_t> rows_;   // Arg rows, by set.
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_STORAGE_ARG_SET_INDEX_H_
