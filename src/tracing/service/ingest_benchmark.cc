// Ingest throughput of the tracing service and what its thread pays per
// chunk: T writer threads -> TraceWriter -> SMB -> CommitData posted to the
// service thread -> chunk copied into a TraceBuffer, beside memcpy of the
// same bytes in the same run. Prints a table (docs/benchmarks.md, "Ingest").
//
//   ingest_benchmark [--threads T] [--bytes S] [--packets N] [--smb-kb K]
//                    [--page-kb P] [--ring-mb R] [--repeat R]
//                    [--batch-chunks B]
//   ingest_benchmark --callgrind [--bytes S] [--chunks C]
//
// Timed mode. Each row: T threads (1, 2 and the machine's cores minus one)
// each write N packets of S bytes (encoded TracePacket size) with the stall
// policy, through upstream's default SMB (256 KiB of 4 KiB pages, one chunk
// each) unless told otherwise, into a RING_BUFFER session whose ring was
// filled once beforehand
// (untimed), so the service writes into mapped memory and overwrites as in
// a long trace. The clock runs from the first packet until the service has
// copied the last chunk. Columns:
//   * packets/s and GB/s of packet bytes, all threads together;
//   * memcpy: the same bytes copied packet by packet into a ring as large
//     as the session's, in the same run, and ingest/memcpy;
//   * commit ns/chunk: wall time the service thread spent inside
//     ProducerEndpoint::CommitData (the SMB -> TraceBuffer path), divided by
//     the chunks it moved, and the chunks per commit batch; cpu ns/chunk: the
//     service thread's whole CPU time over the same interval (task dispatch and
//     wake-ups included) divided likewise; memcpy ns/chunk: one chunk-sized
//     memcpy from an SMB-sized source into the ring; commit/memcpy and
//     cpu/memcpy, the figures the target is set on (<= 3x);
//   * stalls: chunk requests that found the SMB full; lost: holes in what
//     the ring kept, per thread (must be 0), and the writers' own drops.
//
// --callgrind: one writer, and the service ingesting each commit batch
// synchronously (the writer waits), so that every run executes the same
// instructions. Run it under
//   valgrind --tool=callgrind --toggle-collect='*IngestMeasuredBatch*'
//       ingest_benchmark --callgrind --bytes 4096   (one command line)
// and divide the instructions collected by the chunks it prints: the
// service's instructions per chunk, from CommitData to the chunk indexed in
// the TraceBuffer. The ring is filled once first (IngestWarmUpBatch, not
// collected), so the measured chunks overwrite older ones as in steady state.

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "src/base/thread_task_runner.h"
#include "zt/common/data_source_descriptor.gen.h"
#include "zt/config/trace_config.gen.h"
#include "zt/ext/tracing/core/shared_memory_arbiter.h"
#include "zt/ext/tracing/core/trace_writer.h"
#include "zt/ext/tracing/core/tracing_service.h"
#include "zt/protozero/proto_utils.h"
#include "zt/trace/trace.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace zt {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint32_t kPayloadField = 900;  // TracePacket.for_testing, as bytes.
constexpr auto kWaitLimit = std::chrono::seconds(120);
// SharedMemoryArbiter::Options::commit_batch_chunks (0: its default, a
// quarter of the SMB's chunks). Set once by main() before any row.
size_t g_commit_batch_chunks = 0;

[[noreturn]] void Die(const char* what) {
  fprintf(stderr, "ingest_benchmark: %s\n", what);
  exit(1);
}

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Payload size d such that tag (2) + varint(d) + d == packet_bytes.
size_t PayloadFor(size_t packet_bytes) {
  for (size_t d = packet_bytes; d > 0; d--) {
    if (2 + protozero::proto_utils::VarIntSize(d) + d == packet_bytes)
      return d;
  }
  return 0;
}

