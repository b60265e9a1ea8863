#include "src/processor/exporters/templight_args.h"

#include <algorithm>

namespace zt {
namespace processor {

uint32_t FindTemplightRow(const TemplightInstantiationTable& table, uint32_t slice_id) {
  const auto it = std::lower_bound(table.slice_id.begin(), table.slice_id.end(), slice_id);
  if (it == table.slice_id.end() || *it != slice_id) return kNullId;
  return static_cast<uint32_t>(it - table.slice_id.begin());
}

void ForEachTemplightArg(const TraceStorage& storage, uint32_t row,
                         const std::function<void(const TemplightArg&)>& visit) {
  const TemplightInstantiationTable& t = storage.templight;
  if (row >= t.size()) return;
  auto integer = [&](std::string_view key, int64_t value) {
    visit(TemplightArg{key, ArgType::kInt, value, kNullStringId});
  };
  auto uinteger = [&](std::string_view key, uint64_t value) {
    visit(TemplightArg{key, ArgType::kUint, static_cast<int64_t>(value), kNullStringId});
  };
  auto string = [&](std::string_view key, StringId value) {
    visit(TemplightArg{key, ArgType::kString, 0, value});
  };
  integer("kind", t.kind[row]);
  if (t.kind_name[row] != kNullStringId) string("kind_name", t.kind_name[row]);
  if (t.file[row] != kNullStringId) string("file", t.file[row]);
  integer("line", t.line[row]);
  integer("column", t.column[row]);
  if (t.origin_file[row] != kNullStringId) {
    string("origin_file", t.origin_file[row]);
    integer("origin_line", t.origin_line[row]);
    integer("origin_column", t.origin_column[row]);
  }
  if (t.memory_begin[row] != 0) uinteger("memory_begin", t.memory_begin[row]);
  if (t.memory_end[row] != 0) uinteger("memory_end", t.memory_end[row]);
}

}  // namespace processor
}  // namespace zt
