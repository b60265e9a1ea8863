// UnixSocket: a non-blocking SOCK_STREAM UNIX socket driven by a TaskRunner,
// for the producer and consumer sockets (docs/design/ipc.md).
//
// Addresses: "@name" is an abstract socket (Linux; no file), anything else
// a filesystem path. A socket listens, or connects, or wraps a connected fd
// (one end of a socketpair, an accepted connection).
//
// Events reach an EventListener on the runner's thread, always from a task
// or fd callback of the runner (never from inside a call the listener made),
// and never after the socket is destroyed: a listener may destroy the socket
// from any of them. OnDisconnect, and OnConnect when connect(2) answered at
// once, are posted tasks (holding a WeakPtr); OnDataAvailable,
// OnNewIncomingConnection and a pending connect's OnConnect come straight
// from the socket's fd callbacks, which touch the socket no more once the
// listener has been called unless a WeakPtr shows it is still there.
//
// Sending never blocks: what the kernel does not take at once is queued, in
// order, and sent when the socket becomes writable. File descriptors travel
// with the first byte of the Send() that carries them (SCM_RIGHTS). A queue
// over kMaxQueuedSendBytes (a peer that stopped reading) shuts the
// connection down: Send() returns false and OnDisconnect follows.
//
// Threading: create, use and destroy on the runner's thread. Costs: a Send
// is one sendmsg(2) when nothing is queued; a Receive one recvmsg(2).

#ifndef ZT_SRC_BASE_UNIX_SOCKET_H_
#define ZT_SRC_BASE_UNIX_SOCKET_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "src/base/scoped_file.h"
#include "zt/base/task_runner.h"
#include "zt/ext/base/weak_ptr.h"

namespace zt {
namespace base {

class UnixSocket {
 public:
  class EventListener {
   public:
    virtual ~EventListener();
    // A listening socket accepted |connection|: connected, watched, with
    // this same listener, unless the callee changes it (set_listener).
    virtual void OnNewIncomingConnection(
        UnixSocket* self, std::unique_ptr<UnixSocket> connection);
    // Connect() finished: connected, or not (refused, no such socket).
    virtual void OnConnect(UnixSocket* self, bool connected);
    // The connection ended: the peer closed it, an error, or a Shutdown()
    // with notify. The socket is disconnected when this runs. At most once.
    virtual void OnDisconnect(UnixSocket* self);
    // Bytes (or file descriptors) may be read: Receive() until it returns
    // 0. Level-triggered: called again while unread data remains.
    virtual void OnDataAvailable(UnixSocket* self);
  };

  enum class State { kDisconnected, kConnecting, kConnected, kListening };

  // The most bytes queued for a peer that is not reading.
  static constexpr size_t kMaxQueuedSendBytes = 32u << 20;
  // The most file descriptors one Send() or Receive() carries.
  static constexpr size_t kMaxFdsPerMessage = 8;

  // Binds and listens on |address|. Null, with the reason logged, if that
  // fails; an address a live socket already serves fails (EADDRINUSE), and
  // a stale socket file (connect refused) is replaced. The socket file
  // stays when the socket goes (the next Listen replaces it).
  static std::unique_ptr<UnixSocket> Listen(const std::string& address,
                                            EventListener* listener,
                                            TaskRunner* runner);
  // Listens on an fd already bound and listening (inherited, tests).
  static std::unique_ptr<UnixSocket> Listen(ScopedFile fd,
                                            EventListener* listener,
                                            TaskRunner* runner);
  // Starts connecting to |address|; OnConnect() tells how it went (also
  // when it fails at once: never from inside this call).
  static std::unique_ptr<UnixSocket> Connect(const std::string& address,
                                             EventListener* listener,
                                             TaskRunner* runner);
  // Wraps a connected fd (one end of a socketpair, tests).
  static std::unique_ptr<UnixSocket> AdoptConnected(ScopedFile fd,
                                                    EventListener* listener,
                                                    TaskRunner* runner);

  ~UnixSocket();
  UnixSocket(const UnixSocket&) = delete;
  UnixSocket& operator=(const UnixSocket&) = delete;