// A condition with a bounded wait: a benchmark that hangs is a failure.
class Event {
 public:
  void Notify() {
    std::lock_guard<std::mutex> lock(mutex_);
    count_++;
    cv_.notify_all();
  }
  void WaitFor(uint64_t n, const char* what) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!cv_.wait_for(lock, kWaitLimit, [&] { return count_ >= n; }))
      Die(what);
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  uint64_t count_ = 0;
};

// What the service thread spent on commits. Touched on the service thread
// only; read after a PostTaskAndWait barrier.
struct CommitCost {
  uint64_t batches = 0;
  uint64_t chunks = 0;
  double seconds = 0;
};

// Named for callgrind's --toggle-collect: the function whose instructions
// --callgrind mode counts, and the warm-up's, which it does not. noipa: the
// compiler must not fold the two into one symbol.
__attribute__((noipa)) void IngestMeasuredBatch(ProducerEndpoint* endpoint,
                                                const CommitData& data) {
  endpoint->CommitData(data);
}
__attribute__((noipa)) void IngestWarmUpBatch(ProducerEndpoint* endpoint,
                                              const CommitData& data) {
  endpoint->CommitData(data);
}

class BenchProducer : public Producer, public CommitSink {
 public:
  explicit BenchProducer(base::ThreadTaskRunner* runner) : runner_(runner) {}

  // Service thread.
  void Connect(TracingService* service, size_t smb_bytes, size_t page_bytes) {
    TracingService::ProducerOptions options;
    options.name = "ingest_benchmark";
    options.uid = static_cast<int32_t>(getuid());
    options.pid = static_cast<int32_t>(getpid());
    options.shm_size_hint_bytes = smb_bytes;
    options.shm_page_size_hint_bytes = page_bytes;
    endpoint_ = service->ConnectProducer(this, options);
    if (!endpoint_)
      Die("the service refused the producer");
    protos::gen::DataSourceDescriptor desc;
    desc.set_name("zt.ingest");
    endpoint_->RegisterDataSource(desc);
  }
  void Disconnect() { endpoint_.reset(); }

  // Any thread, once started.
  SharedMemoryArbiter* arbiter() { return arbiter_.get(); }
  uint32_t target_buffer() const { return target_buffer_; }
  Event& started() { return started_; }
  Event& stopped() { return stopped_; }

  // Benchmark thread, after a barrier.
  CommitCost TakeCost() {
    CommitCost c;
    runner_->PostTaskAndWait([&] {
      c = cost_;
      cost_ = CommitCost();
    });
    return c;
  }
  // Commits are ingested synchronously from now on (--callgrind mode).
  void set_synchronous(bool measured) {
    synchronous_ = true;
    measured_ = measured;
  }

  // Producer (service thread).
  void OnConnect() override {}
  void OnDisconnect() override {}
  void OnTracingSetup() override {}
  void SetupDataSource(DataSourceInstanceId,
                       const protos::gen::DataSourceConfig& config) override {
    target_buffer_ = config.target_buffer();
    if (!arbiter_) {
      base::SharedMemory* shm = endpoint_->shared_memory();
      SharedMemoryArbiter::Options options;
      options.commit_batch_chunks = g_commit_batch_chunks;
      arbiter_.reset(new SharedMemoryArbiter(
          shm->start(), shm->size(), endpoint_->shared_memory_page_size(), this,
          options));
    }
  }
  void StartDataSource(DataSourceInstanceId,
                       const protos::gen::DataSourceConfig&) override {
    started_.Notify();
  }
  void StopDataSource(DataSourceInstanceId) override { stopped_.Notify(); }
  void Flush(FlushRequestId request,
             const std::vector<DataSourceInstanceId>&) override {
    arbiter_->FlushPendingCommitData(request);
  }
  void ClearIncrementalState(
      const std::vector<DataSourceInstanceId>&) override {}

