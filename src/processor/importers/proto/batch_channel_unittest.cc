#include "src/processor/importers/proto/batch_channel.h"

#include <cstring>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace zt {
namespace processor {
namespace {

// Records of 1..40 bytes, each filled with its index's low byte, so that a
// record cut, reordered or lost shows as a wrong byte.
size_t RecordSize(uint32_t i) { return 1 + i % 40; }

TEST(BatchChannelTest, EveryRecordArrivesWholeAndInOrder) {
  // Enough records to go round the ring of batches many times, so that the
  // producer waits for space and the consumer for batches.
  constexpr uint32_t kRecords = 200000;
  BatchChannel channel;
  std::thread producer([&] {
    for (uint32_t i = 0; i < kRecords; i++) {
      const size_t size = RecordSize(i);
      uint8_t* p = channel.Reserve(size + 4);
      memcpy(p, &i, 4);
      memset(p + 4, static_cast<int>(i & 0xff), size);
      channel.Commit(p + 4 + size);
    }
    channel.Close();
  });
  uint32_t expected = 0;
  size_t batches = 0;
  bool ok = true;
  channel.ConsumeAll([&](const uint8_t* p, const uint8_t* end) {
    batches++;
    while (ok && p < end) {
      uint32_t index;
      memcpy(&index, p, 4);
      const size_t size = RecordSize(expected);
      if (index != expected || static_cast<size_t>(end - p) < 4 + size) {
        ADD_FAILURE() << "record " << expected << " arrived as " << index;
        ok = false;
        break;
      }
      for (size_t b = 0; b < size; b++)
        ok = ok && p[4 + b] == static_cast<uint8_t>(expected & 0xff);
      p += 4 + size;
      expected++;
    }
  });
  producer.join();
  EXPECT_TRUE(ok);
  EXPECT_EQ(expected, kRecords);
  EXPECT_GT(batches, 2 * BatchChannel::kBatches);
}

TEST(BatchChannelTest, ClosingWithoutRecordsEndsTheConsumer) {
  BatchChannel channel;
  std::thread producer([&] { channel.Close(); });
  size_t calls = 0;
  channel.ConsumeAll([&](const uint8_t*, const uint8_t*) { calls++; });
  producer.join();
  EXPECT_EQ(calls, 0u);
}

TEST(BatchChannelTest, FewerBatchesThanTheWakeLevelAllArriveAtClose) {
  // A waiting consumer sleeps until kWakeBatches are ready: a stream that
  // ends with fewer must still reach it, on Close().
  static_assert(BatchChannel::kWakeBatches > 2, "the test needs a partial wake level");
  constexpr size_t kRecords = 2 * BatchChannel::kBatchBytes / 8 + 1;  // 2 batches and a bit.
  for (int round = 0; round < 20; round++) {
    BatchChannel channel;
    std::thread producer([&] {
      for (uint64_t i = 0; i < kRecords; i++) {
        uint8_t* p = channel.Reserve(8);
        memcpy(p, &i, 8);
        channel.Commit(p + 8);
      }
      channel.Close();
    });
    uint64_t expected = 0;
    channel.ConsumeAll([&](const uint8_t* p, const uint8_t* end) {
      for (; p + 8 <= end; p += 8) {
        uint64_t value;
        memcpy(&value, p, 8);
        EXPECT_EQ(value, expected);
        expected++;
      }
    });
    producer.join();
    EXPECT_EQ(expected, kRecords);
  }
}

TEST(BatchChannelTest, AReservationLargerThanABatchIsRefused) {
  BatchChannel channel;
  EXPECT_DEATH(channel.Reserve(BatchChannel::kBatchBytes + 1), "");
}

}  // namespace
}  // namespace processor
}  // namespace zt
