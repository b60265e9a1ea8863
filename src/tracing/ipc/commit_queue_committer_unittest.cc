// CommitQueueCommitter: what it refuses (and so leaves to CommitData
// messages), the socket count each record carries, a forked child kept out
// of its parent's ring, and writer threads committing at once (TSan).

#include "src/tracing/ipc/commit_queue_committer.h"

#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "src/tracing/ipc/commit_record.h"

namespace zt {
namespace {

using Status = CommitQueueReader::Status;

CommitData Batch(uint32_t page) {
  CommitData data;
  data.chunks_to_move.push_back({page, 0, 1});
  return data;
}

class CommitQueueCommitterTest : public testing::Test {
 protected:
  // Opens committer_ over a new ring; the reader reads the same mapping.
  void Open() {
    auto shm = base::MemfdSharedMemory::Create(kCommitQueueBytes);
    ASSERT_NE(shm, nullptr);
    region_ = shm->start();
    reader_.reset(new CommitQueueReader(region_, kCommitQueueBytes));
    base::ScopedFile doorbell(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    ASSERT_TRUE(doorbell);
    committer_.Open(std::move(shm), std::move(doorbell));
  }
  // The next record's batch, if the socket has caught up with it.
  Status Next(uint32_t messages_seen, CommitData* out, bool any_order = false) {
    std::string record;
    const Status status = reader_->Next(messages_seen, any_order, &record);
    if (status == Status::kRecord) {
      EXPECT_TRUE(DecodeCommitRecord(reinterpret_cast<const uint8_t*>(record.data()),
                                     record.size(), out));
    }
    return status;
  }

  CommitQueueCommitter committer_{"test.producer"};
  uint8_t* region_ = nullptr;
  std::unique_ptr<CommitQueueReader> reader_;
};

TEST_F(CommitQueueCommitterTest, RefusesUntilOpenedAndOnceClosed) {
  EXPECT_FALSE(committer_.TryCommit(Batch(1))) << "no ring yet";
  Open();
  EXPECT_TRUE(committer_.TryCommit(Batch(2)));
  committer_.Close();
  EXPECT_FALSE(committer_.TryCommit(Batch(3))) << "the connection is over";
}

TEST_F(CommitQueueCommitterTest, ABatchWithDropReportsIsLeftToAMessage) {
  Open();
  CommitData data = Batch(1);
  data.writer_drops.push_back({1, 7, 3});
  EXPECT_FALSE(committer_.TryCommit(data)) << "the record has no place for drop reports";
  CommitData out;
  EXPECT_EQ(Next(0, &out), Status::kEmpty);
}

TEST_F(CommitQueueCommitterTest, EachRecordWaitsForTheMessagesCountedBeforeIt) {
  Open();
  committer_.SendCounted([] { return true; });
  committer_.SendCounted([] { return true; });
  ASSERT_TRUE(committer_.TryCommit(Batch(4)));
  CommitData out;
  EXPECT_EQ(Next(1, &out), Status::kWaiting) << "two messages were sent before it";
  ASSERT_EQ(Next(2, &out), Status::kRecord);
  EXPECT_EQ(out, Batch(4));
}

// A writer committing while the IPC thread sends a message waits until the
// message is counted: its record never carries the count from before a
// message already on the socket. (The writer gets 100 ms to get in
// between; with the count and the send apart, it does at once.)
TEST_F(CommitQueueCommitterTest, ARecordNeverCarriesTheCountFromBeforeAMessageSent) {
  Open();
  std::atomic<bool> committed{false};
  std::thread writer;
  ASSERT_TRUE(committer_.SendCounted([&] {
    writer = std::thread([&] { committed = committer_.TryCommit(Batch(5)); });
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
    while (!committed.load() && std::chrono::steady_clock::now() < until)
      std::this_thread::yield();
    return true;
  }));
  writer.join();
  ASSERT_TRUE(committed.load());
  CommitData out;
  EXPECT_EQ(Next(0, &out), Status::kWaiting) << "the record went in before the message's count";
  ASSERT_EQ(Next(1, &out), Status::kRecord);
  EXPECT_EQ(out, Batch(5));
}

TEST_F(CommitQueueCommitterTest, AMessageNotSentIsNotCounted) {
  Open();
  EXPECT_FALSE(committer_.SendCounted([] { return false; }));
  ASSERT_TRUE(committer_.TryCommit(Batch(6)));
  CommitData out;
  EXPECT_EQ(Next(0, &out), Status::kRecord) << "a refused message held the record back";
}

TEST_F(CommitQueueCommitterTest, AFullRingRefusesAndTakesBatchesAgainOnceRead) {
  Open();
  int taken = 0;
  while (committer_.TryCommit(Batch(static_cast<uint32_t>(taken))) && taken < 100000)
    taken++;
  ASSERT_GT(taken, 0);
  ASSERT_LT(taken, 100000) << "the ring never filled";
  CommitData out;
  ASSERT_EQ(Next(0, &out), Status::kRecord);
  EXPECT_EQ(out, Batch(0));
  EXPECT_TRUE(committer_.TryCommit(Batch(1)));
}

// The child of fork() shares the parent's mapping: a record of its own
// would be a second writer in the parent's ring.
TEST_F(CommitQueueCommitterTest, AForkedChildLeavesItsParentsRingAlone) {
  Open();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0)
    _exit(committer_.TryCommit(Batch(9)) ? 1 : 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child wrote into its parent's ring";
  CommitData out;
  EXPECT_EQ(Next(0, &out), Status::kEmpty);
  EXPECT_TRUE(committer_.TryCommit(Batch(9))) << "the parent's own commits still go";
}

// Writer threads and the IPC thread (counting messages) at once: every
// batch comes out exactly once, each thread's in the order it made them.
TEST_F(CommitQueueCommitterTest, ThreadsCommittingAtOnceEachGetTheirBatchesThroughInOrder) {
  Open();
  constexpr uint32_t kThreads = 4, kBatches = 2000;
  std::vector<std::thread> threads;
  std::atomic<bool> done{false};
  for (uint32_t t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      for (uint32_t i = 0; i < kBatches && !done.load(); i++) {
        // A full ring: the reader below makes room (until it gives up).
        while (!committer_.TryCommit(Batch(t << 16 | i)) && !done.load())
          std::this_thread::yield();
      }
    });
  }
  std::thread messages([&] {
    while (!done.load())
      committer_.SendCounted([] { return true; });
  });
  std::vector<uint32_t> next(kThreads, 0);
  uint32_t read = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (read < kThreads * kBatches && std::chrono::steady_clock::now() < deadline) {
    CommitData out;
    if (Next(0, &out, /*any_order=*/true) != Status::kRecord) {
      std::this_thread::yield();
      continue;
    }
    // EXPECT and break, not ASSERT: the threads must be joined below.
    if (out.chunks_to_move.size() != 1u || out.chunks_to_move[0].page >> 16 >= kThreads) {
      ADD_FAILURE() << "a record that no thread wrote";
      break;
    }
    const uint32_t page = out.chunks_to_move[0].page, t = page >> 16;
    EXPECT_EQ(page & 0xffff, next[t]) << "thread " << t << "'s batches out of order";
    next[t] = (page & 0xffff) + 1;
    read++;
  }
  done = true;
  messages.join();
  for (std::thread& t : threads)
    t.join();
  EXPECT_EQ(read, kThreads * kBatches) << "batches missing after 60 s";
}

}  // namespace
}  // namespace zt
