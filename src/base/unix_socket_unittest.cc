#include "src/base/unix_socket.h"

#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/scoped_file.h"
#include "src/base/test/captured_log.h"
#include "src/base/test/forwarding_task_runner.h"
#include "src/base/test/test_task_runner.h"
#include "src/base/test/wait.h"
#include "src/base/thread_task_runner.h"

namespace zt {
namespace base {
namespace {

constexpr size_t kMaxFds = UnixSocket::kMaxFdsPerMessage;

// Records every event; reads what arrives (all of it, or one chunk per call
// to play a slow reader), with the stream offsets each fd came with.
class Recorder : public UnixSocket::EventListener {
 public:
  struct ReceivedFd {
    ScopedFile fd;
    size_t begin;  // The stream range of the Receive() that brought it.
    size_t end;
  };

  void OnNewIncomingConnection(UnixSocket*,
                               std::unique_ptr<UnixSocket> c) override {
    accepted.push_back(std::move(c));
  }
  void OnConnect(UnixSocket*, bool connected) override {
    connect_results.push_back(connected);
  }
  void OnDisconnect(UnixSocket*) override { disconnects++; }
  void OnDataAvailable(UnixSocket* socket) override {
    data_calls++;
    std::vector<char> buf(read_size);
    for (;;) {
      ScopedFile fds[kMaxFds];
      size_t num_fds = 0;
      const size_t n =
          socket->Receive(buf.data(), buf.size(), fds, max_fds, &num_fds);
      for (size_t i = 0; i < num_fds; i++) {
        received_fds.push_back(ReceivedFd{std::move(fds[i]), received.size(),
                                          received.size() + n});
      }
      received.append(buf.data(), n);
      if (n == 0 || one_read_per_call)
        return;
    }
  }

  size_t read_size = 64 * 1024;
  bool one_read_per_call = false;
  size_t max_fds = kMaxFds;

  std::vector<std::unique_ptr<UnixSocket>> accepted;
  std::vector<bool> connect_results;
  int disconnects = 0;
  int data_calls = 0;
  std::string received;
  std::vector<ReceivedFd> received_fds;
};

// The byte at |offset| of a test stream: order and completeness show.
char PatternByte(size_t offset) {
  return static_cast<char>((offset * 7 + offset / 4096) & 0xff);
}

std::string Pattern(size_t begin, size_t size) {
  std::string s(size, '\0');
  for (size_t i = 0; i < size; i++)
    s[i] = PatternByte(begin + i);
  return s;
}

size_t CountOpenFds() {
  size_t open = 0;
  for (int fd = 0; fd < 4096; fd++)
    open += fcntl(fd, F_GETFD) != -1;
  return open;
}

struct Pair {
  std::unique_ptr<UnixSocket> a;
  std::unique_ptr<UnixSocket> b;
};

Pair AdoptSocketPair(TaskRunner* runner, UnixSocket::EventListener* a,
                     UnixSocket::EventListener* b) {
  int fds[2];
  ZT_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
  return Pair{UnixSocket::AdoptConnected(ScopedFile(fds[0]), a, runner),
              UnixSocket::AdoptConnected(ScopedFile(fds[1]), b, runner)};
}

class UnixSocketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/zt_unix_socket_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
  }
  void TearDown() override {
    for (const std::string& path : paths_)
      unlink(path.c_str());
    rmdir(dir_.c_str());
  }
  std::string NewPath() {
    paths_.push_back(dir_ + "/s" + std::to_string(paths_.size()));
    return paths_.back();
  }
  static std::string NewAbstractName() {
    static int counter = 0;
    return "@zt_unix_socket_test_" + std::to_string(getpid()) + "_" +
           std::to_string(counter++);
  }

  // Listens on |address|, connects to it, and runs until both ends are
  // connected: the accepted end lands in |server|.accepted.
  std::unique_ptr<UnixSocket> ConnectPair(
      const std::string& address, Recorder* server, Recorder* client,
      std::unique_ptr<UnixSocket>* listener) {
    *listener = UnixSocket::Listen(address, server, &runner_);
    EXPECT_TRUE(*listener) << "cannot listen on " << address;
    if (!*listener)
      return nullptr;
    EXPECT_TRUE((*listener)->is_listening());
    auto socket = UnixSocket::Connect(address, client, &runner_);
    EXPECT_TRUE(runner_.RunUntil([&] {
      return !client->connect_results.empty() && !server->accepted.empty();
    })) << "no connection over "
        << address;
    return socket;
  }

