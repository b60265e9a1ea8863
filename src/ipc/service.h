// What an IPC Host serves: named Services (a socket's port, e.g.
// "ProducerPort") made of named Methods, each a handler of raw request
// bytes that answers through a Reply. docs/design/ipc.md.
//
// Threading: handlers run on the host's task runner; a Reply may be kept
// and answered later (a deferred reply), on that runner too.

#ifndef ZT_SRC_IPC_SERVICE_H_
#define ZT_SRC_IPC_SERVICE_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "src/base/scoped_file.h"
#include "zt/ext/base/weak_ptr.h"

namespace zt {
namespace ipc {

class Host;

using ClientId = uint64_t;

// Who is calling: the host's id for the connection, and the peer's
// credentials as the kernel gave them (SO_PEERCRED; -1 if unknown).
struct ClientInfo {
  ClientId id = 0;
  uid_t uid = static_cast<uid_t>(-1);
  pid_t pid = -1;
};

// The answer to one request. Move-only. Resolve() sends a reply; with
// |has_more| more follow (a streaming method), and the one without ends the
// request. Dropped before that, it answers success = false, so no request
// is ever left without an answer. A request sent with drop_reply gets a
// Reply that sends nothing. Use on the host's runner. Replies for a client
// that has gone, or a host that has, are dropped.
class Reply {
 public:
  Reply() = default;  // Answers nothing.
  Reply(Reply&& other) noexcept { *this = std::move(other); }
  Reply& operator=(Reply&& other) noexcept;
  Reply(const Reply&) = delete;
  Reply& operator=(const Reply&) = delete;
  ~Reply() { Reject(); }

  // Sends |reply_proto| (the serialized response) with success = true, and
  // |fd| with it if not -1 (the fd stays the caller's).
  void Resolve(const std::string& reply_proto, bool has_more = false, int fd = -1);
  // Ends the request with success = false.
  void Reject();
  // Whether this request still expects an answer.
  bool pending() const { return pending_; }
  // Bytes already sent to this client that its socket has not taken yet
  // (0 if the client or host is gone): a streaming method paces itself on
  // it, so that a slow reader is not sent more than the host will queue.
  size_t queued_send_bytes() const;
  // The largest reply_proto this client takes in one reply (what its bind
  // announced, else upstream's 128 KiB frame, less the reply's framing);
  // a larger one fails the request. 0 if the client or host is gone.
  size_t max_reply_bytes() const;

 private:
  friend class Host;
  Reply(base::WeakPtr<Host> host, ClientId client, uint64_t request_id)
      : host_(std::move(host)), client_(client), request_id_(request_id), pending_(true) {}

  base::WeakPtr<Host> host_;
  ClientId client_ = 0;
  uint64_t request_id_ = 0;
  bool pending_ = false;
};

// One call: who made it, the serialized request, and the file descriptor
// that came with it, if any (a producer's own shared memory), which the
// handler may take.
struct Request {
  ClientInfo client;
  const std::string& args;
  base::ScopedFile* received_fd;
};

struct Method {
  using Handler = std::function<void(Request& request, Reply reply)>;
  std::string name;
  Handler handler;
};

// A named set of methods. Method ids are 1-based in the order added, as
// Perfetto's hosts number them; clients look them up by name.
class Service {
 public:
  explicit Service(std::string name) : name_(std::move(name)) {}

  void AddMethod(std::string name, Method::Handler handler) {
    methods_.push_back(Method{std::move(name), std::move(handler)});
  }
  const std::string& name() const { return name_; }
  const std::vector<Method>& methods() const { return methods_; }

  // Called when a client that bound this service disconnects (its pending
  // Replies then send nothing).
  std::function<void(const ClientInfo&)> on_client_disconnected;

 private:
  std::string name_;
  std::vector<Method> methods_;
};

}  // namespace ipc
}  // namespace zt

#endif  // ZT_SRC_IPC_SERVICE_H_
