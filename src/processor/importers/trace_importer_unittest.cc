#include "src/processor/importers/trace_importer.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <gtest/gtest.h>

namespace zt {
namespace processor {
namespace {

// The upstream v14 fixture: recorded by a program instrumented with
// Perfetto's v14 SDK. The expected figures are those of its manifest
// (test/data/perfetto_v14/inprocess_small.manifest.json).
class UpstreamFixtureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    storage_ = ImportTraceFile(std::string(ZT_TEST_DATA_DIR) +
                                   "/perfetto_v14/inprocess_small.pftrace",
                               ImportOptions(), &result_, &error);
    ASSERT_TRUE(storage_) << error;
  }

  std::string Str(StringId id) const { return std::string(storage_->strings.Get(id)); }

  // name -> number of slices with that name and dur matching `instants`.
  std::map<std::string, int> CountSlices(bool instants) const {
    std::map<std::string, int> counts;
    const SliceTable& slice = storage_->slice;
    for (size_t i = 0; i < slice.size(); i++) {
      if ((slice.dur[i] == 0) == instants)
        counts[Str(slice.name[i])]++;
    }
    return counts;
  }

  // Values of arg `key` on slices named `name`.
  std::vector<size_t> ArgRows(const std::string& name, const std::string& key) const {
    std::vector<size_t> rows;
    const SliceTable& slice = storage_->slice;
    const ArgTable& args = storage_->args;
    std::map<uint32_t, bool> sets;
    for (size_t i = 0; i < slice.size(); i++) {
      if (Str(slice.name[i]) == name && slice.arg_set_id[i] != kNullId)
        sets[slice.arg_set_id[i]] = true;
    }
    for (size_t i = 0; i < args.size(); i++) {
      if (sets.count(args.arg_set_id[i]) && Str(args.key[i]) == key)
        rows.push_back(i);
    }
    return rows;
  }

