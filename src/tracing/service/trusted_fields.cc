#include "src/tracing/service/trusted_fields.h"

#include "zt/protozero/proto_decoder.h"
#include "zt/protozero/proto_utils.h"

namespace zt {

namespace {

// TracePacket fields (zt/trace/trace_packet.proto).
constexpr uint32_t kTrustedUid = 3;
constexpr uint32_t kTrustedSequenceId = 10;
constexpr uint32_t kPreviousPacketDropped = 42;
constexpr uint32_t kTrustedPid = 79;

// What only the service writes into a trace: trace_config, trace_stats,
// synchronization_marker, compressed_packets, service_event, machine_id,
// trace_provenance, protovms, zstd_compressed_packets.
bool IsServiceOnly(uint32_t id) {
  switch (id) {
    case 33:
    case 35:
    case 36:
    case 50:
    case 69:
    case 98:
    case 124:
    case 125:
    case 133:
      return true;
    default:
      return false;
  }
}

uint8_t* WriteVarIntField(uint32_t id, uint64_t value, uint8_t* p) {
  namespace pu = protozero::proto_utils;
  p = pu::WriteVarInt(pu::MakeTagVarInt(id), p);
  return pu::WriteVarInt(value, p);
}

}  // namespace

bool PacketStamper::Plan(const uint8_t* packet, size_t size,
                         const TrustedPacketFields& fields) {
  packet_ = packet;
  runs_.clear();
  stamped_size_ = 0;
  protozero::ProtoDecoder decoder(packet, size);
  uint64_t producer_causes = 0;  // The last value wins, as for readers.
  for (;;) {
    const size_t start = decoder.read_offset();
    const protozero::Field field = decoder.ReadField();
    if (!field.valid())
      break;
    const uint32_t id = field.id();
    if (id == kTrustedUid || id == kTrustedSequenceId || id == kTrustedPid)
      continue;  // Forged (or stale): the service's values follow.
    if (IsServiceOnly(id))
      return false;
    if (id == kPreviousPacketDropped)
      producer_causes = field.as_uint64();
    const size_t end = decoder.read_offset();
    if (!runs_.empty() && runs_.back().end == start)
      runs_.back().end = end;  // Usually one run: the whole packet.
    else
      runs_.push_back({start, end});
    stamped_size_ += end - start;
  }
  if (decoder.parse_error())
    return false;
  // int32 fields are sign-extended to 64 bits on the wire, as protobuf does.
  uint8_t* p = trailer_;
  if (fields.uid >= 0)
    p = WriteVarIntField(kTrustedUid, static_cast<uint64_t>(fields.uid), p);
  if (fields.sequence_id != 0)
    p = WriteVarIntField(kTrustedSequenceId, fields.sequence_id, p);
  if (fields.pid >= 0)
    p = WriteVarIntField(kTrustedPid, static_cast<uint64_t>(fields.pid), p);
  // Both sides' causes in the value readers take (the last one).
  if (fields.previous_packet_dropped != 0) {
    p = WriteVarIntField(kPreviousPacketDropped,
                         (producer_causes & 0xFFFFFFFFu) | fields.previous_packet_dropped, p);
  }
  trailer_size_ = static_cast<size_t>(p - trailer_);
  stamped_size_ += trailer_size_;
  return true;
}

void PacketStamper::Append(std::vector<uint8_t>* out) const {
  for (const Run& r : runs_)
    out->insert(out->end(), packet_ + r.begin, packet_ + r.end);
  out->insert(out->end(), trailer_, trailer_ + trailer_size_);
}

void PacketStamper::AppendFramed(std::vector<uint8_t>* out) const {
  namespace pu = protozero::proto_utils;
  uint8_t header[pu::kMaxSimpleFieldEncodedSize];
  uint8_t* p = pu::WriteVarInt(pu::MakeTagLengthDelimited(1), header);
  p = pu::WriteVarInt(stamped_size_, p);
  out->insert(out->end(), header, p);
  Append(out);
}

bool StampTrustedFields(const uint8_t* packet, size_t size,
                        const TrustedPacketFields& fields,
                        std::vector<uint8_t>* out) {
  PacketStamper stamper;
  if (!stamper.Plan(packet, size, fields))
    return false;
  out->clear();
  out->reserve(stamper.stamped_size());
  stamper.Append(out);
  return true;
}

}  // namespace zt
