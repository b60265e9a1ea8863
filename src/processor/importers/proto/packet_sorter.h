// Orders track events across sequences by trace time before they are
// parsed (docs/design/trace_processor.md, "Sorting").
//
// Each sequence's events go to a queue of their own, in file order, as 16
// bytes: the event's time and where its TrackEvent field starts. Writers
// emit a sequence in time order, so a queue is almost always sorted
// already; one that is not is sorted (stably) when the file has been read.
// The queues are then merged by (ts, file offset): the whole trace is
// sorted, with no window that could drop late events. A queue is stored in
// blocks that are freed as soon as the merge has consumed them, so the
// memory of the queue and of the tables it fills stay bounded together.
//
// The interned-state generation of an event is not stored per event: a
// queue records the points where its sequence's generation changed, and
// the merge walks them along (an unsorted queue keeps one per event).
//
// A sorter made `with_hints` also keeps a hint of up to 23 bits per event
// that the caller computed when queueing (what a TrackEvent holds, read off
// its bytes on pass 1's second thread; TrackEventParser::ScanHint) and hands
// it back with the event; without, every hint is 0. A hint takes the place
// of the event's size, which its reader never needs: the entry stays 16
// bytes (with the hint beside it, 24 bytes an event had cost more memory
// work than the file's own bytes). Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_PROTO_PACKET_SORTER_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_PROTO_PACKET_SORTER_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "zt/base/compiler.h"
#include "zt/base/logging.h"

namespace zt {
namespace processor {

// 16 bytes: the time, and the TrackEvent's bytes packed as 40 bits of
// offset and 24 of size (or of hint: the top one of the 24 says which). The
// rare event that does not fit (a TrackEvent of 8 MiB or more, or past the
// first TiB of the file) is spilled to a side table instead.
struct SortedEvent {
  int64_t ts;
  uint64_t packed;
};

class PacketSorter {
 public:
  explicit PacketSorter(bool with_hints = false);
  ~PacketSorter();

  // The largest hint (a hint and its flag are never all ones: kSpilled).
  static constexpr uint64_t kMaxHint = (uint64_t{1} << 23) - 2;

  // `queue` is the sequence's index (dense, from 0); `generation` the
  // interned-state generation the event was read under; `hint` (at most
  // kMaxHint) is kept only by a sorter made with hints, and an event with a
  // non-zero hint is drained with size 0 (not kept).
  void Push(uint32_t queue, int64_t ts, uint64_t offset, uint64_t size,
            uint32_t generation, uint64_t hint = 0) {
    ZT_CHECK(hint <= kMaxHint);
    Queue& q = queue < queues_.size() && queues_[queue] ? *queues_[queue] : *AddQueue(queue);
    // One cache line of the queue per event (Queue's first fields).
    q.sorted &= ts >= q.last_ts;
    q.last_ts = ts;
    if (ZT_UNLIKELY(generation != q.generation || q.size == 0))
      NoteGeneration(&q, generation);
    if (ZT_UNLIKELY(q.next == q.block_end))
      StartBlock(&q);
    const size_t region = static_cast<size_t>(offset >> kRegionShift);
    if (ZT_UNLIKELY(region >= pending_in_region_.size()))
      pending_in_region_.resize(region + 1, 0);
    pending_in_region_[region]++;
    // A spilled event keeps its size, not its hint (its reader decodes it).
    const bool hinted = with_hints_ && hint != 0;
    const uint64_t packed =
        ZT_LIKELY(offset < kMaxPackedOffset && (hinted || size < kHinted))
            ? offset << kSizeBits | (hinted ? kHinted | hint : size)
            : Spill(offset, size);
    *q.next++ = SortedEvent{ts, packed};
    q.size++;
    size_++;
  }

  size_t size() const { return size_; }
  bool with_hints() const { return with_hints_; }
  // Queues that were not in time order in the file.
  uint64_t unsorted_queues() const { return unsorted_queues_; }

  // Calls fn(ts, offset, size, generation, hint) for every event in (ts, offset)
  // order and empties the sorter. A template: it runs once per event. Calls
  // done(offset, length) for each 2 MiB region of the input once no event
  // in it remains to be called for (regions that never had one first).
  template <typename Fn, typename RegionDone>
  void Drain(Fn fn, RegionDone done);

  // During the next Drain() only, blocks it has consumed go to `take`
  // (page-aligned ranges of whole pages, each called once, on the draining
  // thread; `take` owns them after), not to munmap(): a SliceColumnPager
  // reuses them for the tables that Drain() fills.
  void GiveConsumedBlocksTo(std::function<void(void*, size_t)> take) {
    take_consumed_ = std::move(take);
  }

