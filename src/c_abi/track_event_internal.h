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
#include <cstring>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "src/c_abi/content_intern_map.h"
#include "src/tracing/sdk/intern_table.h"
#include "src/tracing/sdk/track_event_clock.h"
#include "zt/c/abi/track_event.h"
#include "zt/c/abi/track_event_hl.h"
#include "zt/base/compiler.h"
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
  // The default: ns deltas on the incremental clock (the fast path's).
  bool ns_deltas() const {
    return default_clock_id == PERFETTO_TE_TIMESTAMP_TYPE_INCREMENTAL && unit_multiplier == 1;
  }
};

// A thread's sequence for one instance (the slot's custom state): its
// settings, and the packet it keeps open for its next event.
struct TeSequence {
  TeSequenceSettings settings;
  // Begun as soon as the previous event's packet ended, so that the
  // service, which leaves a chunk's last packet out when it scrapes it (it
  // may be in progress), takes every finished event; and so that the next
  // event can write its bytes raw (TraceWriter::BeginRawPacket).
  TraceWriter::TracePacketHandle next_packet;
  // The writer's packets_dropped when the sequence last looked.
  uint64_t packets_dropped_seen = 0;
};

// Whether the 16 bytes at |name| are in one page (so reading them, past
// the name's NUL when it is shorter, reads mapped memory).
inline bool WordsReadable(const char* name) {
  return (reinterpret_cast<uintptr_t>(name) & 4095) <= 4096 - 16;
}

// Whether the name at |name| is the one |words| hold (with its NUL,
// zero-padded; |masks| tell which bytes count). Reads 16 bytes, past the
// end of a shorter name (see WordsReadable), which AddressSanitizer would
// report.
__attribute__((no_sanitize_address)) inline bool SameWords(const char* name,
                                                           const uint64_t words[2],
                                                           const uint64_t masks[2]) {
  uint64_t w0, w1;
  __builtin_memcpy(&w0, name, 8);
  __builtin_memcpy(&w1, name + 8, 8);
  return (((w0 ^ words[0]) & masks[0]) | ((w1 ^ words[1]) & masks[1])) == 0;
}

// Fills |words| and |masks| for a name of |size| bytes (without its NUL);
// false if it does not fit.
inline bool NameWords(const char* name, size_t size, uint64_t words[2], uint64_t masks[2]) {
  if (size + 1 > 2 * sizeof(uint64_t))
    return false;
  uint8_t word_bytes[16] = {};
  uint8_t mask_bytes[16] = {};
  memcpy(word_bytes, name, size);
  memset(mask_bytes, 0xff, size + 1);
  memcpy(words, word_bytes, sizeof(word_bytes));
  memcpy(masks, mask_bytes, sizeof(mask_bytes));
  return true;
}

// Names a sequence interned recently, by address, for the fast path: a hit
// still compares the bytes (a C caller may rewrite a buffer between
// events), which is cheaper than hashing them. Direct-mapped.
struct TeNameCache {
  static constexpr size_t kEntries = 64;
  static constexpr size_t kMaxName = 23;  // Longer names are not cached.
  struct Entry {
    const char* ptr = nullptr;
    uint64_t iid = 0;
    uint32_t type = 0;
    bool short_name = false;  // The name and its NUL fit |words|, readable.
    // The name's bytes with its NUL, zero-padded, and which bytes count.
    uint64_t words[2] = {};
    uint64_t masks[2] = {};
    char bytes[kMaxName + 1] = {};
  };
  static size_t Index(const char* ptr, uint32_t type) {
    const uint64_t x = (reinterpret_cast<uintptr_t>(ptr) + type) * 0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(x >> 58);
  }
  // The id of the string at |name| if the entry for it holds the same
  // bytes; 0 otherwise.
  uint64_t Find(const char* name, uint32_t type) const {
    const Entry& e = entries[Index(name, type)];
    if (e.ptr != name || e.type != type)
      return 0;
    // A short name is compared as two words when they do not cross into
    // the next page (reading past its NUL is then harmless: the page is
    // mapped; decided at Put(), a property of the address); else byte by
    // byte, up to the NUL or the first difference.
    if (e.short_name)
      return SameWords(name, e.words, e.masks) ? e.iid : 0;
    for (size_t i = 0;; i++) {
      if (name[i] != e.bytes[i])
        return 0;
      if (name[i] == '\0')
        return e.iid;
    }
  }
  void Put(const char* name, size_t size, uint32_t type, uint64_t iid) {
    if (size > kMaxName)
      return;
    Entry& e = entries[Index(name, type)];
    e = Entry();
    e.ptr = name;
    e.iid = iid;
    e.type = type;
    memcpy(e.bytes, name, size);
    e.bytes[size] = '\0';
    e.short_name = WordsReadable(name) && NameWords(name, size, e.words, e.masks);
  }
  Entry entries[kEntries];
};

