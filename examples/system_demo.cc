// `tools/demo --system`'s program, in two roles:
//
//   system_demo app NAME    an instrumented process on the system backend:
//                           it connects to ztraced, waits (up to 20 s) for
//                           a session to enable its categories, renders
//                           frames on two threads while they stay enabled
//                           (at most 30 s), and exits;
//   system_demo summarize FILE
//                           reads a trace recorded by `ztrace record` and
//                           prints what it holds per process.
//
// Only the first role is what an application looks like: Initialize with
// kSystemBackend and trace as usual; `ztrace record` decides what is
// recorded, from outside.

#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "zt/trace/interned_data/interned_data.pbzero.h"
#include "zt/trace/trace.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/trace/track_event/process_descriptor.pbzero.h"
#include "zt/trace/track_event/thread_descriptor.pbzero.h"
#include "zt/trace/track_event/track_descriptor.pbzero.h"
#include "zt/trace/track_event/track_event.pbzero.h"
#include "zt/tracing/track_event.h"
#include "zt/tracing/tracing.h"

ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(0),
                      zt::Category{"render"}.SetDescription("Frames and their phases"));
ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(0));

namespace {

using Clock = std::chrono::steady_clock;

void Spin(std::chrono::microseconds us) {
  const auto end = Clock::now() + us;
  while (Clock::now() < end) {
  }
}

bool Enabled() { return TRACE_EVENT_CATEGORY_ENABLED("render"); }

void RenderLoop(const std::string& thread_name, int frame_us) {
  pthread_setname_np(pthread_self(), thread_name.c_str());
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  for (uint64_t frame = 1; Enabled() && Clock::now() < deadline; frame++) {
    TRACE_EVENT("render", "Frame", "frame", frame);
    {
      TRACE_EVENT("render", "Layout");
      Spin(std::chrono::microseconds(frame_us / 3));
    }
    {
      TRACE_EVENT("render", "Paint");
      Spin(std::chrono::microseconds(frame_us / 2));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(frame_us));
  }
}

int App(const std::string& name) {
  zt::TracingInitArgs args;
  args.backends = zt::kSystemBackend;
  zt::Tracing::Initialize(args);
  // Polling a flag the SDK flips when a session enables the category: an
  // app would just trace; the demo waits so that its run is recorded.
  const auto give_up = Clock::now() + std::chrono::seconds(20);
  while (!Enabled()) {
    if (Clock::now() > give_up) {
      fprintf(stderr, "%s: no session enabled \"render\" within 20 s\n", name.c_str());
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const int frame_us = name == "editor" ? 3000 : 1500;
  std::thread ui(RenderLoop, name + " ui", frame_us);
  std::thread gpu(RenderLoop, name + " gpu", frame_us * 2);
  ui.join();
  gpu.join();
  return 0;
}

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
  struct Process {
    std::string name;
    std::set<std::string> threads;
    std::map<std::string, int> slices;  // Begin events by name.
  };
  std::map<int32_t, Process> processes;  // By the pid the service stamped.
  std::map<uint32_t, std::map<uint64_t, std::string>> names;  // Interned, per sequence.
  Trace_Decoder trace(bytes);
  for (auto it = trace.packet(); it; ++it) {
    TracePacket_Decoder packet(*it);
    if (!packet.has_trusted_pid())
      continue;  // The service's own packets.
    const uint32_t seq = packet.trusted_packet_sequence_id();
    Process& process = processes[packet.trusted_pid()];
    if (packet.sequence_flags() & TracePacket::SEQ_INCREMENTAL_STATE_CLEARED)
      names[seq].clear();
    InternedData_Decoder interned(packet.interned_data());
    for (auto n = interned.event_names(); n; ++n) {
      EventName_Decoder entry(*n);
      names[seq][entry.iid()] = std::string(entry.name());
    }
    if (packet.has_track_descriptor()) {
      TrackDescriptor_Decoder track(packet.track_descriptor());
      if (track.has_process())
        process.name = std::string(ProcessDescriptor_Decoder(track.process()).process_name());
      if (track.has_thread())
        process.threads.insert(std::string(ThreadDescriptor_Decoder(track.thread()).thread_name()));
    }
    if (packet.has_track_event()) {
      TrackEvent_Decoder event(packet.track_event());
      if (event.type() == TrackEvent::TYPE_SLICE_BEGIN)
        process.slices[names[seq][event.name_iid()]]++;
    }
  }
  printf("%s: %zu bytes from %zu processes\n", path, bytes.size(), processes.size());
  for (const auto& [pid, process] : processes) {
    std::string threads, slices;
    for (const std::string& t : process.threads)
      threads += (threads.empty() ? "" : ", ") + t;
    for (const auto& [name, count] : process.slices)
      slices += (slices.empty() ? "" : ", ") + name + " x" + std::to_string(count);
    printf("  pid %d %s\n    threads: %s\n    slices: %s\n", pid, process.name.c_str(),
           threads.c_str(), slices.c_str());
  }
  printf("open it at https://ui.perfetto.dev (\"Open trace file\")\n");
  return processes.empty() ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "app")
    return App(argv[2]);
  if (argc == 3 && std::string(argv[1]) == "summarize")
    return Summarize(argv[2]);
  fprintf(stderr, "usage: system_demo app NAME | system_demo summarize FILE\n");
  return 2;
}
