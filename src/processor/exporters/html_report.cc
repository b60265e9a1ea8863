#include "src/processor/exporters/html_report.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <unordered_map>

#include "src/processor/exporters/deflate_base64.h"
#include "src/processor/exporters/profile_output.h"
#include "src/processor/exporters/slice_profile.h"

namespace zt {
namespace processor {

// The viewer's script and style (report/report.js, report/report.css),
// compiled in by cmake/ZtEmbedText.cmake: pieces ending with nullptr.
namespace report_assets {
extern const char* const kScript[];
extern const char* const kStyle[];
}  // namespace report_assets

namespace {

void AppendVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}
void AppendZigzag(int64_t value, std::string* out) {
  AppendVarint((static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63), out);
}
void AppendText(std::string_view text, std::string* out) {
  AppendVarint(text.size(), out);
  out->append(text.data(), text.size());
}

// The report's own string table: the storage's strings it uses, and
// labels made here; index 0 is "".
class ReportStrings {
 public:
  explicit ReportStrings(const StringPool& pool) : pool_(pool), of_pool_(pool.size(), 0) {
    texts_.emplace_back();
  }
  uint32_t Of(StringId id) {
    if (id == kNullStringId || id >= of_pool_.size())
      return 0;
    if (!of_pool_[id]) {
      of_pool_[id] = static_cast<uint32_t>(texts_.size());
      texts_.push_back(pool_.Get(id));
    }
    return of_pool_[id];
  }
  uint32_t Add(std::string text) {
    owned_.push_back(std::make_unique<std::string>(std::move(text)));
    texts_.push_back(*owned_.back());
    return static_cast<uint32_t>(texts_.size() - 1);
  }
  void Write(DeflateBase64* data) const {
    AppendVarint(texts_.size(), data->input());
    for (std::string_view text : texts_) {
      AppendText(text, data->input());
      data->MaybeCompress();
    }
  }

