#include "src/tracing/service/session_service_packets.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "zt/protozero/proto_decoder.h"
#include "zt/trace/clock_snapshot.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/trace/trace_uuid.pbzero.h"

namespace zt {
namespace {

using protos::pbzero::TracePacket_Decoder;

// What one packet is, as a short name ("event:2" for service event 2).
std::string Kind(const std::vector<uint8_t>& bytes) {
  TracePacket_Decoder p(bytes.data(), bytes.size());
  if (p.has_clock_snapshot())
    return "snapshot";
  if (p.has_synchronization_marker())
    return "marker";
  if (p.has_trace_config())
    return "config";
  if (p.has_trace_uuid())
    return "uuid";
  if (p.has_system_info())
    return "system_info";
  if (p.has_service_event()) {
    protozero::ProtoDecoder event(p.service_event().data, p.service_event().size);
    return "event:" + std::to_string(event.ReadField().id());
  }
  return "other";
}

std::vector<std::string> Before(SessionServicePackets* packets) {
  std::vector<std::string> kinds;
  EXPECT_TRUE(packets->EmitBeforeData([&](const std::vector<uint8_t>& p) {
    kinds.push_back(Kind(p));
    return true;
  }));
  return kinds;
}

protos::gen::TraceConfig DefaultConfig() {
  protos::gen::TraceConfig config;
  config.add_buffers()->set_size_kb(64);
  return config;
}

TEST(SessionServicePacketsTest, StartOrderThenNothingTwice) {
  SessionServicePackets packets(DefaultConfig(), 0);
  packets.OnStarted();
  packets.OnPeriodicTask();
  EXPECT_EQ(Before(&packets),
            (std::vector<std::string>{"snapshot", "snapshot", "marker", "config", "uuid",
                                      "system_info", "event:2"}));
  EXPECT_EQ(Before(&packets), std::vector<std::string>{});
  // A snapshot taken since is kept (none pending), with its event.
  packets.OnDisabled();
  EXPECT_EQ(Before(&packets), (std::vector<std::string>{"snapshot", "event:5"}));
}

TEST(SessionServicePacketsTest, EventsKeepTheLatestButFlushesKeepTheirHistory) {
  SessionServicePackets packets(DefaultConfig(), 0);
  for (int i = 0; i < 100; i++)
    packets.OnFlushStarted();
  packets.OnAllDataSourcesStarted();
  packets.OnAllDataSourcesStarted();
  size_t flush_started = 0, all_started = 0;
  for (const std::string& kind : Before(&packets)) {
    flush_started += kind == "event:9";
    all_started += kind == "event:1";
  }
  EXPECT_EQ(flush_started, SessionServicePackets::kMaxFlushEvents);
  EXPECT_EQ(all_started, 1u);
}

TEST(SessionServicePacketsTest, SwitchesTurnEachKindOff) {
  protos::gen::TraceConfig config = DefaultConfig();
  auto* builtin = config.mutable_builtin_data_sources();
  builtin->set_disable_clock_snapshotting(true);
  builtin->set_disable_trace_config(true);
  builtin->set_disable_system_info(true);
  builtin->set_disable_service_events(true);
  SessionServicePackets packets(config, 0);
  packets.OnStarted();
  packets.OnPeriodicTask();
  packets.OnFlushed();
  // The uuid and the sync marker have no switch.
  EXPECT_EQ(Before(&packets), (std::vector<std::string>{"marker", "uuid"}));
  size_t after = 0;
  EXPECT_TRUE(packets.EmitAfterDrain([&](const std::vector<uint8_t>&) {
    after++;
    return true;
  }));
  EXPECT_EQ(after, 0u) << "read_tracing_buffers_completed despite the switch";
}

TEST(SessionServicePacketsTest, PrimaryClockAndUuidComeFromTheConfig) {
  protos::gen::TraceConfig config = DefaultConfig();
  config.mutable_builtin_data_sources()->set_primary_trace_clock(
      protos::gen::BUILTIN_CLOCK_MONOTONIC);
  config.set_trace_uuid_msb(0x1234);
  config.set_trace_uuid_lsb(-5);
  SessionServicePackets packets(config, 0);
  packets.OnStarted();
  std::vector<std::vector<uint8_t>> emitted;
  ASSERT_TRUE(packets.EmitBeforeData([&](const std::vector<uint8_t>& p) {
    emitted.push_back(p);
    return true;
  }));
  ASSERT_GE(emitted.size(), 3u);
  TracePacket_Decoder snapshot(emitted[0].data(), emitted[0].size());
  ASSERT_TRUE(snapshot.has_clock_snapshot());
  EXPECT_EQ(protos::pbzero::ClockSnapshot_Decoder(snapshot.clock_snapshot())
                .primary_trace_clock(),
            3u);
  bool saw_uuid = false;
  for (const auto& p : emitted) {
    TracePacket_Decoder d(p.data(), p.size());
    if (!d.has_trace_uuid())
      continue;
    protos::pbzero::TraceUuid_Decoder uuid(d.trace_uuid());
    EXPECT_EQ(uuid.msb(), 0x1234);
    EXPECT_EQ(uuid.lsb(), -5);
    saw_uuid = true;
  }
  EXPECT_TRUE(saw_uuid);
  // Without one: random, version 4.
  SessionServicePackets random(DefaultConfig(), 0);
  EXPECT_EQ((static_cast<uint64_t>(random.uuid_msb()) >> 12) & 0xF, 4u);
  EXPECT_NE(random.uuid_msb(), SessionServicePackets(DefaultConfig(), 0).uuid_msb());
}

TEST(SessionServicePacketsTest, StatsArePeriodicAndTheFinalOnesOnce) {
  SessionServicePackets packets(DefaultConfig(), 0);
  EXPECT_FALSE(packets.StatsDue(/*stopped=*/false));
  packets.OnPeriodicTask();
  EXPECT_TRUE(packets.StatsDue(false));
  packets.OnStatsEmitted(false);
  EXPECT_FALSE(packets.StatsDue(false));
  EXPECT_TRUE(packets.StatsDue(/*stopped=*/true));
  packets.OnStatsEmitted(true);
  EXPECT_FALSE(packets.StatsDue(true));
  packets.OnPeriodicTask();
  EXPECT_FALSE(packets.StatsDue(true)) << "nothing after the final stats";
}

TEST(SessionServicePacketsTest, ARefusingSinkResumesWhereItStopped) {
  SessionServicePackets packets(DefaultConfig(), 0);
  packets.OnStarted();
  std::vector<std::string> kinds;
  int budget = 2;
  EXPECT_FALSE(packets.EmitBeforeData([&](const std::vector<uint8_t>& p) {
    if (budget-- <= 0)
      return false;
    kinds.push_back(Kind(p));
    return true;
  }));
  for (const std::string& kind : Before(&packets))
    kinds.push_back(kind);
  // Each once, in order, although the first call stopped half-way.
  EXPECT_EQ(kinds, (std::vector<std::string>{"snapshot", "config", "uuid", "system_info",
                                             "event:2"}));
}

TEST(SessionServicePacketsTest, DriftIsMeasuredAgainstBoottime) {
  ClockReadings older{};
  for (size_t i = 0; i < older.size(); i++)
    older[i] = {static_cast<uint32_t>(6 - i), 1000000000ull * (i + 1)};
  ClockReadings newer = older;
  for (auto& clock : newer)
    clock.second += 5000000000ull;  // Everything moved together: no drift.
  EXPECT_FALSE(ClocksDrifted(older, newer, SessionServicePackets::kSnapshotDriftNs));
  newer[3].second += SessionServicePackets::kSnapshotDriftNs - 1;
  EXPECT_FALSE(ClocksDrifted(older, newer, SessionServicePackets::kSnapshotDriftNs));
  newer[3].second += 1;
  EXPECT_TRUE(ClocksDrifted(older, newer, SessionServicePackets::kSnapshotDriftNs));
  newer = older;
  newer[2].second -= SessionServicePackets::kSnapshotDriftNs;  // Backwards too.
  EXPECT_TRUE(ClocksDrifted(older, newer, SessionServicePackets::kSnapshotDriftNs));
}

}  // namespace
}  // namespace zt