  // CommitSink (writer threads): posted to the service thread, as the SDK's
  // in-process backend does.
  void OnCommit(CommitData data) override {
    if (synchronous_) {
      runner_->PostTaskAndWait([&] {
        if (measured_) {
          cost_.chunks += data.chunks_to_move.size();
          IngestMeasuredBatch(endpoint_.get(), data);
        } else {
          IngestWarmUpBatch(endpoint_.get(), data);
        }
      });
      return;
    }
    runner_->PostTask([this, data = std::move(data)] {
      // Wall time from the vDSO clock: reading the thread's CPU clock is a
      // system call, which would cost more than a small batch. A batch
      // preempted by a writer thread counts its wait (the cpu column has
      // no such error).
      const Clock::time_point t0 = Clock::now();
      endpoint_->CommitData(data);
      cost_.seconds += std::chrono::duration<double>(Clock::now() - t0).count();
      cost_.chunks += data.chunks_to_move.size();
      cost_.batches++;
    });
  }

 private:
  base::ThreadTaskRunner* const runner_;
  std::unique_ptr<ProducerEndpoint> endpoint_;
  std::unique_ptr<SharedMemoryArbiter> arbiter_;
  uint32_t target_buffer_ = 0;
  Event started_, stopped_;
  CommitCost cost_;
  bool synchronous_ = false;
  bool measured_ = false;
};

class BenchConsumer : public Consumer {
 public:
  void Connect(TracingService* service) {
    endpoint_ = service->ConnectConsumer(this, static_cast<int32_t>(getuid()));
  }
  void Disconnect() { endpoint_.reset(); }
  ConsumerEndpoint* endpoint() { return endpoint_.get(); }
  Event& disabled() { return disabled_; }
  Event& data_done() { return data_done_; }
  std::vector<uint8_t>& trace() { return trace_; }

  void OnConnect() override {}
  void OnDisconnect() override {}
  void OnTracingDisabled(const std::string& error) override {
    if (!error.empty())
      fprintf(stderr, "session ended with: %s\n", error.c_str());
    disabled_.Notify();
  }
  void OnAllDataSourcesStarted() override {}
  void OnTraceData(std::vector<uint8_t> trace, bool has_more) override {
    trace_.insert(trace_.end(), trace.begin(), trace.end());
    if (!has_more)
      data_done_.Notify();
  }
  void OnTraceStats(bool, std::vector<uint8_t>) override {}

 private:
  std::unique_ptr<ConsumerEndpoint> endpoint_;
  Event disabled_, data_done_;
  std::vector<uint8_t> trace_;
};

// One service, one producer and one consumer with a started session.
class Rig {
 public:
  Rig(size_t smb_bytes, size_t page_bytes, size_t ring_bytes)
      : runner_("zt.service"), producer_(&runner_) {
    protos::gen::TraceConfig cfg;
    auto* buf = cfg.add_buffers();
    buf->set_size_kb(static_cast<uint32_t>(ring_bytes / 1024));
    buf->set_fill_policy(
        protos::gen::TraceConfig_BufferConfig_FillPolicy_RING_BUFFER);
    cfg.add_data_sources()->mutable_config()->set_name("zt.ingest");
    runner_.PostTaskAndWait([&] {
      service_ = TracingService::Create(&runner_);
      producer_.Connect(service_.get(), smb_bytes, page_bytes);
      consumer_.Connect(service_.get());
      consumer_.endpoint()->EnableTracing(cfg);
    });
    producer_.started().WaitFor(1, "the data source never started");
  }
  ~Rig() {
    runner_.PostTaskAndWait([&] {
      consumer_.Disconnect();
      producer_.Disconnect();
      service_.reset();
    });
  }

  BenchProducer& producer() { return producer_; }
  SharedMemoryArbiter* arbiter() { return producer_.arbiter(); }
  base::ThreadTaskRunner& runner() { return runner_; }