// The bytes of a named event on this sequence after its timestamp
// (sequence_flags, the TrackEvent's tag and length, type, category iid,
// name iid), by (name address, category iid, type), so that the next such
// event is a copy: its name, category and their interning checked once.
// The key holds the category's iid, not its address: a category destroyed
// and another made at its address has another iid. The name's bytes are
// compared on each hit, as in TeNameCache (names of up to 15 bytes only).
// Direct-mapped.
struct TeEventCache {
  static constexpr size_t kEntries = 64;
  static constexpr size_t kBytes = 16;
  // The TrackEvent's length byte: after sequence_flags (2 bytes) and the
  // TrackEvent's tag. The event's bytes are that length and 4 more.
  static constexpr size_t kLengthOffset = 3;
  // 64 bytes: an entry is a shift away from its index.
  struct Entry {
    const char* name = nullptr;  // Null: empty.
    uint64_t key = 0;
    uint64_t words[2] = {};
    uint64_t masks[2] = {};
    uint8_t bytes[kBytes] = {};
    size_t size() const { return kLengthOffset + 1 + bytes[kLengthOffset]; }
  };
  // Categories past 2^32 made in one process are not cached.
  static bool Cacheable(const PerfettoTeCategoryImpl* cat) { return cat->cat_iid >> 32 == 0; }
  static uint64_t Key(const PerfettoTeCategoryImpl* cat, int32_t type) {
    return cat->cat_iid << 32 | static_cast<uint32_t>(type);
  }
  static size_t Index(const char* name, uint64_t key) {
    const uint64_t x = (reinterpret_cast<uintptr_t>(name) ^ key) * 0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(x >> 58);
  }
  // The entry for this event if it holds it; null otherwise. (An entry's
  // name was WordsReadable() when it was put: a property of the address.)
  const Entry* Find(const char* name, uint64_t key) const {
    const Entry& e = entries[Index(name, key)];
    if (e.name != name || e.key != key || !SameWords(name, e.words, e.masks))
      return nullptr;
    return &e;
  }
  Entry entries[kEntries];
};
static_assert(sizeof(TeEventCache::Entry) == 64, "an entry is 64 bytes");

// Per thread and instance; cleared when the service asks, or after the
// writer dropped packets (what was interned may be in them).
struct TeIncrementalState {
  bool was_cleared = true;
  uint64_t last_timestamp_ns = 0;
  // Tracks whose descriptor this sequence wrote (uuid 0 is the root and
  // has none).
  internal::InternTable seen_tracks;
  bool root_track_seen = false;       // Uuid 0, which seen_tracks cannot hold.
  uint64_t last_described_track = 0;  // One of seen_tracks (0: none).
  // That uuid as a varint, ready to copy (a uuid is up to 10 bytes).
  uint8_t last_track_varint[10] = {};
  uint8_t last_track_varint_size = 0;
  // Registered categories whose name this sequence interned: a bit per
  // cat_iid below 256, the table for the rest.
  uint64_t seen_category_bits[4] = {};
  internal::InternTable seen_categories;
  ContentInternMap iids;
  TeNameCache name_cache;
  TeEventCache event_cache;
  // Dynamic categories' answers for this instance, by encoded descriptor
  // (at most kMaxDynamicCategories kept).
  std::vector<std::pair<std::string, bool>> dynamic_categories;

  void Clear() {
    was_cleared = true;
    last_timestamp_ns = 0;
    seen_tracks = internal::InternTable();
    root_track_seen = false;
    last_described_track = 0;
    last_track_varint_size = 0;
    for (uint64_t& word : seen_category_bits)
      word = 0;
    seen_categories = internal::InternTable();
    iids.Clear();
    name_cache = TeNameCache();
    event_cache = TeEventCache();
    dynamic_categories.clear();
  }
  // True if |uuid|'s descriptor was written; records it as written.
  bool TrackSeen(uint64_t uuid) {
    if (uuid == 0) {  // The table's empty key: a flag of its own.
      const bool seen = root_track_seen;
      root_track_seen = true;
      return seen;
    }
    bool is_new;
    seen_tracks.Intern(uuid, &is_new);
    return !is_new;
  }
  bool CategorySeen(uint64_t cat_iid) const {
    if (cat_iid < 256)
      return seen_category_bits[cat_iid / 64] & (uint64_t{1} << (cat_iid % 64));
    return seen_categories.Contains(cat_iid);
  }
  void SetCategorySeen(uint64_t cat_iid) {
    if (cat_iid < 256) {
      seen_category_bits[cat_iid / 64] |= uint64_t{1} << (cat_iid % 64);
      return;
    }
    bool is_new;
    seen_categories.Intern(cat_iid, &is_new);
  }
  // The id of a NUL-terminated string among entries of |type|, made if
  // new (|*is_new|); remembered in the name cache.
  uint64_t InternString(uint32_t type, const char* str, bool* is_new) {
    const size_t size = strlen(str);
    const uint64_t iid = iids.FindOrAssign(static_cast<int32_t>(type), str, size, is_new);
    name_cache.Put(str, size, type, iid);
    return iid;
  }
};
constexpr size_t kMaxDynamicCategories = 20;

