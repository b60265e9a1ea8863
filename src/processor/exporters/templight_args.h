// What a templight_instantiation row adds to its slice's args, in one place
// for every exporter (`--to json`, `--to pftrace`): the row's columns as
// (key, value) pairs, keys without the "debug." prefix.
//
//   const uint32_t row = FindTemplightRow(storage.templight, slice_id);
//   if (row != kNullId)
//     ForEachTemplightArg(storage, row, [&](const TemplightArg& arg) { ... });
//
// Pairs, in this order: kind (int), kind_name (string, when known), file
// (string, when recorded), line, column (int), origin_file, origin_line,
// origin_column (when an origin is recorded), memory_begin, memory_end
// (uint, when non-zero). Thread-compatible; the storage is only read.

#ifndef ZT_SRC_PROCESSOR_EXPORTERS_TEMPLIGHT_ARGS_H_
#define ZT_SRC_PROCESSOR_EXPORTERS_TEMPLIGHT_ARGS_H_

#include <cstdint>
#include <functional>
#include <string_view>

#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {

struct TemplightArg {
  std::string_view key;
  ArgType type;                         // kInt, kUint or kString.
  int64_t int_value = 0;                // kInt; kUint as int64 (as ArgTable).
  StringId string_value = kNullStringId;  // kString.
};

// The row of `slice_id` (rows are sorted by slice_id), kNullId if none.
uint32_t FindTemplightRow(const TemplightInstantiationTable& table, uint32_t slice_id);

void ForEachTemplightArg(const TraceStorage& storage, uint32_t row,
                         const std::function<void(const TemplightArg&)>& visit);

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_EXPORTERS_TEMPLIGHT_ARGS_H_
