// The IPC host and client over real UNIX sockets, both on one virtual-time
// task runner driven by the test: binding by name, calls, streams, deferred
// and dropped replies, file descriptors, and what a misbehaving peer costs
// (only its own connection).

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/scoped_file.h"
#include "src/base/test/test_task_runner.h"
#include "src/base/unix_socket.h"
#include "src/ipc/client.h"
#include "src/ipc/frame.h"
#include "src/ipc/host.h"

namespace zt {
namespace ipc {
namespace {

using base::TestTaskRunner;

std::string UniqueAddress() {
  static int counter = 0;
  return "@zt-ipc-test-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
}

// A service with the shapes of methods the ports have: a plain answer, a
// stream, one that never answers (dropping its Reply), one that answers
// later, one that sends a file descriptor.
struct EchoService {
  std::vector<std::string> calls;   // "method:args", in order.
  std::vector<ClientInfo> gone;     // Clients that disconnected.
  Reply kept;                       // "Later"'s, answered by the test.
  int fd_to_send = -1;
  std::vector<base::ScopedFile> taken_fds;  // "TakeFd"'s.

  std::unique_ptr<Service> Make() {
    auto service = std::make_unique<Service>("EchoPort");
    service->AddMethod("Echo", [this](Request& request, Reply reply) {
      calls.push_back("Echo:" + request.args);
      reply.Resolve(request.args);
    });
    service->AddMethod("Stream", [this](Request& request, Reply reply) {
      calls.push_back("Stream:" + request.args);
      reply.Resolve("1", /*has_more=*/true);
      reply.Resolve("2", /*has_more=*/true);
      reply.Resolve("3");
    });
    service->AddMethod("Never", [this](Request& request, Reply) {
      calls.push_back("Never:" + request.args);
    });
    service->AddMethod("Later", [this](Request& request, Reply reply) {
      calls.push_back("Later:" + request.args);
      kept = std::move(reply);
    });
    service->AddMethod("SendFd", [this](Request&, Reply reply) {
      reply.Resolve("fd", /*has_more=*/false, fd_to_send);
    });
    service->AddMethod("Size", [](Request& request, Reply reply) {
      reply.Resolve(std::to_string(request.args.size()));
    });
    service->AddMethod("Big", [](Request&, Reply reply) {
      reply.Resolve(std::string(200 * 1024, 'b'));  // Over upstream's frame limit.
    });
    service->AddMethod("Huge", [](Request&, Reply reply) {
      reply.Resolve(std::string(kMaxReceiveFrameSize, 'h'));  // More than a frame holds.
    });
    // Records whether a descriptor came with the call (and keeps it open).
    service->AddMethod("TakeFd", [this](Request& request, Reply reply) {
      const bool with_fd = request.received_fd && *request.received_fd;
      calls.push_back("TakeFd:" + request.args + (with_fd ? "+fd" : ""));
      if (with_fd)
        taken_fds.push_back(std::move(*request.received_fd));
      reply.Resolve("");
    });
    service->on_client_disconnected = [this](const ClientInfo& info) { gone.push_back(info); };
    return service;
  }
};

struct Responses {
  std::vector<Client::Response> all;
  Client::ResponseCallback Collect() {
    return [this](Client::Response response) { all.push_back(std::move(response)); };
  }
  bool finished() const { return !all.empty() && !all.back().has_more; }
};

class HostClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    address_ = UniqueAddress();
    host_ = Host::Listen(address_, &runner_);
    ASSERT_NE(host_, nullptr);
    ASSERT_TRUE(host_->ExposeService(echo_.Make()));
  }

  // A client bound to |service| (or not: |*bound| says).
  std::unique_ptr<Client> ConnectClient(const std::string& service, bool* bound,
                                        bool* disconnected = nullptr) {
    auto done = std::make_shared<bool>(false);
    auto client = Client::Connect(
        address_, service, &runner_,
        [bound, done](bool ok) {
          *bound = ok;
          *done = true;
        },
        [disconnected] {
          if (disconnected)
            *disconnected = true;
        });
    EXPECT_TRUE(runner_.RunUntil([&] { return *done; })) << "no bind answer";
    return client;
  }

