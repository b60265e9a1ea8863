// End-to-end throughput of the in-process backend: writer threads ->
// DataSource<T>::Trace -> TraceWriter -> SMB -> service thread -> TraceBuffer,
// beside a memcpy of the same bytes in the same run. Prints a table.
//
//   tracing_benchmark [--packets N] [--smb-kb K] [--page-kb P]
//   tracing_benchmark --system PATH_TO_ZTRACED [--repeat R] [...]
//
// With --system, the given ztraced runs as a child on private sockets (a
// temp dir) and every row runs twice in the same process: an in-process
// session, then a session on the system backend (the same SMB geometry,
// the commits going over the producer socket to the daemon, which copies
// the chunks into its own 64 MiB ring); the table sets them side by side.
//
// Each row: T threads each write N packets of S bytes (encoded TracePacket
// size) into a 64 MiB RING_BUFFER session, the same footprint as memcpy's
// destination ring. A warm-up lap (untimed) first fills the ring once, so
// both sides write into memory already mapped. The clock runs from the
// first timed packet until StopBlocking() returns, i.e. until every byte is
// in the TraceBuffer. Writers stall (rather than drop) when the SMB is full.
// Afterwards the buffer is read back: per thread the surviving packets must
// be consecutive; `lost` counts the holes (a writer's drops).

#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
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

// Starts are counted so that a system session proves our producer took
// part: a session the daemon started before the producer registered would
// "lose" nothing because it received nothing.
std::atomic<uint32_t> g_starts{0};