  // Sends |bytes| from |from| and runs until |to| has them all.
  void Exchange(UnixSocket* from, Recorder* to, const std::string& bytes) {
    const size_t before = to->received.size();
    ASSERT_TRUE(from->Send(bytes));
    ASSERT_TRUE(runner_.RunUntil([&] {
      return to->received.size() >= before + bytes.size();
    })) << "got "
        << to->received.size() - before << " of " << bytes.size();
    EXPECT_EQ(to->received.substr(before), bytes);
  }

  std::string dir_;
  std::vector<std::string> paths_;
  TestTaskRunner runner_;
};

// Both ways over a listening socket: a filesystem path, then an abstract
// name; each end learns the other's credentials (this very process).
TEST_F(UnixSocketTest, ListenConnectAndExchangeOverAPathAndAnAbstractName) {
  for (const std::string& address : {NewPath(), NewAbstractName()}) {
    SCOPED_TRACE(address);
    Recorder server, client;
    std::unique_ptr<UnixSocket> listener;
    auto socket = ConnectPair(address, &server, &client, &listener);
    ASSERT_TRUE(socket && !server.accepted.empty());
    ASSERT_EQ(client.connect_results, std::vector<bool>{true});
    ASSERT_TRUE(socket->is_connected());
    UnixSocket* accepted = server.accepted[0].get();
    EXPECT_TRUE(accepted->is_connected());
    for (UnixSocket* end : {socket.get(), accepted}) {
      EXPECT_EQ(end->peer_uid(), getuid());
      EXPECT_EQ(end->peer_pid(), getpid());
    }
    Exchange(socket.get(), &server, "ping");
    Exchange(accepted, &client, "pong");
    struct stat st;
    EXPECT_EQ(stat(address.c_str(), &st) == 0, address[0] != '@')
        << "a file for an abstract name, or none for a path";
  }
}

// "@name" is sun_path[0] = 0 and the name, its length in the address size,
// without a trailing NUL: a client that spells the address exactly so (as
// other implementations do) must find us.
TEST_F(UnixSocketTest, AbstractAddressHasNoTrailingNul) {
  const std::string name = NewAbstractName();
  Recorder server;
  auto listener = UnixSocket::Listen(name, &server, &runner_);
  ASSERT_TRUE(listener);
  sockaddr_un addr{};
  socklen_t size = sizeof(addr);
  ASSERT_EQ(
      getsockname(listener->fd(), reinterpret_cast<sockaddr*>(&addr), &size),
      0);
  EXPECT_EQ(size, offsetof(sockaddr_un, sun_path) + name.size());
  EXPECT_EQ(addr.sun_path[0], '\0');
  EXPECT_EQ(std::string(addr.sun_path + 1, name.size() - 1), name.substr(1));
}

TEST_F(UnixSocketTest, StaleSocketFileIsReplacedALiveOneRefuses) {
  const std::string path = NewPath();
  {
    // A server that died: its socket file stays, nobody accepts.
    ScopedFile dead(socket(AF_UNIX, SOCK_STREAM, 0));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    strcpy(addr.sun_path, path.c_str());
    ASSERT_EQ(
        bind(dead.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  }
  Recorder server, client;
  test::CapturedLog log;
  auto listener = UnixSocket::Listen(path, &server, &runner_);
  ASSERT_TRUE(listener) << log.Text();
  EXPECT_NE(log.Text().find("stale"), std::string::npos) << log.Text();
  // The new socket serves it.
  auto socket = UnixSocket::Connect(path, &client, &runner_);
  ASSERT_TRUE(runner_.RunUntil([&] { return !server.accepted.empty(); }));

  // Alive now: a second server must not take its address away.
  EXPECT_FALSE(UnixSocket::Listen(path, &server, &runner_));
  EXPECT_NE(log.Text().find("another process serves " + path),
            std::string::npos)
      << log.Text();
  // Nor of an abstract name.
  const std::string name = NewAbstractName();
  auto abstract = UnixSocket::Listen(name, &server, &runner_);
  ASSERT_TRUE(abstract);
  EXPECT_FALSE(UnixSocket::Listen(name, &server, &runner_));
  EXPECT_NE(log.Text().find("another process serves " + name),
            std::string::npos);
  // The refused attempts did not disturb the live one (their probing
  // connections come and go first).
  runner_.RunUntilIdle();
  const size_t accepted = server.accepted.size();
  auto second = UnixSocket::Connect(path, &client, &runner_);
  ASSERT_TRUE(
      runner_.RunUntil([&] { return server.accepted.size() > accepted; }));
  EXPECT_EQ(client.connect_results, (std::vector<bool>{true, true}));
}

TEST_F(UnixSocketTest, AFileThatIsNotASocketIsNotReplaced) {
  const std::string path = NewPath();
  ScopedFile file(open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
  ASSERT_TRUE(file);
  Recorder server;
  test::CapturedLog log;
  EXPECT_FALSE(UnixSocket::Listen(path, &server, &runner_));
  EXPECT_NE(log.Text().find("not a socket"), std::string::npos) << log.Text();
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0) << "the file was removed";
  EXPECT_TRUE(S_ISREG(st.st_mode));
}

TEST_F(UnixSocketTest, AddressesTooLongFailWithALogLine) {
  Recorder recorder;
  test::CapturedLog log;
  const std::string too_long =
      dir_ + "/" + std::string(sizeof(sockaddr_un::sun_path), 'x');
  EXPECT_FALSE(UnixSocket::Listen(too_long, &recorder, &runner_));
  EXPECT_FALSE(
      UnixSocket::Listen("@" + std::string(sizeof(sockaddr_un::sun_path), 'x'),
                         &recorder, &runner_));
  EXPECT_NE(log.Text().find("too long"), std::string::npos) << log.Text();
  // The longest that fits: the path with its NUL, the name after its 0.
  const std::string longest =
      "@" + std::string(sizeof(sockaddr_un::sun_path) - 1, 'y');
  EXPECT_TRUE(UnixSocket::Listen(longest, &recorder, &runner_));
  // Connecting to one that does not fit fails too, as any other failure.
  auto socket = UnixSocket::Connect(too_long, &recorder, &runner_);
  ASSERT_TRUE(
      runner_.RunUntil([&] { return !recorder.connect_results.empty(); }));
  EXPECT_EQ(recorder.connect_results, std::vector<bool>{false});
}

// Out of fds, accept4 fails with the listening socket still readable: the
// listener stops watching it for a while (RunUntilIdle would abort on a
// callback that spins) and accepts once it watches again.
TEST_F(UnixSocketTest, ListenerPausesWhenOutOfFds) {
  const std::string address = NewAbstractName();
  Recorder server, client;
  test::CapturedLog log;
  auto listener = UnixSocket::Listen(address, &server, &runner_);
  ASSERT_TRUE(listener);
  // One connection accepted while fds are plenty: UBSan checks a dynamic
  // type with the help of a pipe the first time it meets it, which it
  // cannot make once no fd is free (it then reports an "invalid vptr").
  // This walks the accept path's types once before the fds run out.
  auto first = UnixSocket::Connect(address, &client, &runner_);
  ASSERT_TRUE(runner_.RunUntil([&] { return server.accepted.size() == 1; }));
  auto socket = UnixSocket::Connect(address, &client, &runner_);
  rlimit original;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &original), 0);
  const int lowest_free = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(lowest_free, 0);
  close(lowest_free);
  rlimit lowered = original;
  lowered.rlim_cur = static_cast<rlim_t>(lowest_free);  // No fd is free.
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lowered), 0);
  runner_.RunUntilIdle();
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &original), 0);
  EXPECT_EQ(server.accepted.size(), 1u) << "accepted without a free fd";
  EXPECT_NE(log.Text().find("not accepting"), std::string::npos) << log.Text();
  runner_.AdvanceTimeAndRunUntilIdle(100);
  EXPECT_EQ(server.accepted.size(), 2u) << "never accepted again";
}

