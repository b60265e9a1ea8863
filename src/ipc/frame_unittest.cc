#include "src/ipc/frame.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/test/test_task_runner.h"
#include "src/base/unix_socket.h"

namespace zt {
namespace ipc {
namespace {

// A frame whose data_for_testing holds |payload| bytes of |fill|, and its
// request id.
Frame TestFrame(uint64_t request_id, size_t payload, char fill = 'x') {
  Frame frame;
  frame.set_request_id(request_id);
  frame.add_data_for_testing(std::string(payload, fill));
  return frame;
}

std::string Header(uint32_t size) {
  std::string header(kFrameHeaderSize, '\0');
  for (size_t i = 0; i < kFrameHeaderSize; i++)
    header[i] = static_cast<char>(size >> (8 * i));
  return header;
}

// Pops every frame, as "request_id:payload size" strings.
std::vector<std::string> Drain(BufferedFrameDeserializer* deserializer) {
  std::vector<std::string> out;
  while (std::unique_ptr<Frame> frame = deserializer->PopNextFrame()) {
    size_t bytes = 0;
    for (const std::string& data : frame->data_for_testing())
      bytes += data.size();
    out.push_back(std::to_string(frame->request_id()) + ":" + std::to_string(bytes));
  }
  return out;
}

TEST(FrameTest, HeaderIsLittleEndianLengthOfTheFrame) {
  Frame frame;
  frame.set_request_id(1);
  frame.mutable_msg_bind_service()->set_service_name("ProducerPort");
  const std::string bytes = SerializeFrame(frame);
  const std::string payload = frame.SerializeAsString();
  ASSERT_EQ(bytes.size(), kFrameHeaderSize + payload.size());
  EXPECT_EQ(bytes.substr(0, kFrameHeaderSize), Header(static_cast<uint32_t>(payload.size())));
  EXPECT_EQ(bytes.substr(kFrameHeaderSize), payload);
}

TEST(FrameTest, SplitAtEveryByteBoundary) {
  const std::string stream = SerializeFrame(TestFrame(1, 0)) + SerializeFrame(TestFrame(2, 300)) +
                             SerializeFrame(TestFrame(3, 5));
  for (size_t split = 0; split <= stream.size(); split++) {
    BufferedFrameDeserializer deserializer;
    ASSERT_TRUE(deserializer.Receive(stream.data(), split));
    ASSERT_TRUE(deserializer.Receive(stream.data() + split, stream.size() - split));
    EXPECT_EQ(Drain(&deserializer), (std::vector<std::string>{"1:0", "2:300", "3:5"}))
        << "split at " << split;
    EXPECT_EQ(deserializer.pending_bytes(), 0u);
  }
}

TEST(FrameTest, OneByteAtATime) {
  const std::string first = SerializeFrame(TestFrame(7, 1000));
  const std::string stream = first + SerializeFrame(TestFrame(8, 1));
  BufferedFrameDeserializer deserializer;
  std::vector<size_t> completed_at;  // Stream offsets after which a frame popped.
  for (size_t i = 0; i < stream.size(); i++) {
    ASSERT_TRUE(deserializer.Receive(&stream[i], 1));
    if (std::unique_ptr<Frame> frame = deserializer.PopNextFrame())
      completed_at.push_back(i + 1);
  }
  EXPECT_EQ(completed_at, (std::vector<size_t>{first.size(), stream.size()}));
}

TEST(FrameTest, AThousandFramesInOneRead) {
  std::string stream;
  std::vector<std::string> expected;
  for (uint64_t i = 1; i <= 1000; i++) {
    stream += SerializeFrame(TestFrame(i, i % 50));
    expected.push_back(std::to_string(i) + ":" + std::to_string(i % 50));
  }
  BufferedFrameDeserializer deserializer;
  // The first read fills the first (4 KiB) buffer; the rest, hundreds of
  // frames, comes in the one read the base-sized buffer takes.
  BufferedFrameDeserializer::ReceiveBuffer room = deserializer.BeginReceive();
  const size_t first = room.size;
  ASSERT_LT(first, stream.size());
  memcpy(room.data, stream.data(), first);
  ASSERT_TRUE(deserializer.EndReceive(first));
  std::vector<std::string> got = Drain(&deserializer);
  room = deserializer.BeginReceive();
  ASSERT_LE(stream.size() - first, room.size);  // One recv's worth.
  memcpy(room.data, stream.data() + first, stream.size() - first);
  ASSERT_TRUE(deserializer.EndReceive(stream.size() - first));
  for (const std::string& frame : Drain(&deserializer))
    got.push_back(frame);
  EXPECT_EQ(got, expected);
}

TEST(FrameTest, AFrameAtTheLimitPassesAndOneByteMoreBreaksTheStream) {
  // request_id (2 bytes), data_for_testing: tag (1 byte), length (4
  // bytes), the bytes.
  const size_t largest_payload = kMaxReceiveFrameSize - kFrameHeaderSize - 2 - 1 - 4;
  const std::string at_limit = SerializeFrame(TestFrame(1, largest_payload));
  ASSERT_EQ(at_limit.size(), kMaxReceiveFrameSize);
  BufferedFrameDeserializer deserializer;
  ASSERT_TRUE(deserializer.Receive(at_limit.data(), at_limit.size()));
  EXPECT_EQ(Drain(&deserializer), (std::vector<std::string>{"1:" + std::to_string(largest_payload)}));

  // The header alone is enough to refuse it: the body is never waited for.
  const std::string before = SerializeFrame(TestFrame(2, 3));
  const std::string over =
      Header(static_cast<uint32_t>(kMaxReceiveFrameSize - kFrameHeaderSize + 1));
  EXPECT_FALSE(deserializer.Receive((before + over).data(), before.size() + over.size()));
  EXPECT_TRUE(deserializer.broken());
  EXPECT_NE(deserializer.error().find("over the limit"), std::string::npos) << deserializer.error();
  // What came before the break is still there; nothing after is taken.
  EXPECT_EQ(Drain(&deserializer), (std::vector<std::string>{"2:3"}));
  const std::string after = SerializeFrame(TestFrame(3, 3));
  EXPECT_FALSE(deserializer.Receive(after.data(), after.size()));
  EXPECT_EQ(deserializer.PopNextFrame(), nullptr);
}

// Upstream's clients send requests of any size; what upstream's host takes
// (128 KiB) and more passes here, up to our limit.
TEST(FrameTest, AFrameOverUpstreamsLimitPasses) {
  const std::string frame = SerializeFrame(TestFrame(7, 3 * 1024 * 1024));
  BufferedFrameDeserializer deserializer;
  ASSERT_TRUE(deserializer.Receive(frame.data(), frame.size()));
  EXPECT_EQ(Drain(&deserializer), (std::vector<std::string>{"7:" + std::to_string(3 << 20)}));
}

// The buffer grows with the bytes of a large frame as they come (never
// more than twice what came), and goes back to its base size once the
// frame is done: one large frame does not leave a connection holding
// megabytes.
TEST(FrameTest, TheBufferGrowsWithALargeFramesBytesAndShrinksAfter) {
  const std::string large = SerializeFrame(TestFrame(1, 1024 * 1024));
  const std::string small = SerializeFrame(TestFrame(2, 10));
  const std::string stream = large + small;
  BufferedFrameDeserializer d;
  size_t received = 0;
  std::vector<std::string> frames;
  while (received < stream.size()) {
    const BufferedFrameDeserializer::ReceiveBuffer room = d.BeginReceive();
    EXPECT_LE(d.capacity(), std::max(kMaxFrameSize, 2 * received))
        << "the buffer ran ahead of the bytes received (" << received << ")";
    const size_t n = std::min<size_t>({room.size, 64 * 1024, stream.size() - received});
    memcpy(room.data, stream.data() + received, n);
    ASSERT_TRUE(d.EndReceive(n));
    received += n;
    for (const std::string& frame : Drain(&d))
      frames.push_back(frame);
  }
  EXPECT_EQ(frames, (std::vector<std::string>{"1:1048576", "2:10"}));
  d.BeginReceive();
  EXPECT_EQ(d.capacity(), kMaxFrameSize) << "the large frame's memory stayed";
}

// A header that declares megabytes, followed by a trickle: the connection
// holds what it sent, not what it declared.
TEST(FrameTest, ADeclaredSizeIsNotAllocatedAhead) {
  BufferedFrameDeserializer d;
  const std::string start = Header(static_cast<uint32_t>(kMaxReceiveFrameSize - 8)) + "abc";
  ASSERT_TRUE(d.Receive(start.data(), start.size()));
  d.BeginReceive();
  EXPECT_EQ(d.capacity(), BufferedFrameDeserializer::kFirstCapacity);
  EXPECT_EQ(d.pending_bytes(), start.size());
}

// A connection that sends a few small frames holds 4 KiB, not the 128 KiB
// base (a daemon's idle producers and short-lived consumers; and what made
// every fuzzed connection map and unmap 128 KiB under ASan).
TEST(FrameTest, SmallFramesKeepTheFirstSmallBuffer) {
  BufferedFrameDeserializer d;
  for (size_t i = 1; i <= 50; i++) {
    const std::string frame = SerializeFrame(TestFrame(i, 200));
    ASSERT_TRUE(d.Receive(frame.data(), frame.size()));
    ASSERT_EQ(Drain(&d), (std::vector<std::string>{std::to_string(i) + ":200"}));
  }
  d.BeginReceive();
  EXPECT_EQ(d.capacity(), BufferedFrameDeserializer::kFirstCapacity);
}

// A read that fills the first buffer says more is queued: the next read
// gets the base capacity, so a busy peer is read 128 KiB at a time, and
// the frames are those of any other cut.
TEST(FrameTest, AReadThatFillsTheFirstBufferGrowsItToTheBase) {
  std::string stream;
  std::vector<std::string> expected;
  for (size_t i = 1; i <= 400; i++) {
    stream += SerializeFrame(TestFrame(i, 40 + i % 90));
    expected.push_back(std::to_string(i) + ":" + std::to_string(40 + i % 90));
  }
  ASSERT_GT(stream.size(), BufferedFrameDeserializer::kFirstCapacity * 2);
  BufferedFrameDeserializer d;
  BufferedFrameDeserializer::ReceiveBuffer room = d.BeginReceive();
  ASSERT_EQ(room.size, BufferedFrameDeserializer::kFirstCapacity);
  memcpy(room.data, stream.data(), room.size);
  ASSERT_TRUE(d.EndReceive(room.size));
  size_t received = room.size;
  std::vector<std::string> got = Drain(&d);
  room = d.BeginReceive();
  EXPECT_EQ(d.capacity(), kMaxFrameSize);
  EXPECT_EQ(room.size, kMaxFrameSize - d.pending_bytes());
  const size_t n = std::min(room.size, stream.size() - received);
  memcpy(room.data, stream.data() + received, n);
  ASSERT_TRUE(d.EndReceive(n));
  for (const std::string& frame : Drain(&d))
    got.push_back(frame);
  EXPECT_EQ(got, expected);
}

// A frame larger than the first buffer but under the base: the buffer
// grows once, to the frame's size, not by doubling from 4 KiB.
TEST(FrameTest, AFrameOverTheFirstBufferGrowsItOnce) {
  const std::string frame = SerializeFrame(TestFrame(3, 20000));
  BufferedFrameDeserializer d;
  size_t received = 0;
  std::set<size_t> capacities;
  while (received < frame.size()) {
    const BufferedFrameDeserializer::ReceiveBuffer room = d.BeginReceive();
    capacities.insert(d.capacity());
    const size_t n = std::min<size_t>({room.size, 1000, frame.size() - received});
    memcpy(room.data, frame.data() + received, n);
    ASSERT_TRUE(d.EndReceive(n));
    received += n;
  }
  EXPECT_EQ(capacities, (std::set<size_t>{BufferedFrameDeserializer::kFirstCapacity, frame.size()}));
  EXPECT_EQ(Drain(&d), (std::vector<std::string>{"3:20000"}));
}

// The fuzzers' configuration: a tiny base, so short inputs grow and shrink
// the buffer; the frames are those of the default one.
TEST(FrameTest, ATinyBaseCapacityGivesTheSameFrames) {
  std::string stream;
  std::vector<std::string> expected;
  for (size_t i = 1; i <= 20; i++) {
    stream += SerializeFrame(TestFrame(i, (i * 37) % 300));
    expected.push_back(std::to_string(i) + ":" + std::to_string((i * 37) % 300));
  }
  for (size_t read = 1; read <= 64; read *= 2) {
    BufferedFrameDeserializer d(/*max_frame_size=*/4096, /*base_capacity=*/16);
    std::vector<std::string> got;
    for (size_t at = 0; at < stream.size(); at += read) {
      ASSERT_TRUE(d.Receive(stream.data() + at, std::min(read, stream.size() - at)));
      for (const std::string& frame : Drain(&d))
        got.push_back(frame);
    }
    EXPECT_EQ(got, expected) << "reads of " << read;
    d.BeginReceive();
    EXPECT_EQ(d.capacity(), 16u);
  }
}

TEST(FrameTest, AHugeLengthDoesNotOverflow) {
  BufferedFrameDeserializer deserializer;
  const std::string header = Header(0xFFFFFFFFu);
  EXPECT_FALSE(deserializer.Receive(header.data(), header.size()));
  EXPECT_TRUE(deserializer.broken());
}

TEST(FrameTest, BytesThatAreNotAFrameBreakTheStream) {
  const std::vector<std::string> garbage = {
      std::string("\x1a\x05" "ab", 4),  // A message field longer than the frame.
      std::string("\x0f", 1),           // Wire type 7 does not exist.
      std::string("\x10\xff\xff", 3),   // A varint cut short.
  };
  for (const std::string& payload : garbage) {
    BufferedFrameDeserializer deserializer;
    const std::string stream = SerializeFrame(TestFrame(1, 2)) +
                               Header(static_cast<uint32_t>(payload.size())) + payload;
    EXPECT_FALSE(deserializer.Receive(stream.data(), stream.size()));
    EXPECT_NE(deserializer.error().find("not an IPCFrame"), std::string::npos)
        << deserializer.error();
    EXPECT_EQ(Drain(&deserializer), (std::vector<std::string>{"1:2"}));
  }
}

TEST(FrameTest, AnEmptyFrameIsAFrame) {
  // Four zero bytes: a frame with no field set. Whether it means anything
  // is the host's business.
  BufferedFrameDeserializer deserializer;
  const std::string header = Header(0);
  ASSERT_TRUE(deserializer.Receive(header.data(), header.size()));
  std::unique_ptr<Frame> frame = deserializer.PopNextFrame();
  ASSERT_NE(frame, nullptr);
  EXPECT_FALSE(frame->has_request_id());
}

TEST(FrameTest, UnknownFieldsAndRedundantVarintsAreAccepted) {
  // A newer peer's field 99 (varint), and request_id as a 4-byte redundant
  // varint (protozero writes lengths that way; a decoder must take it).
  const std::string payload("\x98\x06\x01" "\x10\x85\x80\x80\x00", 8);
  const std::string stream = Header(static_cast<uint32_t>(payload.size())) + payload;
  BufferedFrameDeserializer deserializer;
  ASSERT_TRUE(deserializer.Receive(stream.data(), stream.size())) << deserializer.error();
  std::unique_ptr<Frame> frame = deserializer.PopNextFrame();
  ASSERT_NE(frame, nullptr);
  EXPECT_EQ(frame->request_id(), 5u);
}

}  // namespace
}  // namespace ipc
}  // namespace zt

