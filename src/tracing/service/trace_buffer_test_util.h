// Test support for TraceBuffer: chunk payloads built by hand, and a writer
// simulation that chunks packets the way a TraceWriter does (4-byte sizes,
// continuation flags, sizes left for a later patch).

#ifndef ZT_SRC_TRACING_SERVICE_TRACE_BUFFER_TEST_UTIL_H_
#define ZT_SRC_TRACING_SERVICE_TRACE_BUFFER_TEST_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "src/tracing/service/trace_buffer.h"
#include "zt/ext/tracing/core/commit_data.h"
#include "zt/ext/tracing/core/shared_memory_abi.h"

namespace zt {
namespace test {

using Bytes = std::vector<uint8_t>;

inline void PutSize4(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>((v & 0x7F) | 0x80);
  p[1] = static_cast<uint8_t>(((v >> 7) & 0x7F) | 0x80);
  p[2] = static_cast<uint8_t>(((v >> 14) & 0x7F) | 0x80);
  p[3] = static_cast<uint8_t>((v >> 21) & 0x7F);
}

inline Bytes Pattern(size_t n, uint32_t seed) {
  Bytes b(n);
  for (size_t i = 0; i < n; i++)
    b[i] = static_cast<uint8_t>(seed * 31 + i * 7 + (i >> 8));
  return b;
}

// One chunk as the service would hand it to the buffer.
struct TestChunk {
  uint32_t producer = 1;
  uint16_t writer = 1;
  uint32_t id = 0;
  uint16_t count = 0;
  uint8_t flags = 0;
  bool complete = true;
  Bytes payload;

