/* Track events in plain C, through libzerotrace_c (the C ABI:
 * docs/design/c_abi.md): slices with arguments, instants, counters, flows,
 * an async track, a dynamic category, and one event
 * written through the low-level ABI.
 *
 *   c_track_events              records in-process, 2 threads, into
 *                               c_track_events.pftrace
 *   c_track_events --system N   connects to ztraced; once a session turns
 *                               the "app" category on, runs N frames on 2
 *                               threads, then waits for the stop
 *
 * Then: ztrace stats c_track_events.pftrace, or open it in Perfetto UI. */
#define _POSIX_C_SOURCE 200809L /* nanosleep() under -std=c99 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zt/c/abi/producer.h"
#include "zt/c/abi/track_event_ll.h"
#include "zt/c/abi/tracing_session.h"
#include "zt/c/data_source.h"
#include "zt/c/pb_msg.h"
#include "zt/c/track_event.h"

static const char* io_tags[] = {"slow"};
static struct ZtCCategory app = ZT_C_CATEGORY_INIT("app", "The example's frames");
static struct ZtCCategory io = ZT_C_CATEGORY_INIT_TAGS("io", "Reads and writes", io_tags);
static struct ZtCCategory* const categories[] = {&app, &io};
/* A counter updated every frame, on a track registered once by hand
 * (ZT_C_COUNTER registers its call site's track at its first event). */
static struct ZtCCounterTrack queue_depth = ZT_C_COUNTER_TRACK_INIT;

/* One frame: a slice with arguments, a flow from the frame's request to
 * its result, counters, an async read on a track of its own. */
static void Frame(int thread, long frame) {
  const uint64_t request = (uint64_t)thread * 1000000u + (uint64_t)frame;
  char label[32];
  snprintf(label, sizeof label, "frame %ld", frame);
  ZT_C_SLICE_BEGIN(app, "Frame", ZT_C_ARG_INT("frame", frame), ZT_C_ARG_STR("label", label),
                   ZT_C_ARG_BOOL("odd", frame % 2 == 1));
  ZT_C_INSTANT(app, "Request", ZT_C_FLOW(request));
  ZT_C_SLICE_BEGIN(io, "Read", ZT_C_TRACK("disk reads", thread));
  ZT_C_SLICE_END(io, ZT_C_TRACK("disk reads", thread));
  ZT_C_COUNTER_ON(app, queue_depth, ZT_C_INT_VALUE(frame % 8));
  ZT_C_COUNTER(app, "fill ratio", ZT_C_DOUBLE_VALUE((double)(frame % 4) / 4.0));
  ZT_C_INSTANT(ZT_C_ANY_CATEGORY, "Plugin loaded", ZT_C_DYNAMIC_CATEGORY("plugin.audio"));
  ZT_C_INSTANT(app, "Result", ZT_C_TERMINATING_FLOW(request), ZT_C_ARG_DOUBLE("load", 0.25));
  ZT_C_SLICE_END(app);
}

/* The same kind of event through the low-level ABI: the caller writes the
 * TracePacket, interning the name itself. */
enum {
  kPacketTimestamp = 8,
  kPacketClockId = 58,
  kPacketSequenceFlags = 13,
  kPacketTrackEvent = 11,
  kPacketInternedData = 12,
  kEventType = 9,
  kEventCategoryIids = 3,
  kEventNameIid = 10,
  kInternedEventNames = 2,
  kInternedEntryIid = 1,
  kInternedEntryName = 2
};

static void LowLevelInstant(const char* name) {
  struct PerfettoTeTimestamp ts;
  struct PerfettoTeLlImplIterator it;
  if (!ZT_C_ATOMIC_LOAD_RELAXED(app.enabled))
    return;
  ts = PerfettoTeGetTimestamp();
  for (it = PerfettoTeLlImplBegin(app.impl, ts); it.ds.tracer;
       PerfettoTeLlImplNext(app.impl, ts, &it)) {
    struct ZtCPacket packet;
    struct ZtCMsg event, interned, entry;
    bool seen;
    uint64_t name_iid =
        PerfettoTeLlImplIntern(it.incr, kInternedEventNames, name, strlen(name), &seen);
    struct PerfettoDsImplTracerIterator ds = it.ds;
    ZtCPacketBegin(&ds, &packet);
    ZtCMsgAppendVarIntField(&packet.msg, kPacketTimestamp, ts.value);
    ZtCMsgAppendVarIntField(&packet.msg, kPacketClockId, ts.clock_id);
    ZtCMsgAppendVarIntField(&packet.msg, kPacketSequenceFlags, 2); /* needs interned state */
    ZtCMsgBeginNested(&packet.msg, &event, kPacketTrackEvent);
    ZtCMsgAppendVarIntField(&event, kEventType, PERFETTO_TE_TYPE_INSTANT);
    ZtCMsgAppendVarIntField(&event, kEventCategoryIids, app.iid);
    ZtCMsgAppendVarIntField(&event, kEventNameIid, name_iid);
    ZtCMsgEndNested(&packet.msg);
    if (!seen) {
      ZtCMsgBeginNested(&packet.msg, &interned, kPacketInternedData);
      ZtCMsgBeginNested(&interned, &entry, kInternedEventNames);
      ZtCMsgAppendVarIntField(&entry, kInternedEntryIid, name_iid);
      ZtCMsgAppendCStrField(&entry, kInternedEntryName, name);
      ZtCMsgEndNested(&interned);
      ZtCMsgEndNested(&packet.msg);
    }
    ZtCPacketEnd(&ds, &packet);
  }
}

struct Worker {
  int thread;
  long frames;
};

