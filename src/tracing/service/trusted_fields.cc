#include "src/tracing/service/trusted_fields.h"

#include "zt/protozero/proto_decoder.h"
#include "zt/protozero/proto_utils.h"

namespace zt {

namespace {

constexpr uint32_t kTrustedUid = 3;
constexpr uint32_t kTrustedSequenceId = 10;
constexpr uint32_t kPreviousPacketDropped = 42;
constexpr uint32_t kTrustedPid = 79;

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
                        std::vector<uint8_t>* out,
                        bool* producer_marked_loss) {
  out->clear();
  out->reserve(size + 24);
  protozero::ProtoDecoder decoder(packet, size);
  bool has_dropped_mark = false;
  for (;;) {
    const size_t start = decoder.read_offset();
    const protozero::Field field = decoder.ReadField();
    if (!field.valid())
      break;
    const uint32_t id = field.id();
    if (id == kTrustedUid || id == kTrustedSequenceId || id == kTrustedPid)
      continue;  // Forged (or stale): the service's values follow.
    has_dropped_mark |= id == kPreviousPacketDropped && field.as_uint64() != 0;
    out->insert(out->end(), packet + start, packet + decoder.read_offset());
  }
  if (decoder.parse_error())
    return false;
  if (producer_marked_loss)
    *producer_marked_loss = has_dropped_mark;
  // int32 fields are sign-extended to 64 bits on the wire, as protobuf does.
  if (fields.uid >= 0)
    AppendVarIntField(kTrustedUid, static_cast<uint64_t>(fields.uid), out);
  if (fields.sequence_id != 0)
    AppendVarIntField(kTrustedSequenceId, fields.sequence_id, out);
  if (fields.previous_packet_dropped && !has_dropped_mark)
    AppendVarIntField(kPreviousPacketDropped, 1, out);
  if (fields.pid >= 0)
    AppendVarIntField(kTrustedPid, static_cast<uint64_t>(fields.pid), out);
  return true;
}

}  // namespace zt
