// The state of one track event sequence (a thread's writer for one session
// instance) and the access the writer has to EventContext. Private to the
// SDK: track_event_writer.cc writes events, event_context.cc arguments.

#ifndef ZT_SRC_TRACING_SDK_TRACK_EVENT_SEQUENCE_H_
#define ZT_SRC_TRACING_SDK_TRACK_EVENT_SEQUENCE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "src/tracing/sdk/intern_table.h"
#include "src/tracing/sdk/track_event_bytes.h"
#include "zt/ext/tracing/core/trace_writer.h"
#include "zt/tracing/category.h"
#include "zt/tracing/internal/data_source_internal.h"
#include "zt/tracing/internal/track_event_internal.h"
#include "zt/tracing/track_event_args.h"

namespace zt {

// Gives the writer access to EventContext's private fields.
struct EventContextAccess {
  static void Set(EventContext* ctx, void* sequence,
                  protos::pbzero::TrackEvent* event, uint64_t track_uuid,
                  uint8_t session_tag) {
    ctx->sequence_ = sequence;
    ctx->event_ = event;
    ctx->track_uuid_ = track_uuid;
    ctx->session_tag_ = session_tag;
  }
  static void* sequence(const EventContext& ctx) { return ctx.sequence_; }
};

namespace internal {

struct TrackEventIncrementalState;

// One sequence: a thread's writer for one session instance. Lives in the
// instance's thread-local state; |incremental| is replaced when the service
// clears incremental state.
struct TrackEventSequence {
  TrackEventSequence() = default;
  TrackEventSequence(const TrackEventSequence&) = delete;
  TrackEventSequence& operator=(const TrackEventSequence&) = delete;
  // Stops being this thread's current sequence (track_event_writer.cc
  // keeps a plain pointer to it per instance).
  ~TrackEventSequence();

  TraceWriter* writer = nullptr;
  TraceWriter::TracePacketHandle packet;  // Open between Begin and EndEvent.
  // Begun as soon as the previous packet ends, so that the service, when it
  // scrapes this thread's chunk at a flush or stop, takes every finished
  // event: it leaves out a chunk's last packet, which may be in progress.
  // At the thread's exit it is left empty (readers skip empty packets).
  TraceWriter::TracePacketHandle next_packet;

  TraceWriter::TracePacketHandle TakePacket() {
    if (next_packet)
      return std::move(next_packet);
    return writer->NewTracePacket();
  }
  TrackEventIncrementalState* incremental = nullptr;
  uint64_t packets_dropped_seen = 0;
  // The instance slot's epoch when this state was last made current (read
  // before, so that a change in between is seen as a change): while the
  // slot's is the same, the sequence is.
  uint64_t epoch = 0;
  // The session in the instance slot when the sequence was made current:
  // its setup count (DataSourceInstanceState::generation) mod 256.
  uint8_t session_tag = 0;
  // The same tag where the instance's byte of a SessionTags is.
  SessionTags session_tags = 0;
  // 1 << the instance: what the fast paths' |instances| is when they take
  // this sequence, for their misses to hand to the simple paths.
  uint8_t instance_mask = 0;
  // For the one-session fast path (track_event_writer.cc): the instance
  // slot's epoch, and the value it must have for that path to write: the
  // epoch above when the timestamp unit is the default, else a value the
  // slot never takes (the path then leaves every event to the others).
  const std::atomic<uint64_t>* slot_epoch = nullptr;
  uint64_t fast_epoch = ~uint64_t{0};
  // The instance's TrackEventDataSource::timestamp_unit(): 1 for ns deltas
  // on clock 64 (the default, the fast path), n for deltas in units of n
  // ns, 0 for absolute BOOTTIME times.
  uint64_t timestamp_unit = 1;
  uint64_t tid = 0;
  // Times the sequence cleared its incremental state for its intern
  // tables' bound (ClearInternedState()).
  uint64_t intern_clears = 0;

  // Interned entries the open event needs, written after the TrackEvent.
  struct PendingIntern {
    uint8_t field;  // InternedData field number.
    uint32_t iid;
    const char* name;
  };
  std::vector<PendingIntern> pending;
};

struct TrackEventIncrementalState {
  EventBytesCache bytes_cache;
  ArgsEventCache args_cache;
  bool was_cleared = true;  // Fresh: the reset packets are still to write.
  uint64_t last_timestamp = 0;  // In the sequence's timestamp units.
  // The cached forms' first 8 bytes (zero length) for the category and type
  // a cache miss last composed (NamedEventKey; 0: none), that category
  // interned and its iid below 128: misses among many names or keys of one
  // category and type compose only the names' and keys' bytes.
  uint32_t last_head_key = 0;
  uint64_t last_head = 0;
  InternTable event_names;
  InternTable annotation_names;
  uint64_t interned_categories[kDynamicCategoryId / 64] = {};
  InternTable described_tracks;  // Track uuids whose descriptor was written.
  // Counter tracks by name address (ids 1..n) and their uuids (index id-1).
  InternTable counter_names;
  std::vector<uint64_t> counter_uuids;
};

}  // namespace internal
}  // namespace zt

#endif  // ZT_SRC_TRACING_SDK_TRACK_EVENT_SEQUENCE_H_
