#include "src/processor/importers/templight/templight_filter.h"

#include <fstream>
#include <sstream>
#include <unordered_map>
#include <string>
#include <memory>

namespace zt {
namespace processor {

struct TemplightBlacklist::Compiled {
  regex_t regex;
  ~Compiled() { regfree(&regex); }
};

TemplightBlacklist::TemplightBlacklist() = default;
TemplightBlacklist::~TemplightBlacklist() = default;

bool TemplightBlacklist::Load(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot read the blacklist " + path;
    return false;
  }
  std::stringstream text;
  text << in.rdbuf();
  return Parse(text.str(), path, error);
}

bool TemplightBlacklist::Parse(std::string_view text, const std::string& origin,
                               std::string* error) {
  size_t line_number = 0;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    line_number++;
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#')
      continue;
    std::string_view pattern;
    for (std::string_view keyword : {std::string_view("context "), std::string_view("identifier ")}) {
      if (line.substr(0, keyword.size()) == keyword)
        pattern = line.substr(keyword.size());
    }
    const std::string where = origin + ":" + std::to_string(line_number) + ": ";
    if (pattern.empty()) {
      *error = where + "expected 'context REGEX' or 'identifier REGEX' (templight-tools' blacklist)";
      return false;
    }
    if (pattern.find('\0') != std::string_view::npos) {
      *error = where + "the pattern holds a NUL byte";
      return false;
    }
    auto compiled = std::make_unique<Compiled>();
    // The whole name must match, as templight-tools' std::regex_match.
    const std::string anchored = "^(" + std::string(pattern) + ")$";
    const int rc = regcomp(&compiled->regex, anchored.c_str(), REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
      char message[256];
      regerror(rc, &compiled->regex, message, sizeof(message));
      *error = where + "bad regular expression '" + std::string(pattern) + "': " + message;
      return false;  // regcomp frees what it made on failure.
    }
    patterns_.push_back(std::move(compiled));
  }
  return true;
}

bool TemplightBlacklist::Matches(std::string_view name) const {
  if (patterns_.empty())
    return false;
  // regexec reads a C string: a name with a NUL byte is matched up to it.
  const std::string text(name);
  for (const auto& pattern : patterns_) {
    if (regexec(&pattern->regex, text.c_str(), 0, nullptr, 0) == 0)
      return true;
  }
  return false;
}

