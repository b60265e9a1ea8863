// The C ABI's track events (zt/c/abi/track_event*.h): the state the
// category registry, the high-level emit and the low-level iteration
// share. Private to src/c_abi.
//
// One data source, "track_event", with the SDK's instance slots
// (DataSourceStaticState). A category (PerfettoTeCategoryImpl) keeps a
// mask of the instances whose config enables it, set in the instance's
// OnStart and cleared in its OnStop (release), and a flag that mirrors
// mask != 0 for the inline check of trace points. A trace point reads the
// mask (acquire) and writes into each of those instances on this thread's
// writer for it, with a per-thread, per-instance sequence state: settings
// from the config (custom state) and incremental state (interning, seen
// tracks, the last timestamp), both in the SDK's per-thread slot state.

#ifndef ZT_SRC_C_ABI_TRACK_EVENT_INTERNAL_H_
#define ZT_SRC_C_ABI_TRACK_EVENT_INTERNAL_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "src/c_abi/content_intern_map.h"
#include "src/tracing/sdk/intern_table.h"
#include "zt/c/abi/track_event.h"
#include "zt/ext/tracing/core/trace_writer.h"
#include "zt/tracing/internal/data_source_internal.h"

// The ABI's opaque category. Global, as the ABI declares it.
struct PerfettoTeCategoryImpl {
  // Mirrors instances != 0: what the trace point's inline check reads.
  std::atomic<bool> flag{false};
  // Bit i: instance i has the category on.
  std::atomic<uint8_t> instances{0};
  // Null for the any-category (dynamic categories go through it).
  PerfettoTeCategoryDescriptor* desc = nullptr;
  PerfettoTeCategoryImplCallback cb = nullptr;
  void* cb_user_arg = nullptr;
  uint64_t cat_iid = 0;

  // Under the registry's lock.
  void EnableInstance(uint32_t index);
  void DisableInstance(uint32_t index);
};

namespace zt {
namespace c_abi {

// Per thread and instance, from the instance's TrackEventConfig.
struct TeSequenceSettings {
  // What timestamps on the sequence are written as by default: 64 (deltas
  // on the incremental clock), 65 (absolute, in |unit_multiplier| ns), or
  // the boot clock.
  uint32_t default_clock_id = PERFETTO_TE_TIMESTAMP_TYPE_INCREMENTAL;
  uint64_t unit_multiplier = 1;
};

// Per thread and instance; cleared when the service asks.
struct TeIncrementalState {
  bool was_cleared = true;
  uint64_t last_timestamp_ns = 0;
  // Tracks whose descriptor this sequence wrote (uuid 0 is the root and
  // has none).
  internal::InternTable seen_tracks;
  // Registered categories whose name this sequence interned (by cat_iid).
  internal::InternTable seen_categories;
  ContentInternMap iids;
  // Dynamic categories' answers for this instance, by encoded descriptor
  // (at most kMaxDynamicCategories kept).
  std::vector<std::pair<std::string, bool>> dynamic_categories;

  void Clear() {
    was_cleared = true;
    last_timestamp_ns = 0;
    seen_tracks = internal::InternTable();
    seen_categories = internal::InternTable();
    iids.Clear();
    dynamic_categories.clear();
  }
  // True if |uuid|'s descriptor was written; records it as written.
  bool TrackSeen(uint64_t uuid) {
    if (uuid == 0)
      return true;
    bool is_new;
    seen_tracks.Intern(uuid, &is_new);
    return !is_new;
  }
};
constexpr size_t kMaxDynamicCategories = 20;

// TracePacket.sequence_flags.
constexpr uint32_t kClearedFlag = 1;     // SEQ_INCREMENTAL_STATE_CLEARED
constexpr uint32_t kNeedsStateFlag = 2;  // SEQ_NEEDS_INCREMENTAL_STATE

// One instance this thread writes into, ready: its writer, settings and
// incremental state.
struct TeSlot {
  uint32_t index = internal::kMaxDataSourceInstances;
  internal::DataSourceInstanceThreadLocalState* tls = nullptr;
  TeSequenceSettings* settings = nullptr;
  TeIncrementalState* incr = nullptr;
};

// The mask of instances |cat| is on in (acquire: the slots' setup is
// visible after it).
inline uint32_t TeInstances(PerfettoTeCategoryImpl* cat) {
  return cat->instances.load(std::memory_order_acquire);
}

// Fills |slot| with the first instance of |mask| at or after |from| this
// thread can write into; false if none. Makes the thread's writer and
// state for it on first use (and after a clear, clears the state).
bool TeNextSlot(uint32_t mask, uint32_t from, TeSlot* slot);

// Whether this thread is inside a trace point: a nested one (a callback
// that traces, a trace point in a signal handler) is ignored.
bool& TeInTracePoint();

// Writes the packets that start (or restart) the sequence's incremental
// state, if it was cleared: defaults, clocks, the thread's and process's
// track descriptors. |ts| is the first event's timestamp.
void TeResetIfCleared(const TeSlot& slot, PerfettoTeTimestamp ts);

// A new packet on |slot|'s sequence at |ts|, its timestamp written as the
// sequence's settings ask (a delta on the incremental clock when it can).
TraceWriter::TracePacketHandle TeNewPacket(const TeSlot& slot, PerfettoTeTimestamp ts,
                                           uint32_t sequence_flags);

// Whether instance |index|'s config enables |desc| (cached per sequence).
bool TeDynamicCategoryEnabled(const TeSlot& slot, const PerfettoTeCategoryDescriptor& desc);

// Whether |config_raw| (an encoded TrackEventConfig) enables |desc|.
bool CategoryEnabledByConfig(const PerfettoTeCategoryDescriptor& desc,
                             const std::string& config_raw);

// Now on the boot clock, in ns.
uint64_t BootTimeNs();

// This thread's track uuid.
uint64_t TeThreadTrackUuid();

// FNV-1a, 64 bits: named tracks' uuids (the same as the ABI's public
// headers compute).
inline uint64_t Fnv1a(const char* data, size_t size) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; i++)
    hash = (hash ^ static_cast<uint8_t>(data[i])) * 0x100000001b3ull;
  return hash;
}

}  // namespace c_abi
}  // namespace zt

#endif  // ZT_SRC_C_ABI_TRACK_EVENT_INTERNAL_H_
