// End-to-end throughput of the in-process backend: writer threads ->
// DataSource<T>::Trace -> TraceWriter -> SMB -> service thread -> TraceBuffer,
// beside a memcpy of the same bytes in the same run. Prints a table.
//
//   tracing_benchmark [--packets N] [--smb-kb K] [--page-kb P]
//
// Each row: T threads each write N packets of S bytes (encoded TracePacket
// size) into a 64 MiB RING_BUFFER session, the same footprint as memcpy's
// destination ring. A warm-up lap (untimed) first fills the ring once, so
// both sides write into memory already mapped. The clock runs from the
// first timed packet until StopBlocking() returns, i.e. until every byte is
// in the TraceBuffer. Writers stall (rather than drop) when the SMB is full.
// Afterwards the buffer is read back: per thread the surviving packets must
// be consecutive; `lost` counts the holes (a writer's drops).

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "zt/common/data_source_descriptor.gen.h"
#include "zt/config/trace_config.gen.h"
#include "zt/protozero/proto_utils.h"
#include "zt/trace/trace.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/tracing/data_source.h"
#include "zt/tracing/tracing.h"

namespace {

using Clock = std::chrono::steady_clock;

class BenchSource : public zt::DataSource<BenchSource> {
 public:
  static constexpr zt::BufferExhaustedPolicy kBufferExhaustedPolicy =
      zt::BufferExhaustedPolicy::kStallThenDrop;
};

constexpr uint32_t kPayloadField = 900;  // TracePacket.for_testing, as bytes.

// Payload size d such that tag (2) + varint(d) + d == packet_bytes.
size_t PayloadFor(size_t packet_bytes) {
  for (size_t d = packet_bytes; d > 0; d--) {
    if (2 + zt::protozero::proto_utils::VarIntSize(d) + d == packet_bytes)
      return d;
  }
  return 0;
}

struct Result {
  double seconds = 0;
  uint64_t lost = 0;
};

constexpr uint64_t kRingBytes = 64ull << 20;

// The packet: for_testing as raw bytes whose first 8 bytes are the id
// (thread << 40 | index), the rest filler.
void WritePacket(BenchSource::TraceContext& ctx, std::vector<uint8_t>* payload,
                 uint64_t id) {
  memcpy(payload->data(), &id, sizeof(id));
  ctx.NewTracePacket()->AppendBytes(kPayloadField, payload->data(),
                                    payload->size());
}

Result RunTrace(uint32_t threads, uint64_t packets, size_t packet_bytes) {
  zt::protos::gen::TraceConfig cfg;
  auto* buf = cfg.add_buffers();
  buf->set_size_kb(static_cast<uint32_t>(kRingBytes / 1024));
  buf->set_fill_policy(zt::protos::gen::TraceConfig_BufferConfig_FillPolicy_RING_BUFFER);
  cfg.add_data_sources()->mutable_config()->set_name("zt.bench");
  auto session = zt::Tracing::NewTrace();
  session->Setup(cfg);
  session->StartBlocking();

  const size_t payload_size = std::max<size_t>(PayloadFor(packet_bytes), 8);
  {  // Warm-up lap, untimed, on a thread of its own (its own sequence).
    std::thread warm([&] {
      std::vector<uint8_t> payload(payload_size, 0xAB);
      const uint64_t n = kRingBytes / packet_bytes + 1;
      for (uint64_t i = 0; i < n; i++) {
        BenchSource::Trace([&](BenchSource::TraceContext ctx) {
          WritePacket(ctx, &payload, (uint64_t{0xFF} << 40) | i);
        });
      }
    });
    warm.join();
  }

  std::atomic<uint32_t> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  for (uint32_t t = 0; t < threads; t++) {
    pool.emplace_back([&, t] {
      std::vector<uint8_t> payload(payload_size, 0xAB);
      ready++;
      while (!go.load(std::memory_order_acquire))
        std::this_thread::yield();
      for (uint64_t i = 0; i < packets; i++) {
        BenchSource::Trace([&](BenchSource::TraceContext ctx) {
          WritePacket(ctx, &payload, (uint64_t{t} << 40) | i);
        });
      }
    });  // Thread exit commits the last chunk.
  }
  while (ready.load() != threads)
    std::this_thread::yield();
  const Clock::time_point start = Clock::now();
  go.store(true, std::memory_order_release);
  for (auto& t : pool)
    t.join();
  session->StopBlocking();
  Result r;
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();

  // Not timed: what survived must be, per thread, a hole-free run.
  const std::vector<char> trace = session->ReadTraceBlocking();
  zt::protos::pbzero::Trace_Decoder decoder(
      reinterpret_cast<const uint8_t*>(trace.data()), trace.size());
  std::vector<int64_t> last(threads, -1);
  for (auto it = decoder.packet(); it; ++it) {
    const zt::protozero::ConstBytes bytes = *it;
    zt::protos::pbzero::TracePacket_Decoder packet(bytes.data, bytes.size);
    if (!packet.has_for_testing())
      continue;
    const zt::protozero::ConstBytes p = packet.for_testing();
    uint64_t id = 0;
    if (p.size < sizeof(id))
      continue;
    memcpy(&id, p.data, sizeof(id));
    const uint64_t thread = id >> 40, index = id & ((uint64_t{1} << 40) - 1);
    if (thread >= threads)
      continue;  // The warm-up lap.
    if (last[thread] >= 0 && static_cast<int64_t>(index) != last[thread] + 1)
      r.lost += index - static_cast<uint64_t>(last[thread] + 1);
    last[thread] = static_cast<int64_t>(index);
  }
  // The ring keeps only the newest 64 MiB: older packets (a whole thread's,
  // if it finished first) are overwritten, not lost. A writer's drop shows
  // as a hole in what survived.
  return r;
}

// memcpy of the same bytes, packet by packet, into a 64 MiB ring.
double RunMemcpy(uint64_t total_packets, size_t packet_bytes) {
  const std::vector<uint8_t> src(packet_bytes, 0xAB);
  std::vector<uint8_t> dst(64u << 20);
  size_t pos = 0;
  const Clock::time_point start = Clock::now();
  for (uint64_t i = 0; i < total_packets; i++) {
    if (pos + packet_bytes > dst.size())
      pos = 0;
    memcpy(dst.data() + pos, src.data(), packet_bytes);
    pos += packet_bytes;
  }
  const double s = std::chrono::duration<double>(Clock::now() - start).count();
  // Keep the copies observable.
  volatile uint8_t sink = dst[pos / 2];
  (void)sink;
  return s;
}

void Usage() {
  fprintf(stderr,
          "usage: tracing_benchmark [--packets N] [--smb-kb K] [--page-kb P]\n"
          "  --packets N  packets per thread for 64 B rows (default 5000000;\n"
          "               4 KiB rows write N/64)\n"
          "  --smb-kb K   shared memory buffer size (default 4096)\n"
          "  --page-kb P  SMB page size, 4..32 (default 32)\n"
          "  --threads T  only the rows with T threads (1 or 2)\n"
          "  --bytes S    only the rows with S-byte packets (64 or 4096)\n");
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t packets = 5000000;
  uint32_t smb_kb = 4096, page_kb = 32;
  uint32_t only_threads = 0, only_bytes = 0;  // 0: every row.
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    auto value = [&]() -> unsigned long long {
      if (i + 1 >= argc) {
        Usage();
        exit(2);
      }
      return strtoull(argv[++i], nullptr, 10);
    };
    if (arg == "--packets") {
      packets = value();
    } else if (arg == "--smb-kb") {
      smb_kb = static_cast<uint32_t>(value());
    } else if (arg == "--page-kb") {
      page_kb = static_cast<uint32_t>(value());
    } else if (arg == "--threads") {
      only_threads = static_cast<uint32_t>(value());
    } else if (arg == "--bytes") {
      only_bytes = static_cast<uint32_t>(value());
    } else {
      Usage();
      return arg == "--help" || arg == "-h" ? 0 : 2;
    }
  }
  if (packets == 0) {
    Usage();
    return 2;
  }
  zt::TracingInitArgs args;
  args.shmem_size_hint_kb = smb_kb;
  args.shmem_page_size_hint_kb = page_kb;
  zt::Tracing::Initialize(args);
  zt::protos::gen::DataSourceDescriptor desc;
  desc.set_name("zt.bench");
  BenchSource::Register(desc);