// TracePacket.sequence_flags.
constexpr uint32_t kClearedFlag = 1;     // SEQ_INCREMENTAL_STATE_CLEARED
constexpr uint32_t kNeedsStateFlag = 2;  // SEQ_NEEDS_INCREMENTAL_STATE

// The "track_event" data source's instance slots. Trivially destructible.
extern internal::DataSourceStaticState g_te_state;

// One instance this thread writes into, ready: its writer, sequence and
// incremental state.
struct TeSlot {
  uint32_t index = internal::kMaxDataSourceInstances;
  internal::DataSourceInstanceThreadLocalState* tls = nullptr;
  TeSequence* seq = nullptr;
  TeIncrementalState* incr = nullptr;
  TraceWriter* writer() const { return tls->trace_writer.get(); }
};

// This thread's track event state: its slots, whether it is inside a
// trace point (a nested one, from a callback or a signal handler, is
// ignored), the hot path's slot, the clock's anchor. One thread_local, so
// that a trace point looks it up once.
struct TeThread {
  internal::DataSourceThreadLocalState* slots = nullptr;
  bool in_trace_point = false;
  // The hot path's slot (track_event_hl.cc): the one last written for a
  // category on in one instance (|hot_mask|), kept while that instance's
  // epoch (bumped at its setup, start, stop and clears) stays what it was
  // before the slot was prepared, and only while the slot's sequence can
  // take raw events (incremental state written, nanosecond deltas on the
  // incremental clock). Drops and a chunk without room need no check of
  // their own: the writer then refuses raw packets. None: |hot_mask| 0
  // and an epoch no slot has. Reset with ResetHot() before anything that
  // may change the slot's writer or sequence (the general path, the
  // low-level path).
  uint32_t hot_mask = 0;
  const std::atomic<uint64_t>* hot_epoch_ptr = &g_te_state.instances[0].epoch;
  uint64_t hot_epoch = ~uint64_t{0};
  TraceWriter* hot_writer = nullptr;
  TeSlot hot_slot;
  internal::TrackEventClock::Anchor clock;
  // The plain hot path's arguments, for its way out (track_event_hl.cc).
  PerfettoTeCategoryImpl* plain_cat = nullptr;
  const char* plain_name = nullptr;
  int32_t plain_type = 0;

  void ResetHot() {
    hot_mask = 0;
    hot_epoch_ptr = &g_te_state.instances[0].epoch;
    hot_epoch = ~uint64_t{0};
  }
};
TeThread* CurrentTeThread();

// The mask of instances |cat| is on in (acquire: the slots' setup is
// visible after it).
inline uint32_t TeInstances(PerfettoTeCategoryImpl* cat) {
  return cat->instances.load(std::memory_order_acquire);
}


// A full buffer makes the thread wait briefly, then drop (counted and
// marked), as for the C++ track events.
constexpr BufferExhaustedPolicy kTePolicy = BufferExhaustedPolicy::kStallThenDrop;

// The out-of-line parts of TePrepareSlot: a slot's first use on a thread
// (or first since the slot's instance changed), a clear, drops.
void TeMakeSequence(internal::DataSourceInstanceThreadLocalState* tls, uint32_t index);
void TeMakeIncrementalState(internal::DataSourceInstanceThreadLocalState* tls,
                            uint32_t generation);
void TeRestartAfterDrops(const TeSlot& slot, uint64_t dropped);

