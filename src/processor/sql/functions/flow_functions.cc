// The flow table functions, as upstream documents them (its "PerfettoSQL
// getting started", "Connected/Following/Preceding flows"): the flows
// reachable from a slice, with the flow table's columns, in id order.
//
//   DIRECTLY_CONNECTED_FLOW(id): the chains of flows that leave the slice
//     (out -> in -> out ...) and that arrive at it, following flows only;
//   FOLLOWING_FLOW(id): flows leaving the slice or any of its descendants,
//     then from each slice they arrive at (and its descendants), onwards;
//   PRECEDING_FLOW(id): flows arriving at the slice or any of its
//     ancestors, then back from each slice they leave (and its ancestors).

#include <sqlite3.h>

#include <algorithm>
#include <unordered_set>
#include <vector>

#include "src/processor/sql/functions/functions.h"

namespace zt {
namespace processor {
namespace sql {
namespace {

enum class Direction { kForward, kBackward };

// Appends to `flows` each flow reached from `start` in `direction`; with
// `through_nesting`, each reached slice also reaches through its
// descendants (forward) or ancestors (backward).
void Follow(FunctionContext* context, uint32_t start, Direction direction, bool through_nesting,
            std::unordered_set<uint32_t>* seen_flows, std::vector<uint32_t>* flows) {
  const SliceTable& slice = context->storage().slice;
  const FlowTable& flow = context->storage().flow;
  const RowsByKey& by_end = direction == Direction::kForward ? context->flows_by_slice_out()
                                                             : context->flows_by_slice_in();
  std::unordered_set<uint32_t> visited;
  std::vector<uint32_t> pending = {start};
  std::vector<uint32_t> ends;
  while (!pending.empty()) {
    const uint32_t at = pending.back();
    pending.pop_back();
    if (at >= slice.size() || !visited.insert(at).second)
      continue;
    ends.assign(1, at);
    if (through_nesting && direction == Direction::kForward) {
      AppendDescendants(context, at, &ends);
    } else if (through_nesting) {
      for (uint32_t up = slice.parent_id[at]; up != kNullId && up < ends.back();
           up = slice.parent_id[up])
        ends.push_back(up);
    }
    for (uint32_t end : ends) {
      for (uint32_t f : by_end.Get(end)) {
        if (seen_flows->insert(f).second)
          flows->push_back(f);
        pending.push_back(direction == Direction::kForward ? flow.slice_in[f]
                                                           : flow.slice_out[f]);
      }
    }
  }
}

template <bool kForward, bool kBackward, bool kThroughNesting>
bool FlowRows(void* data, sqlite3_value* arg, std::vector<uint32_t>* rows,
              std::string* error) {
  auto* context = static_cast<FunctionContext*>(data);
  size_t start = 0;
  if (!StartSlice(context->storage().slice, arg, &start, error))
    return false;
  std::unordered_set<uint32_t> seen;
  if (kForward)
    Follow(context, static_cast<uint32_t>(start), Direction::kForward, kThroughNesting, &seen, rows);
  if (kBackward)
    Follow(context, static_cast<uint32_t>(start), Direction::kBackward, kThroughNesting, &seen,
           rows);
  std::sort(rows->begin(), rows->end());
  return true;
}

}  // namespace

bool RegisterFlowFunctions(sqlite3* db, FunctionContext* context, std::string* error) {
  return RegisterSubsetFunctions(db, context, "flow",
                                 {{"directly_connected_flow", FlowRows<true, true, false>},
                                  {"following_flow", FlowRows<true, false, true>},
                                  {"preceding_flow", FlowRows<false, true, true>}},
                                 error);
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
