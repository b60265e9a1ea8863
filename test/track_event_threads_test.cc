// Track events while threads emit and sessions start and stop under them:
// every event exactly once, and none written into a session that does not
// record its category (track_event_test_support.h reads the traces).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "test/track_event_test_support.h"

namespace zt {
namespace track_event_test {
namespace {

TEST_F(TrackEventTest, EightThreadsEveryEventExactlyOnce) {
  constexpr int kThreads = 8;
  constexpr int kEvents = 5000;
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [] {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++) {
      threads.emplace_back([t] {
        for (int i = 0; i < kEvents; i++) {
          TRACE_EVENT("test", "work", "id", t * kEvents + i);
          TRACE_COUNTER("test", "progress", i);
        }
      });
    }
    for (auto& thread : threads)
      thread.join();
  });
  std::vector<int> seen(kThreads * kEvents, 0);
  size_t ends = 0;
  for (const Event& e : read.events) {
    if (e.type == 2)
      ends++;
    auto it = e.args.find("id");
    if (it == e.args.end())
      continue;
    const int id = std::stoi(it->second.substr(4));  // "int:N"
    ASSERT_GE(id, 0);
    ASSERT_LT(id, kThreads * kEvents);
    seen[static_cast<size_t>(id)]++;
  }
  for (int id = 0; id < kThreads * kEvents; id++)
    ASSERT_EQ(seen[static_cast<size_t>(id)], 1) << "event " << id;
  EXPECT_EQ(ends, static_cast<size_t>(kThreads * kEvents));
}

TEST_F(TrackEventTest, SessionsStartAndStopWhileThreadsEmit) {
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; t++) {
    threads.emplace_back([&stop] {
      while (!stop.load(std::memory_order_relaxed)) {
        TRACE_EVENT("test", "busy");
        TRACE_EVENT_INSTANT("gfx", "frame", "n", 1);
      }
    });
  }
  // What a gfx-only session held that it should not (checked once the
  // threads are joined: an ASSERT here would leave them running, and the
  // process would abort without saying what was wrong).
  std::vector<std::string> misplaced;
  for (int round = 0; round < 6; round++) {
    // Alternate configs so that category states change under the threads.
    ReadTrace read = Record(SerializeTrackEventConfig({round % 2 ? "gfx" : "*"}, {"*"}),
                            [] { std::this_thread::yield(); });
    if (round % 2 == 0)
      continue;
    for (const Event& e : read.events) {
      if (e.type != 2 && e.category != "gfx")
        misplaced.push_back("round " + std::to_string(round) + ": " + e.category + " " + e.name);
    }
  }
  stop = true;
  for (auto& thread : threads)
    thread.join();
  EXPECT_TRUE(misplaced.empty()) << misplaced.size() << " events of other categories, first: "
                                 << misplaced[0];
}

// A thread that found a category recording, then paused before writing
// (here: in an argument's evaluation) while the session stopped and a new
// one that does not record the category took the same instance slot, must
// not write the event into the new session.
class Gate {
 public:
  // Called by the paused thread: says it is in, then waits to be let go.
  int64_t Pass() {
    std::unique_lock<std::mutex> lock(mutex_);
    arrived_ = true;
    changed_.notify_all();
    if (!changed_.wait_for(lock, std::chrono::seconds(20), [this] { return open_; }))
      ADD_FAILURE() << "the gate was never opened";
    return 1;
  }
  bool WaitUntilArrived() {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(20), [this] { return arrived_; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool arrived_ = false;
  bool open_ = false;
};

TEST_F(TrackEventTest, EventOfACategoryTheSlotsNextSessionDoesNotRecordIsNotWritten) {
  auto expect_not_written_into_the_next_session = [this](const char* what, auto emit) {
    SCOPED_TRACE(what);
    Gate gate;
    std::thread writer;
    Record(SerializeTrackEventConfig({"*"}), [&] {
      TRACE_EVENT_INSTANT("test", "warm up");
      writer = std::thread([&] {
        TRACE_EVENT_INSTANT("test", "warm up");  // This thread's sequence is current.
        emit(gate);
      });
      ASSERT_TRUE(gate.WaitUntilArrived()) << "the writer never reached its event";
    });
    // The same slot, taken by a session without "test".
    ReadTrace next = Record(SerializeTrackEventConfig({"gfx"}, {"*"}), [&] {
      gate.Open();
      writer.join();
      TRACE_EVENT_INSTANT("gfx", "after");
    });
    for (const Event& e : next.events)
      EXPECT_EQ(e.category, "gfx") << e.name;
    EXPECT_EQ(next.events.size(), 1u);
  };
  expect_not_written_into_the_next_session(
      "int annotation", [](Gate& g) { TRACE_EVENT_INSTANT("test", "late", "n", g.Pass()); });
  expect_not_written_into_the_next_session("explicit timestamp", [](Gate& g) {
    TRACE_EVENT_INSTANT("test", "late", TraceTimestamp{static_cast<uint64_t>(g.Pass()) * 1000});
  });
  expect_not_written_into_the_next_session(
      "counter", [](Gate& g) { TRACE_COUNTER("test", "late", g.Pass()); });
  expect_not_written_into_the_next_session("dynamic category", [](Gate& g) {
    TRACE_EVENT_INSTANT(DynamicCategory{"dyn"}, "late", "n", g.Pass());
  });
}

}  // namespace
}  // namespace track_event_test
}  // namespace zt
