#include "src/processor/importers/gzip/gzip_stream.h"

#include <sys/mman.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace zt {
namespace processor {
namespace {

constexpr size_t kOutputBytes = 256 * 1024;
// zlib's counters are 32-bit; feed it at most this much at a time.
constexpr size_t kMaxInputPerCall = 1u << 30;

}  // namespace

struct GzipStream::ZStream {
  z_stream s;
};

bool LooksLikeGzip(const void* data, size_t size) {
  const uint8_t* const bytes = static_cast<const uint8_t*>(data);
  return size >= 3 && bytes[0] == 0x1F && bytes[1] == 0x8B && bytes[2] == 0x08;
}

GzipStream::GzipStream() : z_(new ZStream()), out_(new uint8_t[kOutputBytes]) {
  memset(&z_->s, 0, sizeof(z_->s));
  // 16 + window bits: gzip framing (header, CRC-32 and length checked).
  if (inflateInit2(&z_->s, 16 + MAX_WBITS) == Z_OK) {
    initialised_ = true;
  } else {
    state_ = State::kFailed;
    error_ = "zlib could not be initialised (out of memory?)";
  }
}

GzipStream::~GzipStream() {
  if (initialised_)
    inflateEnd(&z_->s);
}

bool GzipStream::Fail(const std::string& what) {
  state_ = State::kFailed;
  error_ = what;
  return false;
}

bool GzipStream::Feed(const uint8_t* data, size_t size, const Sink& sink) {
  while (size > 0) {
    switch (state_) {
      case State::kFailed:
        return false;
      case State::kTrailing:
        trailing_bytes_ += size;
        bytes_in_ += size;
        return true;
      case State::kBetweenMembers:
        // Another member follows, or what gunzip calls trailing garbage
        // (often zero padding): ignored, counted.
        if (data[0] != 0x1F) {
          state_ = State::kTrailing;
          continue;
        }
        inflateReset(&z_->s);
        state_ = State::kInMember;
        break;
      case State::kStart:
        state_ = State::kInMember;
        break;
      case State::kInMember:
        break;
    }
    const size_t piece = size < kMaxInputPerCall ? size : kMaxInputPerCall;
    z_stream& s = z_->s;
    s.next_in = const_cast<Bytef*>(data);
    s.avail_in = static_cast<uInt>(piece);
    int rc = Z_OK;
    // A full output buffer may leave output inside zlib after the input is
    // used up: go on until a call leaves room.
    do {
      s.next_out = out_.get();
      s.avail_out = static_cast<uInt>(kOutputBytes);
      rc = inflate(&s, Z_NO_FLUSH);
      const size_t produced = kOutputBytes - s.avail_out;
      if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
        const uint64_t at = bytes_in_ + (piece - s.avail_in);
        return Fail("gzip data is corrupt at compressed byte " + std::to_string(at) + " (" +
                    (s.msg ? s.msg : "zlib error " + std::to_string(rc)) + ")");
      }
      if (produced > 0) {
        bytes_out_ += produced;
        if (!sink(out_.get(), produced)) {
          state_ = State::kFailed;
          return false;
        }
      }
    } while ((s.avail_in > 0 || s.avail_out == 0) && rc != Z_STREAM_END);
    const size_t consumed = piece - s.avail_in;
    bytes_in_ += consumed;
    data += consumed;
    size -= consumed;
    if (rc == Z_STREAM_END)
      state_ = State::kBetweenMembers;
  }
  return state_ != State::kFailed;
}

bool GzipStream::Finish() {
  if (state_ == State::kFailed)
    return false;
  if (state_ == State::kInMember)
    return Fail("gzip data ends inside a compressed member after " +
                std::to_string(bytes_in_) + " bytes (a cut file?)");
  if (state_ == State::kStart)
    return Fail("no gzip data");
  return true;
}

std::string InflateHead(const void* data, size_t size, size_t max_bytes) {
  GzipStream stream;
  std::string head;
  // A few KiB of output rarely need more than a few KiB of input; stop as
  // soon as there is enough.
  stream.Feed(static_cast<const uint8_t*>(data), size, [&](const uint8_t* out, size_t n) {
    head.append(reinterpret_cast<const char*>(out), std::min(n, max_bytes - head.size()));
    return head.size() < max_bytes;
  });
  return head;
}

GrowingBuffer::~GrowingBuffer() {
  if (data_)
    munmap(data_, capacity_);
}

bool GrowingBuffer::Append(const uint8_t* data, size_t size) {
  if (size > capacity_ - size_) {
    size_t capacity = capacity_ ? capacity_ : (size_t{64} << 20);
    while (capacity - size_ < size) {
      if (capacity > SIZE_MAX / 2)
        return false;
      capacity *= 2;
    }
    void* grown = data_ ? mremap(data_, capacity_, capacity, MREMAP_MAYMOVE)
                        : mmap(nullptr, capacity, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (grown == MAP_FAILED)
      return false;
    data_ = static_cast<uint8_t*>(grown);
    capacity_ = capacity;
  }
  memcpy(data_ + size_, data, size);
  size_ += size;
  return true;
}

}  // namespace processor
}  // namespace zt
