// The cached bytes of the simple events (track_event_bytes.h): what the
// fast paths compose from the intern table's varints decodes to the event
// they stand for, for every varint length of the ids and categories below
// and past one byte (which the inline encoders hand to EncodeCachedEvent).

#include "src/tracing/sdk/track_event_bytes.h"

#include <gtest/gtest.h>

#include <cstring>

#include "zt/protozero/proto_decoder.h"

namespace zt {
namespace internal {
namespace {

struct Decoded {
  uint64_t sequence_flags = 0;
  uint64_t type = 0;
  uint64_t category_iid = 0;
  uint64_t name_iid = 0;
  int annotations = 0;
  uint64_t key_iid = 0;
  uint32_t value_field = 0;
  uint64_t value = 0;
  bool parsed = false;
};

// Decodes a packet's bytes after its timestamp: sequence_flags and one
// TrackEvent, every field's id checked, nothing left over.
Decoded Decode(const uint8_t* bytes, size_t size) {
  Decoded d;
  protozero::ProtoDecoder packet(bytes, size);
  for (auto f = packet.ReadField(); f; f = packet.ReadField()) {
    if (f.id() == 13) {
      d.sequence_flags = f.as_uint64();
      continue;
    }
    if (f.id() != 11)
      return d;
    protozero::ProtoDecoder event(f.as_bytes());
    for (auto e = event.ReadField(); e; e = event.ReadField()) {
      if (e.id() == 9) {
        d.type = e.as_uint64();
      } else if (e.id() == 3) {
        d.category_iid = e.as_uint64();
      } else if (e.id() == 10) {
        d.name_iid = e.as_uint64();
      } else if (e.id() == 4) {
        d.annotations++;
        protozero::ProtoDecoder annotation(e.as_bytes());
        for (auto a = annotation.ReadField(); a; a = annotation.ReadField()) {
          if (a.id() == 1) {
            d.key_iid = a.as_uint64();
          } else {
            d.value_field = a.id();
            d.value = a.as_uint64();
          }
        }
        if (annotation.bytes_left() != 0)
          return d;
      } else {
        return d;
      }
    }
    if (event.bytes_left() != 0)
      return d;
  }
  d.parsed = packet.bytes_left() == 0;
  return d;
}

constexpr uint64_t kCategoryIids[] = {1, 127, 128, 300, 16383};
constexpr uint32_t kIids[] = {1, 127, 128, 16383, 16384, kMaxIid};
constexpr EventType kTypes[] = {EventType::kSliceBegin, EventType::kInstant};

TEST(TrackEventBytesTest, PlainEntriesDecodeToTheirEvent) {
  for (uint64_t category_iid : kCategoryIids) {
    for (uint32_t name_iid : kIids) {
      for (EventType type : kTypes) {
        EventBytesCache::Entry entry;
        EncodeCachedPlainEvent(&entry, type, category_iid, EncodeIidVarint(name_iid));
        ASSERT_LE(entry.size, EventBytesCache::kPlainBytes);
        uint8_t packet[64] = {};
        const uint8_t* end = WriteCachedPlainEvent(packet, entry);
        const Decoded d = Decode(packet, static_cast<size_t>(end - packet));
        ASSERT_TRUE(d.parsed) << category_iid << " " << name_iid;
        EXPECT_EQ(d.sequence_flags, 2u);
        EXPECT_EQ(d.type, static_cast<uint64_t>(type));
        EXPECT_EQ(d.category_iid, category_iid);
        EXPECT_EQ(d.name_iid, name_iid);
        EXPECT_EQ(d.annotations, 0);
      }
    }
  }
}

TEST(TrackEventBytesTest, IntAnnotationEntriesDecodeToTheirEvent) {
  constexpr uint64_t kValues[] = {0, 1, 127, 128, 1ull << 40, ~uint64_t{0}};
  for (EventBytesCache::Form form :
       {EventBytesCache::kIntAnnotation, EventBytesCache::kUintAnnotation}) {
    for (uint64_t category_iid : kCategoryIids) {
      for (uint32_t name_iid : kIids) {
        for (uint32_t key_iid : kIids) {
          for (uint64_t value : kValues) {
            EventBytesCache::Entry entry;
            EncodeCachedIntAnnotationEvent(&entry, form, EventType::kInstant, category_iid,
                                           EncodeIidVarint(name_iid), EncodeIidVarint(key_iid));
            uint8_t packet[96] = {};
            const uint8_t* end = WriteCachedVarIntEvent(packet, entry, value);
            const Decoded d = Decode(packet, static_cast<size_t>(end - packet));
            ASSERT_TRUE(d.parsed) << category_iid << " " << name_iid << " " << key_iid;
            EXPECT_EQ(d.type, static_cast<uint64_t>(EventType::kInstant));
            EXPECT_EQ(d.category_iid, category_iid);
            EXPECT_EQ(d.name_iid, name_iid);
            EXPECT_EQ(d.annotations, 1);
            EXPECT_EQ(d.key_iid, key_iid);
            // int_value (4), uint_value (3).
            EXPECT_EQ(d.value_field, form == EventBytesCache::kIntAnnotation ? 4u : 3u);
            EXPECT_EQ(d.value, value);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace internal
}  // namespace zt
