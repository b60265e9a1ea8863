// Orders track events across sequences by trace time before they are
// parsed (docs/design/trace_processor.md, "Sorting").
//
// Each sequence's events go to a queue of their own in file order. Writers
// emit a sequence in time order, so a queue is almost always sorted
// already; one that is not is sorted (stably) when the file has been read.
// The queues are then merged by (ts, file offset): the whole trace is
// sorted, with no window that could drop late events, for 24 bytes per
// event held until it is parsed. Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_PACKET_SORTER_H_
#define ZT_SRC_PROCESSOR_PACKET_SORTER_H_

#include <cstdint>
#include <functional>
#include <vector>

namespace zt {
namespace processor {

// A TrackEvent's bytes (as an offset into the traced buffer), its time, and
// the interned-state generation it was read under.
struct SortedEvent {
  int64_t ts;
  uint64_t offset;
  uint32_t size;
  uint32_t generation;
};

class PacketSorter {
 public:
  // `queue` is the sequence's index (dense, from 0).
  void Push(uint32_t queue, const SortedEvent& event) {
    if (queue >= queues_.size())
      queues_.resize(queue + 1);
    Queue& q = queues_[queue];
    if (!q.events.empty() && event.ts < q.events.back().ts)
      q.sorted = false;
    q.events.push_back(event);
    size_++;
  }

  size_t size() const { return size_; }
  // Queues that were not in time order in the file.
  uint64_t unsorted_queues() const { return unsorted_queues_; }

  // Calls `fn` for every event in (ts, offset) order and empties the
  // sorter, releasing each queue's memory as soon as it is consumed.
  void Drain(const std::function<void(const SortedEvent&)>& fn);

 private:
  struct Queue {
    std::vector<SortedEvent> events;
    bool sorted = true;
  };
  std::vector<Queue> queues_;
  size_t size_ = 0;
  uint64_t unsorted_queues_ = 0;
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_PACKET_SORTER_H_