  ImportResult result_;
  std::unique_ptr<TraceStorage> storage_;
};

TEST_F(UpstreamFixtureTest, ReadsEveryPacketWithoutDamage) {
  EXPECT_EQ(result_.tokenizer.packets, 1054u);
  EXPECT_EQ(result_.tokenizer.damage, TraceDamage::kNone);
  // "track_events_total": begins, ends, instants and counter values.
  EXPECT_EQ(result_.packets_parsed, 990u);
  EXPECT_EQ(storage_->stats.Get(stats::packets_malformed), 0);
  EXPECT_EQ(storage_->stats.Get(stats::tokenizer_skipped_packets), 0);
  EXPECT_EQ(storage_->stats.Get(stats::clock_sync_failure), 0);
  EXPECT_EQ(storage_->stats.Get(stats::interned_data_missing_iid), 0);
  EXPECT_EQ(storage_->stats.Get(stats::track_event_missing_track), 0);
  EXPECT_EQ(storage_->stats.Get(stats::track_event_parser_errors), 0);
  EXPECT_EQ(storage_->stats.Get(stats::misplaced_end_event), 0);
  EXPECT_EQ(storage_->stats.Get(stats::slices_unterminated), 0);
}

TEST_F(UpstreamFixtureTest, SlicesAsTheManifestLists) {
  const std::map<std::string, int> expected = {
      {"Outer", 45},   {"Middle", 45},  {"Inner", 45},   {"dyn_0", 6},
      {"dyn_1", 6},    {"dyn_2", 6},    {"dyn_3", 6},    {"dyn_4", 6},
      {"dyn_5", 5},    {"dyn_6", 5},    {"dyn_7", 5},    {"ArgsA", 45},
      {"FlowOut", 45}, {"FlowIn", 45},  {"OnCustomTrack", 45},
      {"WorkerSlice", 45}};
  EXPECT_EQ(CountSlices(/*instants=*/false), expected);
  EXPECT_EQ(CountSlices(/*instants=*/true),
            (std::map<std::string, int>{{"Instant", 45}, {"ArgsB", 45}}));
  for (size_t i = 0; i < storage_->slice.size(); i++)
    EXPECT_NE(Str(storage_->slice.name[i]), "ShouldNotAppear");
}

TEST_F(UpstreamFixtureTest, NestingCategoriesAndOrder) {
  const SliceTable& slice = storage_->slice;
  for (size_t i = 0; i < slice.size(); i++) {
    EXPECT_EQ(Str(slice.category[i]), "conf") << i;
    if (i > 0) {
      EXPECT_LE(slice.ts[i - 1], slice.ts[i]) << "slices not in ts order at " << i;
    }
    const std::string name = Str(slice.name[i]);
    if (name == "Outer") {
      EXPECT_EQ(slice.depth[i], 0u);
    } else if (name == "Middle" || name == "Inner") {
      ASSERT_NE(slice.parent_id[i], kNullId);
      const uint32_t parent = slice.parent_id[i];
      EXPECT_EQ(Str(slice.name[parent]), name == "Middle" ? "Outer" : "Middle");
      EXPECT_EQ(slice.depth[i], slice.depth[parent] + 1);
      EXPECT_GE(slice.ts[i], slice.ts[parent]);
      EXPECT_LE(slice.ts[i] + slice.dur[i], slice.ts[parent] + slice.dur[parent]);
      EXPECT_EQ(slice.track_id[i], slice.track_id[parent]);
    }
  }
}

TEST_F(UpstreamFixtureTest, Counters) {
  std::map<std::string, std::pair<int, double>> by_track;
  const CounterTable& counter = storage_->counter;
  for (size_t i = 0; i < counter.size(); i++) {
    auto& entry = by_track[Str(storage_->track.name[counter.track_id[i]])];
    entry.first++;
    entry.second += counter.value[i];
  }
  ASSERT_EQ(by_track.size(), 2u);
  EXPECT_EQ(by_track["conf_counter"].first, 45);
  EXPECT_EQ(by_track["conf_counter"].second, 2130);
  EXPECT_EQ(by_track["conf_counter_double"].first, 45);
  EXPECT_DOUBLE_EQ(by_track["conf_counter_double"].second, 495);
}

TEST_F(UpstreamFixtureTest, DebugAnnotationsAsArgs) {
  const ArgTable& args = storage_->args;
  auto int_sum = [&](const std::vector<size_t>& rows, ArgType type) {
    int64_t sum = 0;
    for (size_t row : rows) {
      EXPECT_EQ(args.value_type[row], type);
      sum += args.int_value[row];
    }
    return sum;
  };
  std::vector<size_t> rows = ArgRows("Outer", "debug.iter");
  EXPECT_EQ(rows.size(), 45u);
  EXPECT_EQ(int_sum(rows, ArgType::kInt), 990);
  rows = ArgRows("Instant", "debug.seq");
  EXPECT_EQ(rows.size(), 45u);
  EXPECT_EQ(int_sum(rows, ArgType::kInt), 990);
  rows = ArgRows("ArgsA", "debug.int_arg");
  EXPECT_EQ(rows.size(), 45u);
  EXPECT_EQ(int_sum(rows, ArgType::kInt), 765);
  rows = ArgRows("ArgsB", "debug.bool_arg");
  EXPECT_EQ(rows.size(), 45u);
  EXPECT_EQ(int_sum(rows, ArgType::kBool), 23);

  rows = ArgRows("ArgsA", "debug.str_arg");
  std::map<std::string, int> strings;
  for (size_t row : rows) {
    EXPECT_EQ(args.value_type[row], ArgType::kString);
    strings[Str(args.string_value[row])]++;
  }
  EXPECT_EQ(strings, (std::map<std::string, int>{{"s0", 12}, {"s1", 11}, {"s2", 11}, {"s3", 11}}));

  rows = ArgRows("ArgsB", "debug.double_arg");
  double sum = 0;
  for (size_t row : rows) {
    EXPECT_EQ(args.value_type[row], ArgType::kReal);
    sum += args.real_value[row];
  }
  EXPECT_EQ(rows.size(), 45u);
  EXPECT_DOUBLE_EQ(sum, 247.5);
}

TEST_F(UpstreamFixtureTest, FlowsLinkFlowOutToFlowIn) {
  const FlowTable& flow = storage_->flow;
  ASSERT_EQ(flow.size(), 45u);
  for (size_t i = 0; i < flow.size(); i++) {
    EXPECT_EQ(Str(storage_->slice.name[flow.slice_out[i]]), "FlowOut");
    EXPECT_EQ(Str(storage_->slice.name[flow.slice_in[i]]), "FlowIn");
  }
}

TEST_F(UpstreamFixtureTest, TracksAndThreads) {
  // Two threads besides upstream's placeholder row 0.
  EXPECT_EQ(storage_->thread.size(), 3u);
  for (size_t i = 1; i < storage_->thread.size(); i++) {
    ASSERT_NE(storage_->thread.upid[i], kNullId);
    EXPECT_EQ(storage_->process.pid[storage_->thread.upid[i]], 22106);
  }
  const TrackTable& track = storage_->track;
  int custom_slices = 0;
  for (size_t i = 0; i < storage_->slice.size(); i++) {
    const uint32_t t = storage_->slice.track_id[i];
    if (Str(track.name[t]) == "conf_custom_track") {
      EXPECT_EQ(track.uuid[t], 828927508481u);
      EXPECT_EQ(Str(storage_->slice.name[i]), "OnCustomTrack");
      custom_slices++;
    } else {
      EXPECT_EQ(track.kind[t], TrackKind::kThread);
    }
  }
  EXPECT_EQ(custom_slices, 45);
}

// Hand-made packets: just enough protobuf encoding for the cases below.
std::string Varint(uint64_t value) {
  std::string out;
  for (; value >= 0x80; value >>= 7)
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
  out.push_back(static_cast<char>(value));
  return out;
}
std::string IntField(uint32_t field, uint64_t value) {
  return Varint(uint64_t{field} << 3) + Varint(value);
}
std::string BytesField(uint32_t field, const std::string& bytes) {
  return Varint((uint64_t{field} << 3) | 2) + Varint(bytes.size()) + bytes;
}

// What our SDK writes when one of its writers dropped packets: the next
// packet on the sequence carries the loss mark (previous_packet_dropped)
// and starts the incremental state again (SEQ_INCREMENTAL_STATE_CLEARED),
// in one packet. The mark is a loss where it is, though the state is valid
// again at once.
TEST(TraceImporterTest, LossMarkOnAPacketThatAlsoClearsTheState) {
  const std::string defaults = BytesField(59, BytesField(11, IntField(11, 10)));
  const std::string thread =
      BytesField(60, IntField(1, 10) + BytesField(4, IntField(1, 1) + IntField(2, 2)));
  auto event = [](uint64_t ts, const char* name, uint64_t dropped) {
    std::string packet = IntField(8, ts) + IntField(10, 5) + IntField(13, 1 | 2);
    if (dropped)
      packet += IntField(42, dropped);
    else
      packet += IntField(87, 1);  // first_packet_on_sequence
    packet += BytesField(12, BytesField(2, IntField(1, 1) + BytesField(2, name)));
    packet += BytesField(11, IntField(9, 3) + IntField(10, 1));  // Instant, name_iid 1.
    return packet;
  };
  const std::string first = event(100, "a", 0) + thread;
  const std::string second = event(200, "b", 257) + thread;
  // Defaults ride along with each clear, as the SDK writes them.
  std::string trace = BytesField(1, first + defaults);
  const std::string second_packet = second + defaults;
  // Marks point at the packet's bytes, after the record's key and length.
  const uint64_t second_offset = trace.size() + 1 + Varint(second_packet.size()).size();
  trace += BytesField(1, second_packet);

  TraceStorage storage;
  ImportTrace(trace.data(), trace.size(), &storage);
  ASSERT_EQ(storage.slice.size(), 2u);
  EXPECT_EQ(storage.strings.Get(storage.slice.name[0]), "a");
  EXPECT_EQ(storage.strings.Get(storage.slice.name[1]), "b");
  EXPECT_EQ(storage.slice.ts[1], 200);
  ASSERT_EQ(storage.data_losses.size(), 1u);
  const DataLossMark& mark = storage.data_losses[0];
  EXPECT_EQ(mark.sequence_id, 5u);
  EXPECT_EQ(mark.offset, second_offset);
  EXPECT_EQ(mark.ts, 200);
  EXPECT_EQ(mark.reasons, 257u);
  EXPECT_EQ(storage.stats.GetIndexed(stats::traced_buf_sequence_packet_loss),
            (std::map<int, int64_t>{{0, 1}}));
  EXPECT_EQ(storage.stats.Get(stats::incremental_state_lost_packets), 0);
}

// After a loss mark, a sequence's packets may intern ids again (a writer
// that started its state over, its clearing packet lost): what they intern
// must not change the names of the events read before the mark, which are
// parsed later against the state they were read under. By default they are
// kept (issue 28: keep what upstream drops); with drop_events_after_loss
// they are skipped, as upstream does.
TEST(TraceImporterTest, InternedDataAfterALossLeavesEarlierEventsAlone) {
  const std::string setup =
      IntField(87, 1) +
      BytesField(59, BytesField(11, IntField(11, 10))) +  // Default track 10.
      BytesField(60, IntField(1, 10) + BytesField(4, IntField(1, 1) + IntField(2, 2)));
  auto event = [](uint64_t ts, uint64_t flags, const char* interned_name) {
    std::string packet = IntField(8, ts) + IntField(10, 5) + IntField(13, flags);
    if (interned_name)
      packet += BytesField(12, BytesField(2, IntField(1, 1) + BytesField(2, interned_name)));
    packet += BytesField(11, IntField(9, 3) + IntField(10, 1));  // Instant, name_iid 1.
    return packet;
  };
  std::string trace = BytesField(1, event(100, 1 | 2, "a") + setup);
  trace += BytesField(1, event(200, 2, nullptr));
  trace += BytesField(1, event(300, 2, "b") + IntField(42, 1));  // After a loss.

  TraceStorage kept;
  ImportTrace(trace.data(), trace.size(), &kept);
  ASSERT_EQ(kept.slice.size(), 3u);
  EXPECT_EQ(kept.strings.Get(kept.slice.name[0]), "a");
  EXPECT_EQ(kept.strings.Get(kept.slice.name[1]), "a");
  EXPECT_EQ(kept.strings.Get(kept.slice.name[2]), "b");
  EXPECT_EQ(kept.stats.Get(stats::incremental_state_recovered_packets), 1);
  EXPECT_EQ(kept.stats.Get(stats::incremental_state_lost_packets), 0);
  ASSERT_EQ(kept.data_losses.size(), 1u);
  EXPECT_EQ(kept.data_losses[0].sequence_id, 5u);

  ImportOptions strict;
  strict.drop_events_after_loss = true;
  TraceStorage dropped;
  ImportTrace(trace.data(), trace.size(), &dropped, strict);
  ASSERT_EQ(dropped.slice.size(), 2u);
  EXPECT_EQ(dropped.strings.Get(dropped.slice.name[1]), "a");
  EXPECT_EQ(dropped.stats.Get(stats::incremental_state_lost_packets), 1);
  EXPECT_EQ(dropped.stats.Get(stats::incremental_state_recovered_packets), 0);
}

// After a loss, an event keeps the names interned before it; an id
// interned nowhere is NULL (counted); an event timed by an incremental
// clock is still skipped: its deltas ran through the lost packets.
TEST(TraceImporterTest, EventsAfterALossKeepTheirNamesWhereTheyCan) {
  const std::string setup =
      IntField(87, 1) + BytesField(59, BytesField(11, IntField(11, 10))) +
      BytesField(60, IntField(1, 10) + BytesField(4, IntField(1, 1) + IntField(2, 2))) +
      BytesField(12, BytesField(2, IntField(1, 1) + BytesField(2, "named")));
  auto instant = [](uint64_t ts, uint64_t name_iid) {
    return IntField(8, ts) + IntField(10, 5) + IntField(13, 2) +
           BytesField(11, IntField(9, 3) + IntField(10, name_iid));
  };
  // Clock 64: incremental, sequence-scoped, in ns, synced to boot time.
  const std::string clock_snapshot = BytesField(
      6, BytesField(1, IntField(1, 64) + IntField(2, 1000) + IntField(3, 1)) +
             BytesField(1, IntField(1, 6) + IntField(2, 1000)));
  std::string trace = BytesField(1, IntField(8, 100) + IntField(10, 5) + IntField(13, 1 | 2) +
                                        setup + clock_snapshot +
                                        BytesField(11, IntField(9, 3) + IntField(10, 1)));
  trace += BytesField(1, instant(200, 1) + IntField(42, 1));  // Loss; "named".
  trace += BytesField(1, instant(300, 7));                    // iid 7: interned nowhere.
  trace += BytesField(1, IntField(8, 5) + IntField(58, 64) + IntField(10, 5) + IntField(13, 2) +
                             BytesField(11, IntField(9, 3) + IntField(10, 1)));  // On clock 64.
  TraceStorage storage;
  ImportTrace(trace.data(), trace.size(), &storage);
  ASSERT_EQ(storage.slice.size(), 3u);
  EXPECT_EQ(storage.strings.Get(storage.slice.name[1]), "named");
  EXPECT_EQ(storage.slice.ts[1], 200);
  EXPECT_EQ(storage.slice.name[2], kNullStringId);
  EXPECT_EQ(storage.stats.Get(stats::interned_data_missing_iid), 1);
  EXPECT_EQ(storage.stats.Get(stats::incremental_state_recovered_packets), 2);
  EXPECT_EQ(storage.stats.Get(stats::incremental_state_lost_packets), 1);
}

}  // namespace
}  // namespace processor
}  // namespace zt

