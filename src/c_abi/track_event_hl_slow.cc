// The high-level emit's general path (track_event_hl.cc has the fast
// one): any event, with any extras, through protozero messages:
// descriptors of tracks the sequence has not described, in packets of
// their own, then the TrackEvent and the interned entries it made new, in
// one packet.

#include <cstring>

#include "src/c_abi/track_event_internal.h"
#include "zt/base/logging.h"
#include "zt/c/abi/track_event_hl.h"
#include "zt/trace/interned_data/interned_data.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/trace/track_event/debug_annotation.pbzero.h"
#include "zt/trace/track_event/track_descriptor.pbzero.h"
#include "zt/trace/track_event/track_event.pbzero.h"

namespace zt {
namespace c_abi {
namespace {

using protos::pbzero::InternedData;
using protos::pbzero::TrackEvent;

// InternedData's string entries (EventName, EventCategory,
// DebugAnnotationName, and what CSTR_INTERNED fields name) share this
// shape: iid = 1, name = 2.
constexpr uint32_t kEntryIidField = 1;
constexpr uint32_t kEntryNameField = 2;

// Interned entries a packet made new, written after its TrackEvent.
class NewEntries {
 public:
  void Add(uint32_t field, uint64_t iid, const char* str, size_t size) {
    if (count_ < kInline) {
      inline_[count_++] = Entry{field, iid, str, size};
      return;
    }
    more_.push_back(Entry{field, iid, str, size});
  }
  void WriteInto(protos::pbzero::TracePacket* packet) const {
    if (count_ == 0)
      return;
    InternedData* interned = packet->set_interned_data();
    for (size_t i = 0; i < count_; i++)
      Write(interned, inline_[i]);
    for (const Entry& entry : more_)
      Write(interned, entry);
  }

