// Decompresses gzip data a piece at a time, so that a compressed trace is
// read without its whole decompressed text ever being in memory (a JSON
// trace is parsed as it comes out) or, where the importer needs the whole
// input (protobuf), without a second copy of it.
//
//   GzipStream gzip;
//   for (each piece of the file)
//     if (!gzip.Feed(piece, size, [&](const uint8_t* out, size_t n) { ... }))
//       report(gzip.error());  // Corrupt: what came out before is good.
//   if (!gzip.Finish()) report(gzip.error());  // Cut short.
//
// Concatenated members (`cat a.gz b.gz`) decompress as one stream, as
// gunzip does; bytes after the last member that do not start another one
// are ignored and counted (trailing_bytes), as gunzip ignores trailing
// zeros.
// Cost: zlib's inflate, about 300-500 MB/s of output; 32 KiB window and a
// 256 KiB output buffer. Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_GZIP_GZIP_STREAM_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_GZIP_GZIP_STREAM_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace zt {
namespace processor {

class GzipStream {
 public:
  // Receives decompressed bytes, valid during the call only. Returning
  // false stops the stream (Feed returns false with error() empty).
  using Sink = std::function<bool(const uint8_t* data, size_t size)>;

  GzipStream();
  ~GzipStream();
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  // Decompresses the next `size` compressed bytes. False on corrupt data
  // (error() says what and at which compressed byte) or when the sink
  // stopped; later calls then do nothing and return false.
  bool Feed(const uint8_t* data, size_t size, const Sink& sink);
  // After the last Feed: false (with error()) if the data ended inside a
  // member, i.e. the file was cut.
  bool Finish();

  const std::string& error() const { return error_; }
  uint64_t bytes_in() const { return bytes_in_; }
  uint64_t bytes_out() const { return bytes_out_; }
  uint64_t trailing_bytes() const { return trailing_bytes_; }
  // Whether the data so far ended exactly at the end of a member.
  bool at_member_end() const { return state_ == State::kBetweenMembers; }

 private:
  enum class State { kStart, kInMember, kBetweenMembers, kTrailing, kFailed };
  struct ZStream;

  bool Fail(const std::string& what);

  std::unique_ptr<ZStream> z_;
  std::unique_ptr<uint8_t[]> out_;
  State state_ = State::kStart;
  bool initialised_ = false;
  std::string error_;
  uint64_t bytes_in_ = 0;
  uint64_t bytes_out_ = 0;
  uint64_t trailing_bytes_ = 0;
};

// Whether `data` starts like gzip: 1f 8b, deflate (08).
bool LooksLikeGzip(const void* data, size_t size);

// The first (up to) `max_bytes` bytes that `data` decompresses to: enough
// to tell what a compressed file holds. Empty if it does not decompress.
std::string InflateHead(const void* data, size_t size, size_t max_bytes);

// Memory for a whole decompressed input, grown without copying
// (anonymous pages, remapped), for importers that read their input more
// than once (protobuf's second pass). Its pages are the only copy: never
// release them while importing.
class GrowingBuffer {
 public:
  GrowingBuffer() = default;
  ~GrowingBuffer();
  GrowingBuffer(const GrowingBuffer&) = delete;
  GrowingBuffer& operator=(const GrowingBuffer&) = delete;
  // False if the memory cannot be had.
  bool Append(const uint8_t* data, size_t size);
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_GZIP_GZIP_STREAM_H_
