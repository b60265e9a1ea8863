#include "src/processor/importers/proto/packet_sorter.h"

#include <sys/mman.h>

#include <algorithm>
#include <utility>

#include "zt/base/logging.h"

namespace zt {
namespace processor {

namespace {

// A block of the sorter, mapped directly and populated at once. Out of
// address space, nothing sensible is left to do for an importer (as when
// operator new fails in a build without exceptions).
void* MapBlock(size_t bytes) {
  void* block = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  ZT_CHECK(block != MAP_FAILED);
  return block;
}

}  // namespace

PacketSorter::BlockPtr PacketSorter::NewBlock() {
  return BlockPtr(static_cast<SortedEvent*>(MapBlock(kBlockEvents * sizeof(SortedEvent))));
}

void PacketSorter::BlockDeleter::operator()(SortedEvent* block) const {
  munmap(block, kBlockEvents * sizeof(SortedEvent));
}

PacketSorter::PacketSorter(bool with_hints) : with_hints_(with_hints) {}
PacketSorter::~PacketSorter() { FreePending(); }

void PacketSorter::FreePending() {
  std::sort(pending_free_.begin(), pending_free_.end());
  size_t i = 0;
  while (i < pending_free_.size()) {
    char* start = static_cast<char*>(pending_free_[i].first);
    char* end = start + pending_free_[i].second;
    size_t j = i + 1;
    while (j < pending_free_.size() && pending_free_[j].first == end) {
      end += pending_free_[j].second;
      j++;
    }
    if (take_consumed_)
      take_consumed_(start, static_cast<size_t>(end - start));
    else
      munmap(start, static_cast<size_t>(end - start));
    i = j;
  }
  pending_free_.clear();
}

PacketSorter::Queue* PacketSorter::AddQueue(uint32_t queue) {
  if (queue >= queues_.size())
    queues_.resize(queue + 1);
  if (!queues_[queue])
    queues_[queue].reset(new Queue());
  return queues_[queue].get();
}

uint64_t PacketSorter::Spill(uint64_t offset, uint64_t size) {
  spilled_.emplace_back(offset, size);
  return static_cast<uint64_t>(spilled_.size() - 1) << kSizeBits | kSpilled;
}

void PacketSorter::SortUnsortedQueues() {
  for (std::unique_ptr<Queue>& queue : queues_) {
    if (!queue || queue->sorted)
      continue;
    // Rare (a writer whose clock went back): sort a copy, carrying each
    // event's generation along (a hint is inside the entry).
    Queue& q = *queue;
    unsorted_queues_++;
    struct Moved {
      SortedEvent event;
      uint32_t generation;
    };
    std::vector<Moved> events(q.size);
    size_t change = 0;
    for (size_t i = 0; i < q.size; i++) {
      while (change + 1 < q.generation_changes.size() &&
             q.generation_changes[change + 1].first <= i)
        change++;
      events[i] = {q.at(i), q.generation_changes[change].second};
    }
    std::stable_sort(events.begin(), events.end(),
                     [](const Moved& a, const Moved& b) { return Before(a.event, b.event); });
    q.generation_of_event.resize(q.size);
    for (size_t i = 0; i < q.size; i++) {
      q.at(i) = events[i].event;
      q.generation_of_event[i] = events[i].generation;
    }
  }

}

}  // namespace processor
}  // namespace zt
