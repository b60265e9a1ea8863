#include "src/tracing/service/trusted_fields.h"

#include <gtest/gtest.h>

#include "zt/protozero/proto_decoder.h"
#include "zt/protozero/scattered_heap_buffer.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace zt {
namespace {

using protos::pbzero::TracePacket;
using protos::pbzero::TracePacket_Decoder;

size_t CountField(const std::vector<uint8_t>& bytes, uint32_t id) {
  protozero::ProtoDecoder d(bytes.data(), bytes.size());
  size_t n = 0;
  for (auto f = d.ReadField(); f.valid(); f = d.ReadField())
    n += f.id() == id;
  EXPECT_FALSE(d.parse_error());
  return n;
}

TEST(TrustedFieldsTest, ForgedValuesAreReplacedEverywhere) {
  protozero::HeapBuffered<TracePacket> packet;
  packet->set_trusted_uid(0);  // Pretends to be root.
  packet->set_timestamp(1234);
  packet->set_trusted_pid(1);
  packet->set_trusted_packet_sequence_id(7);
  packet->set_trusted_uid(0);  // Twice: every occurrence must go.
  std::vector<uint8_t> in = packet.SerializeAsArray();

  TrustedPacketFields fields;
  fields.uid = 1000;
  fields.pid = 4242;
  fields.sequence_id = 3;
  std::vector<uint8_t> out;
  ASSERT_TRUE(StampTrustedFields(in.data(), in.size(), fields, &out));
  EXPECT_EQ(CountField(out, 3), 1u);
  EXPECT_EQ(CountField(out, 10), 1u);
  EXPECT_EQ(CountField(out, 79), 1u);
  TracePacket_Decoder d(out.data(), out.size());
  EXPECT_EQ(d.trusted_uid(), 1000);
  EXPECT_EQ(d.trusted_pid(), 4242);
  EXPECT_EQ(d.trusted_packet_sequence_id(), 3u);
  EXPECT_EQ(d.timestamp(), 1234u);  // Untouched.
  EXPECT_FALSE(d.has_previous_packet_dropped());
}

TEST(TrustedFieldsTest, UnknownValuesAreLeftOutAndLossCausesAreMerged) {
  protozero::HeapBuffered<TracePacket> packet;
  packet->set_timestamp(5);
  std::vector<uint8_t> in = packet.SerializeAsArray();
  TrustedPacketFields fields;  // uid/pid unknown, no sequence.
  fields.previous_packet_dropped = TracePacket::DATA_LOSS_PRESENT |
                                   TracePacket::DATA_LOSS_OVERWRITE;
  std::vector<uint8_t> out;
  ASSERT_TRUE(StampTrustedFields(in.data(), in.size(), fields, &out));
  EXPECT_EQ(CountField(out, 3), 0u);
  EXPECT_EQ(CountField(out, 79), 0u);
  EXPECT_EQ(CountField(out, 10), 0u);
  EXPECT_EQ(CountField(out, 42), 1u);
  EXPECT_EQ(TracePacket_Decoder(out.data(), out.size()).previous_packet_dropped(), 65u);

  // The writer's own causes (SMB full) and the service's (overwrite) both
  // end up in the value readers take: the last one.
  packet.Reset();
  packet->set_previous_packet_dropped(TracePacket::DATA_LOSS_PRESENT |
                                      TracePacket::DATA_LOSS_SMB_FULL);
  packet->set_timestamp(6);
  in = packet.SerializeAsArray();
  ASSERT_TRUE(StampTrustedFields(in.data(), in.size(), fields, &out));
  EXPECT_EQ(TracePacket_Decoder(out.data(), out.size()).previous_packet_dropped(),
            1u | 64u | 256u);

  // No service causes: the writer's mark stays as it was, alone.
  ASSERT_TRUE(StampTrustedFields(in.data(), in.size(), TrustedPacketFields(), &out));
  EXPECT_EQ(CountField(out, 42), 1u);
  EXPECT_EQ(TracePacket_Decoder(out.data(), out.size()).previous_packet_dropped(), 257u);
}

TEST(TrustedFieldsTest, FieldsComeInUpstreamsOrder) {
  TrustedPacketFields fields;
  fields.uid = 1;
  fields.pid = 2;
  fields.sequence_id = 3;
  fields.previous_packet_dropped = 1;
  std::vector<uint8_t> out;
  ASSERT_TRUE(StampTrustedFields(nullptr, 0, fields, &out));
  std::vector<uint32_t> ids;
  protozero::ProtoDecoder d(out.data(), out.size());
  for (auto f = d.ReadField(); f.valid(); f = d.ReadField())
    ids.push_back(f.id());
  EXPECT_EQ(ids, (std::vector<uint32_t>{3, 10, 79, 42}));
}

TEST(TrustedFieldsTest, PacketsPosingAsTheServicesAreRefused) {
  // trace_config, trace_stats, sync marker, compressed packets, service
  // event, machine id, provenance, protovms, zstd packets.
  for (uint32_t id : {33u, 35u, 36u, 50u, 69u, 98u, 124u, 125u, 133u}) {
    protozero::HeapBuffered<TracePacket> packet;
    packet->set_timestamp(1);
    packet->AppendVarInt(id, 1);
    const std::vector<uint8_t> in = packet.SerializeAsArray();
    std::vector<uint8_t> out;
    EXPECT_FALSE(StampTrustedFields(in.data(), in.size(), TrustedPacketFields(), &out))
        << "field " << id;
  }
}

TEST(TrustedFieldsTest, MalformedPacketsAreRefused) {
  const uint8_t truncated[] = {0x42, 0x05, 'a'};  // Length 5, 1 byte left.
  std::vector<uint8_t> out;
  EXPECT_FALSE(StampTrustedFields(truncated, sizeof(truncated),
                                  TrustedPacketFields(), &out));
  const uint8_t bad_wire_type[] = {0x0F};
  EXPECT_FALSE(StampTrustedFields(bad_wire_type, sizeof(bad_wire_type),
                                  TrustedPacketFields(), &out));
  // An empty packet is valid.
  TrustedPacketFields fields;
  fields.sequence_id = 9;
  ASSERT_TRUE(StampTrustedFields(nullptr, 0, fields, &out));
  EXPECT_EQ(CountField(out, 10), 1u);
}

TEST(TrustedFieldsTest, StamperAppendsFramedPacketsInPlace) {
  // Forged fields between kept ones: the kept bytes go out in runs, after
  // whatever |out| already holds, framed as Trace.packet (field 1).
  protozero::HeapBuffered<TracePacket> packet;
  packet->set_timestamp(1);
  packet->set_trusted_uid(0);
  packet->set_timestamp_clock_id(6);
  packet->set_previous_packet_dropped(true);
  std::vector<uint8_t> in = packet.SerializeAsArray();
  TrustedPacketFields fields;
  fields.uid = 7;
  fields.sequence_id = 9;
  fields.previous_packet_dropped = 4;

  std::vector<uint8_t> bare;
  ASSERT_TRUE(StampTrustedFields(in.data(), in.size(), fields, &bare));
  PacketStamper stamper;
  ASSERT_TRUE(stamper.Plan(in.data(), in.size(), fields));
  EXPECT_EQ(stamper.stamped_size(), bare.size());
  std::vector<uint8_t> out = {0xAA};
  stamper.AppendFramed(&out);
  ASSERT_EQ(out.size(), 1u + 2u + bare.size());
  EXPECT_EQ(out[0], 0xAA);
  EXPECT_EQ(out[1], 0x0A);  // Field 1, length-delimited.
  EXPECT_EQ(out[2], bare.size());
  EXPECT_EQ(std::vector<uint8_t>(out.begin() + 3, out.end()), bare);
  // Reused for a refused packet: says so, and plans the next one afresh.
  const uint8_t truncated[] = {0x08};
  EXPECT_FALSE(stamper.Plan(truncated, sizeof(truncated), fields));
  ASSERT_TRUE(stamper.Plan(in.data(), in.size(), fields));
  EXPECT_EQ(stamper.stamped_size(), bare.size());
}

}  // namespace
}  // namespace zt