  // Every commit formed so far has been ingested when this returns.
  void Drain() {
    arbiter()->FlushPendingCommitData();
    runner_.PostTaskAndWait([] {});
  }
  double ServiceCpuSeconds() {
    double s = 0;
    runner_.PostTaskAndWait([&] { s = ThreadCpuSeconds(); });
    return s;
  }
  // Stops the session and returns the whole trace.
  std::vector<uint8_t> StopAndRead() {
    runner_.PostTaskAndWait([&] { consumer_.endpoint()->DisableTracing(); });
    consumer_.disabled().WaitFor(1, "the session never stopped");
    runner_.PostTaskAndWait([&] { consumer_.endpoint()->ReadBuffers(); });
    consumer_.data_done().WaitFor(1, "the trace was never read");
    return std::move(consumer_.trace());
  }

 private:
  base::ThreadTaskRunner runner_;
  std::unique_ptr<TracingService> service_;
  BenchProducer producer_;
  BenchConsumer consumer_;
};

// The packet: for_testing as raw bytes whose first 8 bytes are the id
// (thread << 40 | index), the rest filler.
void WritePacket(TraceWriter* writer, std::vector<uint8_t>* payload,
                 uint64_t id) {
  memcpy(payload->data(), &id, sizeof(id));
  writer->NewTracePacket()->AppendBytes(kPayloadField, payload->data(),
                                        payload->size());
}

// Writes |n| packets on a thread of its own (its own sequence), untimed.
void FillRing(Rig* rig, size_t packet_bytes, uint64_t n, uint64_t tag) {
  std::thread warm([&] {
    std::vector<uint8_t> payload(std::max<size_t>(PayloadFor(packet_bytes), 8),
                                 0xAB);
    auto writer = rig->arbiter()->CreateTraceWriter(
        rig->producer().target_buffer(), BufferExhaustedPolicy::kStallThenDrop);
    for (uint64_t i = 0; i < n; i++)
      WritePacket(writer.get(), &payload, (tag << 40) | i);
  });
  warm.join();
}

struct RowResult {
  double seconds = 0;
  double service_cpu_seconds = 0;
  CommitCost cost;
  uint64_t holes = 0;
  uint64_t writer_drops = 0;
  uint64_t stalls = 0;  // Chunk requests that found the SMB full.
};

RowResult RunRow(uint32_t threads, uint64_t packets, size_t packet_bytes,
                 size_t smb_bytes, size_t page_bytes, size_t ring_bytes) {
  Rig rig(smb_bytes, page_bytes, ring_bytes);
  FillRing(&rig, packet_bytes, ring_bytes / packet_bytes + 1, 0xFF);
  rig.Drain();
  rig.producer().TakeCost();

  RowResult r;
  std::atomic<uint32_t> ready{0};
  std::atomic<bool> go{false};
  std::atomic<uint64_t> drops{0};
  std::vector<std::thread> pool;
  const uint32_t buffer = rig.producer().target_buffer();
  for (uint32_t t = 0; t < threads; t++) {
    pool.emplace_back([&, t] {
      std::vector<uint8_t> payload(
          std::max<size_t>(PayloadFor(packet_bytes), 8), 0xAB);
      auto writer = rig.arbiter()->CreateTraceWriter(
          buffer, BufferExhaustedPolicy::kStallThenDrop);
      ready++;
      while (!go.load(std::memory_order_acquire))
        std::this_thread::yield();
      for (uint64_t i = 0; i < packets; i++)
        WritePacket(writer.get(), &payload, (uint64_t{t} << 40) | i);
      writer->Flush();
      drops += writer->stats().packets_dropped;
    });  // The writer returns its last chunk when destroyed.
  }
  while (ready.load() != threads)
    std::this_thread::yield();
  const double cpu0 = rig.ServiceCpuSeconds();
  const uint64_t stalls0 = rig.arbiter()->stats().stalls;
  const Clock::time_point start = Clock::now();
  go.store(true, std::memory_order_release);
  for (auto& t : pool)
    t.join();
  rig.Drain();
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.service_cpu_seconds = rig.ServiceCpuSeconds() - cpu0;
  r.cost = rig.producer().TakeCost();
  r.writer_drops = drops.load();
  r.stalls = rig.arbiter()->stats().stalls - stalls0;

  // Not timed: what the ring kept must be, per thread, a hole-free run.
  const std::vector<uint8_t> trace = rig.StopAndRead();
  protos::pbzero::Trace_Decoder decoder(trace.data(), trace.size());
  std::vector<int64_t> last(threads, -1);
  for (auto it = decoder.packet(); it; ++it) {
    const protozero::ConstBytes bytes = *it;
    protos::pbzero::TracePacket_Decoder packet(bytes.data, bytes.size);
    if (!packet.has_for_testing())
      continue;
    const protozero::ConstBytes p = packet.for_testing();
    uint64_t id = 0;
    if (p.size < sizeof(id))
      continue;
    memcpy(&id, p.data, sizeof(id));
    const uint64_t thread = id >> 40, index = id & ((uint64_t{1} << 40) - 1);
    if (thread >= threads)
      continue;  // The warm-up lap.
    if (last[thread] >= 0 && static_cast<int64_t>(index) != last[thread] + 1)
      r.holes += index - static_cast<uint64_t>(last[thread] + 1);
    last[thread] = static_cast<int64_t>(index);
  }
  return r;
}