namespace zt {
namespace ipc {
namespace {

// Bytes into the deserializer as one read, with |fd| as what came with it.
bool Read(BufferedFrameDeserializer* d, const std::string& bytes, base::ScopedFile fd) {
  const BufferedFrameDeserializer::ReceiveBuffer room = d->BeginReceive();
  if (bytes.size() > room.size)
    return false;
  memcpy(room.data, bytes.data(), bytes.size());
  return d->EndReceive(bytes.size(), std::move(fd));
}

base::ScopedFile SomeFd() {
  return base::ScopedFile(open("/dev/null", O_RDONLY | O_CLOEXEC));
}

// Linux ends a read with the message that brought descriptors: frames
// before it in the same read came without them.
TEST(FrameFdTest, ADescriptorGoesWithTheFrameThatEndsTheRead) {
  BufferedFrameDeserializer d;
  base::ScopedFile fd = SomeFd();
  const int raw = fd.get();
  ASSERT_TRUE(Read(&d,
                   SerializeFrame(TestFrame(1, 3)) + SerializeFrame(TestFrame(2, 3)) +
                       SerializeFrame(TestFrame(3, 3)),
                   std::move(fd)));
  base::ScopedFile got;
  ASSERT_NE(d.PopNextFrame(&got), nullptr);
  EXPECT_FALSE(got);
  ASSERT_NE(d.PopNextFrame(&got), nullptr);
  EXPECT_FALSE(got);
  std::unique_ptr<Frame> third = d.PopNextFrame(&got);
  ASSERT_NE(third, nullptr);
  EXPECT_EQ(third->request_id(), 3u);
  EXPECT_EQ(got.get(), raw);
}

TEST(FrameFdTest, ADescriptorOfAFrameCutByTheReadWaitsForItsEnd) {
  BufferedFrameDeserializer d;
  const std::string second = SerializeFrame(TestFrame(2, 40));
  base::ScopedFile fd = SomeFd();
  const int raw = fd.get();
  ASSERT_TRUE(Read(&d, SerializeFrame(TestFrame(1, 3)) + second.substr(0, 10), std::move(fd)));
  base::ScopedFile got;
  ASSERT_NE(d.PopNextFrame(&got), nullptr);
  EXPECT_FALSE(got) << "the frame before the cut one came without it";
  EXPECT_EQ(d.PopNextFrame(&got), nullptr);
  ASSERT_TRUE(Read(&d, second.substr(10), base::ScopedFile()));
  std::unique_ptr<Frame> frame = d.PopNextFrame(&got);
  ASSERT_NE(frame, nullptr);
  EXPECT_EQ(frame->request_id(), 2u);
  EXPECT_EQ(got.get(), raw);
}

// A frame with a descriptor cut by the read (the descriptor comes with its
// first bytes), its rest and the next frame in the following read: the
// descriptor is the cut frame's, not the one that ends the second read.
TEST(FrameFdTest, ACutFrameKeepsItsDescriptorWhenTheNextFrameEndsTheRead) {
  BufferedFrameDeserializer d;
  const std::string cut = SerializeFrame(TestFrame(1, 40));
  base::ScopedFile fd = SomeFd();
  const int raw = fd.get();
  ASSERT_TRUE(Read(&d, cut.substr(0, 10), std::move(fd)));
  base::ScopedFile got;
  EXPECT_EQ(d.PopNextFrame(&got), nullptr);
  ASSERT_TRUE(Read(&d, cut.substr(10) + SerializeFrame(TestFrame(2, 3)), base::ScopedFile()));
  std::unique_ptr<Frame> first = d.PopNextFrame(&got);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->request_id(), 1u);
  EXPECT_EQ(got.get(), raw) << "the cut frame lost its descriptor";
  got.reset();
  std::unique_ptr<Frame> second = d.PopNextFrame(&got);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->request_id(), 2u);
  EXPECT_FALSE(got) << "the descriptor went to the frame after the cut one";
}

// The sending side of the rule above: a frame with a descriptor queued
// behind a full socket goes as a message of its own, so the frames queued
// after it do not end its read and take its descriptor.
TEST(FrameFdTest, AQueuedFrameWithADescriptorKeepsIt) {
  base::TestTaskRunner runner;
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  base::UnixSocket::EventListener listener;
  std::unique_ptr<base::UnixSocket> sender =
      base::UnixSocket::AdoptConnected(base::ScopedFile(fds[0]), &listener, &runner);
  base::ScopedFile receiver(fds[1]);
  uint64_t id = 1;
  while (sender->queued_send_bytes() == 0)  // Until the socket is full.
    ASSERT_TRUE(sender->Send(SerializeFrame(TestFrame(id++, 60000))));
  const uint64_t with_fd = id++;
  base::ScopedFile fd = SomeFd();
  const int raw = fd.get();
  const std::string frame = SerializeFrame(TestFrame(with_fd, 10));
  ASSERT_TRUE(sender->Send(frame.data(), frame.size(), &raw, 1));
  for (int i = 0; i < 2; i++)
    ASSERT_TRUE(sender->Send(SerializeFrame(TestFrame(id++, 10))));
  const uint64_t last = id - 1;

  BufferedFrameDeserializer d;
  uint64_t fd_frame = 0, received = 0;
  for (int round = 0; round < 100000 && received < last; round++) {
    runner.RunUntilIdle();  // The sender sends what its queue holds.
    const BufferedFrameDeserializer::ReceiveBuffer room = d.BeginReceive();
    iovec iov{room.data, room.size};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    const ssize_t n = recvmsg(receiver.get(), &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n <= 0)
      continue;
    base::ScopedFile got;
    if (cmsghdr* c = CMSG_FIRSTHDR(&msg)) {
      int received_fd;
      memcpy(&received_fd, CMSG_DATA(c), sizeof(received_fd));
      got = base::ScopedFile(received_fd);
    }
    ASSERT_TRUE(d.EndReceive(static_cast<size_t>(n), std::move(got)));
    base::ScopedFile frame_fd;
    while (std::unique_ptr<Frame> f = d.PopNextFrame(&frame_fd)) {
      received = f->request_id();
      if (frame_fd)
        fd_frame = f->request_id();
      frame_fd.reset();
    }
  }
  ASSERT_EQ(received, last) << "not every frame arrived";
  EXPECT_EQ(fd_frame, with_fd) << "the descriptor went with another frame";
}

}  // namespace
}  // namespace ipc
}  // namespace zt
