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

void AppendVarIntField(uint32_t id, uint64_t value, std::vector<uint8_t>* out) {
  namespace pu = protozero::proto_utils;
  uint8_t buf[pu::kMaxSimpleFieldEncodedSize];
  uint8_t* p = pu::WriteVarInt(pu::MakeTagVarInt(id), buf);
  p = pu::WriteVarInt(value, p);
  out->insert(out->end(), buf, p);
}

}  // namespace

bool StampTrustedFields(const uint8_t* packet, size_t size,
                        const TrustedPacketFields& fields,
                        std::vector<uint8_t>* out) {
  out->clear();
  out->reserve(size + 24);
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
    out->insert(out->end(), packet + start, packet + decoder.read_offset());
  }
  if (decoder.parse_error())
    return false;
  // int32 fields are sign-extended to 64 bits on the wire, as protobuf does.
  if (fields.uid >= 0)
    AppendVarIntField(kTrustedUid, static_cast<uint64_t>(fields.uid), out);
  if (fields.sequence_id != 0)
    AppendVarIntField(kTrustedSequenceId, fields.sequence_id, out);
  if (fields.pid >= 0)
    AppendVarIntField(kTrustedPid, static_cast<uint64_t>(fields.pid), out);
  // Both sides' causes in the value readers take (the last one).
  if (fields.previous_packet_dropped != 0) {
    AppendVarIntField(kPreviousPacketDropped,
                      (producer_causes & 0xFFFFFFFFu) | fields.previous_packet_dropped, out);
  }
  return true;
}

}  // namespace zt