  static constexpr uint32_t kRegionShift = 21;
  // Up to this many queues, Drain() finds the next one by a scan.
  static constexpr size_t kScannedHeadsMax = 8;

 private:
  static constexpr size_t kBlockEvents = 4096;  // 64 KiB.
  static constexpr uint64_t kSizeBits = 24;
  static constexpr uint64_t kSizeMask = (uint64_t{1} << kSizeBits) - 1;
  static constexpr uint64_t kMaxPackedOffset = uint64_t{1} << (64 - kSizeBits);
  // A size field of all ones: the offset bits index the spill table.
  static constexpr uint64_t kSpilled = kSizeMask;
  // A size field with its top bit set holds a hint, below that bit.
  static constexpr uint64_t kHinted = uint64_t{1} << (kSizeBits - 1);

  // Within one queue offsets grow with the packed value (spilled events
  // excepted, which only break ties between equal times).
  static bool Before(const SortedEvent& a, const SortedEvent& b) {
    return a.ts != b.ts ? a.ts < b.ts : a.packed < b.packed;
  }

  // Blocks are mapped and unmapped directly: freed into the heap they would
  // stay resident (the allocator rarely returns 64 KiB pieces of its arena),
  // and the point of freeing them is to make room for the tables.
  struct BlockDeleter {
    void operator()(SortedEvent* block) const;
  };
  using BlockPtr = std::unique_ptr<SortedEvent[], BlockDeleter>;
  static BlockPtr NewBlock();

  struct Queue {
    // What Push() touches, first: one cache line.
    SortedEvent* next = nullptr;  // Where the next event goes.
    SortedEvent* block_end = nullptr;
    size_t size = 0;
    int64_t last_ts = INT64_MIN;
    uint32_t generation = 0;  // The last one noted (valid once size > 0).
    bool sorted = true;
    std::vector<BlockPtr> blocks;
    // (index of the first event, generation) at every change, in order.
    std::vector<std::pair<size_t, uint32_t>> generation_changes;
    // Only for a queue that had to be sorted: each event's generation.
    std::vector<uint32_t> generation_of_event;

    SortedEvent& at(size_t i) { return blocks[i / kBlockEvents][i % kBlockEvents]; }
  };

  static void NoteGeneration(Queue* q, uint32_t generation) {
    if (q->generation_changes.empty() || q->generation_changes.back().second != generation)
      q->generation_changes.emplace_back(q->size, generation);
    q->generation = generation;
  }
  static void StartBlock(Queue* q) {
    q->blocks.emplace_back(NewBlock());
    q->next = q->blocks.back().get();
    q->block_end = q->next + kBlockEvents;
  }
  void SortUnsortedQueues();
  // Consumed blocks are unmapped a batch at a time, neighbours in one call:
  // each munmap() interrupts every other core running this process (to
  // flush its TLB), which one call per 64 KiB block made a large cost of a
  // two-thread import. Blocks mapped one after another are usually
  // adjacent, and are consumed in about the order they were mapped.
  void FreeLater(void* block, size_t bytes) {
    pending_free_.emplace_back(block, bytes);
    if (pending_free_.size() >= kFreeBatch)
      FreePending();
  }
  void FreePending();
  static constexpr size_t kFreeBatch = 64;  // At most 4 MiB held back.
  Queue* AddQueue(uint32_t queue);
  uint64_t Spill(uint64_t offset, uint64_t size);