// Refused at once (nobody listens), yet reported later, from a task: the
// caller is never called back from inside Connect().
TEST_F(UnixSocketTest, ConnectToNothingReportsFailureAsynchronously) {
  for (const std::string& address : {NewAbstractName(), NewPath()}) {
    SCOPED_TRACE(address);
    Recorder client;
    auto socket = UnixSocket::Connect(address, &client, &runner_);
    ASSERT_TRUE(socket);
    EXPECT_TRUE(client.connect_results.empty()) << "called from Connect()";
    EXPECT_EQ(socket->state(), UnixSocket::State::kConnecting);
    EXPECT_FALSE(socket->Send("early")) << "sent before connected";
    ASSERT_TRUE(
        runner_.RunUntil([&] { return !client.connect_results.empty(); }));
    EXPECT_EQ(client.connect_results, std::vector<bool>{false});
    EXPECT_EQ(socket->state(), UnixSocket::State::kDisconnected);
    runner_.RunUntilIdle();
    EXPECT_EQ(client.disconnects, 0) << "a failed connect is no disconnect";
  }
}

// A memfd and a pipe's write end travel with the bytes; the received fds
// are the same files (bytes written through one are read through the
// other), close-on-exec, and arrive with the Receive that reads the first
// byte of their Send.
TEST_F(UnixSocketTest, PassesFileDescriptors) {
  Recorder ra, rb;
  Pair pair = AdoptSocketPair(&runner_, &ra, &rb);
  ScopedFile memfd(memfd_create("zt_test", MFD_CLOEXEC));
  ASSERT_TRUE(memfd);
  ASSERT_EQ(pwrite(memfd.get(), "hello", 5, 0), 5);
  int pipe_fds[2];
  ASSERT_EQ(pipe2(pipe_fds, O_CLOEXEC), 0);
  ScopedFile pipe_rd(pipe_fds[0]);
  ScopedFile pipe_wr(pipe_fds[1]);

  ASSERT_TRUE(pair.a->Send("first"));
  const int sent[2] = {memfd.get(), pipe_wr.get()};
  ASSERT_TRUE(pair.a->Send("second", 6, sent, 2));
  pipe_wr.reset();  // The caller's copies may go at once.
  ASSERT_TRUE(runner_.RunUntil([&] { return rb.received.size() == 11; }));
  EXPECT_EQ(rb.received, "firstsecond");
  ASSERT_EQ(rb.received_fds.size(), 2u);
  for (const Recorder::ReceivedFd& received : rb.received_fds) {
    EXPECT_LE(received.begin, 5u);
    EXPECT_GT(received.end, 5u) << "not with the first byte of its Send";
    EXPECT_EQ(fcntl(received.fd.get(), F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
  }
  char buf[8] = {};
  ASSERT_EQ(pread(rb.received_fds[0].fd.get(), buf, 5, 0), 5);
  EXPECT_STREQ(buf, "hello");
  struct stat original, copy;
  ASSERT_EQ(fstat(memfd.get(), &original), 0);
  ASSERT_EQ(fstat(rb.received_fds[0].fd.get(), &copy), 0);
  EXPECT_EQ(original.st_ino, copy.st_ino);
  ASSERT_EQ(write(rb.received_fds[1].fd.get(), "via", 3), 3);
  ASSERT_EQ(read(pipe_rd.get(), buf, 3), 3);
  EXPECT_EQ(std::string(buf, 3), "via");
}

// The receiver keeps |max_fds|; the others are closed, so none leak, even
// when the peer sends more than any message may carry (the kernel closes
// what does not fit the control buffer).
TEST_F(UnixSocketTest, FdsBeyondWhatTheReceiverTakesAreClosed) {
  Recorder ra, rb;
  rb.max_fds = 1;
  int raw[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, raw), 0);
  ScopedFile raw_sender(raw[0]);
  auto receiver = UnixSocket::AdoptConnected(ScopedFile(raw[1]), &rb, &runner_);
  std::vector<ScopedFile> files;
  std::vector<int> numbers;
  for (size_t i = 0; i < kMaxFds + 4; i++) {
    files.emplace_back(open("/dev/null", O_RDONLY | O_CLOEXEC));
    numbers.push_back(files.back().get());
  }
  test::CapturedLog log(LogLevel::kWarning);
  const size_t open_before = CountOpenFds();

  // Three in one message: one kept, two closed.
  auto sender =
      UnixSocket::AdoptConnected(std::move(raw_sender), &ra, &runner_);
  ASSERT_TRUE(sender->Send("x", 1, numbers.data(), 3));
  ASSERT_TRUE(runner_.RunUntil([&] { return rb.received.size() == 1; }));
  EXPECT_EQ(rb.received_fds.size(), 1u);
  EXPECT_EQ(CountOpenFds(), open_before + 1) << "received fds leaked";
  rb.received_fds.clear();
  EXPECT_EQ(CountOpenFds(), open_before);

  // kMaxFdsPerMessage + 4 in one raw sendmsg: past our control buffer.
  char byte = 'y';
  iovec iov{&byte, 1};
  std::vector<char> control(CMSG_SPACE(numbers.size() * sizeof(int)));
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.data();
  msg.msg_controllen = control.size();
  cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(numbers.size() * sizeof(int));
  memcpy(CMSG_DATA(cmsg), numbers.data(), numbers.size() * sizeof(int));
  ASSERT_EQ(sendmsg(sender->fd(), &msg, MSG_NOSIGNAL), 1);
  ASSERT_TRUE(runner_.RunUntil([&] { return rb.received.size() == 2; }));
  EXPECT_EQ(rb.received_fds.size(), 1u);
  EXPECT_EQ(CountOpenFds(), open_before + 1) << "received fds leaked";
  rb.received_fds.clear();
  EXPECT_EQ(CountOpenFds(), open_before) << "received fds leaked";
  EXPECT_NE(log.Text().find("closed"), std::string::npos) << log.Text();
}

// 8 MiB sent at once in 64 KiB Sends, an fd with one in the middle: the
// kernel takes a fraction, the rest queues; a reader taking 4 KiB per call
// gets every byte, in order, and the fd with its Send's first byte.
TEST_F(UnixSocketTest, LargeSendsQueueAndArriveCompleteAndInOrder) {
  constexpr size_t kChunk = 64 * 1024;
  constexpr size_t kTotal = 8u << 20;
  constexpr size_t kFdChunk = 70;
  Recorder ra, rb;
  rb.read_size = 4096;
  rb.one_read_per_call = true;
  Pair pair = AdoptSocketPair(&runner_, &ra, &rb);
  ScopedFile dev_null(open("/dev/null", O_RDONLY | O_CLOEXEC));
  for (size_t offset = 0; offset < kTotal; offset += kChunk) {
    const std::string chunk = Pattern(offset, kChunk);
    const int fd = dev_null.get();
    const bool with_fd = offset == kFdChunk * kChunk;
    ASSERT_TRUE(pair.a->Send(chunk.data(), chunk.size(),
                             with_fd ? &fd : nullptr, with_fd ? 1 : 0));
  }
  EXPECT_GT(pair.a->queued_send_bytes(), kTotal / 2)
      << "nothing queued: no test";
  ASSERT_TRUE(runner_.RunUntil([&] { return rb.received.size() >= kTotal; }))
      << "received " << rb.received.size() << " of " << kTotal;
  ASSERT_EQ(rb.received.size(), kTotal);
  size_t first_bad = 0;
  while (first_bad < kTotal && rb.received[first_bad] == PatternByte(first_bad))
    first_bad++;
  EXPECT_EQ(first_bad, kTotal) << "out of order or corrupt from there";
  EXPECT_EQ(pair.a->queued_send_bytes(), 0u);
  ASSERT_EQ(rb.received_fds.size(), 1u);
  EXPECT_LE(rb.received_fds[0].begin, kFdChunk * kChunk);
  EXPECT_GT(rb.received_fds[0].end, kFdChunk * kChunk);
  EXPECT_GT(rb.data_calls, 1000) << "the reader was not slow: no test";
}

// On a runner that does not watch writability (TaskRunner's default polls
// every millisecond), a queue still drains, in order.
TEST_F(UnixSocketTest, QueueDrainsOnARunnerThatPollsForWritability) {
  constexpr size_t kTotal = 4u << 20;
  test::ForwardingTaskRunner polling(&runner_);
  Recorder ra, rb;
  Pair pair = AdoptSocketPair(&polling, &ra, &rb);
  ASSERT_TRUE(pair.a->Send(Pattern(0, kTotal)));
  ASSERT_GT(pair.a->queued_send_bytes(), 0u) << "nothing queued: no test";
  // Virtual time: each millisecond runs the polls due then.
  for (int ms = 0; ms < 10000 && rb.received.size() < kTotal; ms++)
    runner_.AdvanceTimeAndRunUntilIdle(1);
  ASSERT_EQ(rb.received.size(), kTotal);
  EXPECT_TRUE(rb.received == Pattern(0, kTotal)) << "out of order";
}

// A peer that never reads: the queue grows to its bound, then Send()
// fails, the connection is shut down, and OnDisconnect comes once, later.
TEST_F(UnixSocketTest, SendQueueBoundDisconnectsAPeerThatNeverReads) {
  Recorder ra;
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  ScopedFile never_read(fds[1]);
  auto sender = UnixSocket::AdoptConnected(ScopedFile(fds[0]), &ra, &runner_);
  const std::string chunk(1 << 20, 'q');
  test::CapturedLog log;
  size_t accepted = 0;
  bool refused = false;
  for (int i = 0; i < 64 && !refused; i++) {
    if (!sender->Send(chunk)) {
      refused = true;
      EXPECT_EQ(ra.disconnects, 0) << "called from inside Send()";
      break;
    }
    accepted += chunk.size();
    EXPECT_LE(sender->queued_send_bytes(), UnixSocket::kMaxQueuedSendBytes);
    runner_.RunUntilIdle();  // The writable watch finds nothing to do.
  }
  ASSERT_TRUE(refused) << "queued past the bound: " << accepted;
  EXPECT_GE(accepted, UnixSocket::kMaxQueuedSendBytes);
  EXPECT_EQ(sender->state(), UnixSocket::State::kDisconnected);
  EXPECT_EQ(sender->queued_send_bytes(), 0u);
  EXPECT_NE(log.Text().find("not reading"), std::string::npos) << log.Text();
  ASSERT_TRUE(runner_.RunUntil([&] { return ra.disconnects > 0; }));
  EXPECT_FALSE(sender->Send("more"));
  runner_.RunUntilIdle();
  EXPECT_EQ(ra.disconnects, 1);
}

// The peer is gone (its end closed, nothing unread): the send fails with
// EPIPE, and no SIGPIPE ends the process (the signal's default action);
// OnDisconnect comes later, from a task.
TEST_F(UnixSocketTest, SendToAClosedPeerFailsWithoutSigpipe) {
  Recorder ra, rb;
  Pair pair = AdoptSocketPair(&runner_, &ra, &rb);
  pair.b.reset();
  EXPECT_FALSE(pair.a->Send("anyone?"));
  EXPECT_EQ(ra.disconnects, 0) << "called from inside Send()";
  ASSERT_TRUE(runner_.RunUntil([&] { return ra.disconnects > 0; }));
  runner_.RunUntilIdle();
  EXPECT_EQ(ra.disconnects, 1);
}

// The reader goes away mid-stream, unread bytes left behind: the sender
// meets EPIPE or ECONNRESET (on its queue's next send or its next read):
// OnDisconnect once; and the reader deleted itself from OnDataAvailable.
TEST_F(UnixSocketTest, PeerClosingMidStreamDisconnectsOnce) {
  class ClosesAfterFirstRead : public Recorder {
   public:
    void OnDataAvailable(UnixSocket* socket) override {
      char buf[4096];
      received_now += socket->Receive(buf, sizeof(buf));
      owned.reset();  // Deletes |socket|: it must not touch itself after.
    }
    std::unique_ptr<UnixSocket> owned;
    size_t received_now = 0;
  };
  Recorder ra;
  ClosesAfterFirstRead rb;
  Pair pair = AdoptSocketPair(&runner_, &ra, &rb);
  rb.owned = std::move(pair.b);
  const std::string chunk = Pattern(0, 1 << 20);
  for (int i = 0; i < 4; i++)
    ASSERT_TRUE(pair.a->Send(chunk));
  ASSERT_GT(pair.a->queued_send_bytes(), 0u);
  ASSERT_TRUE(runner_.RunUntil([&] { return ra.disconnects > 0; }))
      << "the sender never saw its peer go";
  EXPECT_FALSE(rb.owned);
  EXPECT_GT(rb.received_now, 0u);
  EXPECT_FALSE(pair.a->is_connected());
  EXPECT_FALSE(pair.a->Send("more"));
  runner_.RunUntilIdle();
  EXPECT_EQ(ra.disconnects, 1);
}

// The peer closes with nothing in flight: a Receive() of 0 bytes ends the
// stream; OnDisconnect follows once, after the data sent before the close.
TEST_F(UnixSocketTest, PeerClosingAfterItsLastBytesDisconnectsOnce) {
  Recorder ra, rb;
  Pair pair = AdoptSocketPair(&runner_, &ra, &rb);
  ASSERT_TRUE(pair.b->Send("last words"));
  pair.b.reset();
  ASSERT_TRUE(runner_.RunUntil([&] { return ra.disconnects > 0; }));
  EXPECT_EQ(ra.received, "last words");
  runner_.RunUntilIdle();
  EXPECT_EQ(ra.disconnects, 1);
  EXPECT_EQ(pair.a->state(), UnixSocket::State::kDisconnected);
  EXPECT_EQ(pair.a->fd(), -1);
}

// A listener may delete the socket from any event: ASan sees any access
// after. OnDisconnect, OnDataAvailable with data and the end pending,
// OnConnect, and the listening socket from OnNewIncomingConnection with
// more connections pending.
TEST_F(UnixSocketTest, DeletingTheSocketFromItsCallbacksIsSafe) {
  class Deleter : public Recorder {
   public:
    // Deletes the sockets it owns; records as usual for the others (the
    // accepted ends).
    void OnDisconnect(UnixSocket* s) override {
      if (!Delete(s, "disconnect"))
        Recorder::OnDisconnect(s);
    }
    void OnDataAvailable(UnixSocket* s) override {
      if (!Delete(s, "data"))
        Recorder::OnDataAvailable(s);
    }
    void OnConnect(UnixSocket* s, bool connected) override {
      if (!Delete(s, "connect"))
        Recorder::OnConnect(s, connected);
    }
    void OnNewIncomingConnection(UnixSocket* s,
                                 std::unique_ptr<UnixSocket> c) override {
      accepted.push_back(std::move(c));
      Delete(s, "accept");
    }
    bool Delete(UnixSocket* s, const char* event) {
      for (auto& owned : sockets) {
        if (owned && owned.get() == s) {
          owned.reset();
          deleted_in.push_back(event);
          return true;
        }
      }
      return false;
    }
    std::vector<std::unique_ptr<UnixSocket>> sockets;
    std::vector<std::string> deleted_in;
  };
  Deleter d;
  Recorder quiet;
  // Data and the end of stream both pending when OnDataAvailable runs.
  Pair data_pair = AdoptSocketPair(&runner_, &d, &quiet);
  ASSERT_TRUE(data_pair.b->Send("bytes"));
  data_pair.b.reset();
  d.sockets.push_back(std::move(data_pair.a));
  // OnDisconnect, posted by a failed Send.
  Pair closed_pair = AdoptSocketPair(&runner_, &d, &quiet);
  closed_pair.b.reset();
  EXPECT_FALSE(closed_pair.a->Send("to nobody"));
  d.sockets.push_back(std::move(closed_pair.a));
  // OnConnect and OnNewIncomingConnection, two connections pending.
  const std::string address = NewAbstractName();
  d.sockets.push_back(UnixSocket::Listen(address, &d, &runner_));
  ASSERT_TRUE(d.sockets.back());
  d.sockets.push_back(UnixSocket::Connect(address, &d, &runner_));
  d.sockets.push_back(UnixSocket::Connect(address, &quiet, &runner_));
  ASSERT_TRUE(runner_.RunUntil([&] { return d.deleted_in.size() == 4; }))
      << d.deleted_in.size() << " deleted";
  runner_.RunUntilIdle();
  std::sort(d.deleted_in.begin(), d.deleted_in.end());
  EXPECT_EQ(d.deleted_in, (std::vector<std::string>{"accept", "connect", "data",
                                                    "disconnect"}));
  EXPECT_EQ(d.accepted.size(), 1u) << "accepted after it was deleted";
}

// Shutdown(false) cancels even an OnDisconnect posted before; Shutdown(true)
// posts one, once, and the peer sees the end.
TEST_F(UnixSocketTest, ShutdownNotifiesOnlyWhenAsked) {
  Recorder ra, rb;
  Pair pair = AdoptSocketPair(&runner_, &ra, &rb);
  pair.a->Shutdown(/*notify=*/true);
  pair.a->Shutdown(/*notify=*/true);
  EXPECT_EQ(ra.disconnects, 0) << "called from inside Shutdown()";
  ASSERT_TRUE(runner_.RunUntil([&] { return rb.disconnects > 0; }))
      << "the peer never saw the shutdown";
  EXPECT_EQ(ra.disconnects, 1);
  EXPECT_EQ(rb.disconnects, 1);

  Recorder rc, rd;
  Pair quiet = AdoptSocketPair(&runner_, &rc, &rd);
  quiet.b.reset();
  EXPECT_FALSE(quiet.a->Send("x"));     // Posts OnDisconnect...
  quiet.a->Shutdown(/*notify=*/false);  // ...which must not arrive now.
  runner_.RunUntilIdle();
  EXPECT_EQ(rc.disconnects, 0);
}

// The same over real runner threads, for TSan: a server and a client on
// runners of their own, 8 MiB from client to server while the server's
// runner reads; sockets are made, used and destroyed on their threads.
TEST(UnixSocketThreadsTest, TransferBetweenRunnerThreads) {
  constexpr size_t kTotal = 8u << 20;
  class Server : public UnixSocket::EventListener {
   public:
    void OnNewIncomingConnection(UnixSocket*,
                                 std::unique_ptr<UnixSocket> c) override {
      connection = std::move(c);
    }
    void OnDataAvailable(UnixSocket* socket) override {
      char buf[16384];
      while (size_t n = socket->Receive(buf, sizeof(buf))) {
        for (size_t i = 0; i < n; i++)
          in_order = in_order && buf[i] == PatternByte(received + i);
        received += n;
      }
      total = received;
    }
    std::unique_ptr<UnixSocket> listener, connection;
    size_t received = 0;  // Server thread only.
    bool in_order = true;
    std::atomic<size_t> total{0};
  };
  class Client : public UnixSocket::EventListener {
   public:
    void OnConnect(UnixSocket* self, bool ok) override {
      connected = ok;
      for (size_t offset = 0; ok && offset < kTotal; offset += 1 << 20)
        ok = self->Send(Pattern(offset, 1 << 20));
      sent_all = ok;
    }
    std::unique_ptr<UnixSocket> socket;
    std::atomic<bool> connected{false};
    std::atomic<bool> sent_all{false};
  };
  Server server;
  Client client;
  ThreadTaskRunner server_runner("zt.server");
  ThreadTaskRunner client_runner("zt.client");
  const std::string address =
      "@zt_unix_socket_threads_" + std::to_string(getpid());
  ASSERT_TRUE(PostAndWaitFor(&server_runner, [&] {
    server.listener = UnixSocket::Listen(address, &server, &server_runner);
  }));
  ASSERT_TRUE(PostAndWaitFor(&client_runner, [&] {
    client.socket = UnixSocket::Connect(address, &client, &client_runner);
  }));
  const bool all_arrived =
      WaitFor([&] { return server.total.load() == kTotal; });
  bool in_order = false;
  // Destroyed on their own threads, before the runners go.
  EXPECT_TRUE(PostAndWaitFor(&client_runner, [&] { client.socket.reset(); }));
  EXPECT_TRUE(PostAndWaitFor(&server_runner, [&] {
    in_order = server.in_order;
    server.connection.reset();
    server.listener.reset();
  }));
  EXPECT_TRUE(client.connected);
  EXPECT_TRUE(client.sent_all);
  ASSERT_TRUE(all_arrived) << "received " << server.total.load() << " of "
                           << kTotal;
  EXPECT_TRUE(in_order);
}

TEST(UnixSocketDeathTest, SendingTooManyFdsIsFatal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  TestTaskRunner runner;
  Recorder ra, rb;
  Pair pair = AdoptSocketPair(&runner, &ra, &rb);
  int fds[kMaxFds + 1] = {};
  EXPECT_DEATH(pair.a->Send("x", 1, fds, kMaxFds + 1), "at most 8 fds");
}

}  // namespace
}  // namespace base
}  // namespace zt
