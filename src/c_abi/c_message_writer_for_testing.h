// What C code does with a PerfettoStreamWriter (upstream's pb_msg.h, our
// zt/c/ layer), in C++ for the tests: appends inline while the window has
// room and through the slow paths otherwise; nested messages reserve a
// 4-byte size field, and before the writer leaves a range every open
// message whose size field is in it gets the patch address
// PerfettoStreamWriterAnnotatePatch() gives (or NULL: then no size is
// written).

#ifndef ZT_SRC_C_ABI_C_MESSAGE_WRITER_FOR_TESTING_H_
#define ZT_SRC_C_ABI_C_MESSAGE_WRITER_FOR_TESTING_H_

#include <cstring>
#include <string>
#include <vector>

#include "zt/c/abi/stream_writer.h"

namespace zt {
namespace c_abi {

class CMessageWriter {
 public:
  explicit CMessageWriter(PerfettoStreamWriter* w) : w_(w) {}

  void Append(const uint8_t* bytes, size_t size) {
    if (Available() >= size) {
      if (size)
        memcpy(w_->write_ptr, bytes, size);
      w_->write_ptr += size;
    } else {
      LeavingRange();
      PerfettoStreamWriterAppendBytesSlowpath(w_, bytes, size);
    }
    for (Open& m : open_)
      m.size += static_cast<uint32_t>(size);
  }
  void VarInt(uint64_t v) {
    uint8_t buf[10];
    size_t n = 0;
    do {
      buf[n++] = static_cast<uint8_t>((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
      v >>= 7;
    } while (v);
    Append(buf, n);
  }
  void VarIntField(uint32_t id, uint64_t v) {
    VarInt(uint64_t{id} << 3);
    VarInt(v);
  }
  void StringField(uint32_t id, const std::string& s) {
    VarInt(uint64_t{id} << 3 | 2);
    VarInt(s.size());
    Append(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  }
  void BeginNested(uint32_t id) {
    VarInt(uint64_t{id} << 3 | 2);
    uint8_t* field;
    if (Available() < 4) {
      LeavingRange();
      PerfettoStreamWriterReserveBytesSlowpath(w_, 4);
      field = w_->write_ptr - 4;
    } else {
      field = w_->write_ptr;
      w_->write_ptr += 4;
    }
    for (Open& m : open_)
      m.size += 4;
    open_.push_back(Open{field, 0});
  }
  void EndNested() {
    Open m = open_.back();
    open_.pop_back();
    if (m.size_field) {
      uint32_t v = m.size;
      for (int i = 0; i < 4; i++) {
        m.size_field[i] = static_cast<uint8_t>((v & 0x7f) | (i < 3 ? 0x80 : 0));
        v >>= 7;
      }
    }
  }
  size_t Written() const {
    return w_->written_previously + static_cast<size_t>(w_->write_ptr - w_->begin);
  }
  size_t patches_asked() const { return patches_asked_; }

 private:
  struct Open {
    uint8_t* size_field;
    uint32_t size;
  };
  size_t Available() const { return static_cast<size_t>(w_->end - w_->write_ptr); }
  void LeavingRange() {
    for (Open& m : open_) {
      if (m.size_field && m.size_field >= w_->begin && m.size_field < w_->end) {
        m.size_field = PerfettoStreamWriterAnnotatePatch(w_, m.size_field);
        patches_asked_++;
      }
    }
  }

  PerfettoStreamWriter* const w_;
  std::vector<Open> open_;
  size_t patches_asked_ = 0;
};

}  // namespace c_abi
}  // namespace zt

#endif  // ZT_SRC_C_ABI_C_MESSAGE_WRITER_FOR_TESTING_H_
