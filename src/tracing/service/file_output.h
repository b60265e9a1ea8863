// FileOutput: how a session's write_into_file target (the fd a consumer
// handed to EnableTracing) is written without ever blocking the service's
// thread, whatever the fd is and whoever reads it. The service collects at
// most one piece of the trace at a time into |backlog| and hands it over
// with WriteSome(); what the fd does not take at once waits there (bounded:
// nothing more is read out of the buffers meanwhile) until the fd is
// writable again. The policy around it (when to wait, when a stalled
// reader ends the session) is in tracing_service_output.cc; see
// docs/design/tracing_service.md, "Output".
//
// Per kind of fd:
// * A regular file or block device: written fully, blocking, as before (a
//   file system always makes progress; O_NONBLOCK means nothing to it).
// * A socket: send(MSG_DONTWAIT | MSG_NOSIGNAL), non-blocking per call,
//   whatever flags the open file description has.
// * Anything else (a pipe, a FIFO, a terminal): there is no per-call
//   non-blocking write(2), and a pipe cannot be given an open file
//   description of its own (reopening /proc/self/fd/N needs the client's
//   permissions, which a daemon running as another user lacks), so
//   O_NONBLOCK is set on the description the client shares with us. The
//   client's copy is then non-blocking too while the session writes (the
//   `ztrace` client writes nothing to it meanwhile); the flag is cleared
//   again when the service closes the fd, if the service set it. It is
//   checked before every write and set again if the client cleared it.
//
// Thread-safety: none; the service's thread only. Cost: one fcntl(F_GETFL)
// per write on a stream, plus the signal mask around a write that can
// raise SIGPIPE (see WriteSome).

#ifndef ZT_SRC_TRACING_SERVICE_FILE_OUTPUT_H_
#define ZT_SRC_TRACING_SERVICE_FILE_OUTPUT_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace zt {

struct FileOutput {
  enum class Kind { kRegular, kSocket, kStream };

  // Looks at |fd| (fstat) and prepares it for WriteSome: a stream's
  // description is made non-blocking. |fd| stays owned by the caller.
  void Attach(int fd);
  // Writes up to |size| bytes of |data| to |fd| and returns how many were
  // taken (0: none now, the reader is full), or -errno on an error (EPIPE
  // for a reader that is gone: never a SIGPIPE). A regular file takes
  // everything or fails.
  ssize_t WriteSome(int fd, const uint8_t* data, size_t size);
  // Undoes Attach's change to the description (before the fd is closed).
  void Detach(int fd);

  bool can_stall() const { return kind != Kind::kRegular; }
  size_t backlog_left() const { return backlog.size() - backlog_offset; }

  Kind kind = Kind::kRegular;
  bool set_nonblocking = false;  // O_NONBLOCK was set by Attach/WriteSome.
  // Collected for the fd and not taken yet: at most about one piece of
  // TracingServiceImpl::kFileWriteChunkBytes plus one packet.
  std::vector<uint8_t> backlog;
  size_t backlog_offset = 0;
  uint64_t bytes_taken = 0;     // By the fd, in all; the stall check's clock.
  bool more_to_collect = false;  // The round has not read everything yet.
  bool watch_pending = false;   // A writable watch on the fd will resume.
  bool stall_check_pending = false;
  // The session stopped and waits for the rest of the file before telling
  // its consumer (TracingServiceImpl::CompleteStop).
  bool stop_waits = false;
};

}  // namespace zt

#endif  // ZT_SRC_TRACING_SERVICE_FILE_OUTPUT_H_