namespace zt {
namespace processor {
namespace {


// Upstream v58's track types for what the v14 SDK wrote: each thread's
// default track, the process's own track, its counters, a custom global
// track; their dimensions as arg sets.
TEST_F(UpstreamFixtureTest, TracksHaveUpstreamV58Types) {
  std::map<std::string, int> types;
  std::map<std::string, std::string> dimensions;
  const TrackTable& track = storage_->track;
  for (size_t i = 0; i < track.size(); ++i) {
    const std::string type = Str(track.type[i]);
    types[type]++;
    std::string keys;
    for (size_t a = 0; a < storage_->args.size(); ++a)
      if (storage_->args.arg_set_id[a] == track.dimension_arg_set_id[i])
        keys += Str(storage_->args.key[a]) + ",";
    dimensions[type] = keys;
  }
  EXPECT_EQ(types, (std::map<std::string, int>{{"global_track_event", 1},
                                               {"process_counter_track_event", 2},
                                               {"process_track_event", 1},
                                               {"thread_execution", 2}}));
  EXPECT_EQ(dimensions["thread_execution"], "utid,");
  EXPECT_EQ(dimensions["process_track_event"], "upid,track_uuid,");
  EXPECT_EQ(dimensions["process_counter_track_event"], "upid,track_uuid,");
  EXPECT_EQ(dimensions["global_track_event"], "track_uuid,");
}

// Upstream's own SDK (v14) with losses: its writers dropped packets when
// their shared memory was full and carried on without clearing their
// incremental state (test/data/perfetto_v14/README.md says how the trace
// was made). Upstream's importer skips everything after each loss; ours
// keeps what the names interned before it still describe.
std::unique_ptr<TraceStorage> ImportLossyFixture(bool drop) {
  ImportOptions options;
  options.drop_events_after_loss = drop;
  ImportResult result;
  std::string error;
  std::unique_ptr<TraceStorage> storage = ImportTraceFile(
      std::string(ZT_TEST_DATA_DIR) + "/perfetto_v14/lossy_v14.pftrace", options, &result, &error);
  EXPECT_TRUE(storage) << error;
  return storage;
}

TEST(UpstreamLossyFixtureTest, EventsAfterLossesAreKeptWithTheirNames) {
  const std::unique_ptr<TraceStorage> kept = ImportLossyFixture(false);
  const std::unique_ptr<TraceStorage> dropped = ImportLossyFixture(true);
  ASSERT_TRUE(kept && dropped);
  // 46 losses in the writers (the service counted as many).
  EXPECT_EQ(kept->data_losses.size(), 46u);
  EXPECT_EQ(dropped->data_losses.size(), 46u);
  EXPECT_EQ(kept->stats.Get(stats::incremental_state_recovered_packets), 6994);
  EXPECT_EQ(kept->stats.Get(stats::incremental_state_lost_packets), 0);
  EXPECT_EQ(dropped->stats.Get(stats::incremental_state_lost_packets), 6994);
  EXPECT_EQ(dropped->stats.Get(stats::incremental_state_recovered_packets), 0);
  EXPECT_EQ(kept->slice.size(), 3744u);
  EXPECT_EQ(dropped->slice.size(), 247u);

  // The names are right: each of the program's four names, with the args
  // it gave that name (name_0: "i"; name_2: "tid" and "i"; the others none).
  std::map<std::string, std::string> args_of_set;
  const ArgTable& args = kept->args;
  for (size_t i = 0; i < args.size(); ++i)
    args_of_set[std::to_string(args.arg_set_id[i])] +=
        std::string(kept->strings.Get(args.key[i])) + ";";
  std::map<std::string, int> names;
  for (size_t i = 0; i < kept->slice.size(); ++i) {
    ASSERT_NE(kept->slice.name[i], kNullStringId) << i;
    const std::string name(kept->strings.Get(kept->slice.name[i]));
    names[name]++;
    const uint32_t set = kept->slice.arg_set_id[i];
    const std::string keys = set == kNullId ? "" : args_of_set[std::to_string(set)];
    if (name == "name_0")
      EXPECT_EQ(keys, "debug.i;") << i;
    else if (name == "name_2")
      EXPECT_EQ(keys, "debug.tid;debug.i;") << i;
    else
      EXPECT_EQ(keys, "") << name << " " << i;
  }
  EXPECT_EQ(names.size(), 4u);
  EXPECT_EQ(kept->stats.Get(stats::interned_data_missing_iid), 0);
}

// A hostile packet may put a number where a message belongs (interned data,
// defaults, a track event, a descriptor): the importer must read no bytes
// for it, whatever the number says (found by trace_importer_fuzzer).
TEST(ImporterRobustnessTest, NumbersWhereMessagesBelongAreIgnored) {
  std::string packet = IntField(10, 1) + IntField(13, 1);  // Sequence 1, cleared.
  for (uint32_t field : {12u, 59u, 11u, 60u, 6u, 35u, 89u})
    packet += IntField(field, 1u << 20);  // "Length" far past the packet.
  const std::string trace = BytesField(1, packet);
  TraceStorage storage;
  const ImportResult result = ImportTrace(trace.data(), trace.size(), &storage);
  EXPECT_EQ(result.tokenizer.packets, 1u);
  EXPECT_EQ(result.packets_parsed, 0u);
  EXPECT_EQ(storage.slice.size(), 0u);
}

// A slice whose TrackEvent name is interned, then a loss mark: the next
// packet needing the name is read with it (kept by default), or skipped
// with upstream's strict reading, not guessed.
TEST(ImporterRobustnessTest, LossMarkInvalidatesInternedNames) {
  const std::string descriptor =
      BytesField(60, IntField(1, 7) + BytesField(4, IntField(1, 10) + IntField(2, 11)));  // Thread track 7.
  const std::string interned = BytesField(12, BytesField(2, IntField(1, 1) + BytesField(2, "Work")));
  const std::string defaults = BytesField(59, BytesField(11, IntField(11, 7)));
  std::string trace;
  // First packet: clear, descriptor, defaults, interned name 1 = "Work", a begin.
  trace += BytesField(1, IntField(10, 5) + IntField(13, 1) + IntField(8, 100) + descriptor + defaults +
                        interned + BytesField(11, IntField(9, 1) + IntField(10, 1)));
  // An end: fine.
  trace += BytesField(1, IntField(10, 5) + IntField(13, 2) + IntField(8, 200) + BytesField(11, IntField(9, 2)));
  // A loss mark, then a begin needing the interned name.
  trace += BytesField(1, IntField(10, 5) + IntField(13, 2) + IntField(42, 64) + IntField(8, 300) +
                        BytesField(11, IntField(9, 1) + IntField(10, 1)));
  for (const bool drop : {false, true}) {
    SCOPED_TRACE(drop ? "upstream's strict reading" : "kept");
    ImportOptions options;
    options.drop_events_after_loss = drop;
    TraceStorage storage;
    const ImportResult result = ImportTrace(trace.data(), trace.size(), &storage, options);
    EXPECT_EQ(result.packets_parsed, drop ? 2u : 3u);
    ASSERT_EQ(storage.slice.size(), drop ? 1u : 2u);
    EXPECT_EQ(storage.strings.Get(storage.slice.name[0]), "Work");
    EXPECT_EQ(storage.slice.dur[0], 100);
    if (!drop) {
      EXPECT_EQ(storage.strings.Get(storage.slice.name[1]), "Work");
      EXPECT_EQ(storage.slice.ts[1], 300);
    }
    EXPECT_EQ(storage.stats.Get(stats::incremental_state_lost_packets), drop ? 1 : 0);
    EXPECT_EQ(storage.stats.Get(stats::incremental_state_recovered_packets), drop ? 0 : 1);
    EXPECT_EQ(storage.stats.GetIndexedTotal(stats::traced_buf_sequence_packet_loss), 1);
    ASSERT_EQ(storage.data_losses.size(), 1u);
    EXPECT_EQ(storage.data_losses[0].sequence_id, 5u);
    EXPECT_EQ(storage.data_losses[0].reasons, 64u);
    EXPECT_EQ(storage.data_losses[0].ts_before, 200);  // The last time before the gap.
    // Skipped, the packet after the gap has no time to give the mark.
    EXPECT_EQ(storage.data_losses[0].ts, drop ? kNullInt : 300);
  }
}

}  // namespace
}  // namespace processor
}  // namespace zt

