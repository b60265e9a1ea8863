// ClientEnd: the test's end of a socketpair whose other end a host serves,
// speaking raw IPC frames (what the replay of upstream's transcripts sends
// and receives): frames out; bytes in, cut into frames, each with the fds
// the kernel handed over with it. Test support only.

#ifndef ZT_TEST_TRANSCRIPT_CLIENT_END_H_
#define ZT_TEST_TRANSCRIPT_CLIENT_END_H_

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/scoped_file.h"
#include "zt/ipc/wire_protocol.gen.h"

namespace zt {
namespace transcript {

using Frame = protos::gen::IPCFrame;

struct Received {
  Frame frame;
  std::vector<base::ScopedFile> fds;
};

// The test's end of a socketpair whose other end our host serves: frames
// out; bytes in, cut into frames, each with the fds that came with it.
class ClientEnd {
 public:
  explicit ClientEnd(base::ScopedFile fd) : fd_(std::move(fd)) {}

  bool Send(const Frame& frame) {
    const std::string body = frame.SerializeAsString();
    std::string bytes(4, '\0');
    for (int i = 0; i < 4; ++i)
      bytes[static_cast<size_t>(i)] = static_cast<char>((body.size() >> (8 * i)) & 0xff);
    bytes += body;
    // Client frames are small and the service drains its end after each:
    // one send takes it all.
    return send(fd_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT) ==
           static_cast<ssize_t>(bytes.size());
  }

  void Close() { fd_.reset(); }
  bool open() const { return static_cast<bool>(fd_); }
  bool peer_closed() const { return peer_closed_; }
  const std::string& error() const { return error_; }

  // Reads what is there; appends complete frames to |*out|. Returns the
  // bytes read.
  size_t Drain(std::vector<Received>* out) {
    size_t total = 0;
    while (fd_ && !peer_closed_) {
      char buf[64 * 1024];
      alignas(cmsghdr) char control[CMSG_SPACE(8 * sizeof(int))];
      iovec iov{buf, sizeof(buf)};
      msghdr msg{};
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      msg.msg_control = control;
      msg.msg_controllen = sizeof(control);
      const ssize_t n = recvmsg(fd_.get(), &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
      if (n < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK)
          error_ = std::string("recvmsg: ") + std::strerror(errno);
        break;
      }
      if (n == 0) {
        peer_closed_ = true;
        break;
      }
      for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
          continue;
        const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; ++i) {
          int fd;
          std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
          // The kernel ends a read with the message that brought fds: they
          // belong to the frame holding the read's last byte.
          fds_.emplace_back(read_offset_ + static_cast<uint64_t>(n) - 1, base::ScopedFile(fd));
        }
      }
      bytes_.append(buf, static_cast<size_t>(n));
      read_offset_ += static_cast<uint64_t>(n);
      total += static_cast<size_t>(n);
    }
    while (bytes_.size() >= 4) {
      uint32_t size = 0;
      for (int i = 3; i >= 0; --i)
        size = (size << 8) | static_cast<uint8_t>(bytes_[static_cast<size_t>(i)]);
      if (bytes_.size() < 4 + size)
        break;
      Received r;
      if (!r.frame.ParseFromArray(bytes_.data() + 4, size))
        error_ = "a frame from our service does not decode as an IPCFrame";
      const uint64_t end = frame_offset_ + 4 + size;
      while (!fds_.empty() && fds_.front().first < end) {
        r.fds.push_back(std::move(fds_.front().second));
        fds_.erase(fds_.begin());
      }
      out->push_back(std::move(r));
      bytes_.erase(0, 4 + size);
      frame_offset_ = end;
    }
    return total;
  }

 private:
  base::ScopedFile fd_;
  std::string bytes_;          // Received, not yet a whole frame.
  uint64_t read_offset_ = 0;   // Stream offset of the next byte read.
  uint64_t frame_offset_ = 0;  // Stream offset of bytes_[0].
  std::vector<std::pair<uint64_t, base::ScopedFile>> fds_;  // By offset.
  bool peer_closed_ = false;
  std::string error_;
};

}  // namespace transcript
}  // namespace zt

#endif  // ZT_TEST_TRANSCRIPT_CLIENT_END_H_