 private:
  const StringPool& pool_;
  std::vector<uint32_t> of_pool_;
  std::vector<std::string_view> texts_;
  std::vector<std::unique_ptr<std::string>> owned_;
};

// JSON inside <script>: "</script" would end the element and "<!--" change
// how it is read, so every '<' is written \u003c (JSON reads it back).
void AppendScriptSafe(const std::string& json, std::string* out) {
  for (char c : json) {
    if (c == '<')
      *out += "\\u003c";
    else
      out->push_back(c);
  }
}
void AppendHtmlText(std::string_view text, std::string* out) {
  for (char c : text) {
    switch (c) {
      case '&': *out += "&amp;"; break;
      case '<': *out += "&lt;"; break;
      case '>': *out += "&gt;"; break;
      case '"': *out += "&quot;"; break;
      default: out->push_back(c);
    }
  }
}
void AppendPieces(const char* const* pieces, std::string* out) {
  for (; *pieces; pieces++)
    *out += *pieces;
}

// The data block (version 2): tracks (slices, counters), flows, loss
// marks, then the strings they name by index (known once they are all
// met: the block streams out as it is made).
void WriteDataBlock(const TraceStorage& storage, const SliceProfile& profile, int64_t start,
                    int64_t end, DeflateBase64* data) {
  ReportStrings strings(storage.strings);
  std::string& tracks = *data->input();
  AppendVarint(2, &tracks);  // Version.
  // Only flows need a slice's index in the block.
  std::vector<uint32_t> global_of(storage.flow.size() ? storage.slice.size() : 0, kNullId);
  uint32_t next_global = 0;
  // Counter tracks, their values in time order.
  std::unordered_map<uint32_t, std::vector<uint32_t>> counters;
  std::vector<uint32_t> counter_tracks;
  for (uint32_t row = 0; row < storage.counter.size(); row++) {
    auto& rows = counters[storage.counter.track_id[row]];
    if (rows.empty())
      counter_tracks.push_back(storage.counter.track_id[row]);
    rows.push_back(row);
  }
  AppendVarint(profile.tracks().size() + counter_tracks.size(), &tracks);
  const SliceTable& slice = storage.slice;
  for (size_t t = 0; t < profile.tracks().size(); t++) {
    const std::vector<uint32_t>& ids = profile.slices_of(t);
    AppendVarint(strings.Add(profile.TrackLabel(profile.tracks()[t])), &tracks);
    AppendVarint(0, &tracks);  // Slices.
    AppendVarint(ids.size(), &tracks);
    int64_t previous = start;
    for (uint32_t id : ids) {
      AppendZigzag(slice.ts[id] - previous, &tracks);
      previous = slice.ts[id];
      // 0: never ended; otherwise the (clamped) duration + 1.
      AppendVarint(slice.dur[id] < 0 ? 0 : static_cast<uint64_t>(profile.end(id) - slice.ts[id]) + 1,
                   &tracks);
      AppendVarint(slice.depth[id], &tracks);
      AppendVarint(strings.Of(slice.name[id]), &tracks);
      AppendVarint(strings.Of(slice.category[id]), &tracks);
      if (!global_of.empty())
        global_of[id] = next_global;
      next_global++;
      data->MaybeCompress();
    }
  }
  for (uint32_t track : counter_tracks) {
    const std::vector<uint32_t>& rows = counters[track];
    std::string label = profile.TrackLabel(track);
    if (track < storage.track.unit.size() && storage.track.unit[track] != kNullStringId)
      label += " (" + std::string(storage.strings.Get(storage.track.unit[track])) + ")";
    AppendVarint(strings.Add(label), &tracks);
    AppendVarint(1, &tracks);  // Counter.
    AppendVarint(rows.size(), &tracks);
    int64_t previous = start;
    for (uint32_t row : rows) {
      AppendZigzag(storage.counter.ts[row] - previous, &tracks);
      previous = storage.counter.ts[row];
      const double value = storage.counter.value[row];
      char raw[8];
      memcpy(raw, &value, sizeof(raw));
      tracks.append(raw, sizeof(raw));
      data->MaybeCompress();
    }
  }
  std::string& tail = tracks;
  std::vector<std::pair<uint32_t, uint32_t>> flows;
  for (size_t f = 0; f < storage.flow.size(); f++) {
    const uint32_t from = storage.flow.slice_out[f], to = storage.flow.slice_in[f];
    if (from < global_of.size() && to < global_of.size() && global_of[from] != kNullId &&
        global_of[to] != kNullId)
      flows.push_back({global_of[from], global_of[to]});
  }
  AppendVarint(flows.size(), &tail);
  for (const auto& flow : flows) {
    AppendVarint(flow.first, &tail);
    AppendVarint(flow.second, &tail);
  }
  std::vector<std::pair<int64_t, uint32_t>> marks;
  for (const DataLossMark& loss : storage.data_losses) {
    const int64_t ts = loss.ts != kNullInt ? loss.ts : loss.ts_before;
    if (ts == kNullInt)
      continue;  // No time to mark it at: the stats count it.
    char what[160];
    if (loss.sequence_id)
      snprintf(what, sizeof(what), "data lost on sequence %u (file byte %" PRIu64 ")",
               loss.sequence_id, loss.offset);
    else
      snprintf(what, sizeof(what), "the file is damaged at byte %" PRIu64, loss.offset);
    marks.push_back({std::clamp(ts, start, end), strings.Add(what)});
  }
  AppendVarint(marks.size(), &tail);
  for (const auto& mark : marks) {
    AppendZigzag(mark.first - start, &tail);
    AppendVarint(0, &tail);  // Not tied to a track: the whole height.
    AppendVarint(mark.second, &tail);
  }
  strings.Write(data);
}

std::string MetaJson(const TraceStorage& storage, const HtmlReportOptions& options, int64_t start,
                     int64_t end, uint64_t slices) {
  std::string json = "{\"title\":";
  AppendJsonString(options.title, &json);
  json += ",\"templight\":";
  json += storage.templight_units.empty() ? "false" : "true";
  json += ",\"start\":" + std::to_string(start) + ",\"end\":" + std::to_string(end) +
          ",\"slices\":" + std::to_string(slices) + ",\"stats\":[";
  bool first = true;
  for (int k = 0; k < stats::kNumKeys; k++) {
    const auto key = static_cast<stats::Key>(k);
    const stats::Descriptor& d = stats::Describe(key);
    auto add = [&](const char* idx, int64_t value) {
      if (value == 0)
        return;
      json += first ? "{" : ",{";
      first = false;
      json += "\"name\":";
      AppendJsonString(d.name, &json);
      json += ",\"idx\":" + std::string(idx) + ",\"value\":" + std::to_string(value) +
              ",\"severity\":\"" + stats::SeverityName(d.severity) + "\",\"source\":\"" +
              stats::SourceName(d.source) + "\",\"loss\":" +
              (d.severity == stats::kDataLoss || d.severity == stats::kError ? "true" : "false") +
              ",\"description\":";
      AppendJsonString(d.description, &json);
      json += "}";
    };
    if (d.type == stats::kSingle) {
      add("null", storage.stats.Get(key));
    } else {
      for (const auto& entry : storage.stats.GetIndexed(key))
        add(std::to_string(entry.first).c_str(), entry.second);
    }
  }
  json += "]}";
  return json;
}

}  // namespace

HtmlReportResult WriteHtmlReport(const TraceStorage& storage, const HtmlReportOptions& options,
                                 JsonSink* sink) {
  HtmlReportResult result;
  // The viewer computes self times itself (the flame graph, the top slices).
  const SliceProfile profile(storage, SliceProfile::SelfTimes::kSkipped);
  int64_t start = profile.start_ns(), end = profile.end_ns();
  for (size_t row = 0; row < storage.counter.size(); row++) {
    if (profile.tracks().empty() && row == 0)
      start = end = storage.counter.ts[0];
    start = std::min(start, storage.counter.ts[row]);
    end = std::max(end, storage.counter.ts[row]);
  }
  for (size_t t = 0; t < profile.tracks().size(); t++)
    result.slices += profile.slices_of(t).size();

  ProfileOutput out(sink);
  std::string& html = out.buffer();
  html += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>";
  AppendHtmlText(options.title, &html);
  html += " - zerotrace report</title>\n<style>\n";
  AppendPieces(report_assets::kStyle, &html);
  html += "</style></head>\n<body>\n<header><h1>";
  AppendHtmlText(options.title, &html);
  html += "</h1><div class=\"sub\">" + std::to_string(result.slices) + " slices, " +
          std::to_string(storage.counter.size()) + " counter values, " +
          std::to_string(storage.flow.size()) + " flows; zerotrace report</div></header>\n";
  html +=
      "<nav><button id=\"tab-timeline\">Timeline</button><button id=\"tab-flame\">Flame graph"
      "</button><button id=\"tab-top\">Top slices</button><button id=\"tab-stats\">Stats"
      "</button></nav>\n<div id=\"failure\" hidden></div>\n"
      "<section id=\"timeline\"><div id=\"tl-controls\"><button id=\"zoom-in\">+</button>"
      "<button id=\"zoom-out\">&minus;</button><button id=\"zoom-reset\">whole trace</button> "
      "drag to pan, ctrl+wheel or W/S to zoom, A/D to move, double-click to zoom in</div>"
      "<div id=\"legend\"></div><canvas id=\"tl\"></canvas></section>\n"
      "<section id=\"flame\" hidden><p>Stacks merged by name over every thread; click a frame "
      "to zoom in, again to zoom out.</p><canvas id=\"fg\"></canvas></section>\n"
      "<section id=\"top\" hidden></section>\n<section id=\"stats\" hidden></section>\n"
      "<div id=\"tip\"></div>\n<script type=\"application/json\" id=\"zt-meta\">";
  AppendScriptSafe(MetaJson(storage, options, start, end, result.slices), &html);
  html += "</script>\n<script type=\"application/octet-stream\" id=\"zt-data\">\n";
  out.MaybeFlush();
  {
    // Level 1: the block is varints of deltas; higher levels took twice
    // the time for a few percent.
    DeflateBase64 data(&out, 1);
    WriteDataBlock(storage, profile, start, end, &data);
    if (!data.Finish()) {
      result.ok = false;
      result.error = "zlib could not compress the report's data";
      return result;
    }
    result.data_bytes = data.compressed_bytes();
  }
  html += "\n</script>\n<script>\n";
  AppendPieces(report_assets::kScript, &html);
  html += "</script>\n</body></html>\n";
  if (!out.Finish()) {
    result.ok = false;
    result.error = out.error();
  }
  return result;
}

}  // namespace processor
}  // namespace zt
