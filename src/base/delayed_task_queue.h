// DelayedTaskQueue: delayed tasks ordered by deadline, then by posting
// order, for the task runners (UnixTaskRunner on the steady clock,
// TestTaskRunner on virtual milliseconds). Not thread-safe: the runners
// guard it with their lock. Push and each task moved out: O(log n).

#ifndef ZT_SRC_BASE_DELAYED_TASK_QUEUE_H_
#define ZT_SRC_BASE_DELAYED_TASK_QUEUE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace zt {
namespace base {

template <typename Time>
class DelayedTaskQueue {
 public:
  void Push(Time deadline, std::function<void()> task) {
    heap_.push(Entry{deadline, next_seq_++, std::move(task)});
  }

  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }

  // The earliest deadline. Not empty().
  Time next_deadline() const { return heap_.top().deadline; }

  // Appends every task due at |now| (deadline <= now) to |out|, in deadline
  // then posting order. The runners append to the back of their immediate
  // queue: a due task runs after the tasks posted before it became due.
  // Returns how many moved.
  size_t MoveDueTo(Time now, std::deque<std::function<void()>>* out) {
    size_t moved = 0;
    while (!heap_.empty() && !(now < heap_.top().deadline)) {
      // top() is const; the entry is popped right after, so moving its task
      // out cannot break the heap's order (which never looks at tasks).
      out->push_back(std::move(const_cast<Entry&>(heap_.top()).task));
      heap_.pop();
      moved++;
    }
    return moved;
  }

 private:
  struct Entry {
    Time deadline;
    uint64_t seq;  // Keeps equal deadlines in posting order.
    std::function<void()> task;
    bool operator>(const Entry& o) const {
      return deadline != o.deadline ? o.deadline < deadline : seq > o.seq;
    }
  };

  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace base
}  // namespace zt

#endif  // ZT_SRC_BASE_DELAYED_TASK_QUEUE_H_