namespace zt {
namespace processor {
namespace {

// State tracks (TrackDescriptor.state, TYPE_STATE events): each state is a
// slice on its track from its event to the next change; an event without a
// name ends the state.
TEST(ImporterStateTrackTest, StatesBecomeSlicesUntilTheNextChange) {
  const std::string state_track = BytesField(60, IntField(1, 9) + BytesField(2, "link") +
                                                     BytesField(18, ""));
  const std::string plain_track = BytesField(60, IntField(1, 8) + BytesField(2, "plain"));
  auto state = [](uint64_t ts, uint64_t track, const char* name) {
    std::string event = IntField(9, 5) + IntField(11, track);
    if (name)
      event += BytesField(23, name);
    return BytesField(1, IntField(10, 3) + IntField(8, ts) + BytesField(11, event));
  };
  const std::string trace = BytesField(1, IntField(10, 3) + IntField(13, 1) + state_track +
                                              plain_track) +
                            state(100, 9, "idle") + state(150, 9, "busy") +
                            state(300, 9, nullptr) + state(400, 9, "idle") +
                            state(500, 8, "wrong");  // Not a state track.
  TraceStorage storage;
  ImportTrace(trace.data(), trace.size(), &storage);
  const SliceTable& slice = storage.slice;
  ASSERT_EQ(slice.size(), 3u);
  EXPECT_EQ(storage.strings.Get(slice.name[0]), "idle");
  EXPECT_EQ(slice.ts[0], 100);
  EXPECT_EQ(slice.dur[0], 50);
  EXPECT_EQ(storage.strings.Get(slice.name[1]), "busy");
  EXPECT_EQ(slice.dur[1], 150);
  EXPECT_EQ(slice.depth[1], 0u);
  EXPECT_EQ(slice.ts[2], 400);
  EXPECT_EQ(slice.dur[2], -1);  // Still in that state at the end.
  EXPECT_EQ(storage.strings.Get(storage.track.name[slice.track_id[0]]), "link");
  EXPECT_EQ(storage.stats.Get(stats::track_event_parser_errors), 1);
  EXPECT_EQ(storage.stats.Get(stats::misplaced_end_event), 0);
}

}  // namespace
}  // namespace processor
}  // namespace zt

