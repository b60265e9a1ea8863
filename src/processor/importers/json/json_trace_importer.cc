#include "src/processor/importers/json/json_trace_importer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "src/processor/importers/json/json_cursor.h"
#include "src/processor/importers/json/json_event_parser.h"

namespace zt {
namespace processor {
namespace {

constexpr size_t kJsonPieceBytes = 8u << 20;
constexpr uint64_t kJsonReportInterval = 64u << 20;

// Ties at one timestamp, once a trace has complete events, are ordered as
// upstream orders them: ends first, then complete events longest first
// (so that they nest), then the rest in file order.
struct SortKey {
  int64_t ts;
  int64_t tie;  // Smaller first.
  uint32_t index;
  bool operator<(const SortKey& other) const {
    if (ts != other.ts)
      return ts < other.ts;
    if (tie != other.tie)
      return tie < other.tie;
    return index < other.index;
  }
};

int64_t TieRank(const JsonEvent& event) {
  if (event.phase == 'E')
    return INT64_MIN;
  if (event.phase == 'X' && event.dur != JsonEvent::kUnset && event.dur > 0)
    return -event.dur;  // Longer first; all before the rest (0).
  return 0;
}

}  // namespace

JsonTraceImporter::JsonTraceImporter(TraceStorage* storage)
    : storage_(storage), splitter_(this), reader_(&storage->strings) {}

void JsonTraceImporter::Problem(uint64_t offset, std::string what) {
  if (storage_->import_problems.size() < kMaxImportProblems)
    storage_->import_problems.push_back(ImportProblem{offset, std::move(what)});
}

bool JsonTraceImporter::Feed(const char* data, size_t size) {
  if (splitter_.Feed(data, size))
    return true;
  if (!reported_structure_) {
    reported_structure_ = true;
    storage_->stats.Increment(stats::json_tokenizer_failure);
    Problem(splitter_.bytes_fed(), splitter_.error() + "; nothing after it was read");
  }
  return false;
}

void JsonTraceImporter::OnEvent(std::string_view json, uint64_t offset) {
  JsonEvent event;
  switch (reader_.Read(json, &event, &error_scratch_)) {
    case JsonEventReader::Result::kEmpty:
      return;
    case JsonEventReader::Result::kInvalid:
      storage_->stats.Increment(stats::json_tokenizer_failure);
      Problem(offset, "a trace event with " + error_scratch_ + ", skipped");
      return;
    case JsonEventReader::Result::kEvent:
      break;
  }
  if (event.ts < 0) {
    storage_->stats.Increment(stats::trace_sorter_negative_timestamp_dropped);
    reader_.args().resize(event.args_begin);
    return;
  }
  if (event.phase == 'X')
    any_complete_event_ = true;
  events_.push_back(event);
}

void JsonTraceImporter::OnTopLevelKey(std::string_view key, std::string_view value_json) {
  if (key == "displayTimeUnit") {
    // A display hint: timestamps stay microseconds (as upstream reads them).
    JsonCursor cursor(value_json.data(), value_json.size());
    if (cursor.PeekType() == JsonType::kString)
      storage_->stats.Increment(stats::json_display_time_unit);
    else
      Problem(splitter_.bytes_fed(), "displayTimeUnit is not a string; ignored");
    return;
  }
  if (key == "metadata") {
    ReadMetadata(value_json);
    return;
  }
  if (key == "systemTraceEvents")
    Problem(splitter_.bytes_fed(), "systemTraceEvents (ftrace text) is not imported");
  // Others (stackFrames, samples, otherData, ...) are not read, as upstream.
}

void JsonTraceImporter::OnSkipped(std::string_view key, uint64_t bytes, uint64_t offset) {
  if (key == "traceEvents") {
    storage_->stats.Increment(stats::json_tokenizer_failure);
    Problem(offset, "a trace event of " + std::to_string(bytes) + " bytes (over 64 MiB), skipped");
  } else if (key == "systemTraceEvents") {
    Problem(offset, "systemTraceEvents (ftrace text) is not imported");
  } else if (key == "metadata") {
    Problem(offset, "metadata of " + std::to_string(bytes) + " bytes (over 16 MiB), skipped");
  }
}

// "metadata": {"k": v, ...} -> metadata rows json_metadata.k, as upstream.
void JsonTraceImporter::ReadMetadata(std::string_view json) {
  JsonCursor cursor(json.data(), json.size());
  if (cursor.PeekType() != JsonType::kObject)
    return;
  cursor.EnterObject();
  std::string_view key;
  std::string key_scratch;
  std::string value_scratch;
  MetadataTable& metadata = storage_->metadata;
  StringPool& strings = storage_->strings;
  while (cursor.NextKey(&key, &key_scratch)) {
    const StringId name = strings.Intern("json_metadata." + std::string(key));
    std::string_view text;
    switch (cursor.PeekType()) {
      case JsonType::kTrue:
      case JsonType::kFalse: {
        bool b;
        if (!cursor.ReadBool(&b))
          return;
        metadata.AddInt(name, b ? 1 : 0);
        break;
      }
      case JsonType::kNumber: {
        if (!cursor.ReadNumber(&text))
          return;  // Rows before the malformed value are kept, as upstream.
        int64_t i;
        double d;
        if (JsonNumberToInt(text, &i)) {
          metadata.AddInt(name, i);
        } else if (JsonNumberToDouble(text, &d)) {
          if (d == std::trunc(d) && std::fabs(d) < 9.2e18) {
            metadata.AddInt(name, static_cast<int64_t>(d));
          } else {
            char formatted[32];
            snprintf(formatted, sizeof(formatted), "%g", d);
            metadata.AddString(name, strings.Intern(formatted));
          }
        }
        break;
      }
      case JsonType::kString:
        if (!cursor.ReadString(&text, &value_scratch))
          return;
        metadata.AddString(name, strings.Intern(text));
        break;
      case JsonType::kNull:
        if (!cursor.ReadNull())
          return;
        break;
      default:
        // Objects and arrays are kept as their JSON text.
        if (cursor.RawValue(&text))
          metadata.AddString(name, strings.Intern(text));
        break;
    }
  }
}

ImportResult JsonTraceImporter::Finish() {
  ImportResult result;
  splitter_.Finish();
  if (splitter_.truncated()) {
    storage_->stats.Set(stats::json_trace_truncated,
                        static_cast<int64_t>(splitter_.cut_event_bytes()));
    if (splitter_.cut_event_bytes() > 0) {
      DataLossMark mark;
      mark.offset = splitter_.bytes_fed() - splitter_.cut_event_bytes();
      storage_->data_losses.push_back(mark);
    }
  }
  if (reader_.malformed_id2() > 0)
    storage_->stats.Increment(stats::json_tokenizer_failure,
                              static_cast<int64_t>(reader_.malformed_id2()));

  // Events come in any order: sort by time (ties as upstream breaks them).
  std::vector<SortKey> order(events_.size());
  for (size_t i = 0; i < events_.size(); ++i) {
    order[i] = SortKey{events_[i].ts, any_complete_event_ ? TieRank(events_[i]) : 0,
                       static_cast<uint32_t>(i)};
  }
  // Writers mostly emit runs in time order: a merge sort does well on them
  // (introsort degrades to heapsort on such patterns, as profiles showed).
  if (!std::is_sorted(order.begin(), order.end()))
    std::stable_sort(order.begin(), order.end());

  JsonEventParser parser(storage_, &reader_.args());
  storage_->slice.reserve(events_.size());
  for (const SortKey& key : order)
    parser.Parse(events_[key.index]);
  parser.Finish();

  result.input_bytes = splitter_.bytes_fed();
  result.packets_parsed = events_.size();
  if (events_.empty() && !splitter_.error().empty())
    result.unreadable = "not a JSON trace (" + splitter_.error() + ")";
  result.format = ImportOptions::Format::kJson;
  // The span covers events in time, not metadata (whose ts is often 0).
  bool first = true;
  for (const SortKey& key : order) {
    if (events_[key.index].phase == 'M')
      continue;
    if (first)
      result.first_ts = key.ts;
    first = false;
    result.last_ts = key.ts;
  }
  MetadataTable& metadata = storage_->metadata;
  metadata.AddInt(storage_->strings.Intern("trace_size_bytes"),
                  static_cast<int64_t>(splitter_.bytes_fed()));
  metadata.AddString(storage_->strings.Intern("trace_type"), storage_->strings.Intern("json"));
  std::vector<JsonEvent>().swap(events_);
  std::vector<JsonArg>().swap(reader_.args());
  return result;
}

ImportResult ImportJsonTrace(const void* data, size_t size, TraceStorage* storage,
                             const ImportOptions& options) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  JsonTraceImporter importer(storage);
  const char* const text = static_cast<const char*>(data);
  uint64_t next_report = kJsonReportInterval;
  for (size_t done = 0; done < size;) {
    const size_t piece = std::min(kJsonPieceBytes, size - done);
    const bool ok = importer.Feed(text + done, piece);
    // Every event read is copied out: the bytes behind can go.
    if (options.release_input)
      options.release_input(done, piece);
    done += piece;
    if (options.progress && (done >= next_report || done == size)) {
      next_report = done + kJsonReportInterval;
      options.progress(done, size);
    }
    if (!ok)
      break;
  }
  const Clock::time_point pass1_end = Clock::now();
  ImportResult result = importer.Finish();
  result.input_bytes = size;
  result.pass1_seconds = std::chrono::duration<double>(pass1_end - start).count();
  result.pass2_seconds = std::chrono::duration<double>(Clock::now() - pass1_end).count();
  return result;
}

}  // namespace processor
}  // namespace zt