// memcpy of the same bytes, packet by packet, into a ring of |ring_bytes|.
double MemcpyPackets(uint64_t total_packets, size_t packet_bytes,
                     size_t ring_bytes) {
  const std::vector<uint8_t> src(packet_bytes, 0xAB);
  std::vector<uint8_t> dst(ring_bytes, 1);
  size_t pos = 0;
  const Clock::time_point start = Clock::now();
  for (uint64_t i = 0; i < total_packets; i++) {
    if (pos + packet_bytes > dst.size())
      pos = 0;
    memcpy(dst.data() + pos, src.data(), packet_bytes);
    pos += packet_bytes;
  }
  const double s = std::chrono::duration<double>(Clock::now() - start).count();
  volatile uint8_t keep = dst[pos / 2];
  (void)keep;
  return s;
}

// Seconds per chunk-sized memcpy from an SMB-sized source into the ring:
// the copy the service cannot avoid, measured in the same run.
double MemcpyChunk(size_t chunk_bytes, size_t smb_bytes, size_t ring_bytes,
                   uint64_t chunks) {
  std::vector<uint8_t> src(smb_bytes, 0xCD);
  std::vector<uint8_t> dst(ring_bytes, 1);
  size_t from = 0, to = 0;
  const Clock::time_point start = Clock::now();
  for (uint64_t i = 0; i < chunks; i++) {
    if (from + chunk_bytes > src.size())
      from = 0;
    if (to + chunk_bytes > dst.size())
      to = 0;
    memcpy(dst.data() + to, src.data() + from, chunk_bytes);
    from += chunk_bytes;
    to += chunk_bytes;
  }
  const double s = std::chrono::duration<double>(Clock::now() - start).count();
  volatile uint8_t keep = dst[to / 2];
  (void)keep;
  return s / static_cast<double>(std::max<uint64_t>(chunks, 1));
}

