// The fields of a TracePacket that only the service may write: who produced
// it (uid, pid) and which writer sequence it belongs to. A producer can put
// anything in its packets, so before handing a packet to a consumer the
// service removes these fields wherever the producer wrote them and appends
// its own values, taken from the producer's connection.

#ifndef ZT_SRC_TRACING_SERVICE_TRUSTED_FIELDS_H_
#define ZT_SRC_TRACING_SERVICE_TRUSTED_FIELDS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace zt {

struct TrustedPacketFields {
  int32_t uid = -1;  // Not written when negative (unknown).
  int32_t pid = -1;  // Not written when negative (unknown).
  uint32_t sequence_id = 0;  // Not written when 0.
  bool previous_packet_dropped = false;  // Written only when true.
};

// Writes to |out| the top-level fields of |packet| except trusted_uid (3),
// trusted_packet_sequence_id (10) and trusted_pid (79), followed by the
// values of |fields|. Returns false, leaving |out| unspecified, when
// |packet| does not parse as a protobuf message. |*producer_marked_loss|
// (if given) tells whether the producer itself wrote previous_packet_dropped
// (its writer lost packets before this one). O(size).
bool StampTrustedFields(const uint8_t* packet, size_t size,
                        const TrustedPacketFields& fields,
                        std::vector<uint8_t>* out,
                        bool* producer_marked_loss = nullptr);

}  // namespace zt

#endif  // ZT_SRC_TRACING_SERVICE_TRUSTED_FIELDS_H_