  TestTaskRunner runner_;
  std::string address_;
  EchoService echo_;
  std::unique_ptr<Host> host_;
};

TEST_F(HostClientTest, BindsByNameAndCallsMethods) {
  bool bound = false;
  auto client = ConnectClient("EchoPort", &bound);
  ASSERT_TRUE(bound);
  EXPECT_TRUE(client->HasMethod("Echo"));
  EXPECT_TRUE(client->HasMethod("Stream"));
  EXPECT_FALSE(client->HasMethod("Nope"));
  EXPECT_EQ(client->socket()->peer_uid(), getuid());
  EXPECT_EQ(client->socket()->peer_pid(), getpid());

  Responses echo, stream;
  ASSERT_TRUE(client->Invoke("Echo", "hello", echo.Collect()));
  ASSERT_TRUE(client->Invoke("Stream", "s", stream.Collect()));
  ASSERT_TRUE(runner_.RunUntil([&] { return echo.finished() && stream.finished(); }));
  ASSERT_EQ(echo.all.size(), 1u);
  EXPECT_TRUE(echo.all[0].success);
  EXPECT_EQ(echo.all[0].reply_proto, "hello");
  std::vector<std::string> parts;
  for (const auto& response : stream.all) {
    EXPECT_TRUE(response.success);
    parts.push_back(response.reply_proto + (response.has_more ? "+" : "."));
  }
  EXPECT_EQ(parts, (std::vector<std::string>{"1+", "2+", "3."}));
  EXPECT_EQ(echo_.calls, (std::vector<std::string>{"Echo:hello", "Stream:s"}));
}

// A reply larger than a frame may be (a state that grew with what clients
// registered, a handler's bug) fails its request; the host goes on.
TEST_F(HostClientTest, AReplyOverTheFrameLimitFailsTheRequestNotTheHost) {
  bool bound = false;
  auto client = ConnectClient("EchoPort", &bound);
  ASSERT_TRUE(bound);
  Responses huge, echo;
  ASSERT_TRUE(client->Invoke("Huge", "", huge.Collect()));
  ASSERT_TRUE(client->Invoke("Echo", "after", echo.Collect()));
  ASSERT_TRUE(runner_.RunUntil([&] { return huge.finished() && echo.finished(); }));
  EXPECT_FALSE(huge.all.back().success);
  EXPECT_TRUE(echo.all.back().success);
  EXPECT_EQ(echo.all.back().reply_proto, "after");
}

// Our host announces its limit: a request of megabytes (a large trace
// config) goes through; one over the limit fails with an error that says
// so, is never sent, and the connection goes on.
TEST_F(HostClientTest, LargeRequestsPassAndOneOverTheLimitFailsAlone) {
  bool bound = false, disconnected = false;
  auto client = ConnectClient("EchoPort", &bound, &disconnected);
  ASSERT_TRUE(bound);
  EXPECT_EQ(client->max_request_frame_size(), kMaxReceiveFrameSize);
  Responses large, over, after;
  const std::string three_mb(3 * 1024 * 1024, 'c');
  ASSERT_TRUE(client->Invoke("Size", three_mb, large.Collect()));
  EXPECT_FALSE(client->Invoke("Size", std::string(kMaxReceiveFrameSize, 'o'), over.Collect()));
  ASSERT_TRUE(client->Invoke("Echo", "after", after.Collect()));
  ASSERT_TRUE(runner_.RunUntil([&] { return large.finished() && over.finished() && after.finished(); }));
  EXPECT_TRUE(large.all[0].success);
  EXPECT_EQ(large.all[0].reply_proto, std::to_string(three_mb.size()));
  EXPECT_FALSE(over.all[0].success);
  EXPECT_NE(over.all[0].error.find(std::to_string(kMaxReceiveFrameSize) + "-byte frame limit"),
            std::string::npos)
      << over.all[0].error;
  EXPECT_EQ(after.all[0].reply_proto, "after");
  EXPECT_FALSE(disconnected);
  EXPECT_EQ(host_->stats().clients_dropped_for_bad_frames, 0u);
}

TEST_F(HostClientTest, AnUnknownServiceFailsTheBindOnly) {
  bool bound = true;
  auto client = ConnectClient("NoSuchPort", &bound);
  EXPECT_FALSE(bound);
  EXPECT_EQ(host_->stats().requests_refused, 1u);
  bool bound_again = false;
  auto other = ConnectClient("EchoPort", &bound_again);
  EXPECT_TRUE(bound_again);
}

TEST_F(HostClientTest, AMethodTheHostLacksFailsWithoutBeingSent) {
  bool bound = false;
  auto client = ConnectClient("EchoPort", &bound);
  ASSERT_TRUE(bound);
  Responses missing;
  EXPECT_FALSE(client->Invoke("Nope", "x", missing.Collect()));
  EXPECT_TRUE(missing.all.empty()) << "answered from inside Invoke()";
  ASSERT_TRUE(runner_.RunUntil([&] { return missing.finished(); }));
  EXPECT_FALSE(missing.all[0].success);
  EXPECT_TRUE(echo_.calls.empty());
}

TEST_F(HostClientTest, DroppedRepliesFailAndDropReplyAnswersNothing) {
  bool bound = false;
  auto client = ConnectClient("EchoPort", &bound);
  ASSERT_TRUE(bound);
  Responses never, dropped, echo;
  ASSERT_TRUE(client->Invoke("Never", "a", never.Collect()));
  ASSERT_TRUE(client->Invoke("Echo", "b", dropped.Collect(), /*drop_reply=*/true));
  ASSERT_TRUE(client->Invoke("Echo", "c", echo.Collect()));
  ASSERT_TRUE(runner_.RunUntil([&] { return never.finished() && echo.finished(); }));
  EXPECT_FALSE(never.all[0].success);  // Its Reply was dropped unanswered.
  EXPECT_EQ(echo.all[0].reply_proto, "c");
  EXPECT_TRUE(dropped.all.empty());
  EXPECT_EQ(echo_.calls, (std::vector<std::string>{"Never:a", "Echo:b", "Echo:c"}));
}

TEST_F(HostClientTest, DeferredReplies) {
  bool bound = false;
  auto client = ConnectClient("EchoPort", &bound);
  ASSERT_TRUE(bound);
  Responses later;
  ASSERT_TRUE(client->Invoke("Later", "x", later.Collect()));
  ASSERT_TRUE(runner_.RunUntil([&] { return echo_.kept.pending(); }));
  runner_.RunUntilIdle();
  EXPECT_TRUE(later.all.empty());
  echo_.kept.Resolve("done");
  ASSERT_TRUE(runner_.RunUntil([&] { return later.finished(); }));
  EXPECT_EQ(later.all[0].reply_proto, "done");
}

TEST_F(HostClientTest, AFileDescriptorGoesWithItsReply) {
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  base::ScopedFile read_end(pipe_fds[0]), write_end(pipe_fds[1]);
  echo_.fd_to_send = write_end.get();
  bool bound = false;
  auto client = ConnectClient("EchoPort", &bound);
  ASSERT_TRUE(bound);
  Responses with_fd;
  ASSERT_TRUE(client->Invoke("SendFd", "", with_fd.Collect()));
  ASSERT_TRUE(runner_.RunUntil([&] { return with_fd.finished(); }));
  ASSERT_TRUE(with_fd.all[0].fd) << "no fd came with the reply";
  ASSERT_EQ(write(with_fd.all[0].fd.get(), "z", 1), 1);  // Our pipe, through the copy.
  char c = 0;
  ASSERT_EQ(read(read_end.get(), &c, 1), 1);
  EXPECT_EQ(c, 'z');
}

// A connected socket pair: one end served by the host, the other written
// to and read from by the test as a misbehaving peer would.
class RawPeer {
 public:
  RawPeer(Host* host, TestTaskRunner* runner) : runner_(runner) {
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    fd_.reset(fds[0]);
    fcntl(fd_.get(), F_SETFL, O_NONBLOCK);
    host->AdoptClient(base::UnixSocket::AdoptConnected(base::ScopedFile(fds[1]), nullptr, runner));
  }
  void Write(const std::string& bytes) {
    ASSERT_EQ(write(fd_.get(), bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  // |bytes|, however many writes it takes, the host reading in between.
  void WriteAll(const std::string& bytes) {
    size_t done = 0;
    for (int round = 0; done < bytes.size() && round < 100000; round++) {
      const ssize_t n = write(fd_.get(), bytes.data() + done, bytes.size() - done);
      if (n > 0)
        done += static_cast<size_t>(n);
      else
        runner_->RunUntilIdle();
    }
    ASSERT_EQ(done, bytes.size()) << "the host stopped reading";
  }
  // Writes |bytes|, the host reading in between, until all are written or
  // the host closed the connection.
  void WriteUntilClosed(const std::string& bytes) {
    size_t done = 0;
    for (int round = 0; done < bytes.size() && round < 100000; round++) {
      const ssize_t n = send(fd_.get(), bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n > 0)
        done += static_cast<size_t>(n);
      else if (n < 0 && errno != EAGAIN)
        return;  // Closed by the host.
      else
        runner_->RunUntilIdle();
    }
  }
  // |bytes| in one sendmsg with |fd| (SCM_RIGHTS), as a sender does.
  void SendWithFd(const std::string& bytes, int fd) {
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    iovec iov{const_cast<char*>(bytes.data()), bytes.size()};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
    ASSERT_EQ(sendmsg(fd_.get(), &msg, 0), static_cast<ssize_t>(bytes.size()));
  }
  // The next frame from the host, or null if none comes in time.
  std::unique_ptr<Frame> ReadFrame() {
    std::unique_ptr<Frame> frame;
    runner_->RunUntil([&] {
      char buf[4096];
      const ssize_t n = read(fd_.get(), buf, sizeof(buf));
      if (n > 0)
        frames_.Receive(buf, static_cast<size_t>(n));
      frame = frames_.PopNextFrame();
      return frame != nullptr;
    });
    return frame;
  }
  // Whether the host closed this connection.
  bool Closed() {
    return runner_->RunUntil([&] {
      char buf[4096];
      return read(fd_.get(), buf, sizeof(buf)) == 0;
    });
  }

 private:
  TestTaskRunner* runner_;
  base::ScopedFile fd_;
  BufferedFrameDeserializer frames_;
};

Frame Bind(uint64_t request_id, const std::string& name) {
  Frame frame;
  frame.set_request_id(request_id);
  frame.mutable_msg_bind_service()->set_service_name(name);
  return frame;
}

Frame Invoke(uint64_t request_id, uint32_t service_id, uint32_t method_id,
             const std::string& args, bool drop_reply = false) {
  Frame frame;
  frame.set_request_id(request_id);
  auto* invoke = frame.mutable_msg_invoke_method();
  invoke->set_service_id(service_id);
  invoke->set_method_id(method_id);
  invoke->set_args_proto(args);
  if (drop_reply)
    invoke->set_drop_reply(true);
  return frame;
}

// A call whose descriptor comes with its first bytes (SCM_RIGHTS), its
// rest in a later read together with the whole next call: the descriptor
// is the first call's, and the next call gets none.
TEST_F(HostClientTest, ADescriptorStaysWithACallCutAcrossReads) {
  RawPeer peer(host_.get(), &runner_);
  peer.Write(SerializeFrame(Bind(1, "EchoPort")));
  std::unique_ptr<Frame> bind = peer.ReadFrame();
  ASSERT_NE(bind, nullptr);
  uint32_t take_fd = 0;
  for (const auto& method : bind->msg_bind_service_reply().methods()) {
    if (method.name() == "TakeFd")
      take_fd = method.id();
  }
  ASSERT_NE(take_fd, 0u);
  const std::string first = SerializeFrame(Invoke(2, 1, take_fd, std::string(500, 'a')));
  const std::string second = SerializeFrame(Invoke(3, 1, take_fd, "b"));
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  base::ScopedFile read_end(pipe_fds[0]), write_end(pipe_fds[1]);
  peer.SendWithFd(first.substr(0, 20), write_end.get());
  runner_.RunUntilIdle();  // The host reads the cut part alone.
  ASSERT_TRUE(echo_.calls.empty());
  peer.Write(first.substr(20) + second);
  ASSERT_TRUE(runner_.RunUntil([&] { return echo_.calls.size() == 2; }));
  EXPECT_EQ(echo_.calls[0], "TakeFd:" + std::string(500, 'a') + "+fd")
      << "the cut call lost its descriptor";
  EXPECT_EQ(echo_.calls[1], "TakeFd:b") << "the descriptor went to the call after the cut one";
  ASSERT_EQ(echo_.taken_fds.size(), 1u);
  ASSERT_EQ(write(echo_.taken_fds[0].get(), "k", 1), 1);  // Our pipe, through the copy.
  char c = 0;
  ASSERT_EQ(read(read_end.get(), &c, 1), 1);
  EXPECT_EQ(c, 'k');
}

// A reply over upstream's frame limit goes to a client that announced it
// takes it (ours), and fails the request of one that did not (upstream's
// clients, whose deserializer would break on it).
TEST_F(HostClientTest, RepliesOverUpstreamsLimitOnlyToClientsThatTakeThem) {
  bool bound = false;
  auto client = ConnectClient("EchoPort", &bound);
  ASSERT_TRUE(bound);
  Responses big;
  ASSERT_TRUE(client->Invoke("Big", "", big.Collect()));
  ASSERT_TRUE(runner_.RunUntil([&] { return big.finished(); }));
  EXPECT_TRUE(big.all[0].success);
  EXPECT_EQ(big.all[0].reply_proto.size(), 200u * 1024);

  RawPeer upstream(host_.get(), &runner_);
  upstream.Write(SerializeFrame(Bind(1, "EchoPort")));  // No zt_max_reply_frame_size.
  std::unique_ptr<Frame> bind = upstream.ReadFrame();
  ASSERT_NE(bind, nullptr);
  EXPECT_EQ(bind->msg_bind_service_reply().zt_max_request_frame_size(), kMaxReceiveFrameSize);
  uint32_t big_id = 0;
  for (const auto& method : bind->msg_bind_service_reply().methods()) {
    if (method.name() == "Big")
      big_id = method.id();
  }
  upstream.Write(SerializeFrame(Invoke(2, 1, big_id, "")));
  std::unique_ptr<Frame> reply = upstream.ReadFrame();
  ASSERT_NE(reply, nullptr);
  EXPECT_FALSE(reply->msg_invoke_method_reply().success());
  EXPECT_LE(SerializeFrame(*reply).size(), kMaxFrameSize);
}

// A large call served, the connection's buffer goes back to 128 KiB at
// once, not at its next message.
TEST_F(HostClientTest, ALargeCallsMemoryGoesBackOnceServed) {
  bool bound = false;
  auto client = ConnectClient("EchoPort", &bound);
  ASSERT_TRUE(bound);
  Responses size;
  ASSERT_TRUE(client->Invoke("Size", std::string(2 << 20, 's'), size.Collect()));
  ASSERT_TRUE(runner_.RunUntil([&] { return size.finished(); }));
  EXPECT_EQ(size.all[0].reply_proto, std::to_string(2 << 20));
  EXPECT_EQ(host_->large_frame_bytes_of_uid(getuid()), 0u)
      << "the connection kept the large frame's buffer";
}

// Many connections of one uid, each holding most of a large frame: past the
// uid's budget the connection that would exceed it is closed, the others
// stay.
TEST_F(HostClientTest, PartialLargeFramesOfAUidAreBounded) {
  Host::Limits limits;
  limits.max_large_frame_bytes_per_uid = 4 << 20;
  host_->set_limits(limits);
  const std::string partial =
      std::string("\xf0\xff\x3f\x00", 4) + std::string(3 << 20, 'p');  // Of ~4 MiB.
  RawPeer first(host_.get(), &runner_);
  first.WriteAll(partial);
  runner_.RunUntilIdle();
  const size_t held = host_->large_frame_bytes_of_uid(getuid());
  EXPECT_GT(held, 2u << 20);
  EXPECT_LE(held, 4u << 20);
  RawPeer second(host_.get(), &runner_);
  second.WriteUntilClosed(partial);
  EXPECT_TRUE(second.Closed()) << "the uid's partial frames grew past the budget";
  EXPECT_EQ(host_->stats().clients_refused_over_limits, 1u);
  EXPECT_LE(host_->large_frame_bytes_of_uid(getuid()), 4u << 20);
  EXPECT_EQ(host_->stats().clients_dropped_for_bad_frames, 0u);
}

TEST_F(HostClientTest, ConnectionsOverAUidsLimitAreRefused) {
  Host::Limits limits;
  limits.max_clients_per_uid = 2;
  host_->set_limits(limits);
  bool a = false, b = false, c = true;
  auto first = ConnectClient("EchoPort", &a);
  auto second = ConnectClient("EchoPort", &b);
  auto third = ConnectClient("EchoPort", &c);
  EXPECT_TRUE(a);
  EXPECT_TRUE(b);
  EXPECT_FALSE(c);
  EXPECT_EQ(host_->stats().clients_refused_over_limits, 1u);
  first.reset();
  ASSERT_TRUE(runner_.RunUntil([&] { return host_->num_clients() == 1; }));
  bool d = false;
  auto fourth = ConnectClient("EchoPort", &d);
  EXPECT_TRUE(d) << "a connection that went made room";
}

TEST_F(HostClientTest, UnknownIdsAndRequestKindsFailTheRequestOnly) {
  RawPeer peer(host_.get(), &runner_);
  peer.Write(SerializeFrame(Bind(1, "EchoPort")));
  std::unique_ptr<Frame> bind = peer.ReadFrame();
  ASSERT_NE(bind, nullptr);
  ASSERT_TRUE(bind->msg_bind_service_reply().success());
  // Ids are 1-based in declaration order, as upstream's hosts give them.
  ASSERT_EQ(bind->msg_bind_service_reply().methods()[0].name(), "Echo");
  EXPECT_EQ(bind->msg_bind_service_reply().methods()[0].id(), 1u);
  const uint32_t service = bind->msg_bind_service_reply().service_id();

  Frame empty;  // No request in it at all.
  empty.set_request_id(2);
  peer.Write(SerializeFrame(Invoke(3, service, 99, "x")) +
             SerializeFrame(Invoke(4, service + 7, 1, "x", /*drop_reply=*/true)) +
             SerializeFrame(empty) + SerializeFrame(Invoke(5, service, 1, "still here")));
  std::vector<std::string> seen;
  for (int i = 0; i < 4; i++) {
    std::unique_ptr<Frame> frame = peer.ReadFrame();
    ASSERT_NE(frame, nullptr) << "reply " << i << " never came";
    std::string line = std::to_string(frame->request_id());
    if (frame->has_msg_invoke_method_reply()) {
      line += frame->msg_invoke_method_reply().success()
                  ? " ok " + frame->msg_invoke_method_reply().reply_proto()
                  : " failed";
    }
    if (frame->has_msg_request_error())
      line += " error " + frame->msg_request_error().error();
    seen.push_back(line);
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"3 failed", "4 failed", "2 error unknown request",
                                            "5 ok still here"}));
  EXPECT_EQ(host_->stats().requests_refused, 3u);
}

TEST_F(HostClientTest, BadFramesCloseThatConnectionOnly) {
  bool bound = false;
  auto good = ConnectClient("EchoPort", &bound);
  ASSERT_TRUE(bound);
  const std::vector<std::string> bad_streams = {
      std::string("\x01\x00\x40\x00", 4) + std::string(64, 'x'),  // A frame over the limit.
      std::string("\x02\x00\x00\x00\x0f\x0f", 6),                 // Not an IPCFrame.
  };
  for (const std::string& bytes : bad_streams) {
    RawPeer peer(host_.get(), &runner_);
    peer.Write(SerializeFrame(Bind(1, "EchoPort")) + bytes);
    EXPECT_TRUE(peer.Closed()) << "the host kept a connection sending garbage";
    Responses echo;
    ASSERT_TRUE(good->Invoke("Echo", "fine", echo.Collect()));
    ASSERT_TRUE(runner_.RunUntil([&] { return echo.finished(); }));
    EXPECT_EQ(echo.all[0].reply_proto, "fine");
  }
  EXPECT_EQ(host_->stats().clients_dropped_for_bad_frames, 2u);
  EXPECT_EQ(echo_.gone.size(), 2u);  // Both had bound the service.
}

TEST_F(HostClientTest, AClientGoneMidStreamCostsNobodyElse) {
  bool bound = false;
  auto leaving = ConnectClient("EchoPort", &bound);
  ASSERT_TRUE(bound);
  auto staying = ConnectClient("EchoPort", &bound);
  ASSERT_TRUE(bound);
  Responses later;
  ASSERT_TRUE(leaving->Invoke("Later", "x", later.Collect()));
  ASSERT_TRUE(runner_.RunUntil([&] { return echo_.kept.pending(); }));
  echo_.kept.Resolve("part", /*has_more=*/true);
  ASSERT_TRUE(runner_.RunUntil([&] { return !later.all.empty(); }));
  leaving.reset();
  ASSERT_TRUE(runner_.RunUntil([&] { return echo_.gone.size() == 1; }));
  echo_.kept.Resolve("rest");  // To nobody: dropped.
  Responses echo;
  ASSERT_TRUE(staying->Invoke("Echo", "ok", echo.Collect()));
  ASSERT_TRUE(runner_.RunUntil([&] { return echo.finished(); }));
  EXPECT_EQ(echo.all[0].reply_proto, "ok");
  EXPECT_EQ(host_->num_clients(), 1u);
}

TEST_F(HostClientTest, TheHostGoingFailsWhatIsPending) {
  bool bound = false, disconnected = false;
  auto client = ConnectClient("EchoPort", &bound, &disconnected);
  ASSERT_TRUE(bound);
  Responses later;
  ASSERT_TRUE(client->Invoke("Later", "x", later.Collect()));
  ASSERT_TRUE(runner_.RunUntil([&] { return echo_.kept.pending(); }));
  host_.reset();
  ASSERT_TRUE(runner_.RunUntil([&] { return disconnected; }));
  ASSERT_TRUE(later.finished());
  EXPECT_FALSE(later.all.back().success);
  Responses after;
  EXPECT_FALSE(client->Invoke("Echo", "x", after.Collect()));
  ASSERT_TRUE(runner_.RunUntil([&] { return after.finished(); }));
  EXPECT_FALSE(after.all[0].success);
}

// The host's side played by the test: a reply whose file descriptor comes
// with its first bytes, the rest in a later read.
TEST(ClientTest, AFileDescriptorStaysWithAFrameSplitAcrossReads) {
  TestTaskRunner runner;
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  base::ScopedFile host_end(fds[0]);
  bool bound = false;
  auto client = Client::Adopt(
      base::UnixSocket::AdoptConnected(base::ScopedFile(fds[1]), nullptr, &runner), "EchoPort",
      &runner, [&](bool ok) { bound = ok; }, nullptr);
  Frame bind_reply;
  bind_reply.set_request_id(1);  // The client's first request: its bind.
  bind_reply.mutable_msg_bind_service_reply()->set_success(true);
  bind_reply.mutable_msg_bind_service_reply()->set_service_id(1);
  auto* method = bind_reply.mutable_msg_bind_service_reply()->add_methods();
  method->set_id(1);
  method->set_name("Get");
  const std::string bind_bytes = SerializeFrame(bind_reply);
  ASSERT_EQ(write(host_end.get(), bind_bytes.data(), bind_bytes.size()),
            static_cast<ssize_t>(bind_bytes.size()));
  ASSERT_TRUE(runner.RunUntil([&] { return bound; }));

  Responses got;
  ASSERT_TRUE(client->Invoke("Get", "", got.Collect()));
  Frame reply;
  reply.set_request_id(2);
  reply.mutable_msg_invoke_method_reply()->set_success(true);
  reply.mutable_msg_invoke_method_reply()->set_reply_proto(std::string(1000, 'r'));
  const std::string bytes = SerializeFrame(reply);
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  base::ScopedFile read_end(pipe_fds[0]), write_end(pipe_fds[1]);
  // The first 10 bytes with the fd (SCM_RIGHTS), as a sender does.
  char control[CMSG_SPACE(sizeof(int))] = {};
  iovec iov{const_cast<char*>(bytes.data()), 10};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  const int sent_fd = write_end.get();
  memcpy(CMSG_DATA(cmsg), &sent_fd, sizeof(int));
  ASSERT_EQ(sendmsg(host_end.get(), &msg, 0), 10);
  runner.RunUntilIdle();  // The client reads the first part alone.
  EXPECT_TRUE(got.all.empty());
  ASSERT_EQ(write(host_end.get(), bytes.data() + 10, bytes.size() - 10),
            static_cast<ssize_t>(bytes.size() - 10));
  ASSERT_TRUE(runner.RunUntil([&] { return got.finished(); }));
  ASSERT_TRUE(got.all[0].fd) << "the fd was lost between the reads";
  ASSERT_EQ(write(got.all[0].fd.get(), "q", 1), 1);
  char c = 0;
  ASSERT_EQ(read(read_end.get(), &c, 1), 1);
  EXPECT_EQ(c, 'q');
}

// A host that does not announce a limit (upstream's traced) takes 128 KiB
// and closes the connection on anything larger, without a word: the client
// never sends such a request; it fails it with an error instead.
TEST(ClientTest, AHostWithoutALimitGetsNoRequestOverUpstreams) {
  TestTaskRunner runner;
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  base::ScopedFile host_end(fds[0]);
  fcntl(host_end.get(), F_SETFL, O_NONBLOCK);
  bool bound = false;
  auto client = Client::Adopt(
      base::UnixSocket::AdoptConnected(base::ScopedFile(fds[1]), nullptr, &runner), "EchoPort",
      &runner, [&](bool ok) { bound = ok; }, nullptr);
  Frame bind_reply;
  bind_reply.set_request_id(1);
  bind_reply.mutable_msg_bind_service_reply()->set_success(true);
  bind_reply.mutable_msg_bind_service_reply()->set_service_id(1);
  auto* method = bind_reply.mutable_msg_bind_service_reply()->add_methods();
  method->set_id(1);
  method->set_name("Set");
  const std::string bind_bytes = SerializeFrame(bind_reply);
  ASSERT_EQ(write(host_end.get(), bind_bytes.data(), bind_bytes.size()),
            static_cast<ssize_t>(bind_bytes.size()));
  ASSERT_TRUE(runner.RunUntil([&] { return bound; }));
  EXPECT_EQ(client->max_request_frame_size(), kMaxFrameSize);
  BufferedFrameDeserializer sent;
  auto read_sent = [&] {
    char buf[65536];
    ssize_t n;
    while ((n = read(host_end.get(), buf, sizeof(buf))) > 0)
      ASSERT_TRUE(sent.Receive(buf, static_cast<size_t>(n)));
  };
  read_sent();
  while (sent.PopNextFrame()) {
  }  // The bind.

  Responses over, fits;
  EXPECT_FALSE(client->Invoke("Set", std::string(kMaxFrameSize, 's'), over.Collect()));
  ASSERT_TRUE(client->Invoke("Set", std::string(kMaxFrameSize - 64, 's'), fits.Collect()));
  ASSERT_TRUE(runner.RunUntil([&] { return over.finished(); }));
  EXPECT_FALSE(over.all[0].success);
  EXPECT_NE(over.all[0].error.find("131072-byte frame limit"), std::string::npos)
      << over.all[0].error;
  runner.RunUntilIdle();
  read_sent();
  std::unique_ptr<Frame> frame = sent.PopNextFrame();
  ASSERT_NE(frame, nullptr);
  EXPECT_EQ(frame->msg_invoke_method().args_proto().size(), kMaxFrameSize - 64)
      << "the request over the limit was sent";
  EXPECT_EQ(sent.PopNextFrame(), nullptr);
}

TEST_F(HostClientTest, NoHostMeansNoBind) {
  bool bound = true;
  address_ = UniqueAddress();  // Nobody listens there.
  auto client = ConnectClient("EchoPort", &bound);
  EXPECT_FALSE(bound);
}

// Ids are small numbers: a client can invoke a service's methods without
// binding it. Whatever it set up there goes with it all the same.
TEST(HostUnboundClientTest, AServiceUsedWithoutABindHearsOfTheClientsEnd) {
  TestTaskRunner runner;
  std::unique_ptr<Host> host = Host::CreateUnbound();
  int calls = 0, disconnects = 0;
  auto service = std::make_unique<Service>("UnboundPort");
  service->AddMethod("Set", [&](Request&, Reply) { calls++; });
  service->on_client_disconnected = [&](const ClientInfo&) { disconnects++; };
  ASSERT_TRUE(host->ExposeService(std::move(service)));
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  host->AdoptClient(base::UnixSocket::AdoptConnected(base::ScopedFile(fds[0]), nullptr, &runner));
  Frame invoke;
  invoke.set_request_id(7);
  invoke.mutable_msg_invoke_method()->set_service_id(1);
  invoke.mutable_msg_invoke_method()->set_method_id(1);
  const std::string bytes = SerializeFrame(invoke);
  ASSERT_EQ(write(fds[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  runner.RunUntilIdle();
  close(fds[1]);
  runner.RunUntilIdle();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(host->num_clients(), 0u);
  EXPECT_EQ(disconnects, 1);
}

}  // namespace
}  // namespace ipc
}  // namespace zt
