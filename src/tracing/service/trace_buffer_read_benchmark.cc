// Reading a full TraceBuffer back in pieces of about 1 MiB of packets, as
// ReadBuffers replies and write_into_file rounds do: each piece is a read
// pass (BeginRead) that stops early. The cost per byte must not grow with
// the ring's size or with how much of it was read already; when every pass
// walked all the ring's records, reading a ring in pieces was quadratic
// (docs/reliability.md, "Load"). Rows: ring MiB / sequences.
//
// Instruction counts (the figure docs/benchmarks.md quotes), one iteration:
//   valgrind --tool=callgrind --toggle-collect='*MeasuredReadAll*'
//       trace_buffer_read_benchmark --benchmark_filter=BM_TraceBufferReadInPieces/64/64
//       --benchmark_min_time=1x   (one command line)

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "src/tracing/service/trace_buffer.h"

namespace zt {
namespace {

constexpr size_t kChunkPayload = 4096 - 8;  // A 4 KiB SMB chunk minus its header.
constexpr size_t kPacketBytes = 250;        // Each with its 4-byte size: 15 a chunk.
constexpr size_t kPieceBytes = 1 << 20;

// One chunk's payload: whole packets with redundant 4-byte sizes, as
// writers produce them.
std::vector<uint8_t> ChunkPayload(uint16_t* packets) {
  std::vector<uint8_t> payload;
  *packets = 0;
  while (payload.size() + 4 + kPacketBytes <= kChunkPayload) {
    const uint32_t size = kPacketBytes;
    payload.push_back(static_cast<uint8_t>((size & 0x7F) | 0x80));
    payload.push_back(static_cast<uint8_t>(((size >> 7) & 0x7F) | 0x80));
    payload.push_back(static_cast<uint8_t>(((size >> 14) & 0x7F) | 0x80));
    payload.push_back(static_cast<uint8_t>(size >> 21));
    payload.insert(payload.end(), kPacketBytes, static_cast<uint8_t>(*packets));
    (*packets)++;
  }
  return payload;
}

// Fills a DISCARD ring round-robin from |sequences| writers until it
// refuses a chunk. Returns the bytes stored.
uint64_t Fill(TraceBuffer* tb, uint16_t sequences, const std::vector<uint8_t>& payload,
              uint16_t packets) {
  std::vector<uint32_t> next_id(sequences, 0);
  for (uint64_t stored = 0;; ) {
    for (uint16_t w = 0; w < sequences; w++) {
      TraceBufferChunk chunk;
      chunk.producer_id = 1;
      chunk.writer_id = static_cast<uint16_t>(w + 1);
      chunk.chunk_id = next_id[w]++;
      chunk.packet_count = packets;
      chunk.payload = payload.data();
      chunk.size = payload.size();
      tb->CopyChunkUntrusted(chunk);
      if (tb->stats().chunks_discarded > 0)
        return stored;
      stored += payload.size();
    }
  }
}

// Named for callgrind's --toggle-collect (a name no caller's contains):
// what the instruction count covers.
__attribute__((noinline)) uint64_t MeasuredReadAll(TraceBuffer* tb) {
  uint64_t total = 0;
  TraceBufferPacket packet;
  for (;;) {
    tb->BeginRead();
    size_t piece = 0;
    while (piece < kPieceBytes && tb->ReadNextTracePacket(&packet))
      piece += packet.size;
    if (piece == 0)
      return total;
    total += piece;
  }
}

void BM_TraceBufferReadInPieces(benchmark::State& state) {
  const size_t ring_bytes = static_cast<size_t>(state.range(0)) << 20;
  const auto sequences = static_cast<uint16_t>(state.range(1));
  uint16_t packets = 0;
  const std::vector<uint8_t> payload = ChunkPayload(&packets);
  uint64_t read = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<TraceBuffer> tb =
        TraceBuffer::Create(ring_bytes, TraceBuffer::OverwritePolicy::kDiscard);
    const uint64_t stored = Fill(tb.get(), sequences, payload, packets);
    state.ResumeTiming();
    const uint64_t got = MeasuredReadAll(tb.get());
    benchmark::DoNotOptimize(got);
    // Everything stored comes back (packets' bytes, without their sizes).
    if (got != stored / payload.size() * packets * kPacketBytes) {
      state.SkipWithError("read back a different number of bytes than stored");
      return;
    }
    read += got;
  }
  state.SetBytesProcessed(static_cast<int64_t>(read));
}
BENCHMARK(BM_TraceBufferReadInPieces)
    ->Args({16, 64})
    ->Args({64, 64})
    ->Args({256, 64})
    ->Args({64, 1024})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace zt

BENCHMARK_MAIN();
