// Bounded waits for tests: the one way a zerotrace test waits for another
// thread. Every wait has a timeout and reports whether the condition held,
// so a broken test fails with its own message in seconds instead of hanging
// until ctest kills it:
//
//   ASSERT_TRUE(WaitFor([&] { return done.load(); })) << "flush never ended";
//   ASSERT_TRUE(event.Wait()) << "the watch callback never ran";
//
// Test support only (library zt_base_testing, never installed). Thread-safe
// as stated per function; none of them allocates per poll.

#ifndef ZT_SRC_BASE_TEST_WAIT_H_
#define ZT_SRC_BASE_TEST_WAIT_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

namespace zt {
namespace base {

class TaskRunner;

// The bound tests use unless they have a reason for another: generous for a
// loaded 2-core CI machine running TSan (10-50x slower), yet a hang still
// fails in seconds. Waits for something that must NOT happen use a short
// bound of their own.
constexpr uint32_t kTestTimeoutMs = 10000;

// Evaluates |condition| on the calling thread, first at once, then about
// every millisecond, until it returns true (-> true) or |timeout_ms| have
// passed (-> false, after one last evaluation). |condition| must be safe to
// evaluate concurrently with the threads that change what it reads (atomics,
// or a lock it takes itself).
bool WaitFor(const std::function<bool()>& condition,
             uint32_t timeout_ms = kTestTimeoutMs);

// Waits on |cv| until |condition| holds (evaluated with |mutex| locked, so it
// may read state guarded by |mutex|; whoever changes that state notifies
// |cv|) or |timeout_ms| have passed. Returns whether it held. Called without
// |mutex| held.
bool WaitFor(std::mutex& mutex, std::condition_variable& cv,
             const std::function<bool()>& condition,
             uint32_t timeout_ms = kTestTimeoutMs);

// Posts |task| to |runner| and waits until it has run (-> true) or
// |timeout_ms| have passed (-> false). Unlike ThreadTaskRunner's
// PostTaskAndWait it cannot hang. After a timeout the task may still run
// later: the test has failed by then and should end (ASSERT).
bool PostAndWaitFor(TaskRunner* runner, std::function<void()> task,
                    uint32_t timeout_ms = kTestTimeoutMs);

// The calling thread's kernel id (gettid), for WaitUntilBlockedInPoll.
int CurrentThreadId();

// Waits until thread |tid| of this process sleeps in a poll-family system
// call (poll, ppoll, select, pselect, epoll_wait, epoll_pwait[2]), as read
// from /proc/self/task/TID/syscall: the state a test needs to show that a
// wake-up works, reached without guessing with a sleep. True once seen,
// false after |timeout_ms| (or if /proc cannot tell).
bool WaitUntilBlockedInPoll(int tid, uint32_t timeout_ms = kTestTimeoutMs);

// A one-shot event: Notify() from any thread; Wait() from any other, bounded.
// Once notified it stays notified. Thread-safe.
class TestEvent {
 public:
  void Notify();
  bool notified() const;
  // True once notified, false if |timeout_ms| passed first.
  bool Wait(uint32_t timeout_ms = kTestTimeoutMs);

 private:
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool notified_ = false;
};

}  // namespace base
}  // namespace zt

#endif  // ZT_SRC_BASE_TEST_WAIT_H_
