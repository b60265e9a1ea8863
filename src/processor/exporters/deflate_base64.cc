#include "src/processor/exporters/deflate_base64.h"

#include <algorithm>
#include <cstring>

namespace zt {
namespace processor {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

}  // namespace

DeflateBase64::DeflateBase64(ProfileOutput* out, int level) : out_(out) {
  ok_ = deflateInit(&stream_, level) == Z_OK;
  input_.reserve(kPieceBytes + 64 * 1024);
}

DeflateBase64::~DeflateBase64() {
  deflateEnd(&stream_);
}

void DeflateBase64::Compress(int flush) {
  if (!ok_)
    return;
  unsigned char piece[64 * 1024];
  stream_.next_in = reinterpret_cast<Bytef*>(input_.data());
  stream_.avail_in = static_cast<uInt>(input_.size());
  int result = Z_OK;
  do {
    stream_.next_out = piece;
    stream_.avail_out = sizeof(piece);
    result = deflate(&stream_, flush);
    if (result == Z_STREAM_ERROR) {
      ok_ = false;
      return;
    }
    const size_t produced = sizeof(piece) - stream_.avail_out;
    compressed_bytes_ += produced;
    Encode(piece, produced, flush == Z_FINISH && result == Z_STREAM_END);
    out_->MaybeFlush();
  } while (stream_.avail_out == 0 || (flush == Z_FINISH && result != Z_STREAM_END));
  input_.clear();
}

void DeflateBase64::Encode(const unsigned char* bytes, size_t size, bool last) {
  std::string& text = out_->buffer();
  text.reserve(text.size() + (carried_ + size) / 3 * 4 + 4);
  auto group = [&text](uint32_t v) {
    text.push_back(kAlphabet[v >> 18]);
    text.push_back(kAlphabet[(v >> 12) & 63]);
    text.push_back(kAlphabet[(v >> 6) & 63]);
    text.push_back(kAlphabet[v & 63]);
  };
  size_t i = 0;
  if (carried_ > 0) {  // First the group the last call left open.
    i = std::min(sizeof(carry_) - carried_, size);
    memcpy(carry_ + carried_, bytes, i);
    carried_ += i;
    if (carried_ == sizeof(carry_)) {
      group(uint32_t{carry_[0]} << 16 | uint32_t{carry_[1]} << 8 | carry_[2]);
      carried_ = 0;
    }
  }
  if (carried_ == 0) {  // (Else every byte went into the carry.)
    for (; i + 3 <= size; i += 3)
      group(uint32_t{bytes[i]} << 16 | uint32_t{bytes[i + 1]} << 8 | bytes[i + 2]);
    carried_ = size - i;  // 0 to 2.
    memcpy(carry_, bytes + i, carried_);
  }
  if (last && carried_ > 0) {
    const uint32_t v = uint32_t{carry_[0]} << 16 | (carried_ == 2 ? uint32_t{carry_[1]} << 8 : 0);
    text.push_back(kAlphabet[v >> 18]);
    text.push_back(kAlphabet[(v >> 12) & 63]);
    text.push_back(carried_ == 2 ? kAlphabet[(v >> 6) & 63] : '=');
    text.push_back('=');
    carried_ = 0;
  }
}

bool DeflateBase64::Finish() {
  Compress(Z_FINISH);
  return ok_;
}

}  // namespace processor
}  // namespace zt
