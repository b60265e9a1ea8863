#include "src/processor/exporters/export_pftrace.h"

#include <algorithm>
#include <utility>

#include "src/processor/exporters/export_pftrace_exporter.h"
#include "zt/protozero/proto_utils.h"
#include "zt/trace/profiling/profile_common.pbzero.h"

namespace zt {
namespace processor {
namespace pftrace {

void Exporter::Flush() {
  FlushToSink(sink_, &buf_, &failed_, &result_.error, &result_.bytes);
}

void Exporter::BeginPacket(bool needs_state) {
  packet_.Reset();
  interned_ = nullptr;
  new_strings_.clear();
  new_annotation_names_.clear();
  packet_->set_trusted_packet_sequence_id(kSequenceId);
  if (first_packet_) {
    packet_->set_first_packet_on_sequence(true);
    packet_->set_sequence_flags(TracePacket::SEQ_INCREMENTAL_STATE_CLEARED);
    first_packet_ = false;
  } else if (needs_state) {
    packet_->set_sequence_flags(TracePacket::SEQ_NEEDS_INCREMENTAL_STATE);
  }
}

void Exporter::EndPacket() {
  if (!new_strings_.empty() || !new_annotation_names_.empty()) {
    InternedData* data = packet_->set_interned_data();
    for (const auto& entry : new_strings_) {
      const std::string_view text = s_.strings.Get(entry.second);
      if (entry.first == kName) {
        auto* name = data->add_event_names();
        name->set_iid(entry.second);
        name->set_name(text);
      } else if (entry.first == kCategory) {
        auto* category = data->add_event_categories();
        category->set_iid(entry.second);
        category->set_name(text);
      } else {
        auto* value = data->add_debug_annotation_string_values();
        value->set_iid(entry.second);
        value->set_str(text);
      }
    }
    for (const auto& entry : new_annotation_names_) {
      auto* name = data->add_debug_annotation_names();
      name->set_iid(entry.first);
      name->set_name(entry.second);
    }
  }
  const std::vector<protozero::ContiguousMemoryRange> ranges = packet_.GetRanges();
  size_t size = 0;
  for (const auto& range : ranges) size += range.size();
  uint8_t header[16];
  header[0] = static_cast<uint8_t>(protozero::proto_utils::MakeTagLengthDelimited(1));
  uint8_t* end = protozero::proto_utils::WriteVarInt(static_cast<uint64_t>(size), header + 1);
  buf_.append(reinterpret_cast<const char*>(header), static_cast<size_t>(end - header));
  for (const auto& range : ranges) {
    buf_.append(reinterpret_cast<const char*>(range.begin), range.size());
  }
  ++result_.packets;
  if (buf_.size() >= (64u << 10)) Flush();
}

uint64_t Exporter::Intern(StringId id, InternKind kind) {
  if (id >= interned_kinds_.size()) interned_kinds_.resize(s_.strings.size(), 0);
  if (!(interned_kinds_[id] & kind)) {
    interned_kinds_[id] |= kind;
    new_strings_.emplace_back(kind, id);
  }
  return id;
}

uint64_t Exporter::InternAnnotationName(std::string_view name) {
  auto it = annotation_names_.find(std::string(name));
  if (it != annotation_names_.end()) return it->second;
  const uint64_t iid = annotation_names_.size() + 1;
  auto inserted = annotation_names_.emplace(std::string(name), iid).first;
  new_annotation_names_.emplace_back(iid, inserted->first);
  return iid;
}

void Exporter::IndexFlows() {
  const size_t slices = s_.slice.size();
  auto written = [&](uint32_t slice) {
    return slice < slices && s_.slice.track_id[slice] < s_.track.size() &&
           s_.slice.ts[slice] >= 0 && s_.slice.depth[slice] < kMaxReaderDepth;
  };
  for (uint32_t f = 0; f < s_.flow.size(); ++f) {
    const uint32_t out = s_.flow.slice_out[f];
    const uint32_t in = s_.flow.slice_in[f];
    // Events are written in slice order: the flow's start must come first.
    if (!written(out) || !written(in) || out >= in) {
      notes_flows_dropped_.Add("flow " + std::to_string(f));
      continue;
    }
    slice_flows_[out].out.push_back(uint64_t{f} + 1);
    slice_flows_[in].in.push_back(uint64_t{f} + 1);
  }
}

void Exporter::WriteEnd(int64_t ts, uint32_t track) {
  BeginPacket(/*needs_state=*/true);
  packet_->set_timestamp(static_cast<uint64_t>(ts));
  TrackEvent* event = packet_->set_track_event();
  event->set_type(TrackEvent::TYPE_SLICE_END);
  event->set_track_uuid(TrackUuid(track));
  EndPacket();
}

// Writes the end of `slice` on `track` at `end`, if it is still open;
// slices open inside it are ended there first (and noted), since an end
// closes the innermost one.
void Exporter::EndOn(uint32_t track, uint32_t slice, int64_t end) {
  std::vector<Open>& stack = stacks_[track];
  size_t pos = stack.size();
  while (pos > 0 && stack[pos - 1].slice != slice) --pos;
  if (pos == 0) return;  // Already ended.
  while (stack.size() >= pos && !failed_) {
    const Open top = stack.back();
    stack.pop_back();
    WriteEnd(end, track);
    if (top.slice == slice) return;
    notes_ended_early_.Add(SliceExample(top.slice));
  }
}

void Exporter::EndSlicesBefore(int64_t ts) {
  while (!ends_.empty() && ends_.top().end < ts && !failed_) {
    const PendingEnd e = ends_.top();
    ends_.pop();
    EndOn(e.track, e.slice, e.end);
  }
}

void Exporter::WriteSlice(uint32_t i) {
  const SliceTable& sl = s_.slice;
  const uint32_t track = sl.track_id[i];
  const int64_t ts = sl.ts[i];
  int64_t dur = sl.dur[i];
  if (track >= s_.track.size()) {
    notes_bad_slices_.Add(SliceExample(i));
    return;
  }
  if (ts < 0) {
    notes_negative_ts_.Add(SliceExample(i));
    return;
  }
  if (sl.depth[i] >= kMaxReaderDepth) {
    // Perfetto's importer drops such a begin, and its end would then close
    // an enclosing slice: left out, begin and end, and said.
    notes_too_deep_.Add(SliceExample(i));
    return;
  }
  if (ts < last_ts_) notes_unsorted_.Add(SliceExample(i));
  last_ts_ = std::max(last_ts_, ts);
  EndSlicesBefore(ts);
  // Ends at this very time: before the begin, unless the begin is inside.
  std::vector<Open>& stack = stacks_[track];
  while (!stack.empty() && stack.size() > sl.depth[i] && stack.back().end == ts && !failed_) {
    EndOn(track, stack.back().slice, ts);
  }
  if (stack.size() != sl.depth[i]) notes_nesting_.Add(SliceExample(i));
  if (dur < -1) {
    notes_bad_dur_.Add(SliceExample(i));
    dur = -1;
  }
  int64_t end = kOpen;
  if (dur > 0 && (__builtin_add_overflow(ts, dur, &end) || end == kOpen)) {
    notes_bad_dur_.Add(SliceExample(i));
    dur = -1;
    end = kOpen;
  }

  BeginPacket(/*needs_state=*/true);
  packet_->set_timestamp(static_cast<uint64_t>(ts));
  TrackEvent* event = packet_->set_track_event();
  event->set_type(dur == 0 ? TrackEvent::TYPE_INSTANT : TrackEvent::TYPE_SLICE_BEGIN);
  event->set_track_uuid(TrackUuid(track));
  if (!s_.strings.IsNull(sl.category[i])) event->add_category_iids(Intern(sl.category[i], kCategory));
  if (!s_.strings.IsNull(sl.name[i])) event->set_name_iid(Intern(sl.name[i], kName));
  WriteAnnotations(i, event);
  if (!slice_flows_.empty()) {
    auto it = slice_flows_.find(i);
    if (it != slice_flows_.end()) {
      for (uint64_t id : it->second.out) event->add_flow_ids(id);
      for (uint64_t id : it->second.in) event->add_terminating_flow_ids(id);
    }
  }
  EndPacket();
  if (dur != 0) {
    stack.push_back(Open{i, end});
    if (end != kOpen) {
      ends_.push(PendingEnd{end, static_cast<uint32_t>(stack.size()), track, i});
    }
  }
}

void Exporter::WriteCounter(uint32_t row) {
  const CounterTable& c = s_.counter;
  const uint32_t track = c.track_id[row];
  if (track >= s_.track.size() || s_.track.kind[track] != TrackKind::kCounter) {
    notes_counter_tracks_.Add("counter " + std::to_string(row));
    return;
  }
  if (c.ts[row] < 0) {
    notes_negative_ts_.Add("counter " + std::to_string(row));
    return;
  }
  if (c.ts[row] < last_ts_) notes_unsorted_.Add("counter " + std::to_string(row));
  last_ts_ = std::max(last_ts_, c.ts[row]);
  EndSlicesBefore(c.ts[row]);
  BeginPacket(/*needs_state=*/true);
  packet_->set_timestamp(static_cast<uint64_t>(c.ts[row]));
  TrackEvent* event = packet_->set_track_event();
  event->set_type(TrackEvent::TYPE_COUNTER);
  event->set_track_uuid(TrackUuid(track));
  event->set_double_counter_value(c.value[row]);
  EndPacket();
}

void Exporter::WriteEvents() {
  stacks_.resize(s_.track.size());
  const size_t slices = s_.slice.size();
  const size_t counters = s_.counter.size();
  size_t i = 0, j = 0;
  uint64_t done = 0;
  // Slices and counter values merged by time (slices first at a tie).
  while ((i < slices || j < counters) && !failed_) {
    if (j >= counters || (i < slices && s_.slice.ts[i] <= s_.counter.ts[j])) {
      WriteSlice(static_cast<uint32_t>(i++));
    } else {
      WriteCounter(static_cast<uint32_t>(j++));
    }
    Progress(++done);
  }
  EndSlicesBefore(kOpen);
}

PftraceExportResult Exporter::Run() {
  total_rows_ = s_.slice.size() + s_.counter.size();
  ChooseTracks();
  arg_sets_ = ArgSetIndex(s_);
  IndexFlows();
  buf_.reserve(128u << 10);
  WriteDescriptors();
  WriteEvents();
  if (first_packet_ && !failed_) {
    // Nothing to write: still a valid sequence start, so the file is a
    // trace that readers open.
    BeginPacket(false);
    EndPacket();
  }
  Flush();
  if (!failed_ && !sink_->Finish(&result_.error)) failed_ = true;
  result_.ok = !failed_;
  if (options_.progress && !failed_) options_.progress(total_rows_, total_rows_);

  for (uint32_t m = 0; m < s_.metadata.size(); ++m) {
    notes_metadata_.Add(std::string(s_.strings.Get(s_.metadata.name[m])));
  }
  for (const TemplightUnitRow& unit : s_.templight_units) {
    notes_templight_units_.Add(std::string(s_.strings.Get(unit.source_file)));
  }
  for (const NoteCounter* n :
       {&notes_bad_slices_, &notes_too_deep_, &notes_negative_ts_, &notes_bad_dur_, &notes_nesting_,
        &notes_ended_early_, &notes_unsorted_, &notes_flows_dropped_, &notes_counter_tracks_,
        &notes_arg_conflicts_, &notes_null_args_, &notes_non_debug_args_, &notes_array_gaps_,
        &notes_big_ids_, &notes_unplaced_counters_, &notes_not_written_, &notes_metadata_,
        &notes_templight_units_}) {
    n->AddTo(&result_.notes);
  }
  // The stats table: data loss and errors by name, the info ones counted.
  std::string stats_note = StatsNote(s_.stats);
  if (!stats_note.empty()) result_.notes.push_back(std::move(stats_note));
  return std::move(result_);
}

}  // namespace pftrace

PftraceExportResult ExportPftrace(const TraceStorage& storage, JsonSink* sink,
                                  const PftraceExportOptions& options) {
  return pftrace::Exporter(storage, sink, options).Run();
}

}  // namespace processor
}  // namespace zt
