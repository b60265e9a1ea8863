#include "src/tracing/ipc/commit_queue.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "zt/base/logging.h"

namespace zt {
namespace {

// Where the header's fields are: each on its own cache line, so that the
// writer's and the reader's stores do not share one.
constexpr size_t kWritePosOffset = 0;
constexpr size_t kReadPosOffset = 64;
constexpr size_t kStateOffset = 128;
constexpr size_t kMinRingBytes = 4 * 1024;
constexpr size_t kMaxRingBytes = 1024 * 1024;

static_assert(std::atomic<uint64_t>::is_always_lock_free, "positions are shared memory");
static_assert(std::atomic<uint32_t>::is_always_lock_free, "the state is shared memory");
static_assert(kStateOffset + sizeof(uint32_t) <= kCommitQueueHeaderBytes, "header");

std::atomic<uint64_t>* WritePos(uint8_t* region) {
  return reinterpret_cast<std::atomic<uint64_t>*>(region + kWritePosOffset);
}
std::atomic<uint64_t>* ReadPos(uint8_t* region) {
  return reinterpret_cast<std::atomic<uint64_t>*>(region + kReadPosOffset);
}
std::atomic<uint32_t>* State(uint8_t* region) {
  return reinterpret_cast<std::atomic<uint32_t>*>(region + kStateOffset);
}

constexpr uint32_t StateValue(CommitQueueReaderState state) {
  return static_cast<uint32_t>(state);
}

}  // namespace

bool IsValidCommitQueueSize(size_t size) {
  if (size <= kCommitQueueHeaderBytes)
    return false;
  const size_t ring = size - kCommitQueueHeaderBytes;
  // A power of two: positions map to offsets with a mask.
  return ring >= kMinRingBytes && ring <= kMaxRingBytes && (ring & (ring - 1)) == 0;
}

CommitQueueWriter::CommitQueueWriter(uint8_t* region, size_t size, int doorbell_fd)
    : region_(region), capacity_(size - kCommitQueueHeaderBytes), doorbell_fd_(doorbell_fd) {
  ZT_CHECK(IsValidCommitQueueSize(size));
  // A new region is zero: positions start at 0, the reader busy until it
  // says otherwise (the service marks it idle before answering the setup).
  write_pos_ = WritePos(region_)->load(std::memory_order_relaxed);
}

bool CommitQueueWriter::Write(const void* bytes, size_t size, uint32_t socket_sequence) {
  if (closed_)
    return false;
  std::atomic<uint32_t>* state = State(region_);
  if (state->load(std::memory_order_acquire) == StateValue(CommitQueueReaderState::kClosed)) {
    closed_ = true;
    return false;
  }
  const size_t needed = kCommitRecordHeaderBytes + size;
  // The reader's published position, bounded: one beyond ours (a broken
  // reader) leaves no room rather than room that is not there.
  const uint64_t used = write_pos_ - ReadPos(region_)->load(std::memory_order_acquire);
  if (used > capacity_ || needed > capacity_ - used)
    return false;
  uint8_t* ring = region_ + kCommitQueueHeaderBytes;
  const uint32_t header[2] = {static_cast<uint32_t>(size), socket_sequence};
  auto copy_in = [&](uint64_t pos, const void* from, size_t n) {
    const size_t offset = static_cast<size_t>(pos & (capacity_ - 1));
    const size_t first = std::min(n, capacity_ - offset);
    memcpy(ring + offset, from, first);
    memcpy(ring, static_cast<const uint8_t*>(from) + first, n - first);
  };
  copy_in(write_pos_, header, sizeof(header));
  copy_in(write_pos_ + sizeof(header), bytes, size);
  write_pos_ += needed;
  records_written_++;
  // Published, then the state read: with the reader's store of kIdle and
  // load of write_pos (GoIdle), sequentially consistent, one of the two
  // sees the other, so a reader going idle is always woken.
  WritePos(region_)->store(write_pos_, std::memory_order_seq_cst);
  uint32_t expected = StateValue(CommitQueueReaderState::kIdle);
  if (state->load(std::memory_order_seq_cst) == expected &&
      state->compare_exchange_strong(expected, StateValue(CommitQueueReaderState::kBusy),
                                     std::memory_order_seq_cst)) {
    RingDoorbell();
  } else if (used < capacity_ / 2 && used + needed >= capacity_ / 2) {
    // A busy reader that polls (docs/design/commit_queue.md "Polling") may
    // look only an interval later: a ring half full is worth a wake-up now,
    // before it fills and batches go as socket messages. Once per crossing.
    RingDoorbell();
  }
  return true;
}

void CommitQueueWriter::RingDoorbell() {
  const uint64_t one = 1;
  // Cannot block (non-blocking eventfd) and cannot fail short of the
  // counter's 2^64 - 2 limit; a failed ring would only delay the records
  // to the next socket message, which drains them.
  if (write(doorbell_fd_, &one, sizeof(one)) == static_cast<ssize_t>(sizeof(one)))
    doorbells_rung_++;
}

bool CommitQueueWriter::Drained() const {
  return ReadPos(region_)->load(std::memory_order_acquire) == write_pos_;
}

uint64_t CommitQueueWriter::UnreadBytes() const {
  const uint64_t unread = write_pos_ - ReadPos(region_)->load(std::memory_order_acquire);
  return std::min<uint64_t>(unread, capacity_);
}

CommitQueueReader::CommitQueueReader(uint8_t* region, size_t size)
    : region_(region), capacity_(size - kCommitQueueHeaderBytes) {
  ZT_CHECK(IsValidCommitQueueSize(size));
  // The writer has written nothing yet (the setup is not answered), but
  // whatever the header says is taken as the start, bounded from then on.
  read_pos_ = WritePos(region_)->load(std::memory_order_acquire);
  ReadPos(region_)->store(read_pos_, std::memory_order_release);
}

CommitQueueReader::Status CommitQueueReader::Next(uint32_t socket_messages_seen, bool any_order,
                                                  std::string* record) {
  if (!error_.empty())
    return Status::kCorrupt;
  const uint64_t published = WritePos(region_)->load(std::memory_order_acquire);
  const uint64_t available = published - read_pos_;
  if (available == 0)
    return Status::kEmpty;
  if (available > capacity_)
    return Corrupt("the write position is outside the ring");
  if (available < kCommitRecordHeaderBytes)
    return Corrupt("a record's header was published in part");
  uint32_t header[2];
  CopyOut(read_pos_, header, sizeof(header));
  const size_t size = header[0];
  if (size > kMaxCommitRecordBytes || size > available - kCommitRecordHeaderBytes)
    return Corrupt("a record is larger than what was published");
  // Sequences wrap: "after" is a positive distance.
  if (!any_order && static_cast<int32_t>(header[1] - socket_messages_seen) > 0)
    return Status::kWaiting;
  record->resize(size);
  CopyOut(read_pos_ + kCommitRecordHeaderBytes, &(*record)[0], size);
  read_pos_ += kCommitRecordHeaderBytes + size;
  ReadPos(region_)->store(read_pos_, std::memory_order_release);
  records_read_++;
  return Status::kRecord;
}

bool CommitQueueReader::GoIdle() {
  if (!error_.empty())
    return true;
  std::atomic<uint32_t>* state = State(region_);
  state->store(StateValue(CommitQueueReaderState::kIdle), std::memory_order_seq_cst);
  if (WritePos(region_)->load(std::memory_order_seq_cst) == read_pos_)
    return true;
  // A record came after the ring looked empty: read on, busy. If the
  // writer already took the idle state back, its doorbell is a spare.
  uint32_t expected = StateValue(CommitQueueReaderState::kIdle);
  state->compare_exchange_strong(expected, StateValue(CommitQueueReaderState::kBusy),
                                 std::memory_order_seq_cst);
  return false;
}

uint64_t CommitQueueReader::UnreadBytes() const {
  const uint64_t unread = WritePos(region_)->load(std::memory_order_acquire) - read_pos_;
  return std::min<uint64_t>(unread, capacity_);
}

void CommitQueueReader::Close(const char* why) {
  if (error_.empty())
    error_ = why;
  State(region_)->store(StateValue(CommitQueueReaderState::kClosed), std::memory_order_seq_cst);
}

CommitQueueReader::Status CommitQueueReader::Corrupt(const char* why) {
  Close(why);
  return Status::kCorrupt;
}

void CommitQueueReader::CopyOut(uint64_t pos, void* out, size_t size) const {
  const uint8_t* ring = region_ + kCommitQueueHeaderBytes;
  const size_t offset = static_cast<size_t>(pos & (capacity_ - 1));
  const size_t first = std::min(size, capacity_ - offset);
  memcpy(out, ring + offset, first);
  memcpy(static_cast<uint8_t*>(out) + first, ring, size - first);
}

}  // namespace zt
