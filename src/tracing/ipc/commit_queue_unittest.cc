#include "src/tracing/ipc/commit_queue.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace zt {
namespace {

using Status = CommitQueueReader::Status;

// The shared region in one process: both sides map the same bytes.
class CommitQueueTest : public testing::Test {
 protected:
  CommitQueueTest()
      : region_(kCommitQueueBytes, 0),
        doorbell_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
        reader_(region_.data(), region_.size()),
        writer_(region_.data(), region_.size(), doorbell_) {}
  ~CommitQueueTest() override { close(doorbell_); }

  // How many times the doorbell rang since the last call.
  uint64_t Rings() {
    uint64_t n = 0;
    return read(doorbell_, &n, sizeof(n)) == sizeof(n) ? n : 0;
  }
  void PokeHeader(size_t offset, uint64_t value) {
    memcpy(region_.data() + offset, &value, sizeof(value));
  }

  std::vector<uint8_t> region_;
  int doorbell_;
  CommitQueueReader reader_;
  CommitQueueWriter writer_;
  std::string record_;
};

TEST_F(CommitQueueTest, RecordsComeOutAsTheyWentIn) {
  ASSERT_TRUE(writer_.Write("first", 5, 0));
  ASSERT_TRUE(writer_.Write("", 0, 0));
  ASSERT_TRUE(writer_.Write("third record", 12, 0));
  EXPECT_EQ(reader_.Next(0, false, &record_), Status::kRecord);
  EXPECT_EQ(record_, "first");
  EXPECT_EQ(reader_.Next(0, false, &record_), Status::kRecord);
  EXPECT_EQ(record_, "");
  EXPECT_EQ(reader_.Next(0, false, &record_), Status::kRecord);
  EXPECT_EQ(record_, "third record");
  EXPECT_EQ(reader_.Next(0, false, &record_), Status::kEmpty);
  EXPECT_TRUE(writer_.Drained());
  EXPECT_EQ(reader_.records_read(), 3u);
}

TEST_F(CommitQueueTest, RecordsWrapAroundTheRingEnd) {
  // Sizes that do not divide the ring, so records straddle its end.
  std::string payload(1000, 'x');
  for (int i = 0; i < 1000; i++) {
    payload[0] = static_cast<char>(i);
    payload[999] = static_cast<char>(i * 7);
    ASSERT_TRUE(writer_.Write(payload.data(), payload.size() - (i % 13), 0)) << i;
    ASSERT_EQ(reader_.Next(0, false, &record_), Status::kRecord) << i;
    ASSERT_EQ(record_, payload.substr(0, payload.size() - (i % 13))) << i;
  }
}

TEST_F(CommitQueueTest, AFullRingRefusesWithoutWriting) {
  std::string payload(4000, 'a');
  int written = 0;
  while (writer_.Write(payload.data(), payload.size(), 0))
    written++;
  EXPECT_EQ(written, static_cast<int>(kCommitQueueRingBytes / (payload.size() + 8)));
  EXPECT_FALSE(writer_.closed());
  // One read makes room for one more, and nothing was half written.
  ASSERT_EQ(reader_.Next(0, false, &record_), Status::kRecord);
  EXPECT_TRUE(writer_.Write(payload.data(), payload.size(), 0));
  int read_back = 1;
  while (reader_.Next(0, false, &record_) == Status::kRecord) {
    EXPECT_EQ(record_, payload);
    read_back++;
  }
  EXPECT_EQ(read_back, written + 1);
}

TEST_F(CommitQueueTest, TheDoorbellRingsOnlyForAnIdleReader) {
  // Busy (as a new region is): no doorbell.
  ASSERT_TRUE(writer_.Write("a", 1, 0));
  EXPECT_EQ(Rings(), 0u);
  // Idle with a record unread: it stays busy.
  EXPECT_FALSE(reader_.GoIdle());
  ASSERT_EQ(reader_.Next(0, false, &record_), Status::kRecord);
  EXPECT_TRUE(reader_.GoIdle());
  // The first record after it went idle rings, once; the next does not.
  ASSERT_TRUE(writer_.Write("b", 1, 0));
  EXPECT_EQ(Rings(), 1u);
  ASSERT_TRUE(writer_.Write("c", 1, 0));
  EXPECT_EQ(Rings(), 0u);
  EXPECT_EQ(writer_.doorbells_rung(), 1u);
}

TEST_F(CommitQueueTest, ABusyReaderIsRungOnceWhenTheRingFillsPastHalf) {
  // A polling reader is busy and looks only every interval: the record
  // that fills the ring past half rings it, and no other does.
  std::string payload(1000, 'p');
  const size_t record = payload.size() + kCommitRecordHeaderBytes;
  const size_t to_half = (kCommitQueueRingBytes / 2 + record - 1) / record;
  for (size_t i = 0; i + 1 < to_half; i++)
    ASSERT_TRUE(writer_.Write(payload.data(), payload.size(), 0)) << i;
  EXPECT_EQ(Rings(), 0u) << "rung below half";
  ASSERT_TRUE(writer_.Write(payload.data(), payload.size(), 0));
  EXPECT_EQ(Rings(), 1u) << "the record crossing half did not ring";
  while (writer_.Write(payload.data(), payload.size(), 0)) {
  }
  EXPECT_EQ(Rings(), 0u) << "rung again past half";
  // Read down below half and fill again: a new crossing, a new ring.
  while (reader_.Next(0, false, &record_) == Status::kRecord) {
  }
  for (size_t i = 0; i < to_half; i++)
    ASSERT_TRUE(writer_.Write(payload.data(), payload.size(), 0)) << i;
  EXPECT_EQ(Rings(), 1u);
  EXPECT_EQ(writer_.doorbells_rung(), 2u);
}

TEST_F(CommitQueueTest, ARecordAheadOfTheSocketWaitsForIt) {
  ASSERT_TRUE(writer_.Write("after 0", 7, 0));
  ASSERT_TRUE(writer_.Write("after 2", 7, 2));
  EXPECT_EQ(reader_.Next(0, false, &record_), Status::kRecord);
  EXPECT_EQ(reader_.Next(1, false, &record_), Status::kWaiting);
  EXPECT_EQ(reader_.Next(2, false, &record_), Status::kRecord);
  EXPECT_EQ(record_, "after 2");
  // Sequences wrap around 2^32.
  ASSERT_TRUE(writer_.Write("wrapped", 7, 3));
  EXPECT_EQ(reader_.Next(0xFFFFFFFFu, false, &record_), Status::kWaiting);
  EXPECT_EQ(reader_.Next(5, false, &record_), Status::kRecord);
  // A connection that is over takes what is left whatever its order.
  ASSERT_TRUE(writer_.Write("late", 4, 100));
  EXPECT_EQ(reader_.Next(5, true, &record_), Status::kRecord);
}

TEST_F(CommitQueueTest, AWritePositionBeyondTheRingIsCorrupt) {
  PokeHeader(0, kCommitQueueRingBytes + 1);
  EXPECT_EQ(reader_.Next(0, false, &record_), Status::kCorrupt);
  EXPECT_NE(reader_.error().find("outside the ring"), std::string::npos);
  // Closed for good, and the writer learns it with its next record.
  EXPECT_EQ(reader_.Next(0, false, &record_), Status::kCorrupt);
  EXPECT_FALSE(writer_.Write("x", 1, 0));
  EXPECT_TRUE(writer_.closed());
}

TEST_F(CommitQueueTest, APartialHeaderIsCorrupt) {
  PokeHeader(0, 3);
  EXPECT_EQ(reader_.Next(0, false, &record_), Status::kCorrupt);
  EXPECT_NE(reader_.error().find("in part"), std::string::npos);
}

TEST_F(CommitQueueTest, ARecordLargerThanPublishedIsCorrupt) {
  ASSERT_TRUE(writer_.Write("abcd", 4, 0));
  // The size field says more than the 4 bytes published.
  const uint32_t size = 5;
  memcpy(region_.data() + kCommitQueueHeaderBytes, &size, sizeof(size));
  EXPECT_EQ(reader_.Next(0, false, &record_), Status::kCorrupt);
  EXPECT_NE(reader_.error().find("larger"), std::string::npos);
}

TEST_F(CommitQueueTest, AReadPositionBeyondOursLeavesNoRoom) {
  // A broken reader publishing a position ahead of the writer's: the
  // writer refuses rather than overwrite what it thinks is unread.
  PokeHeader(64, 1000);
  EXPECT_FALSE(writer_.Write("x", 1, 0));
  EXPECT_FALSE(writer_.closed());
}

TEST(CommitQueueSizeTest, OnlyAHeaderAndAPowerOfTwoRing) {
  EXPECT_TRUE(IsValidCommitQueueSize(kCommitQueueBytes));
  EXPECT_TRUE(IsValidCommitQueueSize(kCommitQueueHeaderBytes + 4096));
  EXPECT_FALSE(IsValidCommitQueueSize(kCommitQueueHeaderBytes + 4095));
  EXPECT_FALSE(IsValidCommitQueueSize(kCommitQueueHeaderBytes + 2048));
  EXPECT_FALSE(IsValidCommitQueueSize(kCommitQueueHeaderBytes + 2 * 1024 * 1024));
  EXPECT_FALSE(IsValidCommitQueueSize(kCommitQueueHeaderBytes));
  EXPECT_FALSE(IsValidCommitQueueSize(0));
}

// A writer and a reader on two threads, the reader sleeping on the
// doorbell whenever it finds the ring empty: every record arrives, in
// order, and no wake-up is missed (a missed one would stall the reader
// until the deadline fails the test).
TEST_F(CommitQueueTest, TwoThreadsLoseNoRecordAndNoWakeUp) {
  constexpr uint32_t kRecords = 200000;
  std::atomic<bool> stop{false};
  std::thread writer([this, &stop] {
    for (uint32_t i = 0; i < kRecords && !stop.load();) {
      const uint32_t payload[3] = {i, i * 3, ~i};
      if (writer_.Write(payload, sizeof(payload) - (i % 3) * 4, 0))
        i++;
      else
        std::this_thread::yield();  // Full: the reader is behind.
    }
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  uint32_t expected = 0;
  std::string failure;
  while (expected < kRecords && failure.empty()) {
    const Status status = reader_.Next(0, false, &record_);
    if (status == Status::kRecord) {
      uint32_t first = 0;
      memcpy(&first, record_.data(), sizeof(first));
      if (first != expected || record_.size() != 12 - (expected % 3) * 4)
        failure = "record " + std::to_string(expected) + " out of order or resized";
      expected++;
    } else if (status != Status::kEmpty) {
      failure = "reader: " + reader_.error();
    } else if (reader_.GoIdle()) {
      // Asleep until the doorbell, which the writer must ring.
      while (Rings() == 0 && failure.empty()) {
        if (std::chrono::steady_clock::now() > deadline)
          failure = "no doorbell after record " + std::to_string(expected) + " (lost wake-up)";
        std::this_thread::yield();
      }
    }
  }
  stop = true;
  writer.join();
  ASSERT_EQ(failure, "");
  EXPECT_EQ(expected, kRecords);
  EXPECT_EQ(reader_.Next(0, false, &record_), Status::kEmpty);
}

}  // namespace
}  // namespace zt
