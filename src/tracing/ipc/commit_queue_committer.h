// CommitQueueCommitter: a producer's commit queue (commit_queue.h) shared
// by its IPC client, on the client's runner, and by its writer threads,
// which commit through it on their own thread (ConcurrentCommitter,
// docs/design/commit_queue.md "Committing from the writer's thread").
//
// Thread-safety: every method may be called from any thread; one mutex
// makes the ring's writer single again and covers the encoding buffer.
// Cost of TryCommit(): an uncontended lock, the record's encoding
// (~400 instructions for a batch of a few chunks), two copies into the
// ring and, when the service is idle, an eventfd write.

#ifndef ZT_SRC_TRACING_IPC_COMMIT_QUEUE_COMMITTER_H_
#define ZT_SRC_TRACING_IPC_COMMIT_QUEUE_COMMITTER_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "src/base/memfd_shared_memory.h"
#include "src/base/scoped_file.h"
#include "src/tracing/ipc/commit_queue.h"
#include "zt/ext/tracing/core/tracing_service.h"

namespace zt {

class CommitQueueCommitter : public ConcurrentCommitter {
 public:
  // |producer_name| is for the log line when the service closes the queue.
  explicit CommitQueueCommitter(std::string producer_name);
  ~CommitQueueCommitter() override;

  // The service took the queue: commits go into |shm|'s ring from now on,
  // |doorbell| (non-blocking) waking the service when it is idle.
  void Open(std::unique_ptr<base::MemfdSharedMemory> shm, base::ScopedFile doorbell);
  // The connection is over: every later TryCommit() refuses, and the ring
  // is unmapped (under the lock: no TryCommit() is in it).
  void Close();

  // ConcurrentCommitter. Refuses when closed or never opened, in a child
  // after fork() (the ring is the parent's), for a batch with writers'
  // drop reports (the record has no place for them) and when the ring is
  // full: the caller then sends a CommitData message.
  bool TryCommit(const CommitData& data) override;

  // The IPC client sends every message through here: |send| (true if it
  // sent) and the count of messages sent, which each record carries and by
  // which the service orders records with the socket's messages, change as
  // one step. A record written between a message going out and its count
  // would carry the count before it, and the service, draining records
  // before it handles that message, could take more than the ring holds
  // and close the queue as hostile. |send| must not commit (it would wait
  // for itself): a socket send only posts its failures.
  template <typename Send>
  bool SendCounted(Send&& send) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!send())
      return false;
    messages_sent_++;
    return true;
  }

 private:
  void CloseLocked();

  const std::string producer_name_;
  const pid_t owner_pid_;
  std::mutex mutex_;
  // Guarded by mutex_.
  uint32_t messages_sent_ = 0;  // Wraps, as the service's count.
  std::unique_ptr<base::MemfdSharedMemory> shm_;
  base::ScopedFile doorbell_;
  std::unique_ptr<CommitQueueWriter> writer_;
  std::string record_;  // The encoding buffer, reused: a commit allocates nothing.
};

}  // namespace zt

#endif  // ZT_SRC_TRACING_IPC_COMMIT_QUEUE_COMMITTER_H_
