// Client: the caller's side of a producer or consumer socket. Connects,
// binds one service by name, and invokes its methods by name: ids come from
// the host's bind reply, so a host that numbers them otherwise, or lacks a
// method (an older peer), works. docs/design/ipc.md.
//
// Every invocation is answered: by the host's replies, or with a failure if
// the host lacks the method, refuses the request, or the connection ends
// first. Threading: create, use and destroy on the task runner's thread;
// callbacks run there, never from inside a call the user made, and never
// after the client is destroyed (a callback may destroy it).

#ifndef ZT_SRC_IPC_CLIENT_H_
#define ZT_SRC_IPC_CLIENT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "src/base/scoped_file.h"
#include "src/base/unix_socket.h"
#include "src/ipc/frame.h"
#include "zt/base/task_runner.h"
#include "zt/ext/base/weak_ptr.h"

namespace zt {
namespace ipc {

class Client : public base::UnixSocket::EventListener {
 public:
  struct Response {
    bool success = false;
    bool has_more = false;  // More replies to this request follow.
    std::string reply_proto;
    base::ScopedFile fd;  // A file descriptor that came with the reply.
    // Why a request failed before it was sent (one over the host's frame
    // limit): for the caller to show. Empty otherwise.
    std::string error;
  };
  using ResponseCallback = std::function<void(Response)>;
  // True once the service is bound; false if connecting or binding failed
  // (the client is then unusable).
  using BoundCallback = std::function<void(bool bound)>;
  // The connection of a bound client ended.
  using DisconnectCallback = std::function<void()>;

  static std::unique_ptr<Client> Connect(const std::string& address,
                                         const std::string& service_name,
                                         base::TaskRunner* runner, BoundCallback on_bound,
                                         DisconnectCallback on_disconnect);
  // Over a connected socket (one end of a socketpair).
  static std::unique_ptr<Client> Adopt(std::unique_ptr<base::UnixSocket> connection,
                                       const std::string& service_name,
                                       base::TaskRunner* runner, BoundCallback on_bound,
                                       DisconnectCallback on_disconnect);
  ~Client() override;

  bool bound() const { return state_ == State::kBound; }
  bool HasMethod(std::string_view name) const { return method_ids_.count(name) != 0; }
  // The largest request frame the host takes, header included: what its
  // bind reply announced (ours: kMaxReceiveFrameSize), else upstream's
  // kMaxFrameSize, which an upstream host enforces by closing the
  // connection without a word.
  size_t max_request_frame_size() const { return max_request_frame_size_; }

  // Invokes |method| with the serialized request |args| (and |fd|, if not
  // -1; it stays the caller's). Each reply reaches |callback|, the last with
  // has_more false. With |drop_reply| the host answers nothing and
  // |callback| is not called. False, with a failure posted to |callback|,
  // if the client is not bound, the host lacks the method, or the request's
  // frame is over the host's limit (max_request_frame_size(); the failure's
  // error says so, and it is logged): nothing is sent then, and the
  // connection stays.
  bool Invoke(std::string_view method, std::string_view args, ResponseCallback callback,
              bool drop_reply = false, int fd = -1);

  // The peer's credentials (SO_PEERCRED).
  const base::UnixSocket* socket() const { return socket_.get(); }

  // UnixSocket::EventListener.
  void OnConnect(base::UnixSocket* self, bool connected) override;
  void OnDisconnect(base::UnixSocket* self) override;
  void OnDataAvailable(base::UnixSocket* self) override;

 private:
  enum class State { kConnecting, kBinding, kBound, kDead };

  Client(const std::string& service_name, base::TaskRunner* runner, BoundCallback on_bound,
         DisconnectCallback on_disconnect);
  void SendBind();
  void OnFrame(const Frame& frame, base::ScopedFile* fd);
  void Fail();  // The connection is over: fails what is pending, tells the user.
  void PostFailure(ResponseCallback callback, std::string error = std::string());

  std::string service_name_;
  // Where Connect() went, for the service identity check; empty when adopted.
  std::string address_;
  base::TaskRunner* runner_;
  BoundCallback on_bound_;
  DisconnectCallback on_disconnect_;
  State state_ = State::kConnecting;
  std::unique_ptr<base::UnixSocket> socket_;
  BufferedFrameDeserializer frames_;
  uint64_t next_request_id_ = 1;
  uint64_t bind_request_id_ = 0;
  uint32_t service_id_ = 0;
  size_t max_request_frame_size_ = kMaxFrameSize;
  // Method names order by length first: a lookup (one per call) mostly
  // compares sizes, not bytes; found by string_view, no string made.
  struct ShorterFirst {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const {
      return a.size() != b.size() ? a.size() < b.size() : a < b;
    }
  };
  std::map<std::string, uint32_t, ShorterFirst> method_ids_;
  std::string send_buffer_;  // Each call's frame, encoded in place (reused).
  std::map<uint64_t, ResponseCallback> pending_;  // By request id.
  base::WeakPtrFactory<Client> weak_factory_{this};  // Last member.
};

}  // namespace ipc
}  // namespace zt

#endif  // ZT_SRC_IPC_CLIENT_H_
