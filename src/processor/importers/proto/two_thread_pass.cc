#include "src/processor/importers/proto/two_thread_pass.h"

#include <algorithm>
#include <cstring>
#include <thread>
#include <unordered_map>
#include <vector>

#include "src/processor/importers/proto/batch_channel.h"
#include "src/processor/importers/proto/slice_column_pager.h"
#include "zt/base/compiler.h"
#include "zt/base/logging.h"

namespace zt {
namespace processor {
namespace {

// Records, in units of 16 bytes: a word of time (or of another value) and
// a word whose low two bits are the kind. Fixed units cost a few
// instructions to write and read, which is what the two threads spend
// their time on; varints measured no better.
//   simple: ts | kind, type (2 bits), slot (16), name (22), category (22)
//   full:   ts | kind, generation; then a unit: input offset | size
//   input:  offset | kind, length        (a region the merge is done with)
//   slot:   track uuid | kind, slot      (before the slot's first use)
// A simple event whose slot, name or category does not fit goes as full.
enum RecordKind : uint64_t { kRecordSimple = 0, kRecordFull = 1, kRecordInput = 2, kRecordSlot = 3 };
struct Unit {
  uint64_t a;
  uint64_t b;
};
constexpr uint64_t kSlotBits = 16;
constexpr uint64_t kIdBits = 22;
constexpr uint64_t kSliceEndType = 2;  // TrackEvent.Type.

// Word by word: a Unit built on the stack and copied whole would be read
// back wider than written (no store forwarding: a stall per record).
ZT_ALWAYS_INLINE inline uint8_t* PutUnit(uint8_t* p, uint64_t a, uint64_t b) {
  memcpy(p, &a, sizeof(a));
  memcpy(p + sizeof(a), &b, sizeof(b));
  return p + sizeof(Unit);
}

// The merging thread's dense numbering of track uuids, so that a record
// carries a small slot rather than 8 bytes of uuid. A direct-mapped cache
// in front of the map: a few tracks interleave at a time.
class SlotNumbering {
 public:
  // The slot of `uuid`; *is_new when this is its first use.
  uint32_t SlotOf(uint64_t uuid, bool* is_new) {
    Entry& entry = cache_[(uuid * 0x9E3779B97F4A7C15ull) >> (64 - kCacheBits)];
    *is_new = false;
    if (ZT_LIKELY(entry.valid && entry.uuid == uuid))
      return entry.slot;
    auto inserted = slots_.emplace(uuid, static_cast<uint32_t>(slots_.size()));
    *is_new = inserted.second;
    entry = Entry{uuid, inserted.first->second, true};
    return entry.slot;
  }

