#include "src/processor/importers/proto/track_event_parser.h"

#include <cstring>

#include "src/processor/importers/proto/field_reader.h"
#include "src/processor/importers/proto/packet_sorter.h"
#include "zt/base/compiler.h"
#include "zt/protozero/proto_decoder.h"

namespace zt {
namespace processor {
namespace {

// TrackEvent fields (docs/wire.md).
constexpr uint32_t kEventCategoryIids = 3;
constexpr uint32_t kEventDebugAnnotations = 4;
constexpr uint32_t kEventType = 9;
constexpr uint32_t kEventNameIid = 10;
constexpr uint32_t kEventTrackUuid = 11;
constexpr uint32_t kEventExtraCounterValues = 12;
constexpr uint32_t kEventCategories = 22;
constexpr uint32_t kEventName = 23;
constexpr uint32_t kEventCounterValue = 30;
constexpr uint32_t kEventExtraCounterTrackUuids = 31;
constexpr uint32_t kEventFlowIdsOld = 36;
constexpr uint32_t kEventTerminatingFlowIdsOld = 42;
constexpr uint32_t kEventDoubleCounterValue = 44;
constexpr uint32_t kEventExtraDoubleCounterTrackUuids = 45;
constexpr uint32_t kEventExtraDoubleCounterValues = 46;
constexpr uint32_t kEventFlowIds = 47;
constexpr uint32_t kEventTerminatingFlowIds = 48;

constexpr uint64_t kEventTypeSliceBegin = 1;
constexpr uint64_t kEventTypeSliceEnd = 2;
constexpr uint64_t kEventTypeInstant = 3;
constexpr uint64_t kEventTypeCounter = 4;
constexpr uint64_t kEventTypeState = 5;

// DebugAnnotation fields.
constexpr uint32_t kEventAnnotationNameIid = 1;
constexpr uint32_t kEventAnnotationBool = 2;
constexpr uint32_t kEventAnnotationUint = 3;
constexpr uint32_t kEventAnnotationInt = 4;
constexpr uint32_t kEventAnnotationDouble = 5;
constexpr uint32_t kEventAnnotationString = 6;
constexpr uint32_t kEventAnnotationPointer = 7;
constexpr uint32_t kEventAnnotationLegacyJson = 9;
constexpr uint32_t kEventAnnotationName = 10;
constexpr uint32_t kEventAnnotationDictEntries = 11;
constexpr uint32_t kEventAnnotationArrayValues = 12;
constexpr uint32_t kEventAnnotationStringIid = 17;

// Nesting deeper than this in a debug annotation is not followed (a hostile
// trace could otherwise recurse without bound).
constexpr int kEventMaxAnnotationDepth = 16;

using protozero::Field;

}  // namespace

struct TrackEventParser::Event {
  uint64_t type = 0;
  bool has_name_iid = false;
  uint64_t name_iid = 0;
  bool has_name = false;
  std::string_view name;
  bool has_track_uuid = false;
  uint64_t track_uuid = 0;
  bool has_counter_value = false;
  double counter_value = 0;
  // The first category iid inline (nearly every event has exactly one);
  // more, and everything else that repeats, in vectors that Clear() only
  // touches when `has_lists` says one was used.
  uint32_t category_iid_count = 0;
  uint64_t first_category_iid = 0;
  bool has_lists = false;
  std::vector<uint64_t> more_category_iids;
  std::vector<std::string_view> categories;
  std::vector<protozero::ConstBytes> annotations;
  std::vector<uint64_t> flow_ids;
  std::vector<uint64_t> terminating_flow_ids;
  std::vector<uint64_t> extra_counter_uuids;
  std::vector<double> extra_counter_values;
  std::vector<uint64_t> extra_double_counter_uuids;
  std::vector<double> extra_double_counter_values;
  bool has_extra_counter_uuids = false;
  bool has_extra_double_counter_uuids = false;

  void AddCategoryIid(uint64_t iid) {
    if (category_iid_count++ == 0) {
      first_category_iid = iid;
    } else {
      has_lists = true;
      more_category_iids.push_back(iid);
    }
  }

