// Test support: an in-process stand-in for the tracing service side of one
// SMB. It receives CommitData from the arbiter (as its CommitSink), and on
// Drain() does what the real service does with a commit: moves each named
// chunk out of the SMB (Complete -> BeingRead -> copy -> Free), hands the
// copies and the patches to a PacketReassembler and collects the packets.
//
// OnCommit() may run on any producer thread; Drain() on one service thread.

#ifndef ZT_SRC_TRACING_CORE_TEST_SERVICE_H_
#define ZT_SRC_TRACING_CORE_TEST_SERVICE_H_

#include <condition_variable>
#include <deque>
#include <mutex>
#include <utility>
#include <vector>

#include "src/tracing/core/packet_reassembler.h"
#include "zt/ext/tracing/core/shared_memory_abi.h"
#include "zt/ext/tracing/core/shared_memory_arbiter.h"

namespace zt {

class TestService : public CommitSink {
 public:
  // |abi| is the service's own view of the SMB.
  explicit TestService(SharedMemoryABI* abi) : abi_(abi) {}

  void OnCommit(CommitData data) override {
    std::lock_guard<std::mutex> guard(mutex_);
    commits_.push_back(std::move(data));
    all_commits_++;
    cv_.notify_all();
  }

  // Handles every commit received so far. Returns how many it handled.
  size_t Drain() {
    std::deque<CommitData> batch;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      batch.swap(commits_);
    }
    for (CommitData& c : batch)
      Handle(c);
    reassembler_.ReadPackets(&packets_);
    {
      std::lock_guard<std::mutex> guard(mutex_);
      drains_++;
    }
    cv_.notify_all();
    return batch.size();
  }

  // How many Drain() calls have completed, and a wait for the next one (for
  // a writer that must wait until the service has freed chunks).
  uint64_t drains() {
    std::lock_guard<std::mutex> guard(mutex_);
    return drains_;
  }
  void WaitForDrainAfter(uint64_t n) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this, n] { return drains_ > n; });
  }

  // Waits up to |ms| for a commit to arrive (for a service thread loop).
  void WaitForCommit(int ms) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait_for(lock, std::chrono::milliseconds(ms),
                 [this] { return !commits_.empty(); });
  }

  void Handle(const CommitData& c) {
    history_.push_back(c);
    for (const CommitData::ChunkToMove& m : c.chunks_to_move) {
      SharedMemoryABI::Chunk chunk =
          abi_->TryAcquireChunkForReading(m.page, m.chunk);
      if (!chunk.is_valid()) {
        bad_moves_++;
        continue;
      }
      SharedMemoryABI::ChunkCopy copy;
      SharedMemoryABI::CopyChunk(chunk, &copy);
      abi_->ReleaseChunkAsFree(std::move(chunk));
      chunk_headers_.push_back(copy.header);
      reassembler_.AddChunk(std::move(copy));
    }
    for (const CommitData::ChunkToPatch& p : c.chunks_to_patch)
      reassembler_.ApplyPatches(p);
  }

  void Finish() {
    Drain();
    reassembler_.Finish(&packets_);
  }

  PacketReassembler& reassembler() { return reassembler_; }
  std::vector<ReassembledPacket>& packets() { return packets_; }
  const std::vector<CommitData>& history() const { return history_; }
  const std::vector<SharedMemoryABI::ChunkHeaderValues>& chunk_headers() const {
    return chunk_headers_;
  }
  size_t bad_moves() const { return bad_moves_; }
  size_t pending_commits() {
    std::lock_guard<std::mutex> guard(mutex_);
    return commits_.size();
  }

 private:
  SharedMemoryABI* abi_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<CommitData> commits_;
  size_t all_commits_ = 0;
  uint64_t drains_ = 0;
  std::vector<CommitData> history_;
  std::vector<SharedMemoryABI::ChunkHeaderValues> chunk_headers_;
  PacketReassembler reassembler_;
  std::vector<ReassembledPacket> packets_;
  size_t bad_moves_ = 0;
};

}  // namespace zt

#endif  // ZT_SRC_TRACING_CORE_TEST_SERVICE_H_
