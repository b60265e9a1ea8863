#include "zt/processor/trace_tokenizer.h"

#include <cinttypes>
#include <cstdio>

namespace zt {
namespace processor {
namespace {

// Protobuf wire types (the low 3 bits of a key).
constexpr uint32_t kWireVarint = 0;
constexpr uint32_t kWireFixed64 = 1;
constexpr uint32_t kWireLengthDelimited = 2;
constexpr uint32_t kWireFixed32 = 5;

// Trace.packet: field 1, length-delimited.
constexpr uint32_t kPacketFieldNumber = 1;
constexpr uint32_t kMaxFieldNumber = (1u << 29) - 1;
constexpr size_t kMaxVarintBytes = 10;

enum class VarintStatus { kOk, kTruncated, kTooLong };

// Reads a base-128 varint at *pos, never past `end`; moves *pos past it on
// success. Bits beyond 64 in a 10th byte are dropped, as protobuf does.
VarintStatus ReadVarint(const uint8_t** pos, const uint8_t* end,
                        uint64_t* value) {
  const uint8_t* p = *pos;
  uint64_t result = 0;
  for (size_t i = 0; i < kMaxVarintBytes; i++) {
    if (p == end)
      return VarintStatus::kTruncated;
    const uint8_t byte = *p++;
    result |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      *pos = p;
      *value = result;
      return VarintStatus::kOk;
    }
  }
  return VarintStatus::kTooLong;
}

// Reads a varint at *p: kNone, or the damage it shows (a varint cut by the
// end of the input is truncation; one over 10 bytes is |too_long|).
TraceDamage ReadVarintOr(const uint8_t** p, const uint8_t* end, TraceDamage too_long,
                         uint64_t* value) {
  switch (ReadVarint(p, end, value)) {
    case VarintStatus::kOk:
      return TraceDamage::kNone;
    case VarintStatus::kTruncated:
      return TraceDamage::kTruncated;
    case VarintStatus::kTooLong:
      break;
  }
  return too_long;
}

}  // namespace

const char* TraceDamageName(TraceDamage damage) {
  switch (damage) {
    case TraceDamage::kNone:
      return "no damage";
    case TraceDamage::kBadTag:
      return "bad tag";
    case TraceDamage::kBadVarint:
      return "malformed varint";
    case TraceDamage::kTruncated:
      return "truncated record";
    case TraceDamage::kLengthPastEnd:
      return "length past the end";
  }
  return "unknown damage";
}

std::string DescribeDamage(const TokenizerStats& stats) {
  if (stats.damage == TraceDamage::kNone)
    return "no damage";
  char line[192];
  snprintf(line, sizeof(line),
           "%s at byte %" PRIu64 ": %" PRIu64 " bytes skipped (after %" PRIu64
           " packets)",
           TraceDamageName(stats.damage), stats.damage_offset,
           stats.bytes_skipped, stats.packets);
  return line;
}

TraceTokenizer::TraceTokenizer(const void* data, size_t size)
    : begin_(static_cast<const uint8_t*>(data)),
      end_(begin_ + size),
      read_(begin_) {}

void TraceTokenizer::StopAt(const uint8_t* record, TraceDamage damage) {
  stopped_ = true;
  stats_.damage = damage;
  stats_.damage_offset = static_cast<uint64_t>(record - begin_);
  stats_.bytes_skipped = static_cast<uint64_t>(end_ - record);
  // Later calls return false at once; position() stays at the damage.
  read_ = record;
}

bool TraceTokenizer::NextSlow(PacketView* packet) {
  while (!stopped_ && read_ < end_) {
    const uint8_t* const record = read_;
    const uint8_t* p = record;
    uint64_t key = 0;
    if (const TraceDamage damage = ReadVarintOr(&p, end_, TraceDamage::kBadTag, &key);
        damage != TraceDamage::kNone) {
      StopAt(record, damage);
      return false;
    }
    const uint64_t field_number = key >> 3;
    const uint32_t wire_type = static_cast<uint32_t>(key & 7);
    if (field_number == 0 || field_number > kMaxFieldNumber) {
      StopAt(record, TraceDamage::kBadTag);
      return false;
    }
    // Every branch below either stops or moves p past the record's end,
    // which is past `record`: the loop always advances.
    switch (wire_type) {
      case kWireLengthDelimited: {
        uint64_t length = 0;
        if (const TraceDamage damage =
                ReadVarintOr(&p, end_, TraceDamage::kBadVarint, &length);
            damage != TraceDamage::kNone) {
          StopAt(record, damage);
          return false;
        }
        // Compared as sizes, never as pointers: p + length could overflow.
        if (length > static_cast<uint64_t>(end_ - p)) {
          StopAt(record, TraceDamage::kLengthPastEnd);
          return false;
        }
        read_ = p + length;
        if (field_number == kPacketFieldNumber) {
          packet->data = p;
          packet->size = static_cast<size_t>(length);
          packet->offset = static_cast<uint64_t>(p - begin_);
          stats_.packets++;
          stats_.packet_bytes += length;
          return true;
        }
        break;
      }
      case kWireVarint: {
        uint64_t ignored = 0;
        if (const TraceDamage damage =
                ReadVarintOr(&p, end_, TraceDamage::kBadVarint, &ignored);
            damage != TraceDamage::kNone) {
          StopAt(record, damage);
          return false;
        }
        read_ = p;
        break;
      }
      case kWireFixed64:
      case kWireFixed32: {
        const size_t width = wire_type == kWireFixed64 ? 8 : 4;
        if (static_cast<size_t>(end_ - p) < width) {
          StopAt(record, TraceDamage::kTruncated);
          return false;
        }
        read_ = p + width;
        break;
      }
      // Groups (3, 4) are deprecated and never in a Trace; 6 and 7 are not
      // wire types.
      default:
        StopAt(record, TraceDamage::kBadTag);
        return false;
    }
    stats_.unknown_fields++;
    stats_.unknown_field_bytes += static_cast<uint64_t>(read_ - record);
  }
  return false;
}

TokenizerStats TokenizeTrace(
    const void* data, size_t size,
    const std::function<void(const PacketView&)>& on_packet,
    const TokenizeOptions& options) {
  TraceTokenizer tokenizer(data, size);
  const uint64_t interval =
      options.progress_interval_bytes > 0 ? options.progress_interval_bytes : 1;
  uint64_t next_report = interval;
  PacketView packet;
  while (tokenizer.Next(&packet)) {
    on_packet(packet);
    if (options.progress && tokenizer.position() >= next_report) {
      options.progress(tokenizer.position(), tokenizer.size());
      // One report per call even if a packet crossed several intervals.
      next_report = (tokenizer.position() / interval + 1) * interval;
    }
  }
  if (options.progress)
    options.progress(tokenizer.position(), tokenizer.size());
  return tokenizer.stats();
}

}  // namespace processor
}  // namespace zt