int RunCallgrind(size_t packet_bytes, uint64_t chunks, size_t smb_bytes,
                 size_t page_bytes, size_t ring_bytes) {
  Rig rig(smb_bytes, page_bytes, ring_bytes);
  rig.producer().set_synchronous(/*measured=*/false);
  // Fill the ring once (not collected), then measure about |chunks| more.
  const size_t chunk_bytes = page_bytes;  // One chunk per page.
  const uint64_t per_chunk = std::max<uint64_t>(1, chunk_bytes / packet_bytes);
  std::vector<uint8_t> payload(std::max<size_t>(PayloadFor(packet_bytes), 8),
                               0xAB);
  auto writer = rig.arbiter()->CreateTraceWriter(
      rig.producer().target_buffer(), BufferExhaustedPolicy::kStallThenDrop);
  uint64_t id = 0;
  for (uint64_t i = 0; i < ring_bytes / packet_bytes + 1; i++)
    WritePacket(writer.get(), &payload, id++);
  writer->Flush();
  rig.producer().set_synchronous(/*measured=*/true);
  const uint64_t packets = chunks * per_chunk;
  for (uint64_t i = 0; i < packets; i++)
    WritePacket(writer.get(), &payload, id++);
  writer->Flush();
  const CommitCost cost = rig.producer().TakeCost();
  printf(
      "callgrind mode: %zu B packets, %zu KiB pages, %llu packets, "
      "%llu chunks ingested in IngestMeasuredBatch; dropped %llu\n",
      packet_bytes, page_bytes / 1024, static_cast<unsigned long long>(packets),
      static_cast<unsigned long long>(cost.chunks),
      static_cast<unsigned long long>(writer->stats().packets_dropped));
  return writer->stats().packets_dropped == 0 ? 0 : 1;
}

void Usage() {
  fprintf(
      stderr,
      "usage: ingest_benchmark [--threads T] [--bytes S] [--packets N]\n"
      "                        [--smb-kb K] [--page-kb P] [--ring-mb R]\n"
      "                        [--repeat R] [--batch-chunks B]\n"
      "       ingest_benchmark --callgrind [--bytes S] [--chunks C]\n"
      "  --threads T  rows with T writer threads only (default: 1, 2 and\n"
      "               the cores minus one)\n"
      "  --bytes S    only rows with S-byte packets (default: 64 and 4096)\n"
      "  --packets N  packets per thread for 64 B rows (default 4000000;\n"
      "               S-byte rows write N*64/S)\n"
      "  --smb-kb K   shared memory buffer size (default 256, the SDK's)\n"
      "  --page-kb P  SMB page size = chunk size, 4..32 (default 4)\n"
      "  --ring-mb R  the session's ring buffer (default 64)\n"
      "  --repeat R   the whole table R times (medians: the machine is noisy)\n"
      "  --batch-chunks B  commit batches of B chunks (default: a quarter of\n"
      "               the SMB's); 1 shows what a task per chunk costs\n"
      "  --callgrind  deterministic mode: one writer, synchronous ingest\n"
      "  --chunks C   chunks measured in --callgrind mode (default 4000)\n");
}

}  // namespace
}  // namespace zt

