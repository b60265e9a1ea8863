// The bound on what one client of `ztrace serve` has queued and not yet
// read: the processor thread adds bytes and then waits while more than the
// limit are queued; the I/O thread subtracts what it has written. A client
// that stops reading stalls only its own query, and only for `stall`:
// then the gate closes, the query is interrupted and the connection ends.
//
// Thread-safe: one producer (the processor thread) and the I/O thread.

#ifndef ZT_SRC_CMD_ZTRACE_SERVE_OUTPUT_GATE_H_
#define ZT_SRC_CMD_ZTRACE_SERVE_OUTPUT_GATE_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace zt {
namespace ztrace {
namespace serve {

class OutputGate {
 public:
  OutputGate(size_t limit, std::chrono::milliseconds stall) : limit_(limit), stall_(stall) {}

  // Counts `bytes` as queued, before they are handed to the I/O thread
  // (which may write them at once). False if the gate is closed: the
  // caller drops them and stops sending.
  bool Add(size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_)
      return false;
    queued_ += bytes;
    return true;
  }

  // Waits while more than the limit is queued and the I/O thread makes
  // progress. False if the gate is closed, now or by a stall of `stall`
  // without any byte written (which closes it).
  bool WaitBelowLimit() {
    std::unique_lock<std::mutex> lock(mu_);
    while (queued_ > limit_ && !closed_) {
      const size_t before = queued_;
      if (!drained_.wait_for(lock, stall_, [&] { return closed_ || queued_ < before; })) {
        stalled_ = true;
        Close(lock);
      }
    }
    return !closed_;
  }

  // The I/O thread wrote `bytes` of what was added.
  void Drained(size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    queued_ = bytes > queued_ ? 0 : queued_ - bytes;
    drained_.notify_all();
  }

  // The client is gone (or too slow): later Add()s fail at once.
  void Close() {
    std::unique_lock<std::mutex> lock(mu_);
    Close(lock);
  }

  // Lock-free: the query's interrupt check reads it.
  bool closed() const { return closed_flag_.load(std::memory_order_relaxed); }
  // Whether it closed because the reader stalled (not because it left).
  bool stalled() const {
    std::lock_guard<std::mutex> lock(mu_);
    return stalled_;
  }
  size_t queued() const {
    std::lock_guard<std::mutex> lock(mu_);
    return queued_;
  }

 private:
  void Close(std::unique_lock<std::mutex>&) {
    closed_ = true;
    closed_flag_.store(true, std::memory_order_relaxed);
    drained_.notify_all();
  }

  const size_t limit_;
  const std::chrono::milliseconds stall_;
  mutable std::mutex mu_;
  std::condition_variable drained_;
  size_t queued_ = 0;
  bool closed_ = false;
  bool stalled_ = false;
  std::atomic<bool> closed_flag_{false};
};

}  // namespace serve
}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_SERVE_OUTPUT_GATE_H_
