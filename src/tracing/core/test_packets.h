// Test support: packets whose content is a function of (writer, sequence
// number, size), written through TraceWriter and re-created with
// HeapBuffered for byte-exact comparison.

#ifndef ZT_SRC_TRACING_CORE_TEST_PACKETS_H_
#define ZT_SRC_TRACING_CORE_TEST_PACKETS_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "zt/protozero/scattered_heap_buffer.h"
#include "zt/trace/test_event.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace zt {
namespace test {

inline std::string TestPayload(uint32_t writer, uint64_t seq, size_t size) {
  std::string s(size, '\0');
  const uint8_t base = static_cast<uint8_t>(seq * 131 + writer * 13);
  for (size_t j = 0; j < size; j++)
    s[j] = static_cast<char>(base + static_cast<uint8_t>(j * 7));
  return s;
}

// timestamp = seq; for_testing { seq_value = writer; payload { nested {
// str = payload } } }: three nested levels whose size fields end up patched
// when the payload crosses chunks.
inline void WriteTestPacket(protos::pbzero::TracePacket* p, uint32_t writer,
                            uint64_t seq, const std::string& payload) {
  p->set_timestamp(seq);
  auto* ev = p->set_for_testing();
  ev->set_seq_value(writer);
  auto* pl = ev->set_payload();
  pl->add_nested()->add_str(payload);
}

inline std::vector<uint8_t> ExpectedPacket(uint32_t writer, uint64_t seq,
                                           size_t size) {
  protozero::HeapBuffered<protos::pbzero::TracePacket> msg;
  WriteTestPacket(msg.get(), writer, seq, TestPayload(writer, seq, size));
  return msg.SerializeAsArray();
}

// What a writer puts before the first field of a packet, at most one of:
// previous_packet_dropped (field 42) = DATA_LOSS_PRESENT | DATA_LOSS_SMB_FULL
// (varint 257) after it had to drop packets, and first_packet_on_sequence
// (field 87) = true on its first packet.
constexpr uint8_t kPreviousDroppedPrefix[] = {0xD0, 0x02, 0x81, 0x02};
constexpr uint8_t kFirstOnSequencePrefix[] = {0xB8, 0x05, 0x01};

// Strips |prefix| if |data| starts with it; returns whether it did.
template <size_t N>
inline bool StripPrefix(const uint8_t (&prefix)[N], std::vector<uint8_t>* data) {
  if (data->size() < N || !std::equal(prefix, prefix + N, data->begin()))
    return false;
  data->erase(data->begin(), data->begin() + N);
  return true;
}
inline bool StripPreviousDropped(std::vector<uint8_t>* data) {
  return StripPrefix(kPreviousDroppedPrefix, data);
}
inline bool StripFirstOnSequence(std::vector<uint8_t>* data) {
  return StripPrefix(kFirstOnSequencePrefix, data);
}

inline uint64_t SeqOf(const std::vector<uint8_t>& data) {
  protos::pbzero::TracePacket_Decoder d(data.data(), data.size());
  return d.timestamp();
}

}  // namespace test
}  // namespace zt

#endif  // ZT_SRC_TRACING_CORE_TEST_PACKETS_H_
