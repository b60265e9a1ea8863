// ImportGrowingProtoTrace: a trace read while its bytes arrive makes the
// model ImportTrace makes of the whole, however the bytes are cut.

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "src/processor/importers/trace_importer.h"

namespace zt {
namespace processor {
namespace growing_import_test {

std::string ReadFixture(const std::string& name) {
  std::ifstream in(std::string(ZT_TEST_DATA_DIR) + "/perfetto_v14/" + name, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The input as if `step` more bytes came at each look (the last piece may
// be shorter), ended with the last byte.
GrowingInputFn InPiecesOf(uint64_t size, uint64_t step, int* looks) {
  return [size, step, looks](uint64_t have) {
    ++*looks;
    GrowingInput input;
    input.available = std::min(size, have + step);
    input.ended = input.available == size;
    return input;
  };
}

void ExpectSameModel(const TraceStorage& got, const ImportResult& got_result,
                     const TraceStorage& want, const ImportResult& want_result) {
  EXPECT_EQ(got_result.packets_parsed, want_result.packets_parsed);
  EXPECT_EQ(got_result.sequences, want_result.sequences);
  EXPECT_EQ(got_result.input_bytes, want_result.input_bytes);
  EXPECT_EQ(got_result.first_ts, want_result.first_ts);
  EXPECT_EQ(got_result.last_ts, want_result.last_ts);
  EXPECT_EQ(got_result.tokenizer.packets, want_result.tokenizer.packets);
  EXPECT_EQ(got_result.tokenizer.packet_bytes, want_result.tokenizer.packet_bytes);
  EXPECT_EQ(got_result.tokenizer.unknown_fields, want_result.tokenizer.unknown_fields);
  EXPECT_EQ(got_result.tokenizer.damage, want_result.tokenizer.damage);
  EXPECT_EQ(got_result.tokenizer.damage_offset, want_result.tokenizer.damage_offset);
  EXPECT_EQ(got_result.tokenizer.bytes_skipped, want_result.tokenizer.bytes_skipped);
  EXPECT_TRUE(got_result.unreadable.empty()) << got_result.unreadable;
  EXPECT_EQ(got.strings.size(), want.strings.size());
  EXPECT_EQ(got.slice.ts, want.slice.ts);
  EXPECT_EQ(got.slice.dur, want.slice.dur);
  EXPECT_EQ(got.slice.name, want.slice.name);
  EXPECT_EQ(got.slice.track_id, want.slice.track_id);
  EXPECT_EQ(got.slice.parent_id, want.slice.parent_id);
  EXPECT_EQ(got.slice.arg_set_id, want.slice.arg_set_id);
  EXPECT_EQ(got.counter.ts, want.counter.ts);
  EXPECT_EQ(got.counter.track_id, want.counter.track_id);
  EXPECT_EQ(got.args.key, want.args.key);
  EXPECT_EQ(got.args.int_value, want.args.int_value);
  EXPECT_EQ(got.track.uuid, want.track.uuid);
  EXPECT_EQ(got.flow.slice_out, want.flow.slice_out);
  EXPECT_EQ(got.data_losses.size(), want.data_losses.size());
  EXPECT_EQ(got.metadata.size(), want.metadata.size());
  for (int key = 0; key < stats::kNumKeys; key++) {
    EXPECT_EQ(got.stats.Get(static_cast<stats::Key>(key)),
              want.stats.Get(static_cast<stats::Key>(key)))
        << "stats key " << key;
  }
}

void CheckEveryCut(const std::string& bytes, const ImportOptions& options) {
  TraceStorage want;
  const ImportResult want_result = ImportTrace(bytes.data(), bytes.size(), &want, options);
  ASSERT_GT(want.slice.size(), 0u);
  // 1 and 2 cut nearly every record's header and body; 4096 and 64 KiB are
  // the sizes a tokenizer window usually has.
  for (uint64_t step : {uint64_t{1}, uint64_t{2}, uint64_t{777}, uint64_t{4096},
                        uint64_t{65536}, uint64_t{bytes.size()}}) {
    SCOPED_TRACE("pieces of " + std::to_string(step));
    int looks = 0;
    TraceStorage got;
    const ImportResult got_result = ImportGrowingProtoTrace(
        bytes.data(), InPiecesOf(bytes.size(), step, &looks), &got, options);
    EXPECT_EQ(static_cast<uint64_t>(looks), (bytes.size() + step - 1) / step);
    ExpectSameModel(got, got_result, want, want_result);
  }
}

TEST(GrowingImportTest, UpstreamTraceInAnyPiecesIsTheSameModel) {
  const std::string bytes = ReadFixture("inprocess_small.pftrace");
  ASSERT_GT(bytes.size(), 10000u);
  CheckEveryCut(bytes, ImportOptions());
}

// Losses, interning across packets, incremental state clears; the queue
// of events on a second thread.
TEST(GrowingImportTest, LossyTraceOnTwoThreadsIsTheSameModel) {
  const std::string bytes = ReadFixture("lossy_v14.pftrace");
  ASSERT_GT(bytes.size(), 100000u);
  ImportOptions two_threads;
  two_threads.two_threads_min_bytes = 0;
  CheckEveryCut(bytes, two_threads);
  CheckEveryCut(bytes, ImportOptions());
}

// A record cut by a piece's end is no damage until the input has ended
// there: a trace cut inside its last packet, or with a bad tag after its
// last packet, is judged on the whole, as the file would be.
TEST(GrowingImportTest, DamageIsJudgedAtTheEnd) {
  const std::string whole = ReadFixture("inprocess_small.pftrace");
  const std::string cut = whole.substr(0, whole.size() - 10);
  const std::string bad_tag = whole + std::string("\x07\x01\x02", 3) + whole;
  for (const std::string* bytes : {&cut, &bad_tag}) {
    TraceStorage want;
    const ImportResult want_result = ImportTrace(bytes->data(), bytes->size(), &want);
    ASSERT_NE(want_result.tokenizer.damage, TraceDamage::kNone);
    for (uint64_t step : {uint64_t{1}, uint64_t{3}, uint64_t{1000}}) {
      SCOPED_TRACE("pieces of " + std::to_string(step));
      int looks = 0;
      TraceStorage got;
      const ImportResult got_result = ImportGrowingProtoTrace(
          bytes->data(), InPiecesOf(bytes->size(), step, &looks), &got);
      ExpectSameModel(got, got_result, want, want_result);
    }
  }
}

TEST(GrowingImportTest, AnAbandonedImportReturnsAtItsNextLook) {
  const std::string bytes = ReadFixture("inprocess_small.pftrace");
  int looks = 0;
  TraceStorage storage;
  ImportOptions two_threads;
  two_threads.two_threads_min_bytes = 0;
  const ImportResult result = ImportGrowingProtoTrace(
      bytes.data(),
      [&looks, &bytes](uint64_t have) {
        GrowingInput input;
        input.available = std::min<uint64_t>(bytes.size(), have + 1000);
        input.abandoned = ++looks == 3;
        return input;
      },
      &storage, two_threads);
  EXPECT_EQ(looks, 3);
  EXPECT_FALSE(result.unreadable.empty());
  EXPECT_EQ(storage.slice.size(), 0u);  // Pass 2 never ran.
}

}  // namespace growing_import_test
}  // namespace processor
}  // namespace zt
