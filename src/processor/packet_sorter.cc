#include "src/processor/packet_sorter.h"

#include <algorithm>
#include <queue>
#include <utility>

namespace zt {
namespace processor {
namespace {

bool Before(const SortedEvent& a, const SortedEvent& b) {
  return a.ts != b.ts ? a.ts < b.ts : a.offset < b.offset;
}

}  // namespace

void PacketSorter::Drain(const std::function<void(const SortedEvent&)>& fn) {
  for (Queue& q : queues_) {
    if (!q.sorted) {
      std::stable_sort(q.events.begin(), q.events.end(), Before);
      unsorted_queues_++;
    }
  }
  // Heads of the non-empty queues, smallest (ts, offset) on top.
  struct Head {
    const SortedEvent* event;
    size_t queue;
  };
  auto after = [](const Head& a, const Head& b) { return Before(*b.event, *a.event); };
  std::priority_queue<Head, std::vector<Head>, decltype(after)> heads(after);
  std::vector<size_t> next(queues_.size(), 0);
  for (size_t i = 0; i < queues_.size(); i++) {
    if (!queues_[i].events.empty())
      heads.push(Head{&queues_[i].events[0], i});
  }
  while (!heads.empty()) {
    const size_t i = heads.top().queue;
    heads.pop();
    std::vector<SortedEvent>& events = queues_[i].events;
    // Runs of one queue that come before every other head need no heap
    // traffic: the common case when one thread dominates a stretch.
    const SortedEvent* bound = heads.empty() ? nullptr : heads.top().event;
    size_t pos = next[i];
    do {
      fn(events[pos]);
      pos++;
    } while (pos < events.size() && (!bound || !Before(*bound, events[pos])));
    next[i] = pos;
    if (pos < events.size()) {
      heads.push(Head{&events[pos], i});
    } else {
      std::vector<SortedEvent>().swap(events);
    }
  }
  queues_.clear();
  size_ = 0;
}

}  // namespace processor
}  // namespace zt
