// libFuzzer harness: hostile chunk sequences, patches and reads against a
// small TraceBuffer. The input is a script of operations; payload bytes come
// from the input too, so the fuzzer controls fragment sizes and flags.
//
// Invariants checked (abort on violation): no crash or sanitizer report;
// every packet returned is non-empty and made only of bytes that could have
// been written (its bytes are a multiset bounded by what was stored); its
// loss mask is 0 or DATA_LOSS_PRESENT with buffer causes only; byte and
// chunk counters are consistent with what was fed and read.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "src/base/test/fuzzing.h"
#include "src/tracing/service/trace_buffer.h"
#include "zt/base/logging.h"
#include "zt/ext/tracing/core/commit_data.h"

namespace {

class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  uint8_t U8() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t U16() { return static_cast<uint16_t>(U8() | (U8() << 8)); }
  // Takes up to |n| bytes; the rest is zero (as an unwritten chunk tail).
  std::vector<uint8_t> Bytes(size_t n) {
    std::vector<uint8_t> out(n, 0);
    const size_t taken = pos_ < size_ ? std::min(n, size_ - pos_) : 0;
    if (taken > 0)
      memcpy(out.data(), data_ + pos_, taken);
    pos_ += taken;
    return out;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Which byte values were ever written or patched in: a packet read back can
// hold no other.
struct BytesSeen {
  bool value[256] = {};

  ZT_FUZZ_CHECKER void Add(const uint8_t* data, size_t size) {
    for (size_t i = 0; i < size; i++)
      value[data[i]] = true;
  }
  ZT_FUZZ_CHECKER bool AllSeen(const uint8_t* data, size_t size) const {
    bool all = true;
    for (size_t i = 0; i < size; i++)
      all &= value[data[i]];
    return all;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  const uint8_t cfg = in.U8();
  const auto policy = (cfg & 0x80) ? zt::TraceBuffer::OverwritePolicy::kDiscard
                                   : zt::TraceBuffer::OverwritePolicy::kOverwrite;
  auto tb = zt::TraceBuffer::Create(4096u * (1u + (cfg & 3u)), policy);
  ZT_CHECK(tb != nullptr);

  uint64_t fed_chunks = 0;
  uint64_t fed_bytes = 0;   // Payload bytes handed over, accepted or not.
  uint64_t read_bytes = 0;
  BytesSeen written;
  uint64_t patched_bytes = 0;

  auto read_pass = [&] {
    tb->BeginRead();
    zt::TraceBufferPacket slices;
    std::vector<uint8_t> data;
    int guard = 0;
    while (tb->ReadNextTracePacket(&slices)) {
      ZT_CHECK(++guard < 100000);
      size_t sum = 0;
      for (const zt::TraceBufferSlice& slice : slices.slices)
        sum += slice.size;
      ZT_CHECK(sum == slices.size);
      slices.CopyTo(&data);
      const zt::TraceBufferPacket& p = slices;
      ZT_CHECK(!data.empty());
      ZT_CHECK(p.writer_id != 0);
      ZT_CHECK(p.producer_id < 4);
      // 0, or PRESENT with any of the causes the buffer can find (never
      // SMB_FULL: that one is the producer's).
      ZT_CHECK(p.previous_packet_dropped == 0 ||
            ((p.previous_packet_dropped & 1u) && p.previous_packet_dropped < 256u));
      ZT_CHECK(data.size() <= fed_bytes + patched_bytes);
      // Every byte must exist among the bytes written or patched in.
      ZT_CHECK(written.AllSeen(data.data(), data.size()));
      read_bytes += data.size();
    }
  };

  while (!in.empty()) {
    const uint8_t op = in.U8();
    switch (op % 5) {
      case 0:
      case 1: {  // A chunk, complete or scraped.
        const uint32_t producer = in.U8() % 4;
        const uint16_t writer = static_cast<uint16_t>(in.U8() % 4);
        const uint32_t chunk_id = in.U8() % 16 + ((op & 0x80) ? 0xFFFFFFF8u : 0);
        const uint16_t count = static_cast<uint16_t>(in.U8() % 8);
        const uint8_t flags = in.U8() & 0x3F;
        const size_t psize = in.U16() % 6000;
        std::vector<uint8_t> payload = in.Bytes(psize);
        written.Add(payload.data(), payload.size());
        fed_chunks++;
        fed_bytes += psize;
        zt::TraceBufferChunk chunk;
        chunk.producer_id = producer;
        chunk.writer_id = writer;
        chunk.chunk_id = chunk_id;
        chunk.packet_count = count;
        chunk.flags = flags;
        chunk.complete = op % 5 == 0;
        chunk.payload = payload.data();
        chunk.size = payload.size();
        tb->CopyChunkUntrusted(chunk);
        break;
      }
      case 2: {  // Patches.
        const uint32_t producer = in.U8() % 4;
        const uint16_t writer = static_cast<uint16_t>(in.U8() % 4);
        const uint32_t chunk_id = in.U8() % 16 + ((op & 0x80) ? 0xFFFFFFF8u : 0);
        std::vector<zt::CommitData::Patch> patches(in.U8() % 4);
        for (auto& p : patches) {
          p.offset = in.U16();
          if (op & 0x40)
            p.offset |= 0xFFFF0000u;
          for (auto& b : p.data)
            b = in.U8();
          written.Add(p.data.data(), p.data.size());
          patched_bytes += 4;
        }
        tb->TryPatchChunkContents(producer, writer, chunk_id, patches,
                                  (op & 0x20) != 0);
        break;
      }
      default:
        read_pass();
        break;
    }
    const zt::TraceBufferStats& st = tb->stats();
    ZT_CHECK(st.chunks_written <= fed_chunks);
    ZT_CHECK(st.bytes_written <= fed_bytes);
    ZT_CHECK(st.chunks_read <= st.chunks_written);
    ZT_CHECK(st.chunks_overwritten <= st.chunks_written);
    ZT_CHECK(st.bytes_overwritten <= st.bytes_written);
    ZT_CHECK(st.bytes_read <= st.bytes_written);
    // Packets come out of chunk bytes (patches overwrite, never add).
    ZT_CHECK(read_bytes <= fed_bytes);
    ZT_CHECK(st.chunks_written + st.chunks_discarded + st.chunks_rewritten +
                 st.chunks_recopied + st.abi_violations >=
             fed_chunks);
    ZT_CHECK(st.buffer_size == tb->size());
  }
  read_pass();
  ZT_CHECK(tb->stats().bytes_read <= tb->stats().bytes_written);
  return 0;
}
