// A bounded single-producer, single-consumer channel of bytes, handed over
// in batches: the threads meet (take the lock) once per batch, not once per
// record, and a record is as long as its encoding. The importer's pass 2
// sends tens of millions of small records from its merging thread to its
// applying one; what they cost there is mostly the cache lines that move
// between the two cores, so fewer bytes is the point.
//
//   BatchChannel channel;
//   std::thread producer([&] {
//     uint8_t* p = channel.Reserve(kMaxRecord);  // Room for one record.
//     p = Encode(record, p);
//     channel.Commit(p);
//     ...
//     channel.Close();
//   });
//   channel.ConsumeAll([&](const uint8_t* begin, const uint8_t* end) {
//     // Whole records, in the order committed.
//   });
//   producer.join();
//
// Memory: kBatches * kBatchBytes, allocated once. Reserve() blocks when
// every batch is full and not yet consumed, until kWakeBatches are free;
// ConsumeAll() blocks when none is ready, until kWakeBatches are (or the
// stream ends). Waking a thread per batch measured tens of thousands of
// context switches a second on a 2-core machine. Thread-safe for exactly one producer thread and one consumer
// thread; Close() must be called (by the producer) exactly once, after its
// last Commit().

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_PROTO_BATCH_CHANNEL_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_PROTO_BATCH_CHANNEL_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>

#include "zt/base/compiler.h"
#include "zt/base/logging.h"

namespace zt {
namespace processor {

class BatchChannel {
 public:
  static constexpr size_t kBatchBytes = 16 << 10;
  static constexpr size_t kBatches = 32;
  // A waiting side is woken once this many batches are ready (consumer) or
  // free (producer).
  static constexpr size_t kWakeBatches = 8;

  // The batches are written before they are read: not zeroed (512 KiB of
  // memset and page faults per import were a quarter of a small import).
  BatchChannel() : bytes_(new uint8_t[kBatchBytes * kBatches]) {}
  BatchChannel(const BatchChannel&) = delete;
  BatchChannel& operator=(const BatchChannel&) = delete;

  // Producer side: room for at least `max_bytes` (at most kBatchBytes), at
  // the returned pointer; Commit() says where the record ended.
  uint8_t* Reserve(size_t max_bytes) {
    // A batch in progress has room (filling_end_ == cursor_ == nullptr
    // before the first): the inline fast path.
    if (ZT_LIKELY(static_cast<size_t>(filling_end_ - cursor_) >= max_bytes))
      return cursor_;
    return ReserveSlow(max_bytes);
  }
  void Commit(uint8_t* end) {
    ZT_CHECK(end >= cursor_ && end <= filling_end_);
    cursor_ = end;
  }

  // Publishes what was committed and ends the stream.
  void Close() {
    if (filling_ != nullptr)
      Publish();
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    if (consumer_waiting_)
      ready_.notify_one();
  }

  // Consumer side: calls fn(begin, end) for every batch, in commit order,
  // until the producer closes the channel.
  template <typename Fn>
  void ConsumeAll(Fn fn) {
    for (;;) {
      size_t slot;
      size_t size;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        if (consumed_ == published_ && !closed_) {
          // Sleep until several batches are ready, not one: a thread that
          // is woken per batch spends more on waking than on the batch.
          consumer_waiting_ = true;
          ready_.wait(lock, [this] { return published_ - consumed_ >= kWakeBatches || closed_; });
          consumer_waiting_ = false;
        }
        if (consumed_ == published_)
          return;  // Closed and drained.
        slot = static_cast<size_t>(consumed_ % kBatches);
        size = batch_size_[slot];
      }
      const uint8_t* batch = &bytes_[slot * kBatchBytes];
      // Written on the producer's core: fetched here all at once rather than
      // a line at a time as fn() reaches it.
      for (size_t offset = 0; offset < size; offset += 64)
        __builtin_prefetch(batch + offset, /*rw=*/0, /*locality=*/3);
      fn(batch, batch + size);
      std::lock_guard<std::mutex> lock(mutex_);
      consumed_++;
      if (producer_waiting_ && kBatches - (published_ - consumed_) >= kWakeBatches)
        space_.notify_one();
    }
  }

 private:
  ZT_NOINLINE uint8_t* ReserveSlow(size_t max_bytes) {
    ZT_CHECK(max_bytes <= kBatchBytes);
    if (filling_ != nullptr)
      Publish();
    StartBatch();
    return cursor_;
  }

  void StartBatch() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (published_ - consumed_ == kBatches) {
      producer_waiting_ = true;  // Until several batches are free.
      space_.wait(lock, [this] { return kBatches - (published_ - consumed_) >= kWakeBatches; });
      producer_waiting_ = false;
    }
    filling_ = &bytes_[static_cast<size_t>(published_ % kBatches) * kBatchBytes];
    filling_end_ = filling_ + kBatchBytes;
    cursor_ = filling_;
    lock.unlock();
    // The batch's cache lines were last read on the consumer's core: ask
    // for all of them to be owned here now, rather than wait for each one
    // at its first store (which measured most of the producer's time).
    for (size_t offset = 0; offset < kBatchBytes; offset += 64)
      __builtin_prefetch(filling_ + offset, /*rw=*/1, /*locality=*/3);
  }

  void Publish() {
    std::lock_guard<std::mutex> lock(mutex_);
    batch_size_[static_cast<size_t>(published_ % kBatches)] =
        static_cast<size_t>(cursor_ - filling_);
    published_++;
    filling_ = filling_end_ = cursor_ = nullptr;
    if (consumer_waiting_ && published_ - consumed_ >= kWakeBatches)
      ready_.notify_one();
  }

  std::unique_ptr<uint8_t[]> bytes_;
  std::mutex mutex_;
  std::condition_variable ready_;  // A batch was published, or the end.
  std::condition_variable space_;  // A batch was consumed.
  size_t batch_size_[kBatches] = {};
  uint64_t published_ = 0;  // Guarded by mutex_.
  uint64_t consumed_ = 0;   // Guarded by mutex_.
  bool closed_ = false;     // Guarded by mutex_.
  bool consumer_waiting_ = false;  // Guarded by mutex_.
  bool producer_waiting_ = false;  // Guarded by mutex_.
  // The producer's batch in progress (its thread only).
  uint8_t* filling_ = nullptr;
  uint8_t* filling_end_ = nullptr;
  uint8_t* cursor_ = nullptr;
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_PROTO_BATCH_CHANNEL_H_
