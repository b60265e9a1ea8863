// TraceWriter throughput into a shared memory buffer that a second thread
// drains the way the service does (Complete -> BeingRead, copy the chunk out,
// Free), beside a plain memcpy of the same bytes in the same run.
//
//   BM_TraceWriter/<packet bytes>/<page size>/<copy>   packets/s + bytes/s
//   BM_Memcpy/<packet bytes>                    the same bytes, memcpy'd
//
// "Packet bytes" are the TracePacket's encoded size (one bytes field), not
// counting the 4-byte size prefix in the chunk.
//
// <copy> = 1: the draining thread copies every chunk out before freeing it,
// as the service does; the result is the whole pipeline, bounded by the
// slower of writer and copier (the end-to-end figure belongs to the service
// benchmark). <copy> = 0: the draining thread checks each chunk's header and
// frees it without touching the payload, which isolates the writer's cost.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

#include "zt/ext/tracing/core/shared_memory_abi.h"
#include "zt/ext/tracing/core/shared_memory_arbiter.h"
#include "zt/ext/tracing/core/trace_writer.h"

namespace zt {
namespace {

using ABI = SharedMemoryABI;
constexpr uint32_t kField = 900;  // TracePacket.for_testing, as raw bytes.

// Payload size d such that tag (2 bytes) + varint(d) + d == packet_bytes.
size_t PayloadFor(size_t packet_bytes) {
  for (size_t d = packet_bytes; d > 0; d--) {
    if (2 + protozero::proto_utils::VarIntSize(d) + d == packet_bytes)
      return d;
  }
  return 0;
}

// The self-check's count: the packets that end in |chunk| (not the one
// continued on the next chunk), skipping the empty slot a writer reserves
// for its next packet (a 4-byte size of 0).
uint64_t PacketsEndingIn(const ABI::Chunk& chunk) {
  const ABI::ChunkHeaderValues header = chunk.ReadHeader();
  const uint8_t* p = chunk.payload_begin();
  const uint8_t* const end = p + chunk.payload_size();
  uint64_t ended = 0;
  for (uint16_t i = 0; i < header.packet_count && p + 4 <= end; i++) {
    uint32_t size = 0;
    for (int b = 0; b < 4; b++)
      size |= static_cast<uint32_t>(p[b] & 0x7f) << (7 * b);
    p += 4;
    const bool last = i + 1 == header.packet_count;
    const bool continues = last && (header.flags & ABI::kLastPacketContinuesOnNextChunk);
    if (size > 0 && !continues)
      ended++;
    p += std::min<size_t>(size, static_cast<size_t>(end - p));
  }
  return ended;
}

// The service side: a thread that moves committed chunks into a private
// buffer and frees them.
class DrainingService : public CommitSink {
 public:
  DrainingService(uint8_t* smb, size_t size, size_t page_size, bool copy)
      : abi_(smb, size, page_size), copy_(copy), sink_buffer_(1 << 20) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~DrainingService() override {
    {
      std::lock_guard<std::mutex> g(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void OnCommit(CommitData data) override {
    {
      std::lock_guard<std::mutex> g(mutex_);
      for (const auto& c : data.chunks_to_move)
        queue_.push_back(c);
    }
    cv_.notify_one();
  }
  uint64_t bytes_moved() const { return bytes_moved_.load(); }
  uint64_t packets_ended() const { return packets_ended_.load(std::memory_order_acquire); }

 private:
  void Loop() {
    std::vector<CommitData::ChunkToMove> batch;
    size_t pos = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> l(mutex_);
        cv_.wait(l, [this] { return stop_ || !queue_.empty(); });
        if (stop_ && queue_.empty())
          return;
        batch.assign(queue_.begin(), queue_.end());
        queue_.clear();
      }
      for (const auto& m : batch) {
        ABI::Chunk c = abi_.TryAcquireChunkForReading(m.page, m.chunk);
        if (!c.is_valid())
          continue;
        if (copy_) {
          if (pos + c.size() > sink_buffer_.size())
            pos = 0;
          memcpy(sink_buffer_.data() + pos, c.begin(), c.size());
          pos += c.size();
        }
        packets_ended_.fetch_add(PacketsEndingIn(c), std::memory_order_release);
        bytes_moved_.fetch_add(c.size(), std::memory_order_relaxed);
        abi_.ReleaseChunkAsFree(std::move(c));
      }
    }
  }

  ABI abi_;
  const bool copy_;
  std::vector<uint8_t> sink_buffer_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<CommitData::ChunkToMove> queue_;
  bool stop_ = false;
  std::atomic<uint64_t> bytes_moved_{0};
  std::atomic<uint64_t> packets_ended_{0};
  std::thread thread_;
};

// The writer's loop, named for callgrind's --toggle-collect (instructions
// per packet: this function's, in the benchmark's thread, over its
// iterations; docs/benchmarks.md).
__attribute__((noinline)) void WritePacketsMeasured(benchmark::State& state, TraceWriter* writer,
                                                    const std::vector<uint8_t>& payload) {
  for (auto _ : state) {
    auto packet = writer->NewTracePacket();
    packet->AppendBytes(kField, payload.data(), payload.size());
  }
}

void BM_TraceWriter(benchmark::State& state) {
  const size_t packet_bytes = static_cast<size_t>(state.range(0));
  const size_t page_size = static_cast<size_t>(state.range(1));
  const size_t smb_size = 1 << 20;
  std::unique_ptr<uint8_t, decltype(&free)> smb(
      static_cast<uint8_t*>(aligned_alloc(4096, smb_size)), &free);
  memset(smb.get(), 0, smb_size);
  DrainingService service(smb.get(), smb_size, page_size, state.range(2) != 0);
  SharedMemoryArbiter::Options opt;
  opt.layout = ABI::kPageDiv1;
  opt.stall_timeout = std::chrono::seconds(5);
  SharedMemoryArbiter arbiter(smb.get(), smb_size, page_size, &service, opt);
  auto writer =
      arbiter.CreateTraceWriter(0, BufferExhaustedPolicy::kStallThenDrop);
  const std::vector<uint8_t> payload(PayloadFor(packet_bytes), 0xAB);
  WritePacketsMeasured(state, writer.get(), payload);
  writer->Flush();
  // Self-check: every packet reached the service whole, or was counted as
  // dropped (waits for the draining thread, at most 10 s).
  const uint64_t expected = state.iterations();
  const uint64_t dropped = writer->stats().packets_dropped;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (service.packets_ended() + dropped < expected &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  if (service.packets_ended() + dropped != expected) {
    state.SkipWithError(("packets lost: " + std::to_string(service.packets_ended()) +
                         " reached the service, " + std::to_string(dropped) +
                         " counted as dropped, of " + std::to_string(expected))
                            .c_str());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * packet_bytes));
  state.counters["dropped"] =
      static_cast<double>(writer->stats().packets_dropped);
  state.counters["stalls"] = static_cast<double>(arbiter.stats().stalls);
  writer.reset();
}

void BM_Memcpy(benchmark::State& state) {
  const size_t packet_bytes = static_cast<size_t>(state.range(0));
  const std::vector<uint8_t> src(packet_bytes, 0xAB);
  std::vector<uint8_t> dst(1 << 20);  // Same footprint as the SMB.
  size_t pos = 0;
  for (auto _ : state) {
    if (pos + packet_bytes > dst.size())
      pos = 0;
    memcpy(dst.data() + pos, src.data(), packet_bytes);
    benchmark::DoNotOptimize(dst.data() + pos);
    benchmark::ClobberMemory();
    pos += packet_bytes;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * packet_bytes));
}

BENCHMARK(BM_TraceWriter)
    ->ArgsProduct({{32, 256, 65536}, {4096, 32768}, {0, 1}})
    ->UseRealTime();
BENCHMARK(BM_Memcpy)->Arg(32)->Arg(256)->Arg(65536)->UseRealTime();
// A fixed number of packets, for instruction counts:
//   valgrind --tool=callgrind --separate-threads=yes
//       --toggle-collect='*WritePacketsMeasured*' trace_writer_benchmark
//       --benchmark_filter=BM_TraceWriterFixed   (one command line)
// then the benchmark thread's total (its -01 file) / 100,000.
void BM_TraceWriterFixed(benchmark::State& state) { BM_TraceWriter(state); }
BENCHMARK(BM_TraceWriterFixed)->Args({32, 32768, 0})->Args({32, 4096, 0})->Iterations(100000);

}  // namespace
}  // namespace zt

BENCHMARK_MAIN();