// Fills |slot| with instance |index| for this thread: its writer, sequence
// and incremental state, made on first use (and the state cleared after a
// clear request or drops). False if the instance cannot be written into
// (stopped since the mask was read, tracing shut down).
inline bool TePrepareSlot(TeThread* thread, uint32_t index, TeSlot* slot) {
  if (ZT_UNLIKELY(!thread->slots)) {
    // New (first use, or the old state was freed as the thread ends): what
    // the hot slot points into is gone.
    thread->ResetHot();
    // Reset again when the state goes at the thread's end: the hot path
    // then needs no test of |slots| of its own.
    internal::CreateThreadLocalState(
        &thread->slots, [](void* t) { static_cast<TeThread*>(t)->ResetHot(); }, thread);
  }
  internal::DataSourceInstanceThreadLocalState& tls = thread->slots->instances[index];
  if (!internal::EnsureInstanceWriter(&g_te_state, index, &tls, kTePolicy))
    return false;
  if (ZT_UNLIKELY(!tls.custom_state))
    TeMakeSequence(&tls, index);
  const uint32_t generation =
      g_te_state.instances[index].incremental_generation.load(std::memory_order_acquire);
  if (ZT_UNLIKELY(!tls.incremental_state || tls.incremental_generation != generation))
    TeMakeIncrementalState(&tls, generation);
  slot->index = index;
  slot->tls = &tls;
  slot->seq = static_cast<TeSequence*>(tls.custom_state.get());
  slot->incr = static_cast<TeIncrementalState*>(tls.incremental_state.get());
  const uint64_t dropped = tls.trace_writer->stats().packets_dropped;
  if (ZT_UNLIKELY(dropped != slot->seq->packets_dropped_seen))
    TeRestartAfterDrops(*slot, dropped);
  return true;
}

// Fills |slot| with the first instance of |mask| at or after |from| this
// thread can write into; false if none.
inline bool TeNextSlot(TeThread* thread, uint32_t mask, uint32_t from, TeSlot* slot) {
  mask &= ~((1u << from) - 1);  // |from| <= kMaxDataSourceInstances < 32.
  for (; mask != 0; mask &= mask - 1) {
    if (TePrepareSlot(thread, static_cast<uint32_t>(__builtin_ctz(mask)), slot))
      return true;
  }
  return false;
}

// Closes the packet |slot|'s sequence keeps open (it stays empty): before
// code that writes packets on the writer itself, or flushes it.
void TeCloseOpenPacket(const TeSlot& slot);

// Writes the packets that start (or restart) the sequence's incremental
// state, if it was cleared: defaults, clocks, the thread's and process's
// track descriptors. |ts| is the first event's timestamp.
void TeResetIfCleared(const TeSlot& slot, PerfettoTeTimestamp ts);

// A packet on |slot|'s sequence (the one kept open, or a new one), with
// nothing in it yet.
TraceWriter::TracePacketHandle TeTakePacket(const TeSlot& slot);

// A packet on |slot|'s sequence at |ts| (the one kept open, or a new one),
// its timestamp written as the sequence's settings ask (a delta on the
// incremental clock when it can).
TraceWriter::TracePacketHandle TeNewPacket(const TeSlot& slot, PerfettoTeTimestamp ts,
                                           uint32_t sequence_flags);

// What one event's extras say, read in one pass.
struct TeExtras {
  const struct PerfettoTeHlExtra* track = nullptr;  // The last track extra wins.
  const struct PerfettoTeHlExtraTimestamp* timestamp = nullptr;
  const PerfettoTeCategoryDescriptor* dynamic_category = nullptr;
  bool intern = true;
  bool flush = false;
  // Only extras the fast path writes (track_event_hl.cc).
  bool fast = true;
};

// Writes an event through the general path (track_event_hl_slow.cc):
// the sequence's reset if due, descriptors of new tracks, the event with
// every extra, its new interned entries; flushes if asked; opens the
// sequence's next packet.
void TeWriteEventSlow(const TeSlot& slot, PerfettoTeTimestamp ts, PerfettoTeCategoryImpl* cat,
                      int32_t type, const char* name, struct PerfettoTeHlExtra* const* extras,
                      const TeExtras& x);

// Whether instance |index|'s config enables |desc| (cached per sequence).
bool TeDynamicCategoryEnabled(const TeSlot& slot, const PerfettoTeCategoryDescriptor& desc);

// Whether |config_raw| (an encoded TrackEventConfig) enables |desc|.
bool CategoryEnabledByConfig(const PerfettoTeCategoryDescriptor& desc,
                             const std::string& config_raw);

// Now on the boot clock, in ns: the SDK's clock (the time-stamp counter
// converted with the thread's anchor), as the C++ track events read it.
inline uint64_t TeNowNs(TeThread* thread) { return internal::TrackEventClock::NowNs(thread->clock); }

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
