// The args table grouped by arg set (RowsByKey over arg_set_id), for the
// exporters, which read each slice's args in turn, and EXTRACT_ARG: the
// rows of a set, in row order, in O(1). 4 bytes per row and per set.
// Read-only once built; the table must not change meanwhile.

#ifndef ZT_SRC_PROCESSOR_STORAGE_ARG_SET_INDEX_H_
#define ZT_SRC_PROCESSOR_STORAGE_ARG_SET_INDEX_H_

#include "src/processor/storage/rows_by_key.h"
#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {

class ArgSetIndex : public RowsByKey {
 public:
  ArgSetIndex() = default;
  explicit ArgSetIndex(const TraceStorage& s) : RowsByKey(s.args.arg_set_id, s.next_arg_set_id) {}
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_STORAGE_ARG_SET_INDEX_H_