  std::vector<std::pair<uint64_t, uint64_t>> spilled_;  // (offset, size).
  std::vector<std::pair<void*, size_t>> pending_free_;  // (block, bytes).
  std::function<void(void*, size_t)> take_consumed_;
  std::vector<uint32_t> pending_in_region_;  // Events not drained, per region.
  std::vector<std::unique_ptr<Queue>> queues_;
  const bool with_hints_;
  size_t size_ = 0;
  uint64_t unsorted_queues_ = 0;
};

template <typename Fn, typename RegionDone>
void PacketSorter::Drain(Fn fn, RegionDone done) {
  SortUnsortedQueues();
  for (size_t region = 0; region < pending_in_region_.size(); region++) {
    if (pending_in_region_[region] == 0)
      done(uint64_t{region} << kRegionShift, uint64_t{1} << kRegionShift);
  }
  struct Cursor {
    Queue* queue;
    size_t next = 0;
    size_t change = 0;  // Index into generation_changes.
    // The generation of events from generation_changes[change] on, and
    // the index of the next change (or SIZE_MAX): one compare per event.
    uint32_t generation = 0;
    size_t next_change_at = SIZE_MAX;
  };
  std::vector<Cursor> cursors;
  for (std::unique_ptr<Queue>& queue : queues_) {
    if (queue && queue->size > 0) {
      Cursor cursor{queue.get()};
      cursor.generation = queue->generation_changes[0].second;
      if (queue->generation_changes.size() > 1)
        cursor.next_change_at = queue->generation_changes[1].first;
      cursors.push_back(cursor);
    }
  }
  // Each cursor's head is kept by value, so that comparing two heads reads
  // neither the cursor nor its queue's blocks: in a heap, or, for a few
  // queues (a few writer threads: the common case, where runs are short),
  // in a plain array scanned for its minimum, which costs fewer
  // instructions than a heap's pop and push.
  struct Head {
    SortedEvent event;
    size_t cursor;
  };
  auto after = [](const Head& a, const Head& b) { return Before(b.event, a.event); };
  const bool scan = cursors.size() <= kScannedHeadsMax;
  // heads[0, live) are the queues not yet drained (a fixed array and a
  // count: no vector bookkeeping per run).
  std::vector<Head> heads(cursors.size());
  size_t live = cursors.size();
  for (size_t c = 0; c < cursors.size(); c++)
    heads[c] = Head{cursors[c].queue->at(0), c};
  if (!scan)
    std::make_heap(heads.begin(), heads.begin() + live, after);

  while (live > 0) {
    size_t c;
    SortedEvent bound{0, 0};
    if (scan) {
      size_t first = 0;
      for (size_t i = 1; i < live; i++) {
        if (Before(heads[i].event, heads[first].event))
          first = i;
      }
      c = heads[first].cursor;
      heads[first] = heads[--live];
      if (live > 0) {
        bound = heads[0].event;
        for (size_t i = 1; i < live; i++) {
          if (Before(heads[i].event, bound))
            bound = heads[i].event;
        }
      }
    } else {
      std::pop_heap(heads.begin(), heads.begin() + live, after);
      c = heads[--live].cursor;
      if (live > 0)
        bound = heads.front().event;
    }
    Cursor& cursor = cursors[c];
    Queue& q = *cursor.queue;
    // A run of one queue before every other head needs no heap traffic:
    // the common case, as a file holds each writer's chunks whole.
    const bool alone = live == 0;
    const SortedEvent* event = &q.at(cursor.next);
    for (;;) {
      if (ZT_UNLIKELY(cursor.next >= cursor.next_change_at)) {
        cursor.change++;
        cursor.generation = q.generation_changes[cursor.change].second;
        cursor.next_change_at = cursor.change + 1 < q.generation_changes.size()
                                    ? q.generation_changes[cursor.change + 1].first
                                    : SIZE_MAX;
      }
      const uint32_t generation = q.generation_of_event.empty()
                                      ? cursor.generation
                                      : q.generation_of_event[cursor.next];
      uint64_t size = event->packed & kSizeMask;
      uint64_t hint = 0;
      if (size != kSpilled && (size & kHinted) != 0) {
        hint = size & ~kHinted;
        size = 0;
      }
      uint64_t offset;
      if (ZT_LIKELY(size != kSpilled)) {
        offset = event->packed >> kSizeBits;
        fn(event->ts, offset, size, generation, hint);
      } else {
        const auto& spilled = spilled_[event->packed >> kSizeBits];
        offset = spilled.first;
        fn(event->ts, offset, spilled.second, generation, hint);
      }
      const size_t region = static_cast<size_t>(offset >> kRegionShift);
      if (--pending_in_region_[region] == 0)
        done(uint64_t{region} << kRegionShift, uint64_t{1} << kRegionShift);
      cursor.next++;
      if (cursor.next % kBlockEvents == 0) {
        // Consumed: freed (in batches, see FreeLater()).
        FreeLater(q.blocks[cursor.next / kBlockEvents - 1].release(),
                  kBlockEvents * sizeof(SortedEvent));
      }
      if (cursor.next == q.size)
        break;
      event = &q.at(cursor.next);
      if (!alone && Before(bound, *event))
        break;
    }
    if (cursor.next < q.size) {
      heads[live++] = Head{*event, c};
      if (!scan)
        std::push_heap(heads.begin(), heads.begin() + live, after);
    } else {
      q.blocks.clear();
    }
  }
  FreePending();
  take_consumed_ = nullptr;
  queues_.clear();
  spilled_.clear();
  pending_in_region_.clear();
  size_ = 0;
}

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_PROTO_PACKET_SORTER_H_
