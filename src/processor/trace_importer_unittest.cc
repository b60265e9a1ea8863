#include "src/processor/trace_importer.h"

#include <cmath>
#include <map>
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

}  // namespace
}  // namespace processor
}  // namespace zt