class BenchSource : public zt::DataSource<BenchSource> {
 public:
  static constexpr zt::BufferExhaustedPolicy kBufferExhaustedPolicy =
      zt::BufferExhaustedPolicy::kStallThenDrop;
  void OnStart(const StartArgs&) override { g_starts++; }
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
  double cpu_seconds = 0;  // This process's and ztraced's, user + system.
  uint64_t lost = 0;
  uint64_t kept = 0;     // Timed packets read back (the ring keeps the newest).
  bool started = false;  // Our data source was started by the session.
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

zt::protos::gen::TraceConfig BenchConfig(uint64_t ring_bytes) {
  zt::protos::gen::TraceConfig cfg;
  auto* buf = cfg.add_buffers();
  buf->set_size_kb(static_cast<uint32_t>(ring_bytes / 1024));
  buf->set_fill_policy(zt::protos::gen::TraceConfig_BufferConfig_FillPolicy_RING_BUFFER);
  cfg.add_data_sources()->mutable_config()->set_name("zt.bench");
  return cfg;
}

pid_t g_daemon_pid = 0;  // --system's ztraced child (StartDaemon()).

// CPU time (user + system, s) of this process and, with --system, of the
// ztraced child: what a row costs the machine, whichever process spends
// it, as opposed to its wall time, which two vCPUs shared with other
// threads and other programs stretch.
double CpuSeconds() {
  rusage self = {};
  getrusage(RUSAGE_SELF, &self);
  double seconds = static_cast<double>(self.ru_utime.tv_sec + self.ru_stime.tv_sec) +
                   static_cast<double>(self.ru_utime.tv_usec + self.ru_stime.tv_usec) / 1e6;
  if (g_daemon_pid > 0) {
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/stat", static_cast<int>(g_daemon_pid));
    if (FILE* f = fopen(path, "r")) {
      char buf[1024];
      const size_t n = fread(buf, 1, sizeof(buf) - 1, f);
      fclose(f);
      buf[n] = '\0';
      // Fields 14 and 15 (utime, stime, in clock ticks) follow the command
      // name, which ends at the last ')'.
      const char* rest = strrchr(buf, ')');
      unsigned long long utime = 0, stime = 0;
      if (rest && sscanf(rest + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
                         &utime, &stime) == 2) {
        return seconds +
               static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
      }
    }
    return std::nan("");  // ztraced gone: its share is unknown (printed "nan").
  }
  return seconds;
}

Result RunTrace(uint32_t threads, uint64_t packets, size_t packet_bytes,
                zt::BackendType backend = zt::kUnspecifiedBackend) {
  auto session = zt::Tracing::NewTrace(backend);
  session->Setup(BenchConfig(kRingBytes));
  const uint32_t starts_before = g_starts.load();
  session->StartBlocking();
  Result r;
  r.started = g_starts.load() != starts_before;

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
  const double cpu_start = CpuSeconds();
  go.store(true, std::memory_order_release);
  for (auto& t : pool)
    t.join();
  session->StopBlocking();
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.cpu_seconds = CpuSeconds() - cpu_start;

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
    r.kept++;
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

// --system: the ztraced child and its private dir (sockets, log). Stopped
// at exit (atexit, so every return and exit() path); should this process
// die without exiting, the kernel sends the child SIGTERM
// (PR_SET_PDEATHSIG), so no run leaves a daemon behind.
std::string g_daemon_dir;

std::string DaemonPath(const char* name) {
  return g_daemon_dir + "/" + name;
}

void PrintDaemonLog(const char* only_containing = nullptr);

void StopDaemon() {
  if (g_daemon_pid > 0) {
    kill(g_daemon_pid, SIGTERM);
    int status = 0;
    bool reaped = false;
    for (int i = 0; i < 300 && !reaped; i++) {  // 3 s, then SIGKILL.
      reaped = waitpid(g_daemon_pid, &status, WNOHANG) == g_daemon_pid;
      if (!reaped)
        usleep(10000);
    }
    if (!reaped) {
      kill(g_daemon_pid, SIGKILL);
      waitpid(g_daemon_pid, &status, 0);
    }
    g_daemon_pid = 0;
    // How the commits came: through the commit queue (and how many of them
    // had to wake the daemon) or as messages.
    PrintDaemonLog("commits:");
  }
  if (!g_daemon_dir.empty()) {
    for (const char* f : {"producer.sock", "consumer.sock", "ztraced.log"})
      unlink(DaemonPath(f).c_str());
    rmdir(g_daemon_dir.c_str());
    g_daemon_dir.clear();
  }
}

// Ctrl-C or a kill while rows run: the child is stopped and its dir
// removed here (async-signal-safe calls only, on paths copied beforehand),
// then the signal takes its default course.
char g_signal_paths[2][128];  // Log file, sockets' dir; set by StartDaemon.

void OnSignal(int sig) {
  if (g_daemon_pid > 0) {
    kill(g_daemon_pid, SIGTERM);  // It removes its sockets.
    waitpid(g_daemon_pid, nullptr, 0);
  }
  unlink(g_signal_paths[0]);
  rmdir(g_signal_paths[1]);
  signal(sig, SIG_DFL);
  raise(sig);
}

void PrintDaemonLog(const char* only_containing) {
  FILE* log = fopen(DaemonPath("ztraced.log").c_str(), "r");
  if (!log)
    return;
  char line[512];
  while (fgets(line, sizeof(line), log)) {
    if (!only_containing || strstr(line, only_containing))
      fprintf(stderr, "  ztraced: %s", line);
  }
  fclose(log);
}

bool Accepts(const std::string& path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return false;
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return ok;
}

// Starts |ztraced| on sockets of its own and waits (10 s at most) until
// both accept connections. Before Tracing::Initialize: no other thread yet,
// so fork() is safe, and the SDK reads the socket variables from here.
bool StartDaemon(const char* ztraced) {
  char dir[] = "/tmp/zt-bench-XXXXXX";
  if (!mkdtemp(dir)) {
    perror("tracing_benchmark: mkdtemp");
    return false;
  }
  g_daemon_dir = dir;
  atexit(StopDaemon);
  const std::string producer = DaemonPath("producer.sock"), consumer = DaemonPath("consumer.sock");
  const std::string log = DaemonPath("ztraced.log");
  setenv("PERFETTO_PRODUCER_SOCK_NAME", producer.c_str(), 1);
  setenv("PERFETTO_CONSUMER_SOCK_NAME", consumer.c_str(), 1);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    perror("tracing_benchmark: fork");
    return false;
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
      _exit(1);  // The parent died before prctl took effect.
    execl(ztraced, ztraced, "--producer-socket", producer.c_str(), "--consumer-socket",
          consumer.c_str(), "--log-file", log.c_str(), static_cast<char*>(nullptr));
    fprintf(stderr, "tracing_benchmark: cannot run %s: %s\n", ztraced, strerror(errno));
    _exit(127);
  }
  g_daemon_pid = pid;
  snprintf(g_signal_paths[0], sizeof(g_signal_paths[0]), "%s", log.c_str());
  snprintf(g_signal_paths[1], sizeof(g_signal_paths[1]), "%s", g_daemon_dir.c_str());
  signal(SIGINT, OnSignal);
  signal(SIGTERM, OnSignal);
  for (int i = 0; i < 1000; i++) {  // 10 ms steps.
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      g_daemon_pid = 0;
      fprintf(stderr, "tracing_benchmark: %s exited (status 0x%x) before listening\n",
              ztraced, status);
      PrintDaemonLog();
      return false;
    }
    if (Accepts(producer) && Accepts(consumer))
      return true;
    usleep(10000);
  }
  fprintf(stderr, "tracing_benchmark: %s did not listen within 10 s\n", ztraced);
  PrintDaemonLog();
  return false;
}