int main(int argc, char** argv) {
  using namespace zt;
  uint64_t packets = 4000000, chunks = 4000;
  // Upstream's default SMB: 256 KiB of 4 KiB pages (the SDK's was too).
  size_t smb_kb = 256, page_kb = 4, ring_mb = 64;
  uint32_t only_threads = 0, repeat = 1;
  size_t only_bytes = 0;
  bool callgrind = false;
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
    } else if (arg == "--chunks") {
      chunks = value();
    } else if (arg == "--smb-kb") {
      smb_kb = value();
    } else if (arg == "--page-kb") {
      page_kb = value();
    } else if (arg == "--ring-mb") {
      ring_mb = value();
    } else if (arg == "--threads") {
      only_threads = static_cast<uint32_t>(value());
    } else if (arg == "--bytes") {
      only_bytes = value();
    } else if (arg == "--batch-chunks") {
      g_commit_batch_chunks = value();
    } else if (arg == "--repeat") {
      repeat = static_cast<uint32_t>(value());
    } else if (arg == "--callgrind") {
      callgrind = true;
    } else {
      Usage();
      return arg == "--help" || arg == "-h" ? 0 : 2;
    }
  }
  if (packets == 0 || chunks == 0 || repeat == 0 || page_kb < 4 ||
      page_kb > 32 || page_kb % 4 != 0 || smb_kb < 2 * page_kb ||
      ring_mb == 0) {
    Usage();
    return 2;
  }
  const size_t smb_bytes = smb_kb * 1024, page_bytes = page_kb * 1024;
  const size_t ring_bytes = ring_mb << 20;
  if (callgrind)
    return RunCallgrind(only_bytes ? only_bytes : 4096, chunks, smb_bytes,
                        page_bytes, ring_bytes);

  const uint32_t cores = std::max(1u, std::thread::hardware_concurrency());
  std::vector<uint32_t> thread_counts = {1, 2, std::max(1u, cores - 1)};
  if (only_threads)
    thread_counts = {only_threads};
  std::sort(thread_counts.begin(), thread_counts.end());
  thread_counts.erase(std::unique(thread_counts.begin(), thread_counts.end()),
                      thread_counts.end());
  printf(
      "SMB %zu KiB of %zu KiB pages (1 chunk each), %zu MiB ring, warmed; "
      "%u cores\n",
      smb_kb, page_kb, ring_mb, cores);
  printf("%-7s %-6s %10s %10s %7s %7s %6s | %9s %6s %8s %8s %8s %5s %5s | %s\n",
         "threads", "packet", "packets", "packets/s", "GB/s", "memcpy", "ratio",
         "chunks", "batch", "commit", "cpu", "memcpy", "c/m", "cpu/m",
         "stalls lost");
  printf("%-7s %-6s %10s %10s %7s %7s %6s | %9s %6s %8s %8s %8s %5s %5s |\n",
         "", "", "", "", "", "GB/s", "", "", "chunks", "ns/chunk", "ns/chunk",
         "ns/chunk", "", "");
  int failures = 0;
  for (uint32_t lap = 0; lap < repeat; lap++) {
    for (size_t bytes : {size_t{64}, size_t{4096}}) {
      for (uint32_t threads : thread_counts) {
        if (only_bytes && bytes != only_bytes)
          continue;
        const uint64_t per_thread = std::max<uint64_t>(1, packets * 64 / bytes);
        const RowResult r = RunRow(threads, per_thread, bytes, smb_bytes,
                                   page_bytes, ring_bytes);
        const uint64_t total = per_thread * threads;
        const double total_bytes = static_cast<double>(total * bytes);
        const double mcpy = MemcpyPackets(total, bytes, ring_bytes);
        const double chunk_copy =
            MemcpyChunk(page_bytes, smb_bytes, ring_bytes, r.cost.chunks);
        const double moved =
            static_cast<double>(std::max<uint64_t>(r.cost.chunks, 1));
        const double commit_ns = r.cost.seconds / moved * 1e9;
        printf(
            "%-7u %-6zu %10llu %9.2fM %7.2f %7.2f %5.0f%% | %9llu %6.1f %8.0f "
            "%8.0f %8.0f %4.1fx %4.1fx | %6llu %llu+%llu\n",
            threads, bytes, static_cast<unsigned long long>(total),
            static_cast<double>(total) / r.seconds / 1e6,
            total_bytes / r.seconds / 1e9, total_bytes / mcpy / 1e9,
            100.0 * mcpy / r.seconds,
            static_cast<unsigned long long>(r.cost.chunks),
            moved / static_cast<double>(std::max<uint64_t>(r.cost.batches, 1)),
            commit_ns, r.service_cpu_seconds / moved * 1e9, chunk_copy * 1e9,
            commit_ns / (chunk_copy * 1e9),
            r.service_cpu_seconds / moved / chunk_copy,
            static_cast<unsigned long long>(r.stalls),
            static_cast<unsigned long long>(r.holes),
            static_cast<unsigned long long>(r.writer_drops));
        fflush(stdout);
        failures += r.holes != 0 || r.writer_drops != 0;
      }
    }
  }
  return failures ? 1 : 0;
}
