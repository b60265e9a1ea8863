// tools/demo's program: a small "renderer" whose threads do nested work,
// pass jobs to each other (flows) and report a queue depth (a counter),
// traced in-process into track_event_demo.pftrace (in the current folder).
// Then reads the file back and prints what it holds, per thread.
//
// Open the trace at https://ui.perfetto.dev ("Open trace file").

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "zt/config/trace_config.gen.h"
#include "zt/trace/interned_data/interned_data.pbzero.h"
#include "zt/trace/trace.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/trace/track_event/thread_descriptor.pbzero.h"
#include "zt/trace/track_event/track_descriptor.pbzero.h"
#include "zt/trace/track_event/track_event.pbzero.h"
#include "zt/tracing/track_event.h"
#include "zt/tracing/tracing.h"

ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(0),
                      zt::Category{"render"}.SetDescription("Frames and their phases"),
                      zt::Category{"jobs"}.SetDescription("Work passed between threads"));
ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(0));

namespace {

void Spin(std::chrono::microseconds us) {
  const auto end = std::chrono::steady_clock::now() + us;
  while (std::chrono::steady_clock::now() < end) {
  }
}

// Jobs posted by the main thread, run by the workers.
class JobQueue {
 public:
  void Post(uint64_t job) {
    TRACE_EVENT("jobs", "Post", "job", job, zt::Flow::ProcessScoped(job));
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(job);
    TRACE_COUNTER("jobs", zt::CounterTrack("queue depth", "jobs"), jobs_.size());
    cv_.notify_one();
  }
  void Close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    cv_.notify_all();
  }
  // False once closed and empty.
  bool Take(uint64_t* job) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return closed_ || !jobs_.empty(); });
    if (jobs_.empty())
      return false;
    *job = jobs_.front();
    jobs_.pop_front();
    TRACE_COUNTER("jobs", zt::CounterTrack("queue depth", "jobs"), jobs_.size());
    return true;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<uint64_t> jobs_;
  bool closed_ = false;
};

void RenderFrame(uint64_t job) {
  TRACE_EVENT("render", "Frame", "job", job, zt::TerminatingFlow::ProcessScoped(job));
  {
    TRACE_EVENT("render", "Layout");
    Spin(std::chrono::microseconds(150 + (job % 3) * 50));
  }
  {
    TRACE_EVENT("render", "Paint");
    for (int tile = 0; tile < 3; tile++) {
      TRACE_EVENT("render", "Tile", "tile", tile);
      Spin(std::chrono::microseconds(60));
    }
  }
}

void Worker(int index, JobQueue* queue) {
  const std::string name = "worker " + std::to_string(index);
  pthread_setname_np(pthread_self(), name.c_str());
  for (uint64_t job; queue->Take(&job);)
    RenderFrame(job);
}

// What the file holds, read back the way a trace reader does.
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

  using namespace zt::protos::pbzero;
  struct ThreadSummary {
    std::string name;
    std::map<std::string, int> slices;  // Begin events by name.
    int depth = 0, max_depth = 0;
  };
  std::map<uint32_t, ThreadSummary> threads;  // By sequence.
  std::map<uint32_t, std::map<uint64_t, std::string>> names;
  int counters = 0, flows = 0, instants = 0;
  Trace_Decoder trace(bytes);
  for (auto it = trace.packet(); it; ++it) {
    TracePacket_Decoder packet(*it);
    const uint32_t seq = packet.trusted_packet_sequence_id();
    if (packet.sequence_flags() & TracePacket::SEQ_INCREMENTAL_STATE_CLEARED)
      names[seq].clear();
    InternedData_Decoder interned(packet.interned_data());
    for (auto n = interned.event_names(); n; ++n) {
      EventName_Decoder entry(*n);
      names[seq][entry.iid()] = std::string(entry.name());
    }
    if (packet.has_track_descriptor()) {
      TrackDescriptor_Decoder track(packet.track_descriptor());
      if (track.has_thread()) {
        ThreadDescriptor_Decoder thread(track.thread());
        threads[seq].name = std::string(thread.thread_name()) + " (tid " +
                            std::to_string(thread.tid()) + ")";
      }
    }
    if (!packet.has_track_event())
      continue;
    TrackEvent_Decoder event(packet.track_event());
    ThreadSummary& thread = threads[seq];
    for (auto flow = event.flow_ids(); flow; ++flow)
      flows++;
    switch (event.type()) {
      case TrackEvent::TYPE_SLICE_BEGIN:
        thread.slices[names[seq][event.name_iid()]]++;
        thread.max_depth = std::max(thread.max_depth, ++thread.depth);
        break;
      case TrackEvent::TYPE_SLICE_END:
        thread.depth--;
        break;
      case TrackEvent::TYPE_COUNTER:
        counters++;
        break;
      default:
        instants++;
        break;
    }
  }
  printf("%s: %zu bytes\n", path, bytes.size());
  for (const auto& [seq, thread] : threads) {
    if (thread.slices.empty())
      continue;
    std::string list;
    for (const auto& [name, count] : thread.slices)
      list += (list.empty() ? "" : ", ") + name + " x" + std::to_string(count);
    printf("  %-22s nesting %d: %s\n", thread.name.c_str(), thread.max_depth, list.c_str());
  }
  printf("  %d counter values (queue depth), %d flow steps, %d instants\n", counters,
         flows, instants);
  printf("open it at https://ui.perfetto.dev (\"Open trace file\")\n");
  return 0;
}

}  // namespace

int main() {
  zt::Tracing::Initialize(zt::TracingInitArgs());
  zt::protos::gen::TraceConfig config;
  config.add_buffers()->set_size_kb(8 * 1024);
  config.add_data_sources()->mutable_config()->set_name("track_event");
  const char* path = "track_event_demo.pftrace";
  const int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
  if (fd < 0) {
    fprintf(stderr, "cannot create %s: %s\n", path, strerror(errno));
    return 1;
  }
  auto session = zt::Tracing::NewTrace();
  session->Setup(config, fd);
  close(fd);
  session->StartBlocking();

  pthread_setname_np(pthread_self(), "main");
  JobQueue queue;
  std::vector<std::thread> workers;
  for (int i = 0; i < 3; i++)
    workers.emplace_back(Worker, i, &queue);
  for (uint64_t job = 1; job <= 60; job++) {
    TRACE_EVENT("jobs", "Schedule", "job", job);
    queue.Post(job);
    Spin(std::chrono::microseconds(200));
  }
  queue.Close();
  for (auto& worker : workers)
    worker.join();

  session->StopBlocking();
  session.reset();
  return Summarize(path);
}
