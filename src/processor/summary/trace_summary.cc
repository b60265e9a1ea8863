#include "src/processor/summary/trace_summary.h"

#include <algorithm>
#include <cstdarg>
#include <cinttypes>
#include <cstdio>
#include <unordered_map>

#include "src/processor/summary/templight_summary.h"

namespace zt {
namespace processor {

void AppendF(std::string* out, const char* format, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, format);
  const int n = vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  if (n > 0)
    out->append(buffer, std::min<size_t>(static_cast<size_t>(n), sizeof(buffer) - 1));
}

std::string FormatBytes(uint64_t bytes) {
  char text[32];
  if (bytes >= (1u << 20))
    snprintf(text, sizeof(text), "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  else if (bytes >= 1024)
    snprintf(text, sizeof(text), "%.1f KiB", static_cast<double>(bytes) / 1024);
  else
    snprintf(text, sizeof(text), "%" PRIu64 " bytes", bytes);
  return text;
}

std::vector<SliceTotals> ComputeSliceTotals(const TraceStorage& storage) {
  const SliceTable& slice = storage.slice;
  std::unordered_map<StringId, size_t> index;
  std::vector<SliceTotals> totals;
  std::vector<size_t> row_of_slice(slice.size());
  for (size_t i = 0; i < slice.size(); i++) {
    auto it = index.find(slice.name[i]);
    if (it == index.end()) {
      it = index.emplace(slice.name[i], totals.size()).first;
      totals.emplace_back();
      totals.back().name = slice.name[i];
    }
    row_of_slice[i] = it->second;
    SliceTotals& entry = totals[it->second];
    entry.count++;
    if (slice.dur[i] > 0) {
      entry.total_ns += slice.dur[i];
      entry.self_ns += slice.dur[i];
    }
  }
  // A child's time is not its parent's own time.
  for (size_t i = 0; i < slice.size(); i++) {
    const uint32_t parent = slice.parent_id[i];
    if (parent != kNullId && slice.dur[i] > 0 && slice.dur[parent] > 0)
      totals[row_of_slice[parent]].self_ns -= slice.dur[i];
  }
  std::sort(totals.begin(), totals.end(), [](const SliceTotals& a, const SliceTotals& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.count > b.count;
  });
  return totals;
}

std::string FormatDuration(int64_t ns) {
  char text[48];
  const char* sign = ns < 0 ? "-" : "";
  const uint64_t v = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  if (v >= 1000000000u)
    snprintf(text, sizeof(text), "%s%" PRIu64 ".%03" PRIu64 " s", sign, v / 1000000000u,
             v / 1000000u % 1000);
  else if (v >= 1000000u)
    snprintf(text, sizeof(text), "%s%" PRIu64 ".%03" PRIu64 " ms", sign, v / 1000000u,
             v / 1000u % 1000);
  else if (v >= 1000u)
    snprintf(text, sizeof(text), "%s%" PRIu64 ".%03" PRIu64 " us", sign, v / 1000u, v % 1000);
  else
    snprintf(text, sizeof(text), "%s%" PRIu64 " ns", sign, v);
  return text;
}

std::string DescribeLossReasons(uint64_t reasons) {
  static constexpr struct {
    uint64_t bit;
    const char* text;
  } kReasons[] = {
      {2, "a gap between reads of the buffer"},
      {4, "a corrupted chunk"},
      {8, "a continuation without its start"},
      {16, "a gap while reassembling fragments"},
      {32, "a broken fragment chain"},
      {64, "overwritten in the ring buffer"},
      {128, "the writer aborted a packet"},
      {256, "the shared memory buffer was full"},
  };
  std::string text;
  for (const auto& reason : kReasons) {
    if (reasons & reason.bit) {
      if (!text.empty())
        text += ", ";
      text += reason.text;
    }
  }
  return text.empty() ? "cause not recorded" : text;
}

IncompleteData CountIncompleteData(const TraceStorage& storage) {
  IncompleteData counts;
  counts.chunks_overwritten = storage.stats.GetIndexedTotal(stats::traced_buf_chunks_overwritten);
  counts.chunks_discarded = storage.stats.GetIndexedTotal(stats::traced_buf_chunks_discarded);
  counts.packets_skipped = storage.stats.Get(stats::tokenizer_skipped_packets);
  return counts;
}

std::string DescribeIncompleteness(const TraceStorage& storage) {
  // Not marks of a loss inside the trace, so not under "data loss": what a
  // wrapped ring or a full buffer left out, in the units each is counted in.
  std::string out;
  for (const auto& entry : storage.stats.GetIndexed(stats::traced_buf_chunks_overwritten)) {
    if (entry.second > 0)
      AppendF(&out,
              "overwritten buffer %d: %" PRId64 " chunks overwritten unread (the ring buffer "
              "wrapped: its oldest data is not in the trace)\n",
              entry.first, entry.second);
  }
  for (const auto& entry : storage.stats.GetIndexed(stats::traced_buf_chunks_discarded)) {
    if (entry.second > 0)
      AppendF(&out,
              "discarded buffer %d: %" PRId64 " chunks refused (the buffer was full: its "
              "newest data is not in the trace)\n",
              entry.first, entry.second);
  }
  const int64_t recovered = storage.stats.Get(stats::incremental_state_recovered_packets);
  if (recovered > 0)
    AppendF(&out,
            "recovered  %" PRId64 " packets after a loss kept, read with the names their "
            "sequence interned before it (upstream drops them; --drop-after-loss does too)\n",
            recovered);
  const int64_t skipped = storage.stats.Get(stats::tokenizer_skipped_packets);
  if (skipped > 0)
    AppendF(&out,
            "skipped    %" PRId64 " packets not imported: they need interned data or state "
            "their sequence never had in the trace (its start was overwritten, or not "
            "recorded)\n",
            skipped);
  return out;
}

std::string FormatSummary(const TraceStorage& storage, const ImportResult& result,
                          const SummaryOptions& options) {
  std::string out;
  const TokenizerStats& tokenizer = result.tokenizer;
  const char* const compressed = result.gzip ? ", gzip-compressed" : "";
  if (!storage.templight_units.empty()) {
    AppendF(&out, "trace      %s: a Templight trace, %s%s\n", options.trace_name.c_str(),
            FormatBytes(result.input_bytes).c_str(), compressed);
  } else if (result.format == ImportOptions::Format::kJson) {
    AppendF(&out, "trace      %s: a Chrome JSON trace, %s%s, %" PRIu64 " events\n",
            options.trace_name.c_str(), FormatBytes(result.input_bytes).c_str(), compressed,
            result.packets_parsed);
  } else {
    AppendF(&out, "trace      %s: %s%s, %" PRIu64 " packets, %" PRIu64 " sequences\n",
            options.trace_name.c_str(), FormatBytes(result.input_bytes).c_str(), compressed,
            tokenizer.packets, result.sequences);
  }
  if (result.packets_parsed > 0) {
    AppendF(&out, "span       %s (trace clock %" PRId64 " .. %" PRId64 " ns)\n",
            FormatDuration(result.last_ts - result.first_ts).c_str(), result.first_ts,
            result.last_ts);
  }

  const SliceTable& slice = storage.slice;
  uint64_t instants = 0;
  for (size_t i = 0; i < slice.size(); i++) {
    instants += slice.dur[i] == 0;
  }
  AppendF(&out,
          "events     %" PRIu64 " slices, %" PRIu64 " instants, %zu counter values, "
          "%zu flows, %zu args\n",
          static_cast<uint64_t>(slice.size() - instants), instants, storage.counter.size(),
          storage.flow.size(), storage.args.size());
  size_t thread_tracks = 0, counter_tracks = 0;
  for (size_t i = 0; i < storage.track.size(); i++) {
    thread_tracks += storage.track.kind[i] == TrackKind::kThread;
    counter_tracks += storage.track.kind[i] == TrackKind::kCounter;
  }
  // Less row 0, "none".
  const size_t threads = storage.thread.size() ? storage.thread.size() - 1 : 0;
  const size_t processes = storage.process.size() ? storage.process.size() - 1 : 0;
  AppendF(&out,
          "tracks     %zu thread%s in %zu process%s; %zu thread tracks, %zu counter "
          "tracks, %zu other tracks\n",
          threads, threads == 1 ? "" : "s", processes, processes == 1 ? "" : "es",
          thread_tracks, counter_tracks,
          storage.track.size() - thread_tracks - counter_tracks);

  // Data losses, where and why.
  if (storage.data_losses.empty()) {
    out += "data loss  none marked in the trace\n";
  } else {
    AppendF(&out, "data loss  %zu place(s):\n", storage.data_losses.size());
    size_t shown = 0;
    for (const DataLossMark& mark : storage.data_losses) {
      if (shown++ == 20) {
        AppendF(&out, "  ... and %zu more\n", storage.data_losses.size() - 20);
        break;
      }
      if (mark.sequence_id == 0) {
        AppendF(&out, "  the file is damaged at byte %" PRIu64 ": %s\n", mark.offset,
                DescribeDamage(tokenizer).c_str());
        continue;
      }
      AppendF(&out, "  sequence %u, before the packet at byte %" PRIu64, mark.sequence_id,
              mark.offset);
      if (mark.ts_before != kNullInt && mark.ts != kNullInt)
        AppendF(&out, " (between ts %" PRId64 " and %" PRId64 ")", mark.ts_before, mark.ts);
      else if (mark.ts_before != kNullInt)
        AppendF(&out, " (after ts %" PRId64 ")", mark.ts_before);
      else if (mark.ts != kNullInt)
        AppendF(&out, " (before ts %" PRId64 ")", mark.ts);
      AppendF(&out, ": one or more packets lost (%s)\n",
              DescribeLossReasons(mark.reasons).c_str());
    }
  }
  out += DescribeIncompleteness(storage);

  // Every stat that says something went wrong.
  std::string problems;
  for (int k = 0; k < stats::kNumKeys; k++) {
    const stats::Key key = static_cast<stats::Key>(k);
    const stats::Descriptor& d = stats::Describe(key);
    if (d.severity == stats::kInfo)
      continue;
    if (d.type == stats::kSingle) {
      if (storage.stats.Get(key) != 0)
        AppendF(&problems, "  %-40s %" PRId64 " (%s)\n", d.name, storage.stats.Get(key),
                stats::SeverityName(d.severity));
    } else {
      for (const auto& entry : storage.stats.GetIndexed(key)) {
        if (entry.second != 0)
          AppendF(&problems, "  %-36s[%d] %" PRId64 " (%s)\n", d.name, entry.first,
                  entry.second, stats::SeverityName(d.severity));
      }
    }
  }
  if (problems.empty())
    out += "problems   none\n";
  else
    out += "problems   (stats of error or data_loss severity)\n" + problems;
  for (size_t i = 0; i < storage.import_problems.size(); i++) {
    if (i == 20) {
      AppendF(&out, "  ... and %zu more (the stats count them all)\n",
              storage.import_problems.size() - 20);
      break;
    }
    AppendF(&out, "  at byte %" PRIu64 ": %s\n", storage.import_problems[i].offset,
            storage.import_problems[i].what.c_str());
  }

  if (!storage.templight_units.empty()) {
    out += FormatTemplightSummary(storage, options.top_slices);
    return out;
  }

  const std::vector<SliceTotals> totals = ComputeSliceTotals(storage);
  if (!totals.empty()) {
    AppendF(&out, "top slices by total time\n  %-32s %10s %14s %14s\n", "name", "count",
            "total", "self");
    for (size_t i = 0; i < totals.size() && i < options.top_slices; i++) {
      std::string name(storage.strings.Get(totals[i].name));
      if (totals[i].name == kNullStringId)
        name = "(unnamed)";
      if (name.size() > 32)
        name = name.substr(0, 29) + "...";
      AppendF(&out, "  %-32s %10" PRIu64 " %14s %14s\n", name.c_str(), totals[i].count,
              FormatDuration(totals[i].total_ns).c_str(),
              FormatDuration(totals[i].self_ns).c_str());
    }
  }
  return out;
}

}  // namespace processor
}  // namespace zt
