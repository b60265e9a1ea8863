// A custom data source, recorded in-process into custom_data_source.pftrace
// (in the current folder), then read back and summarized. Copy this file to
// start your own: the parts to keep are marked 1 to 4.
//
// Open the trace at https://ui.perfetto.dev ("Open trace file").

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "zt/common/data_source_descriptor.gen.h"
#include "zt/common/trace_stats.pbzero.h"
#include "zt/config/trace_config.gen.h"
#include "zt/trace/test_event.pbzero.h"
#include "zt/trace/trace.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/tracing/data_source.h"
#include "zt/tracing/tracing.h"

namespace {

// 1. The data source: a class deriving from zt::DataSource<itself>. The
//    callbacks are optional; they run when a session sets up, starts and
//    stops an instance of it.
class WorkerSource : public zt::DataSource<WorkerSource> {
 public:
  // When the shared memory buffer is full, wait briefly for the service
  // instead of dropping (the default): this example must lose nothing.
  static constexpr zt::BufferExhaustedPolicy kBufferExhaustedPolicy =
      zt::BufferExhaustedPolicy::kStallThenDrop;
  void OnStart(const StartArgs&) override { printf("worker source: started\n"); }
  void OnStop(const StopArgs&) override { printf("worker source: stopped\n"); }
};

uint64_t BootTimeNs() {
  struct timespec ts = {};
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<uint64_t>(ts.tv_nsec);
}

// 3. Writing: Trace() runs the lambda once per session that enabled the
//    source (and costs one atomic load when none did). Packets are written
//    straight into shared memory; nothing is allocated.
void Work(uint32_t worker, uint32_t items) {
  for (uint32_t i = 0; i < items; i++) {
    WorkerSource::Trace([&](WorkerSource::TraceContext ctx) {
      auto packet = ctx.NewTracePacket();
      packet->set_timestamp(BootTimeNs());
      auto* event = packet->set_for_testing();
      event->set_seq_value(worker);
      event->set_counter(i);
      event->set_str("item done");
    });
  }
}

// Reads the file back: what a consumer of the trace would see.
int Summarize(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno));
    return 1;
  }
  std::string bytes;
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), f)) > 0;)
    bytes.append(buf, n);
  fclose(f);

  zt::protos::pbzero::Trace_Decoder trace(bytes);
  // Sequence 1 is the service's own (clock snapshots, the config, system
  // info, lifecycle events, stats); the others are the data source's, one
  // per writer thread.
  std::map<uint32_t, uint64_t> per_sequence;
  uint64_t packets = 0, service_packets = 0, marked_losses = 0;
  zt::protozero::ConstBytes stats{};  // the last TraceStats (the final one)
  bool have_stats = false;
  for (auto it = trace.packet(); it; ++it) {
    const zt::protozero::ConstBytes raw = *it;
    zt::protos::pbzero::TracePacket_Decoder packet(raw.data, raw.size);
    if (packet.trusted_packet_sequence_id() == 1) {
      service_packets++;
    } else {
      packets++;
      per_sequence[packet.trusted_packet_sequence_id()]++;
      marked_losses += packet.previous_packet_dropped() != 0;
    }
    if (packet.has_trace_stats()) {
      stats = packet.trace_stats();
      have_stats = true;
    }
  }
  if (trace.parse_error()) {
    fprintf(stderr, "%s: not a valid trace\n", path);
    return 1;
  }
  uint64_t overwritten = 0, discarded = 0, writer_losses = 0;
  zt::protos::pbzero::TraceStats_Decoder stats_decoder(stats.data, stats.size);
  for (auto it = stats_decoder.buffer_stats(); it; ++it) {
    zt::protos::pbzero::TraceStats_BufferStats_Decoder b(*it);
    overwritten += b.chunks_overwritten();
    discarded += b.chunks_discarded();
    writer_losses += b.trace_writer_packet_loss();
  }
  printf("\n%s: %zu bytes, %llu data source packets in %zu sequences, and %llu "
         "of the service's (clocks, config, system info, events, stats)\n",
         path, bytes.size(), static_cast<unsigned long long>(packets),
         per_sequence.size(), static_cast<unsigned long long>(service_packets));
  for (const auto& s : per_sequence) {
    printf("  sequence %u: %llu packets\n", s.first,
           static_cast<unsigned long long>(s.second));
  }
  printf("losses: %llu marked in the trace; stats: %llu chunks overwritten, "
         "%llu discarded, %llu writer losses%s\n",
         static_cast<unsigned long long>(marked_losses),
         static_cast<unsigned long long>(overwritten),
         static_cast<unsigned long long>(discarded),
         static_cast<unsigned long long>(writer_losses),
         have_stats ? "" : " (no stats packet!)");
  printf("open it at https://ui.perfetto.dev (\"Open trace file\")\n");
  return 0;
}

}  // namespace

int main() {
  // 2. Once per process: start tracing (in-process backend) and register
  //    the data source under a name that trace configs refer to.
  zt::Tracing::Initialize(zt::TracingInitArgs());
  zt::protos::gen::DataSourceDescriptor descriptor;
  descriptor.set_name("com.example.workers");
  WorkerSource::Register(descriptor);

  // 4. A session: one 8 MiB buffer, our data source, written into a file.
  //    A file is written from a ring buffer (what Perfetto's readers
  //    expect: with DISCARD, data that arrives once the buffer is full
  //    would be lost even though the file has room).
  zt::protos::gen::TraceConfig config;
  auto* buffer = config.add_buffers();
  buffer->set_size_kb(8 * 1024);
  buffer->set_fill_policy(zt::protos::gen::TraceConfig_BufferConfig_FillPolicy_RING_BUFFER);
  config.add_data_sources()->mutable_config()->set_name("com.example.workers");

  const char* path = "custom_data_source.pftrace";
  const int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
  if (fd < 0) {
    fprintf(stderr, "cannot create %s: %s\n", path, strerror(errno));
    return 1;
  }
  auto session = zt::Tracing::NewTrace();
  session->Setup(config, fd);  // The session writes into its own dup of fd.
  close(fd);
  session->StartBlocking();

  std::vector<std::thread> workers;
  for (uint32_t w = 0; w < 4; w++)
    workers.emplace_back(Work, w, 25000);
  for (auto& t : workers)
    t.join();  // A thread's last chunk is committed when it exits.

  session->StopBlocking();  // The service writes the rest of the file.
  session.reset();
  return Summarize(path);
}
