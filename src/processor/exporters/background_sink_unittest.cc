#include "src/processor/exporters/background_sink.h"

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace zt {
namespace processor {
namespace {

// Records what it is given and on which thread; fails its n-th write (from
// 0) when asked to, and counts calls after that.
class RecordingSink : public JsonSink {
 public:
  bool Write(const char* data, size_t size, std::string* error) override {
    writer_thread_ = std::this_thread::get_id();
    if (fail_at_ >= 0 && writes_ >= fail_at_) {
      writes_after_failure_ += writes_ > fail_at_;
      writes_++;
      *error = "No space left on device";
      return false;
    }
    writes_++;
    bytes_.append(data, size);
    return true;
  }
  bool Finish(std::string* error) override {
    (void)error;
    finished_ = true;
    return true;
  }
  std::string bytes_;
  int fail_at_ = -1;
  int writes_ = 0;
  int writes_after_failure_ = 0;
  bool finished_ = false;
  std::thread::id writer_thread_;
};

// Many writes of uneven sizes (some over a chunk): every byte arrives, in
// order, written by the sink's thread, and Finish reaches the wrapped sink.
TEST(BackgroundSinkTest, EveryByteArrivesInOrderFromItsThread) {
  RecordingSink inner;
  std::string expected;
  {
    BackgroundSink sink(&inner);
    std::string error;
    for (int i = 0; i < 3000; i++) {
      const size_t size = i % 500 == 0 ? BackgroundSink::kChunkBytes + 17 : (i * 37) % 4096;
      std::string piece(size, static_cast<char>('a' + i % 26));
      if (!piece.empty())
        piece[0] = static_cast<char>(i);
      expected += piece;
      ASSERT_TRUE(sink.Write(piece.data(), piece.size(), &error)) << error;
    }
    ASSERT_TRUE(sink.Finish(&error)) << error;
  }
  EXPECT_TRUE(inner.finished_);
  EXPECT_EQ(inner.bytes_.size(), expected.size());
  EXPECT_TRUE(inner.bytes_ == expected) << "bytes out of order or lost";
  EXPECT_NE(inner.writer_thread_, std::this_thread::get_id());
  EXPECT_GT(inner.writes_, 1);
}

// The wrapped sink's first failure comes back from a later Write or from
// Finish, with its message; nothing is written to it afterwards, and its
// Finish is not called.
TEST(BackgroundSinkTest, TheFirstFailureIsReturnedAndNothingIsWrittenAfter) {
  RecordingSink inner;
  inner.fail_at_ = 1;
  BackgroundSink sink(&inner);
  const std::string chunk(BackgroundSink::kChunkBytes, 'x');
  std::string error;
  bool failed = false;
  for (int i = 0; i < 64 && !failed; i++)
    failed = !sink.Write(chunk.data(), chunk.size(), &error);
  if (!failed)
    failed = !sink.Finish(&error);
  else
    EXPECT_FALSE(sink.Finish(&error));
  EXPECT_TRUE(failed);
  EXPECT_EQ(error, "No space left on device");
  EXPECT_EQ(inner.bytes_.size(), BackgroundSink::kChunkBytes) << "the chunk before the failure";
  EXPECT_EQ(inner.writes_after_failure_, 0);
  EXPECT_FALSE(inner.finished_);
}

// A failure in the last chunk shows at Finish.
TEST(BackgroundSinkTest, AFailureOfTheLastChunkShowsAtFinish) {
  RecordingSink inner;
  inner.fail_at_ = 0;
  BackgroundSink sink(&inner);
  std::string error;
  ASSERT_TRUE(sink.Write("abc", 3, &error));
  EXPECT_FALSE(sink.Finish(&error));
  EXPECT_EQ(error, "No space left on device");
}

// Memory stays bounded when the wrapped sink is slow: the writer waits.
// The wrapped sink holds each write until the test lets it go; while it is
// held, at most the pending chunks (and the one being written) are taken.
class GatedSink : public JsonSink {
 public:
  bool Write(const char* data, size_t size, std::string* error) override {
    (void)data;
    (void)error;
    entered_++;
    while (!open_.load())
      std::this_thread::yield();
    bytes_ += size;
    return true;
  }
  std::atomic<int> entered_{0};
  std::atomic<bool> open_{false};
  std::atomic<size_t> bytes_{0};
};

TEST(BackgroundSinkTest, AWriterWaitsPastThePendingBound) {
  GatedSink inner;
  BackgroundSink sink(&inner);
  const std::string chunk(BackgroundSink::kChunkBytes, 'y');
  std::atomic<int> written{0};
  std::thread writer([&] {
    std::string error;
    for (int i = 0; i < 20; i++) {
      sink.Write(chunk.data(), chunk.size(), &error);
      written++;
    }
  });
  // The writer's first chunk is held by the wrapped sink, the next ones
  // fill the pending queue; then it waits. Bounded wait for it to get there.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (written.load() < static_cast<int>(BackgroundSink::kMaxPendingChunks) + 1 &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::yield();
  EXPECT_EQ(written.load(), static_cast<int>(BackgroundSink::kMaxPendingChunks) + 1)
      << "the writer waited before the pending chunks were full";
  // No further Write completes while the wrapped sink is held: give them a
  // moment to try (a failure shows as more, never a hang).
  for (int i = 0; i < 1000; i++)
    std::this_thread::yield();
  EXPECT_LE(written.load(), static_cast<int>(BackgroundSink::kMaxPendingChunks) + 1);
  inner.open_ = true;
  writer.join();
  std::string error;
  EXPECT_TRUE(sink.Finish(&error)) << error;
  EXPECT_EQ(inner.bytes_.load(), 20 * BackgroundSink::kChunkBytes);
}

}  // namespace
}  // namespace processor
}  // namespace zt