  void Clear() {
    type = 0;
    has_name_iid = has_name = has_track_uuid = has_counter_value = false;
    category_iid_count = 0;
    if (!has_lists)
      return;
    has_lists = false;
    has_extra_counter_uuids = has_extra_double_counter_uuids = false;
    more_category_iids.clear();
    categories.clear();
    annotations.clear();
    flow_ids.clear();
    terminating_flow_ids.clear();
    extra_counter_uuids.clear();
    extra_counter_values.clear();
    extra_double_counter_uuids.clear();
    extra_double_counter_values.clear();
  }
};

TrackEventParser::TrackEventParser(TraceStorage* storage, TrackTracker* tracks)
    : storage_(storage), tracks_(tracks), slices_(storage), event_(new Event()) {}

TrackEventParser::~TrackEventParser() = default;

void TrackEventParser::Parse(int64_t ts, const InternedGeneration& generation,
                             protozero::ConstBytes bytes) {
  SimpleEvent simple;
  if (ZT_LIKELY(DecodeSimple(generation, bytes, &simple)))
    ApplySimple(ts, simple);
  else
    ParseFully(ts, generation, bytes);
}

namespace {

// The fields a simple event may have, as read so far.
struct SimpleFields {
  uint64_t type = 0;
  uint64_t name_iid = 0;
  uint32_t category_iid_count = 0;
  uint64_t category_iid = 0;
  bool has_track_uuid = false;
  uint64_t track_uuid = 0;
};

enum class FastScan { kRead, kOtherKey, kNotSimple };

// Reads an event made only of whole one-byte keys of the simple fields and
// short varints (which is all an SDK event is made of), as ParseFully()
// would (the last of a repeated scalar wins). kOtherKey at anything else:
// the caller decides with the full rules; kNotSimple when the event cannot
// be simple whatever follows (a second category).
ZT_ALWAYS_INLINE inline FastScan ScanFastFields(protozero::ConstBytes bytes,
                                                SimpleFields* fields) {
  const uint8_t* p = bytes.data;
  const uint8_t* const end = p + bytes.size;
  while (p < end) {
    const uint8_t key = *p++;
    uint64_t value;
    if (!ReadShortVarint(&p, end, &value))
      return FastScan::kOtherKey;
    switch (key) {
      case kEventType << 3:
        fields->type = value;
        break;
      case kEventNameIid << 3:
        fields->name_iid = value;
        break;
      case kEventCategoryIids << 3:
        if (fields->category_iid_count++ > 0)
          return FastScan::kNotSimple;
        fields->category_iid = value;
        break;
      case kEventTrackUuid << 3:
        fields->has_track_uuid = true;
        fields->track_uuid = value;
        break;
      default:
        return FastScan::kOtherKey;
    }
  }
  return FastScan::kRead;
}

}  // namespace

bool TrackEventParser::DecodeSimple(const InternedGeneration& generation,
                                    protozero::ConstBytes bytes, SimpleEvent* out) {
  // The same reading as ParseFully() for the fields a simple event may
  // have (the last of a repeated scalar wins; unknown fields are skipped);
  // any other known field, or one of an unexpected wire type, is not
  // simple. The fast scan first; at its first other key, again from the
  // start with the full rules.
  SimpleFields fields;
  const FastScan scan = ScanFastFields(bytes, &fields);
  if (scan == FastScan::kNotSimple)
    return false;
  if (scan == FastScan::kOtherKey) {
    fields = SimpleFields();
    FieldReader reader(bytes.data, bytes.size);
    RawField f{};
    while (reader.Next(&f)) {
      switch (f.id) {
        case kEventType:
          if (f.wire_type != RawField::kVarint)
            return false;
          fields.type = f.value;
          break;
        case kEventNameIid:
          if (f.wire_type != RawField::kVarint)
            return false;
          fields.name_iid = f.value;
          break;
        case kEventCategoryIids:
          if (f.wire_type != RawField::kVarint || fields.category_iid_count++ > 0)
            return false;
          fields.category_iid = f.value;
          break;
        case kEventTrackUuid:
          if (f.wire_type != RawField::kVarint)
            return false;
          fields.has_track_uuid = true;
          fields.track_uuid = f.value;
          break;
        case kEventDebugAnnotations:
        case kEventExtraCounterValues:
        case kEventCategories:
        case kEventName:
        case kEventCounterValue:
        case kEventExtraCounterTrackUuids:
        case kEventFlowIdsOld:
        case kEventTerminatingFlowIdsOld:
        case kEventDoubleCounterValue:
        case kEventExtraDoubleCounterTrackUuids:
        case kEventExtraDoubleCounterValues:
        case kEventFlowIds:
        case kEventTerminatingFlowIds:
          return false;
        default:
          break;
      }
    }
    if (reader.error())
      return false;
  }
  return FinishSimple(generation, fields.type, fields.name_iid, fields.category_iid_count,
                      fields.category_iid, fields.has_track_uuid, fields.track_uuid, out);
}


uint64_t TrackEventParser::ScanHint(protozero::ConstBytes bytes) {
  // DecodeSimple()'s fast scan, where it decides alone and the result fits:
  // no other key, the default track (a uuid does not fit), small iids.
  // A category iid of 0 (not one that interning gives) cannot be told from
  // none in a hint: such an event is decoded from its bytes.
  SimpleFields fields;
  if (ScanFastFields(bytes, &fields) != FastScan::kRead || fields.has_track_uuid ||
      fields.type < kEventTypeSliceBegin || fields.type > kEventTypeInstant ||
      fields.name_iid >> kHintNameBits != 0 || fields.category_iid >> kHintCategoryBits != 0 ||
      (fields.category_iid_count != 0 && fields.category_iid == 0))
    return 0;
  const uint64_t category_iid = fields.category_iid_count != 0 ? fields.category_iid : 0;
  const uint64_t hint =
      1 | fields.type << 1 | fields.name_iid << 3 | category_iid << (3 + kHintNameBits);
  static_assert(3 + kHintNameBits + kHintCategoryBits == 23, "a hint is 23 bits");
  ZT_CHECK(hint <= PacketSorter::kMaxHint);
  return hint;
}

void TrackEventParser::ApplySimpleOnTrack(int64_t ts, uint32_t track_id,
                                          const SimpleEvent& event) {
  if (track_id == kNullId) {
    storage_->stats.Increment(stats::track_event_missing_track);
    return;
  }
  if (event.type == kEventTypeSliceEnd)
    slices_.End(ts, track_id);
  else if (event.type == kEventTypeSliceBegin)
    slices_.Begin(ts, track_id, event.category, event.name, kNullId);
  else
    slices_.Instant(ts, track_id, event.category, event.name, kNullId);
}

void TrackEventParser::ParseFully(int64_t ts, const InternedGeneration& generation,
                                  protozero::ConstBytes bytes) {
  Event& event = *event_;
  event.Clear();
  FieldReader reader(bytes.data, bytes.size);
  RawField f{};
  while (reader.Next(&f)) {
    switch (f.id) {
      case kEventType:
        event.type = f.value;
        break;
      case kEventNameIid:
        event.has_name_iid = true;
        event.name_iid = f.value;
        break;
      case kEventName:
        event.has_name = true;
        event.name = f.as_string();
        break;
      case kEventCategoryIids:
        if (ZT_LIKELY(f.wire_type == RawField::kVarint))
          event.AddCategoryIid(f.value);
        else
          ForEachVarint(f, [&](uint64_t v) { event.AddCategoryIid(v); });
        break;
      case kEventCategories:
        event.has_lists = true;
        event.categories.push_back(f.as_string());
        break;
      case kEventTrackUuid:
        event.has_track_uuid = true;
        event.track_uuid = f.value;
        break;
      case kEventDebugAnnotations:
        event.has_lists = true;
        event.annotations.push_back(protozero::ConstBytes{f.bytes(), f.size()});
        break;
      case kEventCounterValue:
        event.has_counter_value = true;
        event.counter_value = static_cast<double>(f.as_int64());
        break;
      case kEventDoubleCounterValue:
        event.has_counter_value = true;
        event.counter_value = f.as_double();
        break;
      case kEventFlowIds:
        event.has_lists = true;
        ForEachFixed64(f, [&](uint64_t v) { event.flow_ids.push_back(v); });
        break;
      case kEventFlowIdsOld:
        event.has_lists = true;
        ForEachVarint(f, [&](uint64_t v) { event.flow_ids.push_back(v); });
        break;
      case kEventTerminatingFlowIds:
        event.has_lists = true;
        ForEachFixed64(f, [&](uint64_t v) { event.terminating_flow_ids.push_back(v); });
        break;
      case kEventTerminatingFlowIdsOld:
        event.has_lists = true;
        ForEachVarint(f, [&](uint64_t v) { event.terminating_flow_ids.push_back(v); });
        break;
      case kEventExtraCounterTrackUuids:
        event.has_lists = true;
        event.has_extra_counter_uuids = true;
        ForEachVarint(f, [&](uint64_t v) { event.extra_counter_uuids.push_back(v); });
        break;
      case kEventExtraCounterValues:
        event.has_lists = true;
        ForEachVarint(f, [&](uint64_t v) {
          event.extra_counter_values.push_back(static_cast<double>(static_cast<int64_t>(v)));
        });
        break;
      case kEventExtraDoubleCounterTrackUuids:
        event.has_lists = true;
        event.has_extra_double_counter_uuids = true;
        ForEachVarint(f, [&](uint64_t v) { event.extra_double_counter_uuids.push_back(v); });
        break;
      case kEventExtraDoubleCounterValues:
        event.has_lists = true;
        ForEachFixed64(f, [&](uint64_t bits) {
          double v;
          memcpy(&v, &bits, sizeof(v));
          event.extra_double_counter_values.push_back(v);
        });
        break;
      default:
        break;
    }
  }
  if (reader.error()) {
    storage_->stats.Increment(stats::track_event_parser_errors);
    return;
  }

  // The track: the event's, else the sequence's default.
  uint32_t track_id = kNullId;
  if (event.has_track_uuid) {
    track_id = tracks_->TrackForUuid(event.track_uuid);
  } else if (generation.has_default_track) {
    track_id = tracks_->TrackForUuid(generation.default_track_uuid);
  }
  if (track_id == kNullId) {
    storage_->stats.Increment(stats::track_event_missing_track);
    return;
  }

  // Extra counter values ride on any event type.
  if (event.has_lists && !event.extra_counter_values.empty()) {
    const std::vector<uint64_t>& uuids = event.has_extra_counter_uuids
                                             ? event.extra_counter_uuids
                                             : generation.default_extra_counter_track_uuids;
    for (size_t i = 0; i < event.extra_counter_values.size(); i++) {
      const uint32_t counter_track =
          i < uuids.size() ? tracks_->TrackForUuid(uuids[i]) : kNullId;
      AddCounterValue(ts, counter_track, event.extra_counter_values[i]);
    }
  }
  if (event.has_lists && !event.extra_double_counter_values.empty()) {
    const std::vector<uint64_t>& uuids =
        event.has_extra_double_counter_uuids ? event.extra_double_counter_uuids
                                             : generation.default_extra_double_counter_track_uuids;
    for (size_t i = 0; i < event.extra_double_counter_values.size(); i++) {
      const uint32_t counter_track =
          i < uuids.size() ? tracks_->TrackForUuid(uuids[i]) : kNullId;
      AddCounterValue(ts, counter_track, event.extra_double_counter_values[i]);
    }
  }

  if (event.type == kEventTypeCounter) {
    if (event.has_counter_value)
      AddCounterValue(ts, track_id, event.counter_value);
    return;
  }
  if (event.type == kEventTypeSliceEnd) {
    const uint32_t ended = slices_.End(ts, track_id);
    if (ZT_UNLIKELY(event.has_lists &&
                    (!event.flow_ids.empty() || !event.terminating_flow_ids.empty())))
      AddFlows(event, ended);
    return;
  }
  const bool is_state = event.type == kEventTypeState;
  if (event.type != kEventTypeSliceBegin && event.type != kEventTypeInstant && !is_state) {
    // Legacy events (no type) are not modelled yet.
    storage_->stats.Increment(stats::track_event_parser_errors);
    return;
  }
  if (is_state && !tracks_->IsStateTrack(track_id)) {
    storage_->stats.Increment(stats::track_event_parser_errors);
    return;
  }

  StringId name = kNullStringId;
  if (event.has_name_iid && event.name_iid != 0) {
    if (!generation.event_names.Get(event.name_iid, &name)) {
      storage_->stats.Increment(stats::interned_data_missing_iid);
      name = kNullStringId;
    }
  } else if (event.has_name) {
    name = storage_->strings.Intern(event.name);
  }

  StringId category = kNullStringId;
  const size_t category_count = event.category_iid_count + event.categories.size();
  if (category_count == 1 && event.categories.empty()) {
    if (!generation.event_categories.Get(event.first_category_iid, &category)) {
      storage_->stats.Increment(stats::interned_data_missing_iid);
      category = kNullStringId;
    }
  } else if (category_count > 0) {
    scratch_.clear();
    std::vector<uint64_t> iids;
    if (event.category_iid_count > 0)
      iids.push_back(event.first_category_iid);
    iids.insert(iids.end(), event.more_category_iids.begin(), event.more_category_iids.end());
    for (uint64_t iid : iids) {
      StringId id;
      if (!generation.event_categories.Get(iid, &id)) {
        storage_->stats.Increment(stats::interned_data_missing_iid);
        continue;
      }
      if (!scratch_.empty())
        scratch_ += ',';
      scratch_ += storage_->strings.Get(id);
    }
    for (std::string_view text : event.categories) {
      if (!scratch_.empty())
        scratch_ += ',';
      scratch_ += text;
    }
    category = storage_->strings.Intern(scratch_);
  }

  if (is_state) {
    // A state lasts until the next change on its track: the open state
    // slice ends here, and a named state starts one (none: no state).
    slices_.EndIfOpen(ts, track_id);
    if (name == kNullStringId)
      return;
  }
  const uint32_t arg_set_id = event.annotations.empty() ? kNullId : AddArgs(generation, event);
  const uint32_t slice_id = event.type == kEventTypeSliceBegin || is_state
                                ? slices_.Begin(ts, track_id, category, name, arg_set_id)
                                : slices_.Instant(ts, track_id, category, name, arg_set_id);
  if (ZT_UNLIKELY(event.has_lists &&
                  (!event.flow_ids.empty() || !event.terminating_flow_ids.empty())))
    AddFlows(event, slice_id);
}

void TrackEventParser::AddCounterValue(int64_t ts, uint32_t track_id, double value) {
  if (track_id == kNullId || !tracks_->IsCounterTrack(track_id)) {
    storage_->stats.Increment(stats::counter_events_without_counter_track);
    return;
  }
  if (TrackTracker::CounterInfo* info = tracks_->MutableCounterInfo(track_id)) {
    value *= static_cast<double>(info->unit_multiplier);
    if (info->is_incremental) {
      info->last_value += value;
      value = info->last_value;
    }
  }
  CounterTable& counter = storage_->counter;
  counter.ts.push_back(ts);
  counter.value.push_back(value);
  counter.track_id.push_back(track_id);
}

void TrackEventParser::AddFlows(const Event& event, uint32_t slice_id) {
  if (slice_id == kNullId) {
    storage_->stats.Increment(stats::flow_no_enclosing_slice);
    return;
  }
  for (uint64_t id : event.flow_ids)
    LinkFlow(id, slice_id, /*terminating=*/false);
  for (uint64_t id : event.terminating_flow_ids)
    LinkFlow(id, slice_id, /*terminating=*/true);
}

void TrackEventParser::LinkFlow(uint64_t flow_id, uint32_t slice_id, bool terminating) {
  auto it = open_flows_.find(flow_id);
  if (it == open_flows_.end()) {
    if (terminating)
      storage_->stats.Increment(stats::flow_end_without_start);
    else
      open_flows_.emplace(flow_id, slice_id);
    return;
  }
  if (it->second == slice_id) {
    // The same id twice on one event links nothing.
    storage_->stats.Increment(stats::flow_duplicate_id);
    return;
  }
  storage_->flow.slice_out.push_back(it->second);
  storage_->flow.slice_in.push_back(slice_id);
  if (terminating)
    open_flows_.erase(it);
  else
    it->second = slice_id;
}

uint32_t TrackEventParser::AddArgs(const InternedGeneration& generation, const Event& event) {
  const uint32_t arg_set_id = storage_->next_arg_set_id++;
  for (protozero::ConstBytes annotation : event.annotations)
    AddAnnotation(generation, annotation, arg_set_id, kNullStringId, kNullStringId, -1, 0);
  return arg_set_id;
}

StringId TrackEventParser::DebugKey(StringId name) {
  auto it = debug_key_by_name_.find(name);
  if (it != debug_key_by_name_.end())
    return it->second;
  scratch_.assign("debug.");
  scratch_ += storage_->strings.Get(name);
  const StringId key = storage_->strings.Intern(scratch_);
  debug_key_by_name_.emplace(name, key);
  return key;
}

StringId TrackEventParser::JoinKey(StringId parent, std::string_view suffix) {
  scratch_.assign(storage_->strings.Get(parent));
  scratch_ += suffix;
  return storage_->strings.Intern(scratch_);
}

void TrackEventParser::AddAnnotation(const InternedGeneration& generation,
                                     protozero::ConstBytes bytes, uint32_t arg_set_id,
                                     StringId parent_key, StringId parent_flat_key,
                                     int64_t array_index, int depth) {
  protozero::ProtoDecoder decoder(bytes);
  StringId name = kNullStringId;
  bool has_name = false;
  Field value;
  for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
    switch (f.id()) {
      case kEventAnnotationNameIid:
        has_name = generation.debug_annotation_names.Get(f.as_uint64(), &name);
        if (!has_name)
          storage_->stats.Increment(stats::interned_data_missing_iid);
        break;
      case kEventAnnotationName:
        name = storage_->strings.Intern(f.as_string());
        has_name = true;
        break;
      default:
        value = f;  // The last value field wins, as a protobuf oneof.
        break;
    }
  }
  if (decoder.parse_error()) {
    storage_->stats.Increment(stats::track_event_parser_errors);
    return;
  }