  printf("SMB %u KiB, %u KiB pages; 64 MiB ring buffer, warmed; %u cores\n", smb_kb,
         page_kb, std::thread::hardware_concurrency());
  printf("%-8s %-8s %12s %12s %10s %10s %8s %6s\n", "threads", "packet",
         "packets", "packets/s", "MB/s", "memcpy", "ratio", "lost");
  int failures = 0;
  for (size_t bytes : {size_t{64}, size_t{4096}}) {
    for (uint32_t threads : {1u, 2u}) {
      if ((only_threads && threads != only_threads) ||
          (only_bytes && bytes != only_bytes)) {
        continue;
      }
      const uint64_t per_thread = bytes == 64 ? packets : std::max<uint64_t>(1, packets / 64);
      const Result r = RunTrace(threads, per_thread, bytes);
      const uint64_t total = per_thread * threads;
      const double mcpy = RunMemcpy(total, bytes);
      const double mb = static_cast<double>(total * bytes) / 1e6;
      printf("%-8u %-8zu %12llu %11.2fM %10.0f %10.0f %7.1f%% %6llu\n", threads,
             bytes, static_cast<unsigned long long>(total),
             static_cast<double>(total) / r.seconds / 1e6, mb / r.seconds,
             mb / mcpy, 100.0 * mcpy / r.seconds,
             static_cast<unsigned long long>(r.lost));
      failures += r.lost != 0;
    }
  }
  return failures ? 1 : 0;
}