  explicit TestChunk(uint32_t chunk_id) : id(chunk_id) {}
  // A fragment with a 4-byte size (as writers do).
  TestChunk& Frag(const Bytes& data) {
    const size_t at = payload.size();
    payload.resize(at + 4);
    PutSize4(&payload[at], static_cast<uint32_t>(data.size()));
    payload.insert(payload.end(), data.begin(), data.end());
    count++;
    return *this;
  }
  TestChunk& Raw(const Bytes& bytes) {
    payload.insert(payload.end(), bytes.begin(), bytes.end());
    return *this;
  }
  TestChunk& Count(uint16_t c) { count = c; return *this; }
  TestChunk& Flags(uint8_t f) { flags = f; return *this; }
  TestChunk& Writer(uint16_t w) { writer = w; return *this; }
  TestChunk& Producer(uint32_t p) { producer = p; return *this; }
  TestChunk& Scraped() { complete = false; return *this; }
  TestChunk& PadTo(size_t n) {
    if (payload.size() < n)
      payload.resize(n, 0);
    return *this;
  }
  TraceBufferChunk ToChunk() const {
    TraceBufferChunk c;
    c.producer_id = producer;
    c.writer_id = writer;
    c.chunk_id = id;
    c.packet_count = count;
    c.flags = flags;
    c.complete = complete;
    c.payload = payload.data();
    c.size = payload.size();
    return c;
  }
  void AddTo(TraceBuffer* tb) const { tb->CopyChunkUntrusted(ToChunk()); }
};

inline std::unique_ptr<TraceBuffer> MakeTraceBuffer(
    size_t size,
    TraceBuffer::OverwritePolicy policy = TraceBuffer::OverwritePolicy::kOverwrite) {
  auto tb = TraceBuffer::Create(size, policy);
  EXPECT_TRUE(tb) << "TraceBuffer::Create(" << size << ")";
  return tb;
}

// A chunk whose record takes exactly 1 KiB: one packet of 1004 bytes.
inline TestChunk KiBChunk(uint32_t id, uint16_t writer = 1) {
  return TestChunk(id).Writer(writer).Frag(Pattern(1004, id * 7 + writer));
}

// A packet read back, its bytes copied out of the buffer.
struct ReadPacket {
  Bytes data;
  uint32_t producer_id = 0;
  uint16_t writer_id = 0;
  uint32_t previous_packet_dropped = 0;
};

inline ReadPacket CopyOut(const TraceBufferPacket& p) {
  ReadPacket r;
  p.CopyTo(&r.data);
  r.producer_id = p.producer_id;
  r.writer_id = p.writer_id;
  r.previous_packet_dropped = p.previous_packet_dropped;
  return r;
}

inline std::vector<ReadPacket> ReadAll(TraceBuffer* tb) {
  std::vector<ReadPacket> out;
  tb->BeginRead();
  TraceBufferPacket p;
  while (tb->ReadNextTracePacket(&p))
    out.push_back(CopyOut(p));
  return out;
}

// --- Writer simulation ---

struct SimChunk {
  uint16_t writer = 0;
  uint32_t id = 0;
  uint16_t count = 0;
  uint8_t flags = 0;
  Bytes payload;
  bool has_patch = false;
  CommitData::Patch patch;
};

struct SimPacket {
  Bytes data;
  size_t first_chunk = 0;  // Indices into the writer's chunk list.
  size_t last_chunk = 0;
};

struct SimWriter {
  uint16_t id = 0;
  std::vector<SimChunk> chunks;
  std::vector<SimPacket> packets;
};

// Chunks |sizes| packets of writer |writer| into chunks of |cap| payload
// bytes. A fragment that continues leaves its size for a patch one time in
// three, like a writer whose size field was still open at the switch.
inline SimWriter SimulateWriter(uint16_t writer, uint32_t first_id,
                                const std::vector<size_t>& sizes, size_t cap,
                                std::mt19937* rng) {
  using ABI = SharedMemoryABI;
  SimWriter w;
  w.id = writer;
  SimChunk cur;
  size_t used = 0;
  uint32_t next_id = first_id;
  auto open = [&](uint8_t flags) {
    cur = SimChunk();
    cur.writer = writer;
    cur.id = next_id++;
    cur.flags = flags;
    cur.payload.assign(cap, 0);
    used = 0;
  };
  auto close = [&] {
    w.chunks.push_back(cur);
  };
  open(0);
  for (size_t k = 0; k < sizes.size(); k++) {
    if (cap - used < 8 || cur.count == ABI::kMaxPacketCount) {
      close();
      open(0);
    }
    SimPacket pk;
    pk.data = Pattern(sizes[k], writer * 1000003u + static_cast<uint32_t>(k));
    pk.first_chunk = w.chunks.size();
    size_t done = 0;
    for (;;) {
      const size_t size_pos = used;
      used += 4;
      cur.count++;
      const size_t n = std::min(pk.data.size() - done, cap - used);
      std::copy(pk.data.begin() + static_cast<long>(done),
                pk.data.begin() + static_cast<long>(done + n),
                cur.payload.begin() + static_cast<long>(used));
      used += n;
      done += n;
      if (done == pk.data.size()) {
        PutSize4(&cur.payload[size_pos], static_cast<uint32_t>(n));
        break;
      }
      if ((*rng)() % 3 == 0) {
        cur.flags |= ABI::kChunkNeedsPatching;
        cur.has_patch = true;
        cur.patch.offset = static_cast<uint32_t>(size_pos);
        PutSize4(cur.patch.data.data(), static_cast<uint32_t>(n));
      } else {
        PutSize4(&cur.payload[size_pos], static_cast<uint32_t>(n));
      }
      cur.flags |= ABI::kLastPacketContinuesOnNextChunk;
      close();
      open(ABI::kFirstPacketContinuesFromPrevChunk);
    }
    pk.last_chunk = w.chunks.size();
    w.packets.push_back(std::move(pk));
  }
  if (cur.count > 0)
    close();
  return w;
}

}  // namespace test
}  // namespace zt

#endif  // ZT_SRC_TRACING_SERVICE_TRACE_BUFFER_TEST_UTIL_H_
