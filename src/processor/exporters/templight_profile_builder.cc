#include "src/processor/exporters/templight_profile_builder.h"

#include <unordered_map>
#include <vector>

namespace zt {
namespace processor {

bool BuildTemplightProfile(const TraceStorage& storage, TemplightProfile* profile,
                           std::string* error) {
  if (storage.templight_units.empty()) {
    *error =
        "the trace holds no Templight translation unit (only a trace read from a Templight "
        "file can be written as one)";
    return false;
  }
  const SliceTable& slice = storage.slice;
  const TemplightInstantiationTable& table = storage.templight;
  const StringPool& strings = storage.strings;

  // Each string id once in names / files.
  std::unordered_map<StringId, uint32_t> name_index;
  std::unordered_map<StringId, uint32_t> file_index;
  auto name_of = [&](StringId id) {
    auto inserted = name_index.emplace(id, static_cast<uint32_t>(profile->names.size()));
    if (inserted.second)
      profile->names.push_back(strings.Get(id));
    return inserted.first->second;
  };
  auto location_of = [&](StringId file, uint32_t line, uint32_t column) {
    TemplightLocation location;
    if (file == kNullStringId)
      return location;
    auto inserted = file_index.emplace(file, static_cast<uint32_t>(profile->files.size()));
    if (inserted.second)
      profile->files.emplace_back(strings.Get(file));
    location.file = inserted.first->second;
    location.line = line;
    location.column = column;
    return location;
  };

  // Rows per unit, in slice order.
  std::unordered_map<uint32_t, uint32_t> unit_of_track;
  for (size_t u = 0; u < storage.templight_units.size(); u++)
    unit_of_track.emplace(storage.templight_units[u].track_id, static_cast<uint32_t>(u));
  std::vector<std::vector<uint32_t>> rows(storage.templight_units.size());
  for (uint32_t row = 0; row < table.size(); row++) {
    auto unit = unit_of_track.find(slice.track_id[table.slice_id[row]]);
    if (unit != unit_of_track.end())
      rows[unit->second].push_back(row);
  }

  std::vector<int64_t> index_of_slice(slice.size(), -1);
  profile->instantiations.reserve(profile->instantiations.size() + table.size());
  for (size_t u = 0; u < storage.templight_units.size(); u++) {
    const TemplightUnitRow& unit_row = storage.templight_units[u];
    TemplightUnit unit;
    unit.version = unit_row.version;
    if (unit_row.source_file != kNullStringId)
      unit.source_file = std::string(strings.Get(unit_row.source_file));
    unit.first_instantiation = profile->instantiations.size();
    for (uint32_t row : rows[u]) {
      const uint32_t id = table.slice_id[row];
      TemplightInstantiation i;
      i.unit = static_cast<uint32_t>(profile->units.size());
      i.name = name_of(slice.name[id]);
      i.kind = table.kind[row];
      i.location = location_of(table.file[row], table.line[row], table.column[row]);
      i.origin = location_of(table.origin_file[row], table.origin_line[row],
                             table.origin_column[row]);
      i.begin_ns = slice.ts[id];
      i.end_ns = slice.dur[id] < 0 ? -1 : slice.ts[id] + slice.dur[id];
      i.memory_begin = table.memory_begin[row];
      i.memory_end = table.memory_end[row];
      const uint32_t parent = slice.parent_id[id];
      i.parent = parent == kNullId ? -1 : index_of_slice[parent];
      i.depth = slice.depth[id];
      index_of_slice[id] = static_cast<int64_t>(profile->instantiations.size());
      profile->instantiations.push_back(i);
    }
    unit.instantiation_count = profile->instantiations.size() - unit.first_instantiation;
    profile->units.push_back(std::move(unit));
  }
  return true;
}

}  // namespace processor
}  // namespace zt