TemplightFilterResult FilterTemplight(TraceStorage* storage, const TemplightBlacklist* blacklist,
                                      bool instantiations_only) {
  TemplightFilterResult result;
  SliceTable& slice = storage->slice;
  TemplightInstantiationTable& templight = storage->templight;
  const StringPool& strings = storage->strings;
  const size_t n = slice.size();
  if (templight.size() == 0 || (!instantiations_only && (!blacklist || !blacklist->patterns())))
    return result;

  std::vector<uint32_t> row_of(n, kNullId);
  for (uint32_t row = 0; row < templight.size(); row++) {
    if (templight.slice_id[row] < n)
      row_of[templight.slice_id[row]] = row;
  }
  // Per distinct string: 0 unknown, 1 no, 2 yes.
  std::vector<uint8_t> listed(strings.size(), 0);
  std::unordered_map<StringId, bool> is_kind;  // kind_name -> TemplateInstantiation?
  auto instantiation = [&](StringId kind) {
    auto it = is_kind.find(kind);
    if (it == is_kind.end()) {
      // A kind the numbering does not name is kept: it cannot be told apart.
      const bool keep = kind == kNullStringId || strings.Get(kind) == "TemplateInstantiation";
      it = is_kind.emplace(kind, keep).first;
    }
    return it->second;
  };

  // What stays, and each left-out slice's nearest kept ancestor (for its
  // children), in one pass: rows are in time order, parents first.
  constexpr uint32_t kSubtreeGone = kNullId - 1;
  std::vector<uint32_t> new_id(n, kNullId);    // kNullId: left out.
  std::vector<uint32_t> kept_above(n, kNullId);  // Nearest kept ancestor (itself if kept).
  uint32_t next = 0;
  for (size_t i = 0; i < n; i++) {
    const uint32_t parent = slice.parent_id[i];
    const uint32_t up = parent != kNullId && parent < i ? kept_above[parent] : kNullId;
    const uint32_t row = row_of[i];
    bool keep = true;
    if (up == kSubtreeGone) {
      kept_above[i] = kSubtreeGone;
      continue;
    }
    if (row != kNullId) {
      const StringId name = slice.name[i];
      if (blacklist && blacklist->patterns()) {
        uint8_t& state = listed[name];
        if (state == 0)
          state = blacklist->Matches(strings.Get(name)) ? 2 : 1;
        if (state == 2) {
          kept_above[i] = kSubtreeGone;
          continue;
        }
      }
      if (instantiations_only && !instantiation(templight.kind_name[row])) {
        result.not_instantiations++;
        keep = false;
      }
    }
    if (keep) {
      new_id[i] = next++;
      kept_above[i] = static_cast<uint32_t>(i);
    } else {
      kept_above[i] = up;
    }
  }
  // Blacklisted subtrees count every instantiation in them.
  uint64_t gone = 0;
  for (size_t i = 0; i < n; i++)
    gone += kept_above[i] == kSubtreeGone && row_of[i] != kNullId;
  result.blacklisted = gone;
  if (next == n)
    return result;

  // Compact the slice columns and remap parents (to the nearest kept
  // ancestor) and depths.
  SliceTable out;
  out.reserve(next);
  const bool thread_times = !slice.thread_ts.empty();
  for (size_t i = 0; i < n; i++) {
    if (new_id[i] == kNullId)
      continue;
    const uint32_t old_parent = slice.parent_id[i];
    const uint32_t ancestor =
        old_parent != kNullId && old_parent < i ? kept_above[old_parent] : kNullId;
    const uint32_t parent = ancestor == kNullId || ancestor == kSubtreeGone ? kNullId
                                                                             : new_id[ancestor];
    out.ts.push_back(slice.ts[i]);
    out.dur.push_back(slice.dur[i]);
    out.track_id.push_back(slice.track_id[i]);
    out.category.push_back(slice.category[i]);
    out.name.push_back(slice.name[i]);
    out.depth.push_back(parent == kNullId ? 0 : out.depth[parent] + 1);
    out.parent_id.push_back(parent);
    out.arg_set_id.push_back(slice.arg_set_id[i]);
    if (thread_times) {
      out.thread_ts.push_back(slice.thread_ts[i]);
      out.thread_dur.push_back(slice.thread_dur[i]);
    }
  }
  slice = std::move(out);

  TemplightInstantiationTable rows;
  for (uint32_t row = 0; row < templight.size(); row++) {
    const uint32_t id = templight.slice_id[row] < n ? new_id[templight.slice_id[row]] : kNullId;
    if (id == kNullId)
      continue;
    rows.slice_id.push_back(id);
    rows.kind.push_back(templight.kind[row]);
    rows.kind_name.push_back(templight.kind_name[row]);
    rows.file.push_back(templight.file[row]);
    rows.line.push_back(templight.line[row]);
    rows.column.push_back(templight.column[row]);
    rows.origin_file.push_back(templight.origin_file[row]);
    rows.origin_line.push_back(templight.origin_line[row]);
    rows.origin_column.push_back(templight.origin_column[row]);
    rows.memory_begin.push_back(templight.memory_begin[row]);
    rows.memory_end.push_back(templight.memory_end[row]);
  }
  templight = std::move(rows);

  // Flows between kept slices follow them (a Templight import has none).
  FlowTable& flow = storage->flow;
  size_t kept_flows = 0;
  for (size_t f = 0; f < flow.size(); f++) {
    const uint32_t out_id = flow.slice_out[f] < n ? new_id[flow.slice_out[f]] : kNullId;
    const uint32_t in_id = flow.slice_in[f] < n ? new_id[flow.slice_in[f]] : kNullId;
    if (out_id == kNullId || in_id == kNullId)
      continue;
    flow.slice_out[kept_flows] = out_id;
    flow.slice_in[kept_flows] = in_id;
    kept_flows++;
  }
  flow.slice_out.resize(kept_flows);
  flow.slice_in.resize(kept_flows);
  return result;
}

}  // namespace processor
}  // namespace zt