 private:
  static constexpr unsigned kCacheBits = 6;
  struct Entry {
    uint64_t uuid = 0;
    uint32_t slot = 0;
    bool valid = false;
  };
  Entry cache_[1u << kCacheBits];
  std::unordered_map<uint64_t, uint32_t> slots_;
};

// The size of a queued TrackEvent, from the length varint that precedes its
// bytes (pass 1 read it there): the last byte of a varint is the only one
// below 0x80, and the byte before the varint is the field's key, which is
// below 0x80 too. Rare: for a hinted event whose hint did not decode (an
// iid its generation lacks).
uint64_t SizeBeforeEvent(const uint8_t* base, uint64_t offset) {
  const uint8_t* const end = base + offset;
  ZT_CHECK(offset >= 2 && end[-1] < 0x80);
  const uint8_t* begin = end - 1;
  while (begin > base && begin[-1] >= 0x80 && end - begin < 10)
    begin--;
  uint64_t size = 0;
  for (const uint8_t* b = begin; b < end; b++)
    size |= uint64_t{*b & 0x7fu} << (7 * (b - begin));
  return size;
}

}  // namespace

PassTwoCounts ParseOnTwoThreads(const uint8_t* base, const ProtoTraceReader& reader,
                                PacketSorter* sorter, TrackTracker* tracks,
                                TrackEventParser* parser, SliceTable* slice_table,
                                const std::function<void(uint64_t, uint64_t)>& release_input) {
  const uint64_t slice_table_rows = slice_table->size();
  BatchChannel channel;
  // Pass 1 on two threads filled it with hints: the merge needs them.
  ZT_CHECK(sorter->with_hints());
  SliceColumnPager pager(slice_table);
  sorter->GiveConsumedBlocksTo([&pager](void* pages, size_t bytes) { pager.Give(pages, bytes); });
  std::thread merger([&] {
    SlotNumbering slots;
    uint64_t rows_sent = slice_table_rows;
    sorter->Drain(
        // Inlined into the merge loop: a call per event spilled and
        // reloaded most of the merge's registers.
        [&](int64_t ts, uint64_t offset, uint64_t event_size, uint32_t generation,
            uint64_t hint) ZT_ALWAYS_INLINE {
          uint8_t* p = channel.Reserve(2 * sizeof(Unit));
          TrackEventParser::SimpleEvent simple;
          const InternedGeneration& interned = reader.generation(generation);
          // An event without a hint goes whole to ParseFully(), which
          // models a simple event the same way: this thread never reads the
          // input.
          if (ZT_LIKELY(hint != 0 &&
                        TrackEventParser::DecodeSimpleFromHint(interned, hint, &simple)) &&
              ZT_LIKELY(simple.name >> kIdBits == 0 && simple.category >> kIdBits == 0)) {
            bool is_new;
            const uint32_t slot = slots.SlotOf(simple.track_uuid, &is_new);
            if (ZT_LIKELY(slot >> kSlotBits == 0)) {
              if (ZT_UNLIKELY(is_new))
                p = PutUnit(p, simple.track_uuid, kRecordSlot | uint64_t{slot} << 2);
              if (simple.type != kSliceEndType)
                rows_sent++;
              pager.RowsComing(rows_sent);
              p = PutUnit(p, static_cast<uint64_t>(ts),
                          kRecordSimple | uint64_t{simple.type} << 2 | uint64_t{slot} << 4 |
                              uint64_t{simple.name} << (4 + kSlotBits) |
                              uint64_t{simple.category} << (4 + kSlotBits + kIdBits));
              channel.Commit(p);
              return;
            }
          }
          pager.RowsComing(++rows_sent);  // At most one row.
          if (hint != 0)  // The sorter kept the hint, not the size.
            event_size = SizeBeforeEvent(base, offset);
          p = PutUnit(p, static_cast<uint64_t>(ts), kRecordFull | uint64_t{generation} << 2);
          p = PutUnit(p, offset, event_size);
          channel.Commit(p);
        },
        [&](uint64_t offset, uint64_t length) {
          uint8_t* p = channel.Reserve(sizeof(Unit));
          channel.Commit(PutUnit(p, offset, kRecordInput | length << 2));
        });
    channel.Close();
  });

  PassTwoCounts counts;
  int64_t ts = 0;
  std::vector<uint32_t> slot_tracks;
  channel.ConsumeAll([&](const uint8_t* p, const uint8_t* end) {
    ZT_CHECK((end - p) % sizeof(Unit) == 0);
    while (p < end) {
      Unit unit;
      memcpy(&unit, p, sizeof(unit));
      p += sizeof(unit);
      switch (unit.b & 3) {
        case kRecordSimple: {
          ts = static_cast<int64_t>(unit.a);
          const uint64_t slot = (unit.b >> 4) & ((1u << kSlotBits) - 1);
          ZT_CHECK(slot < slot_tracks.size());
          TrackEventParser::SimpleEvent simple;
          simple.type = static_cast<uint8_t>((unit.b >> 2) & 3);
          simple.name = static_cast<StringId>((unit.b >> (4 + kSlotBits)) & ((1u << kIdBits) - 1));
          simple.category = static_cast<StringId>(unit.b >> (4 + kSlotBits + kIdBits));
          simple.track_uuid = 0;  // Resolved: slot_tracks.
          if (ZT_UNLIKELY(counts.events == 0))
            counts.first_ts = ts;
          counts.events++;
          parser->ApplySimpleOnTrack(ts, slot_tracks[slot], simple);
          break;
        }
        case kRecordFull: {
          ts = static_cast<int64_t>(unit.a);
          const uint32_t generation = static_cast<uint32_t>(unit.b >> 2);
          ZT_CHECK(p < end);  // Its second unit is in the same batch.
          Unit where;
          memcpy(&where, p, sizeof(where));
          p += sizeof(where);
          if (ZT_UNLIKELY(counts.events == 0))
            counts.first_ts = ts;
          counts.events++;
          parser->ParseFully(ts, reader.generation(generation),
                             protozero::ConstBytes{base + where.a, static_cast<size_t>(where.b)});
          break;
        }
        case kRecordInput:
          // Every event there is applied (records come in order).
          if (release_input)
            release_input(unit.a, unit.b >> 2);
          break;
        case kRecordSlot: {
          const uint64_t slot = unit.b >> 2;
          ZT_CHECK(slot == slot_tracks.size());
          // Made here, right before its first event: tracks are made in the
          // same order as by the one-thread path.
          slot_tracks.push_back(tracks->TrackForUuid(unit.a));
          break;
        }
      }
    }
  });
  merger.join();
  counts.last_ts = ts;
  return counts;
}

}  // namespace processor
}  // namespace zt
