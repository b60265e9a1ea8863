#include "src/processor/exporters/export_notes.h"

namespace zt {
namespace processor {

std::string StatsNote(const StatsTable& table) {
  std::string losses;
  int info = 0;
  for (int k = 0; k < stats::kNumKeys; ++k) {
    const auto key = static_cast<stats::Key>(k);
    const stats::Descriptor& d = stats::Describe(key);
    const int64_t value = d.type == stats::kIndexed ? table.GetIndexedTotal(key) : table.Get(key);
    if (value == 0)
      continue;
    if (d.severity == stats::kInfo) {
      ++info;
      continue;
    }
    losses += losses.empty() ? "" : ", ";
    losses += std::string(d.name) + "=" + std::to_string(value) + " (" +
              stats::SeverityName(d.severity) + ")";
  }
  if (losses.empty() && info == 0)
    return "";
  std::string note = "stats (`ztrace stats` prints them): ";
  if (!losses.empty())
    note += losses + "; ";
  note += std::to_string(info) + " info stat" + (info == 1 ? "" : "s");
  return note;
}

}  // namespace processor
}  // namespace zt