static void* WorkerMain(void* arg) {
  const struct Worker* worker = (const struct Worker*)arg;
  long i;
  for (i = 0; i < worker->frames; i++)
    Frame(worker->thread, i);
  LowLevelInstant("Done (low-level ABI)");
  ZT_C_INSTANT(app, "Flushed", ZT_C_FLUSH());
  return NULL;
}

static void RunWorkers(long frames) {
  pthread_t threads[2];
  struct Worker workers[2];
  int i;
  for (i = 0; i < 2; i++) {
    workers[i].thread = i;
    workers[i].frames = frames;
    pthread_create(&threads[i], NULL, WorkerMain, &workers[i]);
  }
  for (i = 0; i < 2; i++)
    pthread_join(threads[i], NULL);
}

/* TraceConfig { buffers { size_kb: 4096 } data_sources { config {
 *   name: "track_event" track_event_config { enabled_categories: "*" } } } } */
static void* EncodeConfig(size_t* size) {
  struct PerfettoStreamWriter writer;
  struct PerfettoHeapBuffer* buffer = PerfettoHeapBufferCreate(&writer);
  struct ZtCMsg config, buffers, data_source, ds_config, te_config;
  void* bytes;
  ZtCMsgInit(&config, &writer);
  ZtCMsgBeginNested(&config, &buffers, 1);
  ZtCMsgAppendVarIntField(&buffers, 1, 4096);
  ZtCMsgEndNested(&config);
  ZtCMsgBeginNested(&config, &data_source, 2);
  ZtCMsgBeginNested(&data_source, &ds_config, 1);
  ZtCMsgAppendCStrField(&ds_config, 1, "track_event");
  ZtCMsgBeginNested(&ds_config, &te_config, 113);
  ZtCMsgAppendCStrField(&te_config, 2, "*");
  ZtCMsgEndNested(&ds_config);
  ZtCMsgEndNested(&data_source);
  ZtCMsgEndNested(&config);
  *size = writer.written_previously + (size_t)(writer.write_ptr - writer.begin);
  bytes = malloc(*size);
  if (bytes)
    PerfettoHeapBufferCopyInto(buffer, &writer, bytes, *size);
  PerfettoHeapBufferDestroy(buffer, &writer);
  return bytes;
}

struct TraceFile {
  FILE* file;
  size_t bytes;
  bool failed;
};

static void OnTraceData(struct PerfettoTracingSessionImpl* session, const void* data,
                        size_t size, bool has_more, void* arg) {
  struct TraceFile* out = (struct TraceFile*)arg;
  (void)session;
  (void)has_more;
  if (size > 0 && fwrite(data, 1, size, out->file) != size)
    out->failed = true;
  out->bytes += size;
}

static int RunInProcess(void) {
  const char* path = "c_track_events.pftrace";
  struct PerfettoProducerBackendInitArgs* args = PerfettoProducerBackendInitArgsCreate();
  struct PerfettoTracingSessionImpl* session;
  struct TraceFile out = {NULL, 0, false};
  size_t config_size;
  void* config;
  PerfettoProducerInProcessInit(args);
  PerfettoProducerBackendInitArgsDestroy(args);
  ZtCTrackEventInit(categories, 2);
  ZtCCounterTrackRegister(&queue_depth, "queue depth");
  session = PerfettoTracingSessionInProcessCreate();
  config = EncodeConfig(&config_size);
  if (!session || !config)
    return 1;
  PerfettoTracingSessionSetup(session, config, config_size);
  free(config);
  PerfettoTracingSessionStartBlocking(session);
  RunWorkers(100);
  PerfettoTracingSessionStopBlocking(session);
  out.file = fopen(path, "wb");
  if (!out.file) {
    perror(path);
    return 1;
  }
  PerfettoTracingSessionReadTraceBlocking(session, OnTraceData, &out);
  PerfettoTracingSessionDestroy(session);
  if (fclose(out.file) != 0 || out.failed) {
    fprintf(stderr, "could not write %s\n", path);
    return 1;
  }
  printf("wrote %s (%lu bytes): 2 threads x 100 frames of track events\n", path,
         (unsigned long)out.bytes);
  return 0;
}

static void SleepMs(long ms) {
  struct timespec ts;
  ts.tv_sec = ms / 1000;
  ts.tv_nsec = (ms % 1000) * 1000000L;
  nanosleep(&ts, NULL);
}

/* Waits (up to a minute) for the "app" category to be `on` or off. */
static bool WaitForApp(bool on) {
  int i;
  for (i = 0; i < 60000; i++) {
    if (ZT_C_ATOMIC_LOAD_ACQUIRE(app.enabled) == on)
      return true;
    SleepMs(1);
  }
  return false;
}

static int RunSystem(long frames) {
  struct PerfettoProducerBackendInitArgs* args = PerfettoProducerBackendInitArgsCreate();
  PerfettoProducerSystemInit(args);
  PerfettoProducerBackendInitArgsDestroy(args);
  ZtCTrackEventInit(categories, 2);
  ZtCCounterTrackRegister(&queue_depth, "queue depth");
  printf("registered\n");
  fflush(stdout);
  if (!WaitForApp(true)) {
    fprintf(stderr, "no session turned the \"app\" category on within a minute\n");
    return 1;
  }
  RunWorkers(frames);
  printf("done\n");
  fflush(stdout);
  return WaitForApp(false) ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "--system") == 0)
    return RunSystem(atol(argv[2]));
  if (argc != 1) {
    fprintf(stderr, "usage: %s [--system FRAMES]\n", argv[0]);
    return 2;
  }
  return RunInProcess();
}
