// Bytes compressed (zlib's format, which the browser's
// DecompressionStream('deflate') reads) and written base64-encoded to a
// ProfileOutput as they come: the report's data block streams out in
// pieces instead of being built whole, compressed whole and encoded whole
// (three copies of it at the peak).
//
//   DeflateBase64 data(&out, /*level=*/1);
//   AppendVarint(n, data.input());
//   data.MaybeCompress();  // Now and then: once input() holds a piece.
//   if (!data.Finish()) Fail();
//
// Memory: one piece of input (256 KiB) and zlib's state, whatever the
// data's size. Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_EXPORTERS_DEFLATE_BASE64_H_
#define ZT_SRC_PROCESSOR_EXPORTERS_DEFLATE_BASE64_H_

#include <zlib.h>

#include <cstdint>
#include <string>

#include "src/processor/exporters/profile_output.h"

namespace zt {
namespace processor {

class DeflateBase64 {
 public:
  static constexpr size_t kPieceBytes = 256 * 1024;

  DeflateBase64(ProfileOutput* out, int level);
  ~DeflateBase64();
  DeflateBase64(const DeflateBase64&) = delete;
  DeflateBase64& operator=(const DeflateBase64&) = delete;

  // Where the uncompressed bytes go; MaybeCompress() takes them from there.
  std::string* input() { return &input_; }
  // Compresses what input() holds once it is a piece or more.
  void MaybeCompress() {
    if (input_.size() >= kPieceBytes)
      Compress(Z_NO_FLUSH);
  }
  // The rest, zlib's trailer and the base64 padding. False if zlib failed
  // (the output is then incomplete).
  bool Finish();
  uint64_t compressed_bytes() const { return compressed_bytes_; }

 private:
  void Compress(int flush);
  void Encode(const unsigned char* bytes, size_t size, bool last);

  ProfileOutput* const out_;
  z_stream stream_{};
  bool ok_ = true;
  std::string input_;
  unsigned char carry_[3] = {0, 0, 0};  // Compressed bytes short of a base64 group.
  size_t carried_ = 0;
  uint64_t compressed_bytes_ = 0;
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_EXPORTERS_DEFLATE_BASE64_H_
