#include "src/processor/two_thread_pass.h"

#include <thread>
#include <unordered_map>
#include <vector>

#include "src/processor/batch_channel.h"
#include "zt/base/compiler.h"
#include "zt/base/logging.h"

namespace zt {
namespace processor {
namespace {

// Records, each a tag byte then varints. The tag's low two bits are the
// kind; a simple event keeps its type in the next two.
//   simple: tag, ts delta (zigzag), slot, [name, category unless an end]
//   full:   tag, ts delta (zigzag), input offset, size, generation
//   input:  tag, offset, length          (a region the merge is done with)
//   slot:   tag, slot, track uuid        (before the slot's first use)
enum RecordKind : uint8_t { kRecordSimple = 0, kRecordFull = 1, kRecordInput = 2, kRecordSlot = 3 };
constexpr size_t kMaxRecordBytes = 1 + 4 * 10;
constexpr uint8_t kSliceEndType = 2;  // TrackEvent.Type.

inline uint8_t* PutVarint(uint64_t value, uint8_t* p) {
  while (value >= 0x80) {
    *p++ = static_cast<uint8_t>(value | 0x80);
    value >>= 7;
  }
  *p++ = static_cast<uint8_t>(value);
  return p;
}

// Records are written by this file only: a malformed one is a bug, and
// reading on would apply garbage, so it stops the process.
inline uint64_t GetVarint(const uint8_t** p, const uint8_t* end) {
  uint64_t value = 0;
  for (unsigned shift = 0;; shift += 7) {
    ZT_CHECK(*p < end && shift < 64);
    const uint8_t byte = *(*p)++;
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80))
      return value;
  }
}

uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t UnZigZag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
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
    int64_t previous_ts = 0;
    sorter->Drain(
        [&](int64_t ts, uint64_t offset, uint64_t event_size, uint32_t generation) {
          uint8_t* p = channel.Reserve(2 * kMaxRecordBytes);
          TrackEventParser::SimpleEvent simple;
          if (ZT_LIKELY(TrackEventParser::DecodeSimple(
                  reader.generation(generation),
                  protozero::ConstBytes{base + offset, static_cast<size_t>(event_size)},
                  &simple))) {
            bool is_new;
            const uint32_t slot = slots.SlotOf(simple.track_uuid, &is_new);
            if (ZT_UNLIKELY(is_new)) {
              *p++ = kRecordSlot;
              p = PutVarint(slot, p);
              p = PutVarint(simple.track_uuid, p);
            }
            *p++ = static_cast<uint8_t>(kRecordSimple | simple.type << 2);
            p = PutVarint(ZigZag(ts - previous_ts), p);
            p = PutVarint(slot, p);
            if (simple.type != kSliceEndType) {
              p = PutVarint(simple.name, p);
              p = PutVarint(simple.category, p);
            }
          } else {
            *p++ = kRecordFull;
            p = PutVarint(ZigZag(ts - previous_ts), p);
            p = PutVarint(offset, p);
            p = PutVarint(event_size, p);
            p = PutVarint(generation, p);
          }
          previous_ts = ts;
          channel.Commit(p);
        },
        [&](uint64_t offset, uint64_t length) {
          uint8_t* p = channel.Reserve(kMaxRecordBytes);
          *p++ = kRecordInput;
          p = PutVarint(offset, p);
          p = PutVarint(length, p);
          channel.Commit(p);
        });
    channel.Close();
  });

  PassTwoCounts counts;
  int64_t ts = 0;
  std::vector<uint32_t> slot_tracks;
  channel.ConsumeAll([&](const uint8_t* p, const uint8_t* end) {
    while (p < end) {
      const uint8_t tag = *p++;
      switch (tag & 3) {
        case kRecordSimple: {
          ts += UnZigZag(GetVarint(&p, end));
          const uint64_t slot = GetVarint(&p, end);
          ZT_CHECK(slot < slot_tracks.size());
          TrackEventParser::SimpleEvent simple;
          simple.type = static_cast<uint8_t>(tag >> 2);
          simple.name = kNullStringId;
          simple.category = kNullStringId;
          if (simple.type != kSliceEndType) {
            simple.name = static_cast<StringId>(GetVarint(&p, end));
            simple.category = static_cast<StringId>(GetVarint(&p, end));
          }
          simple.track_uuid = 0;  // Resolved: slot_tracks.
          if (ZT_UNLIKELY(counts.events == 0))
            counts.first_ts = ts;
          counts.events++;
          parser->ApplySimpleOnTrack(ts, slot_tracks[slot], simple);
          break;
        }
        case kRecordFull: {
          ts += UnZigZag(GetVarint(&p, end));
          const uint64_t offset = GetVarint(&p, end);
          const uint64_t size = GetVarint(&p, end);
          const uint64_t generation = GetVarint(&p, end);
          if (ZT_UNLIKELY(counts.events == 0))
            counts.first_ts = ts;
          counts.events++;
          parser->ParseFully(ts, reader.generation(static_cast<uint32_t>(generation)),
                             protozero::ConstBytes{base + offset, static_cast<size_t>(size)});
          break;
        }
        case kRecordInput: {
          const uint64_t offset = GetVarint(&p, end);
          const uint64_t length = GetVarint(&p, end);
          // Every event there is applied (records come in order).
          if (release_input)
            release_input(offset, length);
          break;
        }
        case kRecordSlot: {
          const uint64_t slot = GetVarint(&p, end);
          const uint64_t uuid = GetVarint(&p, end);
          ZT_CHECK(slot == slot_tracks.size());
          // Made here, right before its first event: tracks are made in the
          // same order as by the one-thread path.
          slot_tracks.push_back(tracks->TrackForUuid(uuid));
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
