// The first stage of the trace processor: splits an encoded protobuf
// `Trace` (a sequence of `repeated TracePacket packet = 1` records, the
// format of every file zerotrace and upstream Perfetto write) into one view
// per packet, without copying a byte and without decoding the packets.
//
//   zt::processor::TraceTokenizer tokenizer(data, size);
//   zt::processor::PacketView packet;
//   while (tokenizer.Next(&packet))
//     Use(packet.data, packet.size);  // The bytes of one TracePacket.
//   if (tokenizer.stats().damage != zt::processor::TraceDamage::kNone)
//     Warn(zt::processor::DescribeDamage(tokenizer.stats()));
//
// Any bytes are accepted. Well-formed records of fields other than `packet`
// are skipped and counted (a `Trace` declares no other field, but a reader
// must not fail on what a newer writer adds). At the first record that is
// not well-formed protobuf (a bad tag, a malformed varint, a record
// running past the end) the tokenizer stops: every packet before it
// has been returned, and stats() says where the damage starts, why, and how
// many bytes were left unread. It never reads outside [data, data + size)
// and never loops: each call to Next() consumes at least one byte or ends.
// It does not try to find packets after the damage: a guess there could
// invent packets out of payload bytes.
//
// Cost: O(record header) per record, no allocation; the packet bytes are
// not touched (a mapped file's pages are faulted in only by the consumer of
// the views, apart from the headers).
//
// Thread-compatible: one tokenizer per thread; several may share one
// read-only buffer.

#ifndef ZT_PROCESSOR_TRACE_TOKENIZER_H_
#define ZT_PROCESSOR_TRACE_TOKENIZER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace zt {
namespace processor {

// One TracePacket's encoded bytes inside the tokenized buffer. Valid while
// that buffer is (for a MappedTraceFile: while the file object lives).
struct PacketView {
  const uint8_t* data = nullptr;
  size_t size = 0;  // May be 0: an empty TracePacket is valid protobuf.
  // Where `data` starts, in bytes from the start of the buffer (so that
  // later stages can say where in the file a bad packet is).
  uint64_t offset = 0;
};

// Why the tokenizer stopped before the end of its input.
enum class TraceDamage : uint8_t {
  kNone = 0,
  // The record's key is not a protobuf key: a varint over 10 bytes, field
  // number 0 or above 2^29 - 1, or wire type 3, 4, 6 or 7.
  kBadTag,
  // A record's length, or an unknown field's varint value, is a varint
  // over 10 bytes.
  kBadVarint,
  // The input ends inside a record's key, length, or an unknown field's
  // varint or fixed-size value.
  kTruncated,
  // A record's length (a packet's or an unknown field's) reaches past the
  // end of the input: typically a file cut while it was being written.
  kLengthPastEnd,
};

struct TokenizerStats {
  uint64_t packets = 0;
  uint64_t packet_bytes = 0;  // Payload bytes of those packets.
  // Well-formed records of other fields (or of field 1 with a wire type
  // other than length-delimited), skipped.
  uint64_t unknown_fields = 0;
  uint64_t unknown_field_bytes = 0;  // Including their keys.
  // The first damage, if any: the offset of the record that could not be
  // read, and the bytes from there to the end, none of which was returned.
  TraceDamage damage = TraceDamage::kNone;
  uint64_t damage_offset = 0;
  uint64_t bytes_skipped = 0;
};

// A short name for `damage` ("bad tag", "length past the end", ...).
const char* TraceDamageName(TraceDamage damage);

// One line for a user, e.g. "length past the end at byte 1234: 56 bytes
// skipped (after 7 packets)", or "no damage".
std::string DescribeDamage(const TokenizerStats& stats);

class TraceTokenizer {
 public:
  // Does not copy or own [data, data + size), which must outlive the
  // tokenizer and the views it returns. `data` may be null if size is 0.
  TraceTokenizer(const void* data, size_t size);

  TraceTokenizer(const TraceTokenizer&) = delete;
  TraceTokenizer& operator=(const TraceTokenizer&) = delete;

  // Sets *packet to the next packet and returns true; returns false at the
  // end of the input or at the first damage (then, and on every later call).
  // Inline for the common record (key 0x0A, a length of one or two bytes
  // that fits); everything else goes through NextSlow().
  bool Next(PacketView* packet) {
    const uint8_t* p = read_;
    if (end_ - p >= 3 && p[0] == 0x0A && !stopped_) {
      uint64_t length = p[1];
      const uint8_t* payload = p + 2;
      if (length >= 0x80) {
        if (p[2] >= 0x80)
          return NextSlow(packet);
        length = (length & 0x7f) | static_cast<uint64_t>(p[2]) << 7;
        payload = p + 3;
      }
      if (length <= static_cast<uint64_t>(end_ - payload)) {
        read_ = payload + length;
        packet->data = payload;
        packet->size = static_cast<size_t>(length);
        packet->offset = static_cast<uint64_t>(payload - begin_);
        stats_.packets++;
        stats_.packet_bytes += length;
        return true;
      }
    }
    return NextSlow(packet);
  }

  // Bytes consumed so far (the offset of the next record); equals size()
  // once Next() has returned false on an undamaged input.
  uint64_t position() const { return static_cast<uint64_t>(read_ - begin_); }
  uint64_t size() const { return static_cast<uint64_t>(end_ - begin_); }
  const TokenizerStats& stats() const { return stats_; }

 private:
  bool NextSlow(PacketView* packet);
  void StopAt(const uint8_t* record, TraceDamage damage);

  const uint8_t* const begin_;
  const uint8_t* const end_;
  const uint8_t* read_;
  bool stopped_ = false;
  TokenizerStats stats_;
};

struct TokenizeOptions {
  // Called with (bytes done, total bytes) about every
  // `progress_interval_bytes`, and once at the end with done == the bytes
  // consumed (total on an undamaged input). May be empty.
  std::function<void(uint64_t done, uint64_t total)> progress;
  uint64_t progress_interval_bytes = 64u << 20;
};

// Runs a TraceTokenizer over the whole buffer, calling on_packet for every
// packet in order, and returns its stats. For callers that want a progress
// report on long inputs; the loop above is the same thing without it.
TokenizerStats TokenizeTrace(
    const void* data, size_t size,
    const std::function<void(const PacketView&)>& on_packet,
    const TokenizeOptions& options = TokenizeOptions());

}  // namespace processor
}  // namespace zt

#endif  // ZT_PROCESSOR_TRACE_TOKENIZER_H_
