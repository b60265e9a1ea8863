// The fields of a TracePacket that only the service may write. A producer
// can put anything in its packets, so before handing a packet to a
// consumer the service:
//  * removes who produced it and which writer sequence it belongs to
//    (trusted_uid, trusted_packet_sequence_id, trusted_pid) wherever the
//    producer wrote them, and appends its own values, taken from the
//    producer's connection;
//  * refuses a packet that carries what only the service writes into a
//    trace (its config, stats, synchronization marker, service events,
//    provenance, machine id, compressed packets): a producer must not be
//    able to pass its data off as the service's (upstream refuses the same);
//  * merges its own loss causes for the packet (DataLossReason bits the
//    buffer found) with the ones the producer's writer marked, into the
//    last previous_packet_dropped, which is what readers use.

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
  // The service's loss causes (TracePacket.DataLossReason bits; 0: none).
  uint32_t previous_packet_dropped = 0;
};

// Stamps packets without copying them first: Plan() checks a packet and
// works out what the stamped packet is (which byte runs of it are kept,
// and the trusted fields that follow), so that its size is known before
// anything is written; Append*() then copies the runs once, straight into
// the output. One object is reused for every packet (its run list keeps
// its capacity). The packet's bytes must stay valid from Plan() to the
// Append*() call.
class PacketStamper {
 public:
  // As StampTrustedFields (below): false when |packet| does not parse or
  // carries a field only the service writes. O(size) parse, no copy.
  bool Plan(const uint8_t* packet, size_t size, const TrustedPacketFields& fields);
  // The stamped packet's size, once planned.
  size_t stamped_size() const { return stamped_size_; }
  // Appends the stamped packet to |out|: bare, or as a Trace.packet field
  // (tag, length, bytes), as traces and read batches hold it.
  void Append(std::vector<uint8_t>* out) const;
  void AppendFramed(std::vector<uint8_t>* out) const;

 private:
  struct Run {
    size_t begin;
    size_t end;
  };
  const uint8_t* packet_ = nullptr;
  std::vector<Run> runs_;  // Kept fields, adjacent ones merged.
  uint8_t trailer_[48];    // The service's fields (4 varint fields at most).
  size_t trailer_size_ = 0;
  size_t stamped_size_ = 0;
};

// Writes to |out| the top-level fields of |packet| except trusted_uid (3),
// trusted_packet_sequence_id (10) and trusted_pid (79), followed by the
// values of |fields|, in the order upstream's service appends them (uid,
// sequence id, pid, then the loss causes: the producer's OR the service's,
// when the service has any). Returns false, leaving |out| unspecified, when
// |packet| does not parse as a protobuf message or carries a field only
// the service writes. O(size).
bool StampTrustedFields(const uint8_t* packet, size_t size,
                        const TrustedPacketFields& fields,
                        std::vector<uint8_t>* out);

}  // namespace zt

#endif  // ZT_SRC_TRACING_SERVICE_TRUSTED_FIELDS_H_
