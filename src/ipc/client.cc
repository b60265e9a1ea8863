// The IPC client (client.h).

#include "src/ipc/client.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "src/ipc/service_identity.h"
#include "zt/base/logging.h"

namespace zt {
namespace ipc {

Client::Client(const std::string& service_name, base::TaskRunner* runner,
               BoundCallback on_bound, DisconnectCallback on_disconnect)
    : service_name_(service_name),
      runner_(runner),
      on_bound_(std::move(on_bound)),
      on_disconnect_(std::move(on_disconnect)) {}

Client::~Client() = default;

std::unique_ptr<Client> Client::Connect(const std::string& address,
                                        const std::string& service_name,
                                        base::TaskRunner* runner, BoundCallback on_bound,
                                        DisconnectCallback on_disconnect) {
  std::unique_ptr<Client> client(
      new Client(service_name, runner, std::move(on_bound), std::move(on_disconnect)));
  client->address_ = address;
  std::string refusal;
  if (!CheckServiceSocketFile(address, &refusal)) {
    // Not even a connect(): nothing of ours reaches an impostor.
    ZT_ELOG("IPC: %s", refusal.c_str());
    runner->PostTask([weak = client->weak_factory_.GetWeakPtr()] {
      if (weak)
        weak->Fail();
    });
    return client;
  }
  // OnConnect() follows, posted, whatever happens.
  client->socket_ = base::UnixSocket::Connect(address, client.get(), runner);
  return client;
}

std::unique_ptr<Client> Client::Adopt(std::unique_ptr<base::UnixSocket> connection,
                                      const std::string& service_name,
                                      base::TaskRunner* runner, BoundCallback on_bound,
                                      DisconnectCallback on_disconnect) {
  std::unique_ptr<Client> client(
      new Client(service_name, runner, std::move(on_bound), std::move(on_disconnect)));
  connection->set_listener(client.get());
  client->socket_ = std::move(connection);
  client->SendBind();
  return client;
}

void Client::OnConnect(base::UnixSocket* socket, bool connected) {
  if (!connected)
    return Fail();
  // Before the first byte: the bind request already names the service.
  std::string refusal;
  if (!CheckServicePeer(address_, socket->peer_uid(), &refusal)) {
    ZT_ELOG("IPC: %s", refusal.c_str());
    return Fail();
  }
  SendBind();
}

void Client::SendBind() {
  state_ = State::kBinding;
  bind_request_id_ = next_request_id_++;
  Frame frame;
  frame.set_request_id(bind_request_id_);
  frame.mutable_msg_bind_service()->set_service_name(service_name_);
  frame.mutable_msg_bind_service()->set_zt_max_reply_frame_size(
      static_cast<uint32_t>(kMaxReceiveFrameSize));
  socket_->Send(SerializeFrame(frame));  // A failure posts OnDisconnect.
}

bool Client::Invoke(std::string_view method, std::string_view args, ResponseCallback callback,
                    bool drop_reply, int fd) {
  auto it = method_ids_.find(method);
  if (state_ != State::kBound || it == method_ids_.end()) {
    if (state_ == State::kBound) {
      ZT_DLOG("IPC: the host's %s has no method %.*s", service_name_.c_str(),
              static_cast<int>(method.size()), method.data());
    }
    if (!drop_reply)
      PostFailure(std::move(callback));
    return false;
  }
  InvokeRequest invoke;
  invoke.request_id = next_request_id_++;
  invoke.service_id = service_id_;
  invoke.method_id = it->second;
  invoke.args = args;
  invoke.drop_reply = drop_reply;
  const size_t frame_size = InvokeFrameSize(invoke);
  if (frame_size > max_request_frame_size_) {
    // An upstream host would close the connection without a word; ours
    // would refuse it the same way. Only this request fails.
    std::string error = "the " + std::string(method) + " request is " +
                        std::to_string(frame_size) + " bytes, over the " +
                        std::to_string(max_request_frame_size_) +
                        "-byte frame limit of the service's " + service_name_;
    // The caller hears of it and says it in its words (ztrace, the
    // producer's log line); a call whose reply is dropped has no one to
    // tell, so it is logged here.
    if (drop_reply) {
      ZT_ELOG("IPC: %s; not sent", error.c_str());
      return false;
    }
    PostFailure(std::move(callback), std::move(error));
    return false;
  }
  if (!drop_reply)
    pending_[invoke.request_id] = std::move(callback);
  // Straight into a buffer kept for it: no IPCFrame object, no copy of the
  // args but the one into the frame.
  SerializeInvokeFrame(invoke, &send_buffer_);
  socket_->Send(send_buffer_.data(), send_buffer_.size(), fd >= 0 ? &fd : nullptr,
                fd >= 0 ? 1 : 0);
  return true;
}

void Client::OnDataAvailable(base::UnixSocket* socket) {
  base::WeakPtr<Client> weak = weak_factory_.GetWeakPtr();
  for (int i = 0; i < kMaxReadsPerCallback; i++) {
    const BufferedFrameDeserializer::ReceiveBuffer room = frames_.BeginReceive();
    base::ScopedFile fd;
    const size_t n = socket->Receive(room.data, room.size, &fd, 1);
    if (n == 0)
      return;  // Nothing more now; or the host closed (OnDisconnect follows).
    const bool intact = frames_.EndReceive(n, std::move(fd));
    base::ScopedFile frame_fd;
    while (std::unique_ptr<Frame> frame = frames_.PopNextFrame(&frame_fd)) {
      OnFrame(*frame, &frame_fd);  // Closed unless the frame's reply takes it.
      frame_fd.reset();
      if (!weak || state_ == State::kDead)
        return;
    }
    if (!intact) {
      ZT_ELOG("IPC: the host of %s sent bytes that are not frames: %s",
              service_name_.c_str(), frames_.error().c_str());
      return Fail();
    }
    // A short read most likely emptied the socket: another recvmsg would
    // only say EAGAIN (a system call per message). The watch is
    // level-triggered: bytes still there, or coming, call back again.
    if (n < room.size) {
      frames_.Compact();  // A buffer grown for a large reply shrinks now.
      return;
    }
  }
}

void Client::OnFrame(const Frame& frame, base::ScopedFile* fd) {
  if (frame.has_msg_bind_service_reply() && frame.request_id() == bind_request_id_ &&
      state_ == State::kBinding) {
    const Frame::BindServiceReply& reply = frame.msg_bind_service_reply();
    if (!reply.success()) {
      ZT_ELOG("IPC: the host has no service %s", service_name_.c_str());
      return Fail();
    }
    service_id_ = reply.service_id();
    // Absent (an upstream host): upstream's limit. Never more than we could
    // encode, never less than upstream's.
    if (reply.has_zt_max_request_frame_size()) {
      max_request_frame_size_ = std::clamp<size_t>(reply.zt_max_request_frame_size(),
                                                   kMaxFrameSize, kMaxReceiveFrameSize);
    }
    for (const auto& method : reply.methods())
      method_ids_[method.name()] = method.id();
    state_ = State::kBound;
    if (on_bound_)
      on_bound_(true);
    return;
  }
  auto it = pending_.find(frame.request_id());
  if (it == pending_.end())
    return;  // Not ours (a late reply to nothing): ignored.
  Response response;
  if (frame.has_msg_invoke_method_reply()) {
    const Frame::InvokeMethodReply& reply = frame.msg_invoke_method_reply();
    response.success = reply.success();
    response.has_more = reply.success() && reply.has_more();
    response.reply_proto = reply.reply_proto();
  }  // A request error, or anything else: a failure, the request's end.
  response.fd = std::move(*fd);
  ResponseCallback callback = response.has_more ? it->second : std::move(it->second);
  if (!response.has_more)
    pending_.erase(it);
  if (callback)
    callback(std::move(response));
}

void Client::OnDisconnect(base::UnixSocket*) { Fail(); }

void Client::Fail() {
  if (state_ == State::kDead)
    return;
  const bool was_bound = state_ == State::kBound;
  state_ = State::kDead;
  method_ids_.clear();
  base::WeakPtr<Client> weak = weak_factory_.GetWeakPtr();
  std::map<uint64_t, ResponseCallback> pending = std::move(pending_);
  pending_.clear();
  for (auto& entry : pending) {
    if (entry.second)
      entry.second(Response());
    if (!weak)
      return;  // A callback destroyed the client.
  }
  if (was_bound) {
    if (on_disconnect_)
      on_disconnect_();
  } else if (on_bound_) {
    on_bound_(false);
  }
}

void Client::PostFailure(ResponseCallback callback, std::string error) {
  if (!callback)
    return;
  runner_->PostTask([weak = weak_factory_.GetWeakPtr(), callback = std::move(callback),
                     error = std::move(error)] {
    if (!weak)
      return;
    Response response;
    response.error = error;
    callback(std::move(response));
  });
}

}  // namespace ipc
}  // namespace zt
