#include <algorithm>
#include <limits>

#include <sqlite3.h>

#include "src/processor/sql/functions/functions.h"

namespace zt {
namespace processor {
namespace sql {

const ColumnTable* FunctionContext::table(const std::string& name) const {
  for (const auto& table : tables_->tables()) {
    if (table->name() == name)
      return table.get();
  }
  return nullptr;
}

const RowsByKey& FunctionContext::slices_by_track() {
  if (!slices_by_track_)
    slices_by_track_ = std::make_unique<RowsByKey>(storage_->slice.track_id);
  return *slices_by_track_;
}

const RowsByKey& FunctionContext::flows_by_slice_out() {
  if (!flows_by_slice_out_)
    flows_by_slice_out_ = std::make_unique<RowsByKey>(storage_->flow.slice_out);
  return *flows_by_slice_out_;
}

const RowsByKey& FunctionContext::flows_by_slice_in() {
  if (!flows_by_slice_in_)
    flows_by_slice_in_ = std::make_unique<RowsByKey>(storage_->flow.slice_in);
  return *flows_by_slice_in_;
}

const std::map<int64_t, int64_t>& FunctionContext::clock_timeline(int64_t clock_id) {
  auto it = clock_timelines_.find(clock_id);
  if (it != clock_timelines_.end())
    return it->second;
  std::map<int64_t, int64_t>& timeline = clock_timelines_[clock_id];
  const ClockSnapshotTable& snapshots = storage_->clock_snapshot;
  for (size_t i = 0; i < snapshots.size(); i++) {
    if (snapshots.clock_id[i] == clock_id)
      timeline.emplace(snapshots.ts[i], snapshots.clock_value[i]);
  }
  return timeline;
}

const ArgSetIndex& FunctionContext::arg_index() {
  if (!arg_index_)
    arg_index_ = std::make_unique<ArgSetIndex>(*storage_);
  return *arg_index_;
}

FunctionContext::Bounds FunctionContext::bounds() {
  if (bounds_)
    return *bounds_;
  int64_t start = std::numeric_limits<int64_t>::max();
  int64_t end = std::numeric_limits<int64_t>::min();
  const SliceTable& slice = storage_->slice;
  for (size_t i = 0; i < slice.size(); i++) {
    start = std::min(start, slice.ts[i]);
    end = std::max(end, slice.ts[i] + std::max<int64_t>(slice.dur[i], 0));
  }
  const CounterTable& counter = storage_->counter;
  for (size_t i = 0; i < counter.size(); i++) {
    start = std::min(start, counter.ts[i]);
    end = std::max(end, counter.ts[i]);
  }
  Bounds bounds;
  if (start <= end) {
    bounds.start = start;
    bounds.end = end == start ? end + 1 : end;
  }
  bounds_ = std::make_unique<Bounds>(bounds);
  return bounds;
}

bool RegisterSubsetFunctions(sqlite3* db, FunctionContext* context, const char* table,
                             std::initializer_list<SubsetFunctionSpec> functions,
                             std::string* error) {
  for (const SubsetFunctionSpec& spec : functions) {
    auto function = std::make_unique<RowSubsetFunction>();
    function->name = spec.name;
    function->arg_name = "start_id";
    function->source = context->table(table);
    function->rows = spec.rows;
    function->data = context;
    if (!RegisterRowSubsetFunction(db, context->Keep(std::move(function)), error))
      return false;
  }
  return true;
}

bool RegisterBuiltinFunctions(sqlite3* db, FunctionContext* context, std::string* error) {
  return RegisterArgFunctions(db, context, error) &&
         RegisterTraceBoundsFunctions(db, context, error) &&
         RegisterMetadataFunctions(db, context, error) &&
         RegisterLayoutWindowFunction(db, error) &&
         RegisterSliceFunctions(db, context, error) && RegisterFlowFunctions(db, context, error) &&
         RegisterSliceLayoutFunction(db, context, error) && RegisterClockFunctions(db, context, error) &&
         RegisterStringFunctions(db, error) && RegisterRegexFunctions(db, error) &&
         RegisterPercentileFunctions(db, error);
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
