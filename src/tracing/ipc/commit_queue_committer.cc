#include "src/tracing/ipc/commit_queue_committer.h"

#include <unistd.h>

#include <utility>

#include "src/tracing/ipc/commit_record.h"
#include "zt/base/logging.h"

namespace zt {

CommitQueueCommitter::CommitQueueCommitter(std::string producer_name)
    : producer_name_(std::move(producer_name)), owner_pid_(getpid()) {}

CommitQueueCommitter::~CommitQueueCommitter() = default;

void CommitQueueCommitter::Open(std::unique_ptr<base::MemfdSharedMemory> shm,
                                base::ScopedFile doorbell) {
  std::lock_guard<std::mutex> lock(mutex_);
  shm_ = std::move(shm);
  doorbell_ = std::move(doorbell);
  writer_.reset(new CommitQueueWriter(shm_->start(), shm_->size(), doorbell_.get()));
}

void CommitQueueCommitter::Close() {
  std::lock_guard<std::mutex> lock(mutex_);
  CloseLocked();
}

void CommitQueueCommitter::CloseLocked() {
  writer_.reset();
  doorbell_.reset();
  shm_.reset();
}

bool CommitQueueCommitter::TryCommit(const CommitData& data) {
  if (!data.writer_drops.empty())
    return false;
  std::lock_guard<std::mutex> lock(mutex_);
  // A forked child shares the parent's mapping and doorbell: a record of
  // its own would be a second writer in the parent's ring. getpid() is a
  // system call, paid per batch (tens of chunks), not per event.
  if (!writer_ || getpid() != owner_pid_)
    return false;
  EncodeCommitRecord(data, &record_);
  if (writer_->Write(record_.data(), record_.size(), messages_sent_))
    return true;
  if (writer_->closed()) {
    // What it had not read when it closed is lost (the service counts it).
    ZT_WLOG("producer \"%s\": the service closed the commit queue with %llu bytes of "
            "commits unread; committing by messages",
            producer_name_.c_str(), static_cast<unsigned long long>(writer_->UnreadBytes()));
    CloseLocked();
  }
  return false;
}

}  // namespace zt
