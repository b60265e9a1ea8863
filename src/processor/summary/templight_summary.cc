#include "src/processor/summary/templight_summary.h"

#include <algorithm>
#include <cinttypes>
#include <map>
#include <unordered_map>

#include "src/processor/summary/trace_summary.h"

namespace zt {
namespace processor {

namespace {

// Whether name[open] ('<') starts a template argument list that closes.
bool ClosesAt(std::string_view name, size_t open) {
  int depth = 0;
  for (size_t i = open; i < name.size(); i++) {
    if (name[i] == '<')
      depth++;
    else if (name[i] == '>' && --depth == 0)
      return true;
  }
  return false;
}

bool IsIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

std::string_view TemplateOf(std::string_view name) {
  constexpr std::string_view kOperator = "operator";
  // The operators spelled with '<', longest first.
  constexpr std::string_view kLessOperators[] = {"<=>", "<<=", "<<", "<=", "<"};
  const size_t n = name.size();
  for (size_t i = 0; i < n; i++) {
    if (name[i] != '<')
      continue;
    if (i < kOperator.size() || name.substr(i - kOperator.size(), kOperator.size()) != kOperator) {
      size_t end = i;
      while (end > 0 && name[end - 1] == ' ')
        end--;
      return name.substr(0, end);
    }
    // The operator's own '<'s: "operator<<long>" is operator< with
    // arguments, "operator<<<char>" operator<< with arguments, and
    // "operator<<" alone operator<<. The longest operator after which
    // comes a whole argument list, or no more of a name.
    size_t fallback = 0;
    for (std::string_view op : kLessOperators) {
      if (name.substr(i, op.size()) != op)
        continue;
      if (!fallback)
        fallback = op.size();
      size_t next = i + op.size();
      while (next < n && name[next] == ' ')
        next++;
      if (next < n && name[next] == '<' && ClosesAt(name, next))
        return name.substr(0, i + op.size());
      if (next == n || (name[next] != '<' && !IsIdentifierChar(name[next]))) {
        fallback = op.size();
        break;
      }
    }
    i += fallback - 1;
  }
  return name;
}

std::vector<TemplightCost> ComputeTemplightCosts(const TraceStorage& storage,
                                                 TemplightGrouping grouping) {
  const SliceTable& slice = storage.slice;
  const TemplightInstantiationTable& table = storage.templight;
  const StringPool& strings = storage.strings;

  // Each Templight slice's key, as an index into `costs`.
  std::vector<TemplightCost> costs;
  std::unordered_map<std::string_view, uint32_t> index;
  std::vector<uint32_t> key_of(slice.size(), kNullId);
  std::map<uint32_t, std::string> unnamed_kinds;  // Keys for kinds with no name (stable).
  // The grouping's string of each row (name, file, kind name) resolves to a
  // key once per distinct string, not by hashing its text on every row.
  std::vector<uint32_t> key_of_string(strings.size(), kNullId);
  for (size_t row = 0; row < table.size(); row++) {
    const uint32_t id = table.slice_id[row];
    const StringId string_id = grouping == TemplightGrouping::kFile   ? table.file[row]
                               : grouping == TemplightGrouping::kKind ? table.kind_name[row]
                                                                      : slice.name[id];
    if (string_id != kNullStringId && key_of_string[string_id] != kNullId) {
      key_of[id] = key_of_string[string_id];
      continue;
    }
    std::string_view key;
    switch (grouping) {
      case TemplightGrouping::kName:
        key = strings.Get(slice.name[id]);
        break;
      case TemplightGrouping::kTemplate:
        key = TemplateOf(strings.Get(slice.name[id]));
        break;
      case TemplightGrouping::kFile:
        key = table.file[row] == kNullStringId ? std::string_view("(no file)")
                                               : strings.Get(table.file[row]);
        break;
      case TemplightGrouping::kKind:
        if (table.kind_name[row] != kNullStringId) {
          key = strings.Get(table.kind_name[row]);
        } else {
          std::string& number = unnamed_kinds[table.kind[row]];
          if (number.empty())
            number = "kind " + std::to_string(table.kind[row]);
          key = number;
        }
        break;
    }
    auto inserted = index.emplace(key, static_cast<uint32_t>(costs.size()));
    if (inserted.second) {
      costs.emplace_back();
      costs.back().key = std::string(key);
    }
    key_of[id] = inserted.first->second;
    if (string_id != kNullStringId)
      key_of_string[string_id] = key_of[id];
  }

  // Time of each slice's direct children, for self time.
  std::vector<int64_t> children_ns(slice.size(), 0);
  for (size_t row = 0; row < table.size(); row++) {
    const uint32_t id = table.slice_id[row];
    const uint32_t parent = slice.parent_id[id];
    if (parent != kNullId && slice.dur[id] > 0)
      children_ns[parent] += slice.dur[id];
  }
  // Counted once per stack: not again inside an instantiation of the same
  // key (a recursive template would count its time twice). Rows come in
  // slice order, parents first: each track's stack of open slices, and per
  // key how many of them it has, answer "nested in the same key?" in
  // amortized constant time however deep the stack.
  // One track at a time (units may overlap in time), rows in slice order
  // within it.
  std::vector<uint32_t> rows(table.size());
  for (uint32_t row = 0; row < rows.size(); row++)
    rows[row] = row;
  std::stable_sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
    return slice.track_id[table.slice_id[a]] < slice.track_id[table.slice_id[b]];
  });
  std::vector<uint32_t> stack;  // The current track's open slices.
  std::vector<uint32_t> open_with_key(costs.size(), 0);
  uint32_t stack_track = kNullId;
  for (const uint32_t row : rows) {
    const uint32_t id = table.slice_id[row];
    const uint32_t key = key_of[id];
    TemplightCost& cost = costs[key];
    cost.count++;
    const int64_t dur = slice.dur[id];
    if (dur > 0)
      cost.self_ns += std::max<int64_t>(0, dur - children_ns[id]);
    const uint32_t parent = stack_track == slice.track_id[id] ? slice.parent_id[id] : kNullId;
    stack_track = slice.track_id[id];
    while (!stack.empty() && stack.back() != parent) {
      if (slice.dur[stack.back()] > 0)
        open_with_key[key_of[stack.back()]]--;
      stack.pop_back();
    }
    // Only an enclosing instantiation whose total counts (one that ended)
    // already holds this one's time: inside one left open at the end of
    // the file this one's time is counted, or its self time would exceed
    // the total.
    const bool nested_in_same = open_with_key[key] > 0;
    stack.push_back(id);
    if (dur > 0)
      open_with_key[key]++;
    if (nested_in_same)
      continue;
    if (dur > 0)
      cost.total_ns += dur;
    const uint64_t begin = table.memory_begin[row];
    const uint64_t end = table.memory_end[row];
    if (begin != 0 && end > begin)
      cost.memory_bytes += end - begin;
  }
  std::stable_sort(costs.begin(), costs.end(), [](const TemplightCost& a, const TemplightCost& b) {
    return a.total_ns > b.total_ns;
  });
  return costs;
}

namespace {

std::string Shorten(const std::string& text, size_t width) {
  if (text.empty())
    return "(empty)";
  if (text.size() <= width)
    return text;
  return text.substr(0, width - 3) + "...";
}

void AppendCosts(std::string* out, const char* title, const char* column,
                 const std::vector<TemplightCost>& costs, size_t top) {
  AppendF(out, "%s\n  %-60s %9s %12s %12s %10s\n", title, column, "count", "total", "self",
          "memory");
  for (size_t i = 0; i < costs.size() && i < top; i++) {
    const TemplightCost& c = costs[i];
    AppendF(out, "  %-60s %9" PRIu64 " %12s %12s %10s\n", Shorten(c.key, 60).c_str(), c.count,
            FormatDuration(c.total_ns).c_str(), FormatDuration(c.self_ns).c_str(),
            c.memory_bytes ? FormatBytes(c.memory_bytes).c_str() : "-");
  }
}

}  // namespace

std::string FormatTemplightSummary(const TraceStorage& storage, size_t top) {
  const TemplightInstantiationTable& table = storage.templight;
  if (table.size() == 0 && storage.templight_units.empty())
    return "";
  std::string out;
  uint64_t open = 0;
  for (size_t row = 0; row < table.size(); row++)
    open += storage.slice.dur[table.slice_id[row]] < 0;
  const std::vector<TemplightCost> by_template =
      ComputeTemplightCosts(storage, TemplightGrouping::kTemplate);
  const std::vector<TemplightCost> by_name = ComputeTemplightCosts(storage, TemplightGrouping::kName);
  std::vector<TemplightCost> by_memory = by_name;
  std::stable_sort(by_memory.begin(), by_memory.end(),
                   [](const TemplightCost& a, const TemplightCost& b) {
                     return a.memory_bytes > b.memory_bytes;
                   });
  const std::vector<TemplightCost> by_file = ComputeTemplightCosts(storage, TemplightGrouping::kFile);
  AppendF(&out,
          "templight  %zu translation unit%s, %zu instantiations (%" PRIu64
          " still open at the end), %zu templates, %zu distinct names, %zu files\n",
          storage.templight_units.size(), storage.templight_units.size() == 1 ? "" : "s",
          table.size(), open, by_template.size(), by_name.size(), by_file.size());
  for (const TemplightUnitRow& unit : storage.templight_units) {
    AppendF(&out, "  unit: %s (Templight version %u, kinds numbered as %s)\n",
            unit.source_file == kNullStringId
                ? "(no source file)"
                : std::string(storage.strings.Get(unit.source_file)).c_str(),
            unit.version,
            unit.kind_numbering == kNullStringId
                ? "unknown"
                : std::string(storage.strings.Get(unit.kind_numbering)).c_str());
  }
  if (table.size() == 0)
    return out;
  AppendCosts(&out, "top templates by time (arguments folded)", "template", by_template, top);
  AppendCosts(&out, "top instantiations by time", "instantiation", by_name, top);
  if (!by_memory.empty() && by_memory[0].memory_bytes > 0)
    AppendCosts(&out, "top instantiations by memory", "instantiation", by_memory, top);
  else
    out += "memory     not recorded in this trace\n";
  AppendCosts(&out, "top files by time (where instantiations were requested)", "file", by_file,
              top);
  // Every kind: there are at most a few dozen.
  AppendCosts(&out, "by kind", "kind", ComputeTemplightCosts(storage, TemplightGrouping::kKind),
              SIZE_MAX);
  return out;
}

}  // namespace processor
}  // namespace zt
