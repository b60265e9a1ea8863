// The commit queue (docs/design/commit_queue.md): a single-producer
// single-consumer ring of CommitData records in memory shared by a
// zerotrace producer and a zerotrace service, so that a commit batch costs
// no socket message. The producer's side is a CommitQueueWriter, the
// service's a CommitQueueReader, each over its own mapping of one memfd.
//
// Neither side trusts the other's bytes: each keeps its own position and
// only publishes it; what the peer published is read once and bounded.
//
// Thread-safety: one thread per side (a writer and a reader may run
// concurrently, in one process or two); neither class is otherwise
// thread-safe.

#ifndef ZT_SRC_TRACING_IPC_COMMIT_QUEUE_H_
#define ZT_SRC_TRACING_IPC_COMMIT_QUEUE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace zt {

// The shared region: a header, then the ring.
constexpr size_t kCommitQueueHeaderBytes = 256;
constexpr size_t kCommitQueueRingBytes = 64 * 1024;
constexpr size_t kCommitQueueBytes = kCommitQueueHeaderBytes + kCommitQueueRingBytes;
// A record: its size (4 bytes), its socket sequence (4 bytes), the bytes.
constexpr size_t kCommitRecordHeaderBytes = 8;
// The largest record a reader accepts: the socket's frame limit.
constexpr size_t kMaxCommitRecordBytes = 128 * 1024;

// What the reader is doing, as the writer sees it.
enum class CommitQueueReaderState : uint32_t {
  kBusy = 0,    // It will look at the ring again without being told.
  kIdle = 1,    // It waits for the doorbell.
  kClosed = 2,  // It stopped reading (the ring was corrupt): use the socket.
};

// True if a shared region of |size| bytes can hold a queue (both sides
// check the size they map).
bool IsValidCommitQueueSize(size_t size);

class CommitQueueWriter {
 public:
  // Over |region| (kCommitQueueBytes, zero-filled when new), which must
  // outlive the writer. |doorbell_fd| is the eventfd written when the
  // reader is idle; not owned.
  CommitQueueWriter(uint8_t* region, size_t size, int doorbell_fd);

  // Appends one record of |size| bytes, tagged with |socket_sequence| (the
  // number of socket messages sent before it), and rings the doorbell if
  // the reader is idle, or if this record fills the ring past half (a
  // polling reader looks only every interval). False, with nothing written, if the record does
  // not fit now or the reader closed the queue (closed() then says so).
  bool Write(const void* bytes, size_t size, uint32_t socket_sequence);

  // The reader closed the queue: every later Write() fails.
  bool closed() const { return closed_; }
  uint64_t records_written() const { return records_written_; }
  uint64_t doorbells_rung() const { return doorbells_rung_; }
  // The reader has taken every record written (as far as it published).
  bool Drained() const;
  // What was written and, as far as the reader published, not read (at
  // most the ring's size): after closed(), what the reader never took.
  uint64_t UnreadBytes() const;

 private:
  void RingDoorbell();

  uint8_t* const region_;
  const size_t capacity_;
  const int doorbell_fd_;
  uint64_t write_pos_ = 0;  // Ours; the header's copy is only published.
  bool closed_ = false;
  uint64_t records_written_ = 0;
  uint64_t doorbells_rung_ = 0;
};

class CommitQueueReader {
 public:
  // Over |region|, which must outlive the reader and be IsValidCommitQueueSize.
  CommitQueueReader(uint8_t* region, size_t size);

  enum class Status {
    kRecord,   // |record| holds the next record's bytes.
    kEmpty,    // Nothing published beyond what was read.
    kWaiting,  // The next record comes after socket messages not seen yet.
    kCorrupt,  // The writer published nonsense: error() says what.
  };
  // The next record, copied out of the ring into |record|, if the socket
  // has caught up with it: |socket_messages_seen| is how many socket
  // messages of this producer were handled so far; with |any_order| (the
  // connection is over) order does not hold a record back.
  Status Next(uint32_t socket_messages_seen, bool any_order, std::string* record);

  // The ring was found empty: says so to the writer (its next record rings
  // the doorbell). False if a record came meanwhile (still busy then: read
  // on).
  bool GoIdle();
  // Stops for good, |why| becoming error(): the writer's next Write()
  // fails and it uses the socket.
  void Close(const char* why);

  const std::string& error() const { return error_; }
  uint64_t records_read() const { return records_read_; }
  size_t capacity() const { return capacity_; }
  // What the writer published and was not read (at most the ring's size):
  // what is lost if the queue closes now.
  uint64_t UnreadBytes() const;

 private:
  Status Corrupt(const char* why);
  void CopyOut(uint64_t pos, void* out, size_t size) const;

  uint8_t* const region_;
  const size_t capacity_;
  uint64_t read_pos_ = 0;  // Ours; the header's copy is only published.
  std::string error_;
  uint64_t records_read_ = 0;
};

}  // namespace zt

#endif  // ZT_SRC_TRACING_IPC_COMMIT_QUEUE_H_
