// What a track event sequence writes besides its events: the packets
// that start (or restart) its incremental state (defaults, clock snapshot,
// the thread's and the process's descriptors) and the descriptors of the
// tracks it uses. Private to the SDK (track_event_writer.cc).

#ifndef ZT_SRC_TRACING_SDK_TRACK_EVENT_DESCRIPTORS_H_
#define ZT_SRC_TRACING_SDK_TRACK_EVENT_DESCRIPTORS_H_

#include <cstdint>
#include <string>

#include "src/tracing/sdk/process_identity.h"
#include "src/tracing/sdk/track_event_sequence.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/tracing/internal/track_event_internal.h"
#include "zt/tracing/track.h"

namespace zt {
namespace internal {

constexpr uint32_t kIncrementalClockId = 64;  // Sequence-scoped, deltas.
constexpr uint32_t kBootTimeClockId = 6;
constexpr uint32_t kClearedFlag =
    protos::pbzero::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED;
constexpr uint32_t kNeedsStateFlag =
    protos::pbzero::TracePacket::SEQ_NEEDS_INCREMENTAL_STATE;


// The packets that start (or restart) a sequence's incremental state: the
// defaults (timestamps on clock 64 as deltas, events on the thread's
// track), the clock snapshot tying clock 64 to BOOTTIME, and the thread
// and process descriptors. |now| is BOOTTIME.
void ResetSequence(TrackEventSequence* seq, uint64_t now);

// A TrackDescriptor packet for |track| (uuid |uuid|), parented to the
// process unless the track says otherwise.
void WriteTrackDescriptor(TrackEventSequence* seq, const Track& track, uint64_t uuid);

// Writes |track|'s descriptor again on |seq| (the override set for it, or
// the SDK's own), for SetTrackDescriptor(). The process's and the thread's
// own track only if |sequence_was_current| (else the reset that made the
// sequence current wrote them already).
void RewriteDescriptor(TrackEventSequence* seq, const Track& track, bool sequence_was_current);

// The SDK's own descriptor of |track| (DefaultTrackDescriptor()).
std::string EncodeDefaultTrackDescriptor(const Track& track);

// Records |serialized| as |uuid|'s descriptor from now on (empty: erases
// it). Thread-safe.
void StoreTrackDescriptorOverride(uint64_t uuid, std::string serialized);

// The uuid of |spec|'s track (0: the thread's, the default), writing its
// descriptor first if this sequence has not described it yet.
uint64_t ResolveTrack(TrackEventSequence* seq, const EventSpec& spec);

}  // namespace internal
}  // namespace zt

#endif  // ZT_SRC_TRACING_SDK_TRACK_EVENT_DESCRIPTORS_H_
