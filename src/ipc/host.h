// Host: the server side of the producer and consumer sockets. Accepts
// clients on a listening UnixSocket, cuts their bytes into frames, binds
// them to Services by name and calls the Methods they invoke; replies go
// back in order through the Replies the methods were given.
// docs/design/ipc.md.
//
// What a client can do wrong costs that client only: a frame over the
// limit or one that does not decode closes its connection; an unknown
// service, method or request kind gets a failed reply and the connection
// stays. Nothing a client sends makes the host abort.
//
// Threading: create, use and destroy on the task runner's thread.

#ifndef ZT_SRC_IPC_HOST_H_
#define ZT_SRC_IPC_HOST_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "src/base/unix_socket.h"
#include "src/ipc/frame.h"
#include "src/ipc/service.h"
#include "zt/base/task_runner.h"
#include "zt/ext/base/weak_ptr.h"

namespace zt {
namespace ipc {

class Host : public base::UnixSocket::EventListener {
 public:
  struct Stats {
    uint64_t clients_accepted = 0;
    uint64_t clients_dropped_for_bad_frames = 0;
    uint64_t requests_refused = 0;  // Unknown service, method or request kind.
    uint64_t clients_refused_over_limits = 0;  // Limits: refused or dropped.
  };

  // What the clients of one uid may hold (0: no limit). A connection holds
  // its receive buffer: 128 KiB, up to 4 MiB while a large frame arrives;
  // the bytes over 128 KiB, summed over a uid's connections, are bounded,
  // so that many connections each sending most of a large frame cannot
  // hold gigabytes.
  struct Limits {
    size_t max_clients_per_uid = 0;
    size_t max_large_frame_bytes_per_uid = 0;
  };
  void set_limits(const Limits& limits) { limits_ = limits; }
  // The bytes over 128 KiB the receive buffers of |uid|'s clients hold.
  size_t large_frame_bytes_of_uid(uid_t uid) const {
    auto it = usage_by_uid_.find(uid);
    return it == usage_by_uid_.end() ? 0 : it->second.large_frame_bytes;
  }

  // Listens on |address| ("@name" for an abstract socket). Null, logged,
  // if it cannot (see UnixSocket::Listen).
  static std::unique_ptr<Host> Listen(const std::string& address, base::TaskRunner* runner);
  // Serves clients only added with AdoptClient() (tests, fuzzers).
  static std::unique_ptr<Host> CreateUnbound();

  ~Host() override;

  // Serves |service| to clients that bind its name. False if a service of
  // that name is already exposed.
  bool ExposeService(std::unique_ptr<Service> service);

  // Serves a connected socket as a client (one end of a socketpair).
  ClientId AdoptClient(std::unique_ptr<base::UnixSocket> connection);

  const Stats& stats() const { return stats_; }
  size_t num_clients() const { return clients_.size(); }

  // UnixSocket::EventListener.
  void OnNewIncomingConnection(base::UnixSocket* self,
                               std::unique_ptr<base::UnixSocket> connection) override;
  void OnDisconnect(base::UnixSocket* self) override;
  void OnDataAvailable(base::UnixSocket* self) override;

 private:
  friend class Reply;

  struct Client {
    ClientInfo info;
    std::unique_ptr<base::UnixSocket> socket;
    BufferedFrameDeserializer frames;
    base::ScopedFile received_fd;  // Came with the frame being served.
    std::vector<uint32_t> bound_services;  // Service ids (index + 1).
    // The largest reply frame it takes: what its bind announced (ours),
    // else upstream's limit.
    size_t max_reply_frame_size = kMaxFrameSize;
    size_t large_frame_bytes = 0;  // Its receive buffer over the base, charged to its uid.
  };
  struct UidUsage {
    size_t clients = 0;
    size_t large_frame_bytes = 0;
  };
  // Charges |client|'s receive buffer to its uid; false if that is over
  // limits_ (the caller drops it).
  bool ChargeReceiveBuffer(Client* client);

  Host() = default;
  Client* FindClient(base::UnixSocket* socket);
  void DropClient(Client* client, bool bad_frames);
  // |weak| is this host's, held by the caller: it tells whether a method
  // destroyed the host.
  void OnFrame(Client* client, const Frame& frame, const base::WeakPtr<Host>& weak);
  void OnBindService(Client* client, const Frame& frame);
  void OnInvokeMethod(Client* client, const InvokeRequest& invoke,
                      const base::WeakPtr<Host>& weak);
  // Reply's sender: one InvokeMethodReply frame to |client_id|, if there.
  void SendReply(ClientId client_id, uint64_t request_id, bool success, bool has_more,
                 const std::string& reply_proto, int fd);
  void SendFrame(Client* client, const Frame& frame, int fd = -1);

  std::unique_ptr<base::UnixSocket> listener_;
  std::vector<std::unique_ptr<Service>> services_;  // Service id = index + 1.
  std::map<ClientId, std::unique_ptr<Client>> clients_;
  std::map<base::UnixSocket*, ClientId> client_by_socket_;
  ClientId next_client_id_ = 1;
  Stats stats_;
  Limits limits_;
  std::map<uid_t, UidUsage> usage_by_uid_;
  std::string args_buffer_;  // Lent to each call's Request (OnInvokeMethod).
  base::WeakPtrFactory<Host> weak_factory_{this};  // Last member.
};

}  // namespace ipc
}  // namespace zt

#endif  // ZT_SRC_IPC_HOST_H_