  // Sends |size| bytes, and |num_fds| file descriptors with them (the fds
  // stay the caller's: the kernel passes copies). Connected only. False if
  // not connected, or if the connection broke (EPIPE, ECONNRESET) or the
  // queue would exceed kMaxQueuedSendBytes: the connection is then shut
  // down and OnDisconnect posted. Aborts if |num_fds| exceeds
  // kMaxFdsPerMessage, or comes with no byte (the kernel passes fds only
  // with data): caller bugs.
  bool Send(const void* data, size_t size, const int* fds = nullptr,
            size_t num_fds = 0);
  bool Send(const std::string& bytes) {
    return Send(bytes.data(), bytes.size());
  }

  // Reads up to |size| bytes into |data|. File descriptors that came with
  // them are stored into |fds| (up to |max_fds|; more are closed, so none
  // leak) and counted in |*num_fds| if given. Returns the bytes read; 0
  // when nothing is there now, or the peer closed (OnDisconnect posted).
  size_t Receive(void* data, size_t size, ScopedFile* fds = nullptr,
                 size_t max_fds = 0, size_t* num_fds = nullptr);

  // Closes the connection (or stops listening, or connecting); bytes still
  // queued are dropped. With |notify|, OnDisconnect is posted (unless it
  // was already); without, no event follows, even one posted before.
  void Shutdown(bool notify);

  State state() const { return state_; }
  bool is_connected() const { return state_ == State::kConnected; }
  bool is_listening() const { return state_ == State::kListening; }
  // The peer's credentials (SO_PEERCRED), read when the connection is made;
  // -1 if unknown.
  uid_t peer_uid() const { return peer_uid_; }
  pid_t peer_pid() const { return peer_pid_; }
  int fd() const { return fd_.get(); }
  void set_listener(EventListener* listener) { listener_ = listener; }
  // Bytes queued for sending, not yet taken by the kernel.
  size_t queued_send_bytes() const;

 private:
  // What the kernel has not taken yet of one Send(): the rest of its bytes,
  // and, while none of them has gone, duplicates of its fds (the caller's
  // may be closed meanwhile), which go with its first byte.
  struct QueuedSend {
    std::string bytes;
    std::vector<ScopedFile> fds;  // Emptied (closed) once sent.
  };

  UnixSocket(ScopedFile fd, State state, EventListener* listener,
             TaskRunner* runner);
  void WatchReadable();
  // Arms the one-shot writable watch, unless it is armed already.
  void WatchWritable();
  void OnFdReadable();
  void OnFdWritable();
  void AcceptPendingConnections();
  // Out of fds or memory: accept4 fails with the listening socket still
  // readable; stop watching it for a while instead of spinning.
  void PauseAccepting();
  // Connect() finished with |error| (0: connected): the state, the watch,
  // then OnConnect. Nothing if the socket is no longer connecting.
  void FinishConnect(int error);
  // Queues what sendmsg did not take of a Send() (|fds| too if none of its
  // bytes went); false (and disconnected) if over the bound.
  bool Enqueue(const char* data, size_t size, const int* fds, size_t num_fds);
  void SendQueued();
  void ReadPeerCredentials();
  // Disconnected: watches removed, fd closed, send queue dropped. No event.
  void Close();
  // Close(), and OnDisconnect posted (once per socket at most).
  void Disconnect();
  void NotifyDisconnect();

  ScopedFile fd_;
  State state_;
  EventListener* listener_;
  TaskRunner* runner_;
  uid_t peer_uid_ = static_cast<uid_t>(-1);
  pid_t peer_pid_ = -1;
  bool read_watched_ = false;
  bool write_watched_ = false;         // A one-shot writable watch is pending.
  bool disconnect_posted_ = false;     // OnDisconnect at most once.
  bool muted_ = false;                 // Shutdown(false): no event follows.
  std::deque<QueuedSend> send_queue_;  // The first may be partly sent.
  size_t send_queue_offset_ = 0;       // Bytes of the first already sent.
  size_t queued_send_bytes_ = 0;       // Their sum, less that offset.
  WeakPtrFactory<UnixSocket> weak_factory_{this};  // Last member.
};

}  // namespace base
}  // namespace zt

#endif  // ZT_SRC_BASE_UNIX_SOCKET_H_