// The producer connects to the daemon on its own, asynchronously: probe
// with small sessions until one starts our data source (10 s at most).
bool WaitForSystemProducer() {
  for (int i = 0; i < 200; i++) {
    auto session = zt::Tracing::NewTrace(zt::kSystemBackend);
    if (!session)
      return false;
    session->Setup(BenchConfig(1 << 20));
    const uint32_t before = g_starts.load();
    session->StartBlocking();
    const bool started = g_starts.load() != before;
    session->StopBlocking();
    if (started)
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

void Usage() {
  fprintf(stderr,
          "usage: tracing_benchmark [--packets N] [--smb-kb K] [--page-kb P]\n"
          "  --packets N  packets per thread for 64 B rows (default 5000000;\n"
          "               4 KiB rows write N/64)\n"
          "  --smb-kb K   shared memory buffer size (default 4096)\n"
          "  --page-kb P  SMB page size, 4..32 (default 32)\n"
          "  --threads T  only the rows with T threads (1 or 2)\n"
          "  --bytes S    only the rows with S-byte packets (64 or 4096)\n"
          "  --system Z   also run every row through the ztraced binary Z (a child\n"
          "               on private sockets) and compare with in-process\n"
          "  --repeat R   with --system: R pairs per row, alternating which side\n"
          "               runs first; medians, the ratios' range (default 1)\n");
}

uint64_t PerThread(uint64_t packets, size_t bytes) {
  return bytes == 64 ? packets : std::max<uint64_t>(1, packets / 64);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Each row |repeat| times in this process, an in-process session and a
// system one per pair, in alternating order (in-process first in the odd
// pairs, system first in the even ones), so that neither side always runs
// on a warmer or quieter machine; the table gives each side's median rate,
// the median of the pairs' ratios (with their range when there are
// several), the packets lost over all pairs, and the CPU each side spends
// per GB, ztraced's included. Each
// session must lose nothing, and a system session must have started our
// data source and kept some of its packets.
int RunSystemTable(uint64_t packets, uint32_t smb_kb, uint32_t page_kb, uint32_t only_threads,
                   uint32_t only_bytes, uint32_t repeat) {
  if (!WaitForSystemProducer()) {
    fprintf(stderr, "tracing_benchmark: the producer never reached ztraced\n");
    PrintDaemonLog();
    return 1;
  }
  printf("SMB %u KiB, %u KiB pages; 64 MiB ring buffer, warmed; %u cores; in-process vs "
         "system (ztraced); medians of %u pairs, alternating which runs first\n",
         smb_kb, page_kb, std::thread::hardware_concurrency(), repeat);
  printf("%-7s %-6s %10s | %10s %7s %5s | %10s %7s %5s | %6s %13s | %15s\n", "threads",
         "packet", "packets", "in-proc/s", "MB/s", "lost", "system/s", "MB/s", "lost", "ratio",
         "(range)", "CPU s/GB in/sys");
  int failures = 0;
  for (size_t bytes : {size_t{64}, size_t{4096}}) {
    for (uint32_t threads : {1u, 2u}) {
      if ((only_threads && threads != only_threads) || (only_bytes && bytes != only_bytes))
        continue;
      const uint64_t per_thread = PerThread(packets, bytes);
      const uint64_t total = per_thread * threads;
      const double mb = static_cast<double>(total * bytes) / 1e6;
      std::vector<double> in_seconds, sys_seconds, ratios, in_cpu, sys_cpu;
      uint64_t in_lost = 0, sys_lost = 0;
      for (uint32_t k = 0; k < repeat; k++) {
        Result in, sys;
        if (k % 2 == 0) {
          in = RunTrace(threads, per_thread, bytes, zt::kInProcessBackend);
          sys = RunTrace(threads, per_thread, bytes, zt::kSystemBackend);
        } else {
          sys = RunTrace(threads, per_thread, bytes, zt::kSystemBackend);
          in = RunTrace(threads, per_thread, bytes, zt::kInProcessBackend);
        }
        for (const Result* r : {&in, &sys}) {
          if (r->lost != 0 || !r->started || r->kept == 0) {
            fprintf(stderr, "tracing_benchmark: %s session: lost %llu, started %d, kept %llu\n",
                    r == &in ? "in-process" : "system",
                    static_cast<unsigned long long>(r->lost), r->started,
                    static_cast<unsigned long long>(r->kept));
            failures++;
          }
        }
        in_seconds.push_back(in.seconds);
        sys_seconds.push_back(sys.seconds);
        ratios.push_back(100.0 * in.seconds / sys.seconds);
        in_cpu.push_back(in.cpu_seconds * 1e3 / mb);
        sys_cpu.push_back(sys.cpu_seconds * 1e3 / mb);
        in_lost += in.lost;
        sys_lost += sys.lost;
      }
      const double in_s = Median(in_seconds), sys_s = Median(sys_seconds);
      char range[32] = "";
      if (repeat > 1) {
        snprintf(range, sizeof(range), "(%.0f-%.0f%%)",
                 *std::min_element(ratios.begin(), ratios.end()),
                 *std::max_element(ratios.begin(), ratios.end()));
      }
      printf("%-7u %-6zu %10llu | %9.2fM %7.0f %5llu | %9.2fM %7.0f %5llu | %5.1f%% %13s | "
             "%6.2f / %6.2f\n",
             threads, bytes, static_cast<unsigned long long>(total),
             static_cast<double>(total) / in_s / 1e6, mb / in_s,
             static_cast<unsigned long long>(in_lost), static_cast<double>(total) / sys_s / 1e6,
             mb / sys_s, static_cast<unsigned long long>(sys_lost), Median(ratios), range,
             Median(in_cpu), Median(sys_cpu));
      fflush(stdout);
    }
  }
  if (failures)
    PrintDaemonLog();
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t packets = 5000000;
  uint32_t smb_kb = 4096, page_kb = 32;
  uint32_t only_threads = 0, only_bytes = 0;  // 0: every row.
  uint32_t repeat = 1;
  const char* ztraced = nullptr;
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
    } else if (arg == "--repeat") {
      repeat = static_cast<uint32_t>(value());
    } else if (arg == "--system" && i + 1 < argc) {
      ztraced = argv[++i];
    } else {
      Usage();
      return arg == "--help" || arg == "-h" ? 0 : 2;
    }
  }
  if (packets == 0 || repeat == 0 || (repeat > 1 && !ztraced)) {
    Usage();
    return 2;
  }
  if (ztraced && !StartDaemon(ztraced))
    return 1;
  zt::TracingInitArgs args;
  // Both backends get the same SMB geometry (each producer has its own).
  args.shmem_size_hint_kb = smb_kb;
  args.shmem_page_size_hint_kb = page_kb;
  if (ztraced)
    args.backends = zt::kInProcessBackend | zt::kSystemBackend;
  if (!zt::Tracing::Initialize(args))
    return 1;
  zt::protos::gen::DataSourceDescriptor desc;
  desc.set_name("zt.bench");
  BenchSource::Register(desc);
  if (ztraced)
    return RunSystemTable(packets, smb_kb, page_kb, only_threads, only_bytes, repeat);

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
      const uint64_t per_thread = PerThread(packets, bytes);
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