 private:
  struct Entry {
    uint32_t field;
    uint64_t iid;
    const char* str;
    size_t size;
  };
  static void Write(InternedData* interned, const Entry& entry) {
    auto* message = interned->BeginNestedMessage<protozero::Message>(entry.field);
    message->AppendVarInt(kEntryIidField, entry.iid);
    message->AppendBytes(kEntryNameField, entry.str, entry.size);
  }
  static constexpr size_t kInline = 8;
  Entry inline_[kInline];
  size_t count_ = 0;
  std::vector<Entry> more_;
};

uint64_t InternString(TeIncrementalState* incr, uint32_t field, const char* str,
                      NewEntries* entries) {
  bool is_new;
  const uint64_t iid = incr->InternString(field, str, &is_new);
  if (is_new)
    entries->Add(field, iid, str, strlen(str));
  return iid;
}

void AppendProtoFields(TeIncrementalState* incr, protozero::Message* msg,
                       PerfettoTeHlProtoField* const* fields, NewEntries* entries) {
  if (!fields)
    return;
  for (PerfettoTeHlProtoField* const* it = fields; *it; it++) {
    const PerfettoTeHlProtoField* field = *it;
    switch (field->type) {
      case PERFETTO_TE_HL_PROTO_TYPE_CSTR:
        msg->AppendString(field->id, reinterpret_cast<const PerfettoTeHlProtoFieldCstr*>(field)->str);
        break;
      case PERFETTO_TE_HL_PROTO_TYPE_CSTR_INTERNED: {
        const auto* f = reinterpret_cast<const PerfettoTeHlProtoFieldCstrInterned*>(field);
        // Without the InternedData field, the string has nowhere to go:
        // the field is left out, as the ABI says.
        if (f->interned_type_id != 0)
          msg->AppendVarInt(field->id, InternString(incr, f->interned_type_id, f->str, entries));
        break;
      }
      case PERFETTO_TE_HL_PROTO_TYPE_BYTES: {
        const auto* f = reinterpret_cast<const PerfettoTeHlProtoFieldBytes*>(field);
        msg->AppendBytes(field->id, f->buf, f->len);
        break;
      }
      case PERFETTO_TE_HL_PROTO_TYPE_NESTED: {
        const auto* f = reinterpret_cast<const PerfettoTeHlProtoFieldNested*>(field);
        AppendProtoFields(incr, msg->BeginNestedMessage<protozero::Message>(field->id), f->fields,
                          entries);
        break;
      }
      case PERFETTO_TE_HL_PROTO_TYPE_VARINT:
        msg->AppendVarInt(field->id, reinterpret_cast<const PerfettoTeHlProtoFieldVarInt*>(field)->value);
        break;
      case PERFETTO_TE_HL_PROTO_TYPE_FIXED64:
        msg->AppendFixed(field->id, reinterpret_cast<const PerfettoTeHlProtoFieldFixed64*>(field)->value);
        break;
      case PERFETTO_TE_HL_PROTO_TYPE_FIXED32:
        msg->AppendFixed(field->id, reinterpret_cast<const PerfettoTeHlProtoFieldFixed32*>(field)->value);
        break;
      case PERFETTO_TE_HL_PROTO_TYPE_DOUBLE:
        msg->AppendFixed(field->id, reinterpret_cast<const PerfettoTeHlProtoFieldDouble*>(field)->value);
        break;
      case PERFETTO_TE_HL_PROTO_TYPE_FLOAT:
        msg->AppendFixed(field->id, reinterpret_cast<const PerfettoTeHlProtoFieldFloat*>(field)->value);
        break;
    }
  }
}

// Track descriptors go in packets of their own, before the event's, with
// no timestamp and no sequence flags (as upstream's library writes them):
// a reader takes them whatever the sequence's state.
uint64_t NamedTrack(const TeSlot& slot, uint64_t parent_uuid,
                    const PerfettoTeHlNestedTrackNamed& track) {
  const char* name = track.name ? track.name : "";
  const uint64_t uuid = parent_uuid ^ Fnv1a(name, strlen(name)) ^ track.id;
  if (slot.incr->TrackSeen(uuid))
    return uuid;
  auto packet = TeTakePacket(slot);
  auto* desc = packet->set_track_descriptor();
  desc->set_uuid(uuid);
  if (parent_uuid)
    desc->set_parent_uuid(parent_uuid);
  if (track.is_name_static)
    desc->set_static_name(name);
  else
    desc->set_name(name);
  if (track.sibling_order_rank != 0)
    desc->set_sibling_order_rank(track.sibling_order_rank);
  if (track.child_ordering != PERFETTO_TE_HL_CHILD_ORDERING_UNKNOWN)
    desc->AppendVarInt(protos::pbzero::TrackDescriptor::kChildOrderingFieldNumber,
                       track.child_ordering);
  if (track.sibling_merge_behavior != PERFETTO_TE_HL_SIBLING_MERGE_BEHAVIOR_UNSPECIFIED)
    desc->AppendVarInt(protos::pbzero::TrackDescriptor::kSiblingMergeBehaviorFieldNumber,
                       track.sibling_merge_behavior);
  if (track.sibling_merge_behavior == PERFETTO_TE_HL_SIBLING_MERGE_BEHAVIOR_BY_SIBLING_MERGE_KEY) {
    if (track.sibling_merge_key_str)
      desc->set_sibling_merge_key(track.sibling_merge_key_str);
    else
      desc->set_sibling_merge_key_int(track.sibling_merge_key_int);
  }
  return uuid;
}

uint64_t RegisteredTrack(const TeSlot& slot, const PerfettoTeRegisteredTrackImpl* track) {
  if (!track)
    return 0;
  if (!slot.incr->TrackSeen(track->uuid) && track->descriptor) {
    auto packet = TeTakePacket(slot);
    packet->AppendBytes(protos::pbzero::TracePacket::kTrackDescriptorFieldNumber,
                        track->descriptor, track->descriptor_size);
  }
  return track->uuid;
}

uint64_t ProtoTrack(const TeSlot& slot, uint64_t uuid, const uint64_t* parent_uuid,
                    PerfettoTeHlProtoField* const* fields) {
  if (slot.incr->TrackSeen(uuid))
    return uuid;
  auto packet = TeTakePacket(slot);
  auto* desc = packet->set_track_descriptor();
  desc->set_uuid(uuid);
  if (parent_uuid)
    desc->set_parent_uuid(*parent_uuid);
  // Strings its CSTR_INTERNED fields intern go in the same packet.
  NewEntries entries;
  AppendProtoFields(slot.incr, desc, fields, &entries);
  desc->Finalize();
  entries.WriteInto(&*packet);
  return uuid;
}

uint64_t NestedTracks(const TeSlot& slot, const PerfettoTeHlExtraNestedTracks& nested) {
  uint64_t uuid = 0;
  if (!nested.tracks)
    return uuid;
  for (PerfettoTeHlNestedTrack* const* it = nested.tracks; *it; it++) {
    switch ((*it)->type) {
      case PERFETTO_TE_HL_NESTED_TRACK_TYPE_NAMED:
        uuid = NamedTrack(slot, uuid, *reinterpret_cast<const PerfettoTeHlNestedTrackNamed*>(*it));
        break;
      case PERFETTO_TE_HL_NESTED_TRACK_TYPE_PROCESS:
        uuid = perfetto_te_process_track_uuid;
        break;
      case PERFETTO_TE_HL_NESTED_TRACK_TYPE_THREAD:
        uuid = TeThreadTrackUuid();
        break;
      case PERFETTO_TE_HL_NESTED_TRACK_TYPE_PROTO: {
        const auto* track = reinterpret_cast<const PerfettoTeHlNestedTrackProto*>(*it);
        const uint64_t parent = uuid;
        uuid = ProtoTrack(slot, track->id ^ parent, &parent, track->fields);
        break;
      }
      case PERFETTO_TE_HL_NESTED_TRACK_TYPE_REGISTERED:
        uuid = RegisteredTrack(slot,
                               reinterpret_cast<const PerfettoTeHlNestedTrackRegistered*>(*it)->track);
        break;
      default:
        break;
    }
  }
  return uuid;
}

// The event's track uuid (writing descriptors the sequence lacks), or
// false for the thread's track (the sequence's default).
bool ResolveTrack(const TeSlot& slot, const PerfettoTeHlExtra* extra, uint64_t* uuid) {
  if (!extra)
    return false;
  switch (extra->type) {
    case PERFETTO_TE_HL_EXTRA_TYPE_REGISTERED_TRACK:
      *uuid = RegisteredTrack(slot,
                              reinterpret_cast<const PerfettoTeHlExtraRegisteredTrack*>(extra)->track);
      return true;
    case PERFETTO_TE_HL_EXTRA_TYPE_NAMED_TRACK: {
      const auto* named = reinterpret_cast<const PerfettoTeHlExtraNamedTrack*>(extra);
      PerfettoTeHlNestedTrackNamed track = {};
      track.name = named->name;
      track.id = named->id;
      track.is_name_static = named->is_name_static;
      *uuid = NamedTrack(slot, named->parent_uuid, track);
      return true;
    }
    case PERFETTO_TE_HL_EXTRA_TYPE_PROTO_TRACK: {
      const auto* proto = reinterpret_cast<const PerfettoTeHlExtraProtoTrack*>(extra);
      *uuid = ProtoTrack(slot, proto->uuid, nullptr, proto->fields);
      return true;
    }
    case PERFETTO_TE_HL_EXTRA_TYPE_NESTED_TRACKS:
      *uuid = NestedTracks(slot, *reinterpret_cast<const PerfettoTeHlExtraNestedTracks*>(extra));
      return true;
    default:
      return false;
  }
}

void WriteDebugArg(TeIncrementalState* incr, TrackEvent* event, const PerfettoTeHlExtra* extra,
                   NewEntries* entries) {
  auto* annotation = event->add_debug_annotations();
  const char* name = nullptr;
  switch (extra->type) {
    case PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_BOOL: {
      const auto* arg = reinterpret_cast<const PerfettoTeHlExtraDebugArgBool*>(extra);
      annotation->set_bool_value(arg->value);
      name = arg->name;
      break;
    }
    case PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_UINT64: {
      const auto* arg = reinterpret_cast<const PerfettoTeHlExtraDebugArgUint64*>(extra);
      annotation->set_uint_value(arg->value);
      name = arg->name;
      break;
    }
    case PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_INT64: {
      const auto* arg = reinterpret_cast<const PerfettoTeHlExtraDebugArgInt64*>(extra);
      annotation->set_int_value(arg->value);
      name = arg->name;
      break;
    }
    case PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_DOUBLE: {
      const auto* arg = reinterpret_cast<const PerfettoTeHlExtraDebugArgDouble*>(extra);
      annotation->set_double_value(arg->value);
      name = arg->name;
      break;
    }
    case PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_STRING: {
      const auto* arg = reinterpret_cast<const PerfettoTeHlExtraDebugArgString*>(extra);
      annotation->set_string_value(arg->value ? arg->value : "");
      name = arg->name;
      break;
    }
    case PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_POINTER: {
      const auto* arg = reinterpret_cast<const PerfettoTeHlExtraDebugArgPointer*>(extra);
      annotation->set_pointer_value(arg->value);
      name = arg->name;
      break;
    }
    default:
      break;
  }
  if (name)
    annotation->set_name_iid(
        InternString(incr, InternedData::kDebugAnnotationNamesFieldNumber, name, entries));
}

bool IsDebugArg(uint32_t type) {
  return type >= PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_BOOL &&
         type <= PERFETTO_TE_HL_EXTRA_TYPE_DEBUG_ARG_POINTER;
}

void WriteEvent(const TeSlot& slot, PerfettoTeTimestamp ts, PerfettoTeCategoryImpl* cat,
                int32_t type, const char* name, PerfettoTeHlExtra* const* extras,
                const TeExtras& x, bool has_track, uint64_t track_uuid) {
  TeIncrementalState* incr = slot.incr;
  NewEntries entries;
  auto packet = TeNewPacket(slot, ts, kNeedsStateFlag);
  TrackEvent* event = packet->set_track_event();
  if (type >= PERFETTO_TE_TYPE_SLICE_BEGIN && type <= PERFETTO_TE_TYPE_STATE)
    event->AppendVarInt(TrackEvent::kTypeFieldNumber, type);
  const bool has_category = type != PERFETTO_TE_TYPE_SLICE_END && type != PERFETTO_TE_TYPE_COUNTER;
  if (has_category && !x.dynamic_category && cat->desc) {
    if (!incr->CategorySeen(cat->cat_iid)) {
      // Keyed as upstream keys it (the iid's 8 bytes), which is what the
      // low-level ABI's callers intern it under: one entry per sequence
      // whichever path writes first.
      const uint64_t key = cat->cat_iid;
      bool is_new;
      incr->iids.FindOrAssign(InternedData::kEventCategoriesFieldNumber, &key, sizeof(key),
                              &is_new);
      incr->SetCategorySeen(cat->cat_iid);
      if (is_new)
        entries.Add(InternedData::kEventCategoriesFieldNumber, cat->cat_iid, cat->desc->name,
                    strlen(cat->desc->name));
    }
    event->add_category_iids(cat->cat_iid);
  }
  if (type != PERFETTO_TE_TYPE_SLICE_END && name) {
    if (x.intern)
      event->set_name_iid(InternString(incr, InternedData::kEventNamesFieldNumber, name, &entries));
    else
      event->set_name(name);
  }
  if (has_category && x.dynamic_category)
    event->add_categories(x.dynamic_category->name);
  if (has_track)
    event->set_track_uuid(track_uuid);
  // The rest in the ABI's order: counters, debug annotations, flows,
  // terminating flows, correlation ids, raw fields.
  for (PerfettoTeHlExtra* const* it = extras; *it; it++) {
    if ((*it)->type == PERFETTO_TE_HL_EXTRA_TYPE_COUNTER_INT64 && type == PERFETTO_TE_TYPE_COUNTER)
      event->set_counter_value(reinterpret_cast<const PerfettoTeHlExtraCounterInt64*>(*it)->value);
    else if ((*it)->type == PERFETTO_TE_HL_EXTRA_TYPE_COUNTER_DOUBLE)
      event->set_double_counter_value(
          reinterpret_cast<const PerfettoTeHlExtraCounterDouble*>(*it)->value);
  }
  bool has_flows = false, has_terminating = false, has_correlation = false, has_fields = false;
  for (PerfettoTeHlExtra* const* it = extras; *it; it++) {
    const uint32_t t = (*it)->type;
    if (IsDebugArg(t))
      WriteDebugArg(incr, event, *it, &entries);
    has_flows |= t == PERFETTO_TE_HL_EXTRA_TYPE_FLOW;
    has_terminating |= t == PERFETTO_TE_HL_EXTRA_TYPE_TERMINATING_FLOW;
    has_correlation |= t == PERFETTO_TE_HL_EXTRA_TYPE_CORRELATION_ID ||
                       t == PERFETTO_TE_HL_EXTRA_TYPE_CORRELATION_ID_STR;
    has_fields |= t == PERFETTO_TE_HL_EXTRA_TYPE_PROTO_FIELDS;
  }
  if (has_flows || has_terminating || has_correlation || has_fields) {
    for (PerfettoTeHlExtra* const* it = extras; *it; it++) {
      if ((*it)->type == PERFETTO_TE_HL_EXTRA_TYPE_FLOW)
        event->add_flow_ids(reinterpret_cast<const PerfettoTeHlExtraFlow*>(*it)->id);
    }
    for (PerfettoTeHlExtra* const* it = extras; *it; it++) {
      if ((*it)->type == PERFETTO_TE_HL_EXTRA_TYPE_TERMINATING_FLOW)
        event->add_terminating_flow_ids(reinterpret_cast<const PerfettoTeHlExtraFlow*>(*it)->id);
    }
    for (PerfettoTeHlExtra* const* it = extras; *it; it++) {
      if ((*it)->type == PERFETTO_TE_HL_EXTRA_TYPE_CORRELATION_ID) {
        event->set_correlation_id(reinterpret_cast<const PerfettoTeHlExtraCorrelationId*>(*it)->id);
      } else if ((*it)->type == PERFETTO_TE_HL_EXTRA_TYPE_CORRELATION_ID_STR) {
        const char* str = reinterpret_cast<const PerfettoTeHlExtraCorrelationIdStr*>(*it)->str;
        event->set_correlation_id_str(str ? str : "");
      }
    }
    for (PerfettoTeHlExtra* const* it = extras; *it; it++) {
      if ((*it)->type == PERFETTO_TE_HL_EXTRA_TYPE_PROTO_FIELDS)
        AppendProtoFields(incr, event,
                          reinterpret_cast<const PerfettoTeHlExtraProtoFields*>(*it)->fields,
                          &entries);
    }
  }
  event->Finalize();
  entries.WriteInto(&*packet);
}

}  // namespace

void TeWriteEventSlow(const TeSlot& slot, PerfettoTeTimestamp ts, PerfettoTeCategoryImpl* cat,
                      int32_t type, const char* name, PerfettoTeHlExtra* const* extras,
                      const TeExtras& x) {
  TeResetIfCleared(slot, ts);
  uint64_t track_uuid = 0;
  const bool has_track = ResolveTrack(slot, x.track, &track_uuid);
  WriteEvent(slot, ts, cat, type, name, extras, x, has_track, track_uuid);
  TraceWriter* writer = slot.writer();
  if (x.flush)
    writer->Flush();
  // The next event's packet, open ahead (see TeSequence).
  slot.seq->next_packet = writer->NewTracePacket();
}

}  // namespace c_abi
}  // namespace zt

