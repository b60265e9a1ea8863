#include "src/processor/two_thread_pass.h"

#include <cstring>
#include <thread>
#include <unordered_map>
#include <vector>

#include "src/processor/batch_channel.h"
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

ZT_ALWAYS_INLINE inline uint8_t* PutUnit(uint8_t* p, uint64_t a, uint64_t b) {
  const Unit unit{a, b};
  memcpy(p, &unit, sizeof(unit));
  return p + sizeof(unit);
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

}  // namespace

PassTwoCounts ParseOnTwoThreads(const uint8_t* base, const ProtoTraceReader& reader,
                                PacketSorter* sorter, TrackTracker* tracks,
                                TrackEventParser* parser,
                                const std::function<void(uint64_t, uint64_t)>& release_input) {
  BatchChannel channel;
  std::thread merger([&] {
    SlotNumbering slots;
    sorter->Drain(
        [&](int64_t ts, uint64_t offset, uint64_t event_size, uint32_t generation,
            uint64_t hint) {
          uint8_t* p = channel.Reserve(2 * sizeof(Unit));
          TrackEventParser::SimpleEvent simple;
          const InternedGeneration& interned = reader.generation(generation);
          // The hint (if pass 1 made one) spares reading the event again.
          if (ZT_LIKELY(hint != 0 ? TrackEventParser::DecodeSimpleFromHint(interned, hint, &simple)
                                  : TrackEventParser::DecodeSimple(
                                        interned,
                                        protozero::ConstBytes{base + offset,
                                                              static_cast<size_t>(event_size)},
                                        &simple)) &&
              ZT_LIKELY(simple.name >> kIdBits == 0 && simple.category >> kIdBits == 0)) {
            bool is_new;
            const uint32_t slot = slots.SlotOf(simple.track_uuid, &is_new);
            if (ZT_LIKELY(slot >> kSlotBits == 0)) {
              if (ZT_UNLIKELY(is_new))
                p = PutUnit(p, simple.track_uuid, kRecordSlot | uint64_t{slot} << 2);
              p = PutUnit(p, static_cast<uint64_t>(ts),
                          kRecordSimple | uint64_t{simple.type} << 2 | uint64_t{slot} << 4 |
                              uint64_t{simple.name} << (4 + kSlotBits) |
                              uint64_t{simple.category} << (4 + kSlotBits + kIdBits));
              channel.Commit(p);
              return;
            }
          }
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