namespace zt {
namespace processor {
namespace {

// A track's name may come as static_name (10) or atrace_name (13), the
// other members of TrackDescriptor's name oneof: upstream's C ABI writes
// static_name for the names it knows are literals.
TEST(ImporterTrackNameTest, StaticAndAtraceNamesNameTheTrack) {
  const std::string tracks = BytesField(60, IntField(1, 7) + BytesField(10, "static")) +
                             BytesField(60, IntField(1, 8) + BytesField(13, "atrace")) +
                             BytesField(60, IntField(1, 9) + BytesField(2, "plain"));
  auto instant = [](uint64_t ts, uint64_t track) {
    return BytesField(1, IntField(10, 3) + IntField(8, ts) +
                             BytesField(11, IntField(9, 3) + IntField(11, track) +
                                                BytesField(23, "tick")));
  };
  const std::string trace = BytesField(1, IntField(10, 3) + IntField(13, 1) + tracks) +
                            instant(100, 7) + instant(200, 8) + instant(300, 9);
  TraceStorage storage;
  ImportTrace(trace.data(), trace.size(), &storage);
  ASSERT_EQ(storage.slice.size(), 3u);
  EXPECT_EQ(storage.strings.Get(storage.track.name[storage.slice.track_id[0]]), "static");
  EXPECT_EQ(storage.strings.Get(storage.track.name[storage.slice.track_id[1]]), "atrace");
  EXPECT_EQ(storage.strings.Get(storage.track.name[storage.slice.track_id[2]]), "plain");
}

}  // namespace
}  // namespace processor
}  // namespace zt
