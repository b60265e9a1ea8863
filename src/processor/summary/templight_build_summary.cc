#include "src/processor/summary/templight_build_summary.h"

#include <algorithm>
#include <cinttypes>
#include <string_view>
#include <string>

#include "src/processor/summary/templight_summary.h"
#include "src/processor/summary/trace_summary.h"

namespace zt {
namespace processor {

bool TemplightBuildSummary::Add(const std::string& path, const TraceStorage& storage) {
  if (storage.templight_units.empty())
    return false;
  traces_++;
  instantiations_ += storage.templight.size();
  // The trace's units; a template's rows say which unit by their track.
  std::unordered_map<uint32_t, uint32_t> unit_of_track;
  for (const TemplightUnitRow& unit : storage.templight_units) {
    unit_of_track.emplace(unit.track_id, static_cast<uint32_t>(units_.size()));
    // Named by its source file, as the build knows it; by the trace's path
    // when Templight recorded none.
    units_.push_back(unit.source_file == kNullStringId || storage.strings.Get(unit.source_file).empty()
                         ? path
                         : std::string(storage.strings.Get(unit.source_file)));
  }
  for (const TemplightCost& cost : ComputeTemplightCosts(storage, TemplightGrouping::kTemplate)) {
    auto inserted = index_.emplace(cost.key, static_cast<uint32_t>(templates_.size()));
    if (inserted.second) {
      templates_.emplace_back();
      templates_.back().name = cost.key;
    }
    Template& t = templates_[inserted.first->second];
    t.count += cost.count;
    t.total_ns += cost.total_ns;
    t.self_ns += cost.self_ns;
    t.memory_bytes += cost.memory_bytes;
    total_ns_ += cost.self_ns;
  }
  // Which units each template appears in: one pass over the rows, then
  // each (template, unit) pair once. This trace's units come after every
  // earlier one, so each template's list stays in ascending order.
  std::unordered_map<std::string_view, uint32_t> template_of_name;
  std::vector<uint64_t> pairs;  // template << 32 | unit
  for (size_t row = 0; row < storage.templight.size(); row++) {
    const uint32_t slice = storage.templight.slice_id[row];
    const std::string_view name = storage.strings.Get(storage.slice.name[slice]);
    auto found = template_of_name.find(name);
    if (found == template_of_name.end()) {
      auto it = index_.find(std::string(TemplateOf(name)));
      found = template_of_name.emplace(name, it == index_.end() ? UINT32_MAX : it->second).first;
    }
    auto unit = unit_of_track.find(storage.slice.track_id[slice]);
    if (found->second != UINT32_MAX && unit != unit_of_track.end())
      pairs.push_back(uint64_t{found->second} << 32 | unit->second);
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  for (uint64_t pair : pairs)
    templates_[pair >> 32].units.push_back(static_cast<uint32_t>(pair));
  return true;
}

std::vector<TemplightBuildSummary::Template> TemplightBuildSummary::ByTotalTime() const {
  std::vector<Template> sorted = templates_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Template& a, const Template& b) {
    return a.total_ns > b.total_ns;
  });
  return sorted;
}

namespace {

std::string Shortened(const std::string& text, size_t width) {
  if (text.empty())
    return "(empty)";
  return text.size() <= width ? text : text.substr(0, width - 3) + "...";
}

}  // namespace

std::string TemplightBuildSummary::Format(size_t top) const {
  std::string out;
  AppendF(&out,
          "build      %" PRIu64 " Templight trace%s, %zu translation unit%s, %" PRIu64
          " instantiations, %zu templates, %s of instantiation time in all\n",
          traces_, traces_ == 1 ? "" : "s", units_.size(), units_.size() == 1 ? "" : "s",
          instantiations_, templates_.size(), FormatDuration(total_ns_).c_str());
  // Units are named below their common directory, said once.
  size_t common = 0;
  if (units_.size() > 1) {
    common = units_[0].rfind('/') == std::string::npos ? 0 : units_[0].rfind('/') + 1;
    for (const std::string& unit : units_) {
      size_t same = 0;
      while (same < common && same < unit.size() && unit[same] == units_[0][same])
        same++;
      common = same;
    }
    while (common > 0 && units_[0][common - 1] != '/')
      common--;
    if (common > 1)
      AppendF(&out, "           units below %s\n", units_[0].substr(0, common).c_str());
    else
      common = 0;  // Only "/": nothing worth leaving out.
  }
  auto unit_name = [&](uint32_t u) { return units_[u].substr(common); };
  auto list = [&](const char* title, std::vector<Template> sorted) {
    AppendF(&out, "%s\n  %-60s %9s %12s %12s %6s\n", title, "template", "count", "total", "self",
            "units");
    for (size_t i = 0; i < sorted.size() && i < top; i++) {
      const Template& t = sorted[i];
      AppendF(&out, "  %-60s %9" PRIu64 " %12s %12s %6zu\n", Shortened(t.name, 60).c_str(),
              t.count, FormatDuration(t.total_ns).c_str(), FormatDuration(t.self_ns).c_str(),
              t.units.size());
      std::string where = "      in ";
      for (size_t u = 0; u < t.units.size() && u < 3; u++)
        where += (u ? ", " : "") + unit_name(t.units[u]);
      if (t.units.size() > 3)
        where += ", and " + std::to_string(t.units.size() - 3) + " more";
      out += where + "\n";
    }
  };
  list("top templates across the build by total time (arguments folded)", ByTotalTime());
  std::vector<Template> by_count = templates_;
  std::stable_sort(by_count.begin(), by_count.end(), [](const Template& a, const Template& b) {
    return a.count > b.count;
  });
  list("top templates across the build by count", std::move(by_count));
  return out;
}

}  // namespace processor
}  // namespace zt
