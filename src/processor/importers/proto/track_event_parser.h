// Turns one TrackEvent, already placed in time and on its sequence's
// interned state, into rows: slices (begin, end, instant), counter values,
// flows and args. Called in timestamp order.
//
// Names and categories come inline or interned; an interned id the
// generation never defined is counted and leaves the name NULL, never
// guessed. Debug annotations become args keyed "debug.<name>" (nested
// dictionaries "debug.<name>.<key>", arrays "debug.<name>[<i>]"), as
// upstream keys them. Flows follow both field numbers (47/48 fixed64 and
// the older 36/42 varints): an id links the previous event that carried it
// to this one; a terminating id also ends it. Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_PROTO_TRACK_EVENT_PARSER_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_PROTO_TRACK_EVENT_PARSER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/processor/importers/proto/sequence_state.h"
#include "src/processor/importers/slice_tracker.h"
#include "src/processor/storage/trace_storage.h"
#include "src/processor/importers/track_tracker.h"
#include "zt/protozero/field.h"

namespace zt {
namespace processor {

class TrackEventParser {
 public:
  TrackEventParser(TraceStorage* storage, TrackTracker* tracks);
  ~TrackEventParser();

  // `event` is the TrackEvent's bytes; `ts` its time on the trace clock.
  // DecodeSimple() then ApplySimple(), or ParseFully().
  void Parse(int64_t ts, const InternedGeneration& generation,
             protozero::ConstBytes event);

  // Nearly every event of an SDK trace is simple: a begin, end or instant
  // whose name and category are interned ids of its generation (or absent),
  // on a track given by uuid, with nothing else (no args, flows, counters,
  // inline strings). Such an event is decoded apart from being applied:
  // DecodeSimple() (or DecodeSimpleFromHint()) reads only the event and its
  // generation, which pass 2 never changes, so the importer can run it on
  // another thread than the Apply/Parse calls (docs/design/
  // trace_processor.md, "Two threads"). It returns false, and sets nothing
  // a caller may use, for any event that is not simple or is malformed:
  // ParseFully() handles those (and counts what is wrong).
  struct SimpleEvent {
    uint64_t track_uuid;
    StringId name;      // kNullStringId for an end.
    StringId category;  // kNullStringId for an end.
    uint8_t type;       // Begin, end or instant (TrackEvent.Type numbers).
  };
  static bool DecodeSimple(const InternedGeneration& generation, protozero::ConstBytes event,
                           SimpleEvent* out);
  // The part of DecodeSimple() that needs no generation, done earlier (on
  // pass 1's second thread) and kept as 23 bits with the queued event: the
  // type and the name and category iids of an event made only of those
  // (one-byte keys, short varints, on its sequence's default track); 0 for
  // any other event. DecodeSimpleFromHint() is then DecodeSimple() without
  // reading the event: for a non-zero hint both give the same answer.
  static uint64_t ScanHint(protozero::ConstBytes event);
  static bool DecodeSimpleFromHint(const InternedGeneration& generation, uint64_t hint,
                                   SimpleEvent* out) {
    const uint64_t category_iid = hint >> (3 + kHintNameBits);
    return FinishSimple(generation, (hint >> 1) & 3,
                        (hint >> 3) & ((uint64_t{1} << kHintNameBits) - 1),
                        category_iid != 0 ? 1u : 0u, category_iid,
                        /*has_track_uuid=*/false, 0, out);
  }
  void ApplySimple(int64_t ts, const SimpleEvent& event) {
    ApplySimpleOnTrack(ts, tracks_->TrackForUuid(event.track_uuid), event);
  }
  // The same with the track already resolved (kNullId: none, counted).
  void ApplySimpleOnTrack(int64_t ts, uint32_t track_id, const SimpleEvent& event);
  void ParseFully(int64_t ts, const InternedGeneration& generation,
                  protozero::ConstBytes event);

  // After the last event.
  void Finish() { slices_.Finish(); }

 private:
  struct Event;

  // TrackEvent.Type numbers.
  static constexpr uint64_t kSimpleBegin = 1;
  static constexpr uint64_t kSimpleEnd = 2;
  static constexpr uint64_t kSimpleInstant = 3;
  // A hint is 23 bits, so that the sorter keeps it in place of the event's
  // size (PacketSorter::kMaxHint): bit 0 set, the type in bits 1-2, the
  // name iid in bits 3-15, the category iid in bits 16-22, 0 for none
  // (iids start at 1). Events with larger iids get no hint.
  static constexpr uint64_t kHintNameBits = 13;
  static constexpr uint64_t kHintCategoryBits = 7;

  // DecodeSimple's checks once the fields are read (inline: the merging
  // thread runs it per event).
  static bool FinishSimple(const InternedGeneration& generation, uint64_t type,
                           uint64_t name_iid, uint32_t category_iid_count,
                           uint64_t category_iid, bool has_track_uuid, uint64_t track_uuid,
                           SimpleEvent* out) {
    if (has_track_uuid) {
      out->track_uuid = track_uuid;
    } else if (generation.has_default_track) {
      out->track_uuid = generation.default_track_uuid;
    } else {
      return false;
    }
    out->type = static_cast<uint8_t>(type);
    out->name = kNullStringId;
    out->category = kNullStringId;
    if (type == kSimpleEnd)
      return true;  // An end's name and category are not read.
    if (type != kSimpleBegin && type != kSimpleInstant)
      return false;
    if (name_iid != 0 && !generation.event_names.Get(name_iid, &out->name))
      return false;
    if (category_iid_count == 1 &&
        !generation.event_categories.Get(category_iid, &out->category))
      return false;
    return true;
  }

  void AddCounterValue(int64_t ts, uint32_t track_id, double value);
  uint32_t AddArgs(const InternedGeneration& generation, const Event& event);
  void AddAnnotation(const InternedGeneration& generation, protozero::ConstBytes bytes,
                     uint32_t arg_set_id, StringId parent_key, StringId parent_flat_key,
                     int64_t array_index, int depth);
  void AddArg(uint32_t arg_set_id, StringId flat_key, StringId key, ArgType type,
              int64_t int_value, StringId string_value, double real_value);
  StringId DebugKey(StringId name);
  StringId JoinKey(StringId parent, std::string_view suffix);
  void AddFlows(const Event& event, uint32_t slice_id);
  void LinkFlow(uint64_t flow_id, uint32_t slice_id, bool terminating);

  TraceStorage* const storage_;
  TrackTracker* const tracks_;
  SliceTracker slices_;
  std::unordered_map<StringId, StringId> debug_key_by_name_;
  std::unordered_map<uint64_t, uint32_t> open_flows_;  // flow id -> last slice.
  std::unique_ptr<Event> event_;  // Reused: its vectors keep their capacity.
  std::string scratch_;
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_PROTO_TRACK_EVENT_PARSER_H_