  // Keys: top level "debug.<name>"; dictionary entries "<parent>.<name>";
  // array elements "<parent>[i]" with the parent's flat key.
  StringId key;
  StringId flat_key;
  if (array_index >= 0) {
    key = JoinKey(parent_key, "[" + std::to_string(array_index) + "]");
    flat_key = parent_flat_key;
  } else if (parent_key == kNullStringId) {
    if (!has_name)
      return;  // Nothing to key it by; counted above if interned.
    key = flat_key = DebugKey(name);
  } else {
    if (!has_name)
      return;
    scratch_.assign(".");
    scratch_ += storage_->strings.Get(name);
    const std::string suffix = scratch_;
    key = JoinKey(parent_key, suffix);
    flat_key = parent_flat_key == parent_key ? key : JoinKey(parent_flat_key, suffix);
  }

  if (!value.valid()) {
    AddArg(arg_set_id, flat_key, key, ArgType::kNull, 0, kNullStringId, 0);
    return;
  }
  switch (value.id()) {
    case kEventAnnotationBool:
      AddArg(arg_set_id, flat_key, key, ArgType::kBool, value.as_bool() ? 1 : 0,
             kNullStringId, 0);
      return;
    case kEventAnnotationUint:
      AddArg(arg_set_id, flat_key, key, ArgType::kUint, value.as_int64(), kNullStringId, 0);
      return;
    case kEventAnnotationInt:
      AddArg(arg_set_id, flat_key, key, ArgType::kInt, value.as_int64(), kNullStringId, 0);
      return;
    case kEventAnnotationPointer:
      AddArg(arg_set_id, flat_key, key, ArgType::kPointer, value.as_int64(), kNullStringId,
             0);
      return;
    case kEventAnnotationDouble:
      AddArg(arg_set_id, flat_key, key, ArgType::kReal, 0, kNullStringId, value.as_double());
      return;
    case kEventAnnotationString:
      AddArg(arg_set_id, flat_key, key, ArgType::kString, 0,
             storage_->strings.Intern(value.as_string()), 0);
      return;
    case kEventAnnotationLegacyJson:
      AddArg(arg_set_id, flat_key, key, ArgType::kJson, 0,
             storage_->strings.Intern(value.as_string()), 0);
      return;
    case kEventAnnotationStringIid: {
      StringId text;
      if (!generation.debug_annotation_string_values.Get(value.as_uint64(), &text)) {
        storage_->stats.Increment(stats::interned_data_missing_iid);
        return;
      }
      AddArg(arg_set_id, flat_key, key, ArgType::kString, 0, text, 0);
      return;
    }
    case kEventAnnotationDictEntries:
    case kEventAnnotationArrayValues:
      break;
    default:
      storage_->stats.Increment(stats::track_event_parser_errors);
      return;
  }
  if (depth >= kEventMaxAnnotationDepth) {
    storage_->stats.Increment(stats::track_event_parser_errors);
    return;
  }
  // A dictionary or an array: every entry of that field, in order.
  const bool is_array = value.id() == kEventAnnotationArrayValues;
  int64_t index = 0;
  decoder.Reset();
  for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
    if (f.id() != value.id())
      continue;
    AddAnnotation(generation, f.as_bytes(), arg_set_id, key, flat_key,
                  is_array ? index++ : -1, depth + 1);
  }
}

void TrackEventParser::AddArg(uint32_t arg_set_id, StringId flat_key, StringId key,
                              ArgType type, int64_t int_value, StringId string_value,
                              double real_value) {
  ArgTable& args = storage_->args;
  args.arg_set_id.push_back(arg_set_id);
  args.flat_key.push_back(flat_key);
  args.key.push_back(key);
  args.value_type.push_back(type);
  args.int_value.push_back(int_value);
  args.string_value.push_back(string_value);
  args.real_value.push_back(real_value);
}

}  // namespace processor
}  // namespace zt
