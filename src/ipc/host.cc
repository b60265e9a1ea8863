// The IPC host (host.h).

#include "src/ipc/host.h"

#include <algorithm>
#include <utility>

#include "zt/base/logging.h"

namespace zt {
namespace ipc {

Reply& Reply::operator=(Reply&& other) noexcept {
  if (this != &other) {
    Reject();
    host_ = std::move(other.host_);
    client_ = other.client_;
    request_id_ = other.request_id_;
    pending_ = other.pending_;
    other.pending_ = false;
  }
  return *this;
}

void Reply::Resolve(const std::string& reply_proto, bool has_more, int fd) {
  if (!pending_)
    return;  // A drop_reply request, or already answered.
  pending_ = has_more;
  if (Host* host = host_.get())
    host->SendReply(client_, request_id_, /*success=*/true, has_more, reply_proto, fd);
}

void Reply::Reject() {
  if (!pending_)
    return;
  pending_ = false;
  if (Host* host = host_.get())
    host->SendReply(client_, request_id_, /*success=*/false, /*has_more=*/false, "", -1);
}

namespace {
// The bytes of a reply frame besides its reply_proto: request id, flags and
// lengths take at most this many.
constexpr size_t kReplyFramingBytes = 64;
}  // namespace

size_t Reply::max_reply_bytes() const {
  Host* host = host_.get();
  if (!host)
    return 0;
  auto it = host->clients_.find(client_);
  return it == host->clients_.end()
             ? 0
             : it->second->max_reply_frame_size - kFrameHeaderSize - kReplyFramingBytes;
}

size_t Reply::queued_send_bytes() const {
  Host* host = host_.get();
  if (!host)
    return 0;
  auto it = host->clients_.find(client_);
  return it == host->clients_.end() ? 0 : it->second->socket->queued_send_bytes();
}

Host::~Host() = default;

std::unique_ptr<Host> Host::Listen(const std::string& address, base::TaskRunner* runner) {
  std::unique_ptr<Host> host(new Host());
  host->listener_ = base::UnixSocket::Listen(address, host.get(), runner);
  if (!host->listener_)
    return nullptr;
  return host;
}

std::unique_ptr<Host> Host::CreateUnbound() {
  return std::unique_ptr<Host>(new Host());
}

bool Host::ExposeService(std::unique_ptr<Service> service) {
  for (const auto& existing : services_) {
    if (existing->name() == service->name())
      return false;
  }
  services_.push_back(std::move(service));
  return true;
}

ClientId Host::AdoptClient(std::unique_ptr<base::UnixSocket> connection) {
  auto client = std::make_unique<Client>();
  client->info.id = next_client_id_++;
  client->info.uid = connection->peer_uid();
  client->info.pid = connection->peer_pid();
  connection->set_listener(this);
  client->socket = std::move(connection);
  client_by_socket_[client->socket.get()] = client->info.id;
  const ClientId id = client->info.id;
  usage_by_uid_[client->info.uid].clients++;
  clients_[id] = std::move(client);
  stats_.clients_accepted++;
  return id;
}

void Host::OnNewIncomingConnection(base::UnixSocket*,
                                   std::unique_ptr<base::UnixSocket> connection) {
  const uid_t uid = connection->peer_uid();
  auto usage = usage_by_uid_.find(uid);
  if (limits_.max_clients_per_uid && usage != usage_by_uid_.end() &&
      usage->second.clients >= limits_.max_clients_per_uid) {
    stats_.clients_refused_over_limits++;
    ZT_ELOG("IPC: a connection of uid %d (pid %d) refused: the uid has %zu, the limit",
            static_cast<int>(uid), static_cast<int>(connection->peer_pid()),
            usage->second.clients);
    return;  // Closed here.
  }
  AdoptClient(std::move(connection));
}

bool Host::ChargeReceiveBuffer(Client* client) {
  const size_t capacity = client->frames.capacity();
  const size_t large = capacity > kMaxFrameSize ? capacity - kMaxFrameSize : 0;
  // Unchanged (almost every read: no large frame pending): nothing to
  // charge, and the uid's total was checked when a connection last grew it.
  if (large == client->large_frame_bytes)
    return true;
  UidUsage& usage = usage_by_uid_[client->info.uid];
  usage.large_frame_bytes = usage.large_frame_bytes - client->large_frame_bytes + large;
  client->large_frame_bytes = large;
  return !limits_.max_large_frame_bytes_per_uid ||
         usage.large_frame_bytes <= limits_.max_large_frame_bytes_per_uid;
}

Host::Client* Host::FindClient(base::UnixSocket* socket) {
  auto it = client_by_socket_.find(socket);
  if (it == client_by_socket_.end())
    return nullptr;
  return clients_.at(it->second).get();
}

void Host::OnDisconnect(base::UnixSocket* socket) {
  if (Client* client = FindClient(socket))
    DropClient(client, /*bad_frames=*/false);
}

void Host::DropClient(Client* client, bool bad_frames) {
  if (bad_frames) {
    stats_.clients_dropped_for_bad_frames++;
    ZT_WLOG("IPC client %llu (pid %d, uid %d) disconnected: %s",
            static_cast<unsigned long long>(client->info.id), static_cast<int>(client->info.pid),
            static_cast<int>(client->info.uid), client->frames.error().c_str());
  }
  auto usage = usage_by_uid_.find(client->info.uid);
  if (usage != usage_by_uid_.end()) {
    usage->second.large_frame_bytes -= client->large_frame_bytes;
    if (--usage->second.clients == 0)
      usage_by_uid_.erase(usage);
  }
  auto it = clients_.find(client->info.id);
  std::unique_ptr<Client> owned = std::move(it->second);
  clients_.erase(it);
  client_by_socket_.erase(owned->socket.get());
  // Every service hears of it, bound or not, as upstream's host does: a
  // client may invoke a service's methods without binding it first (ids
  // are small numbers), and whatever it set up there must go with it.
  for (const std::unique_ptr<Service>& service : services_) {
    if (service->on_client_disconnected)
      service->on_client_disconnected(owned->info);
  }
  // The socket goes with it, here: UnixSocket allows it inside its own
  // callbacks, and sends no event afterwards.
}

void Host::OnDataAvailable(base::UnixSocket* socket) {
  Client* client = FindClient(socket);
  if (!client)
    return;
  const ClientId id = client->info.id;
  base::WeakPtr<Host> weak = weak_factory_.GetWeakPtr();
  for (int i = 0; i < kMaxReadsPerCallback; i++) {
    const BufferedFrameDeserializer::ReceiveBuffer room = client->frames.BeginReceive();
    if (!ChargeReceiveBuffer(client)) {
      stats_.clients_refused_over_limits++;
      ZT_ELOG("IPC client %llu (pid %d, uid %d) disconnected: the partial frames of its "
              "uid's connections hold over %zu bytes, the limit",
              static_cast<unsigned long long>(id), static_cast<int>(client->info.pid),
              static_cast<int>(client->info.uid), limits_.max_large_frame_bytes_per_uid);
      DropClient(client, /*bad_frames=*/false);
      return;
    }
    base::ScopedFile fd;
    const size_t n = socket->Receive(room.data, room.size, &fd, 1);
    if (n == 0)
      return;  // Nothing more now; or the peer closed (OnDisconnect follows).
    const bool intact = client->frames.EndReceive(n, std::move(fd));
    // Frames decoded before a break are still served, then the client goes.
    BufferedFrameDeserializer::ReceivedFrame frame;
    while (client->frames.PopNext(&frame)) {
      client->received_fd = std::move(frame.fd);
      if (frame.frame)
        OnFrame(client, *frame.frame, weak);
      else
        OnInvokeMethod(client, frame.invoke, weak);  // A plain call, decoded in place.
      // A method may have dropped this client, or destroyed the host.
      if (!weak || clients_.find(id) == clients_.end())
        return;
      // What the method did not take is closed: it came with this frame only.
      client->received_fd.reset();
    }
    if (!intact) {
      DropClient(client, /*bad_frames=*/true);
      return;
    }
    // A short read most likely emptied the socket: another recvmsg would
    // only say EAGAIN (a system call per message). The watch is
    // level-triggered: bytes still there, or coming, call back again.
    // A buffer grown for a large frame served shrinks now, not at the
    // client's next message.
    if (n < room.size) {
      client->frames.Compact();
      ChargeReceiveBuffer(client);
      return;
    }
  }
}

void Host::OnFrame(Client* client, const Frame& frame, const base::WeakPtr<Host>& weak) {
  if (frame.has_msg_bind_service())
    return OnBindService(client, frame);
  if (frame.has_msg_invoke_method()) {
    const Frame::InvokeMethod& invoke = frame.msg_invoke_method();
    InvokeRequest request;
    request.request_id = frame.request_id();
    request.service_id = invoke.service_id();
    request.method_id = invoke.method_id();
    request.args = invoke.args_proto();
    request.drop_reply = invoke.drop_reply();
    return OnInvokeMethod(client, request, weak);
  }
  if (frame.has_set_peer_identity())
    return;  // Only relays on other machines send it; a local peer's is the kernel's.
  stats_.requests_refused++;
  Frame error;
  error.set_request_id(frame.request_id());
  error.mutable_msg_request_error()->set_error("unknown request");
  SendFrame(client, error);
}

void Host::OnBindService(Client* client, const Frame& frame) {
  Frame reply;
  reply.set_request_id(frame.request_id());
  auto* bind_reply = reply.mutable_msg_bind_service_reply();
  const std::string& name = frame.msg_bind_service().service_name();
  if (frame.msg_bind_service().has_zt_max_reply_frame_size()) {
    client->max_reply_frame_size =
        std::clamp<size_t>(frame.msg_bind_service().zt_max_reply_frame_size(), kMaxFrameSize,
                           kMaxReceiveFrameSize);
  }
  for (size_t i = 0; i < services_.size(); i++) {
    if (services_[i]->name() != name)
      continue;
    const uint32_t service_id = static_cast<uint32_t>(i + 1);
    bind_reply->set_success(true);
    bind_reply->set_service_id(service_id);
    bind_reply->set_zt_max_request_frame_size(static_cast<uint32_t>(kMaxReceiveFrameSize));
    uint32_t method_id = 1;
    for (const Method& method : services_[i]->methods()) {
      auto* info = bind_reply->add_methods();
      info->set_id(method_id++);
      info->set_name(method.name);
    }
    bool known = false;
    for (uint32_t bound : client->bound_services)
      known |= bound == service_id;
    if (!known)
      client->bound_services.push_back(service_id);
    return SendFrame(client, reply);
  }
  stats_.requests_refused++;
  bind_reply->set_success(false);
  SendFrame(client, reply);
}

void Host::OnInvokeMethod(Client* client, const InvokeRequest& invoke,
                          const base::WeakPtr<Host>& weak) {
  const uint32_t service_id = invoke.service_id;
  const uint32_t method_id = invoke.method_id;
  if (service_id == 0 || service_id > services_.size() || method_id == 0 ||
      method_id > services_[service_id - 1]->methods().size()) {
    // Answered even with drop_reply: the caller should learn of it.
    stats_.requests_refused++;
    return SendReply(client->info.id, invoke.request_id, /*success=*/false,
                     /*has_more=*/false, "", -1);
  }
  const Method& method = services_[service_id - 1]->methods()[method_id - 1];
  // Handlers take the args as a std::string: copied into the host's buffer
  // (no allocation once it is big enough), which this call owns while the
  // handler runs, as a handler may destroy the host.
  std::string args = std::move(args_buffer_);
  args.assign(invoke.args.data(), invoke.args.size());
  Request request{client->info, args, &client->received_fd};
  method.handler(request, invoke.drop_reply ? Reply()
                                            : Reply(weak, client->info.id, invoke.request_id));
  // Kept for the next call, unless a large one grew it: that memory goes
  // back now.
  if (weak && args.capacity() <= kMaxFrameSize)
    args_buffer_ = std::move(args);
}

void Host::SendReply(ClientId client_id, uint64_t request_id, bool success, bool has_more,
                     const std::string& reply_proto, int fd) {
  auto it = clients_.find(client_id);
  if (it == clients_.end())
    return;  // Gone before its answer.
  // A reply the peer could not take (over the frame limit: a state query
  // grown with many producers, a command carrying a huge config) fails that
  // request instead of the daemon.
  const size_t limit = it->second->max_reply_frame_size;
  if (success && reply_proto.size() > limit - kFrameHeaderSize - kReplyFramingBytes) {
    ZT_ELOG("IPC: a reply of %zu bytes to client %llu (pid %d) is over the %zu-byte frame "
            "limit; the request fails instead",
            reply_proto.size(), static_cast<unsigned long long>(client_id),
            static_cast<int>(it->second->info.pid), limit);
    success = false;
    has_more = false;
  }
  Frame frame;
  frame.set_request_id(request_id);
  auto* reply = frame.mutable_msg_invoke_method_reply();
  reply->set_success(success);
  reply->set_has_more(has_more);
  if (success)
    reply->set_reply_proto(reply_proto);
  SendFrame(it->second.get(), frame, fd);
}

void Host::SendFrame(Client* client, const Frame& frame, int fd) {
  const std::string bytes = SerializeFrame(frame);
  // On failure (a client that stopped reading, or gone) the socket has shut
  // down and posts OnDisconnect, which drops the client.
  client->socket->Send(bytes.data(), bytes.size(), fd >= 0 ? &fd : nullptr, fd >= 0 ? 1 : 0);
}

}  // namespace ipc
}  // namespace zt
