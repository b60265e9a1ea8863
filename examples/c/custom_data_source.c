/* A custom data source in plain C, through libzerotrace_c (the C ABI:
 * docs/design/c_abi.md). Each packet is a TracePacket with a timestamp and
 * a TestEvent { str, counter }.
 *
 *   c_custom_data_source              records in-process, 2 threads x 1,000
 *                                     packets, into c_custom_data_source.pftrace
 *   c_custom_data_source --system N   connects to ztraced; once a session
 *                                     records com.example.c_counter, writes
 *                                     N packets, then waits for the stop
 *
 * Then: ztrace stats c_custom_data_source.pftrace, or open it in Perfetto UI. */
#define _POSIX_C_SOURCE 200809L /* nanosleep() under -std=c99 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zt/c/abi/pb_decoder.h"
#include "zt/c/abi/producer.h"
#include "zt/c/abi/tracing_session.h"
#include "zt/c/data_source.h"

static struct ZtCDataSource counter_source = ZT_C_DATA_SOURCE_INIT;

enum {
  kTracePacketTimestamp = 8,
  kTracePacketClockId = 58,
  kTracePacketForTesting = 900,
  kTestEventStr = 1,
  kTestEventCounter = 3
};

static void WritePacket(uint64_t counter) {
  ZT_C_DATA_SOURCE_TRACE(counter_source, it) {
    struct PerfettoDsTimestamp now = PerfettoDsGetTimestamp();
    struct ZtCPacket packet;
    struct ZtCMsg event;
    ZtCPacketBegin(&it, &packet);
    ZtCMsgAppendVarIntField(&packet.msg, kTracePacketTimestamp, now.value);
    ZtCMsgAppendVarIntField(&packet.msg, kTracePacketClockId, now.clock_id);
    ZtCMsgBeginNested(&packet.msg, &event, kTracePacketForTesting);
    ZtCMsgAppendCStrField(&event, kTestEventStr, "c packet");
    ZtCMsgAppendVarIntField(&event, kTestEventCounter, counter);
    ZtCMsgEndNested(&packet.msg);
    ZtCPacketEnd(&it, &packet);
  }
}

static void* WriterThread(void* arg) {
  uint64_t i;
  (void)arg;
  for (i = 0; i < 1000; i++)
    WritePacket(i);
  return NULL;
}

/* TraceConfig { buffers { size_kb: 4096 } data_sources { config { name } } },
 * encoded with the same writer, into a heap buffer. */
static void* EncodeConfig(const char* name, size_t* size) {
  struct PerfettoStreamWriter writer;
  struct PerfettoHeapBuffer* buffer = PerfettoHeapBufferCreate(&writer);
  struct ZtCMsg config, buffers, data_source, ds_config;
  void* bytes;
  ZtCMsgInit(&config, &writer);
  ZtCMsgBeginNested(&config, &buffers, 1);
  ZtCMsgAppendVarIntField(&buffers, 1, 4096);
  ZtCMsgEndNested(&config);
  ZtCMsgBeginNested(&config, &data_source, 2);
  ZtCMsgBeginNested(&data_source, &ds_config, 1);
  ZtCMsgAppendCStrField(&ds_config, 1, name);
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

/* Packets of the trace file whose TracePacket has a for_testing field. */
static long CountOurPackets(const char* path) {
  FILE* file = fopen(path, "rb");
  long size, count = 0;
  uint8_t* bytes;
  struct PerfettoPbDecoder trace;
  if (!file)
    return -1;
  fseek(file, 0, SEEK_END);
  size = ftell(file);
  rewind(file);
  bytes = (uint8_t*)malloc(size > 0 ? (size_t)size : 1);
  if (!bytes || fread(bytes, 1, (size_t)size, file) != (size_t)size) {
    fclose(file);
    free(bytes);
    return -1;
  }
  fclose(file);
  trace.read_ptr = bytes;
  trace.end_ptr = bytes + size;
  for (;;) {
    struct PerfettoPbDecoderField packet = PerfettoPbDecoderParseField(&trace);
    struct PerfettoPbDecoder fields;
    if (packet.status != PERFETTO_PB_DECODER_OK)
      break;
    if (packet.id != 1 || packet.wire_type != 2)
      continue;
    fields.read_ptr = packet.value.delimited.start;
    fields.end_ptr = packet.value.delimited.start + packet.value.delimited.len;
    for (;;) {
      struct PerfettoPbDecoderField f = PerfettoPbDecoderParseField(&fields);
      if (f.status != PERFETTO_PB_DECODER_OK)
        break;
      if (f.id == kTracePacketForTesting)
        count++;
    }
  }
  free(bytes);
  return count;
}

static void SleepMs(long ms) {
  struct timespec ts;
  ts.tv_sec = ms / 1000;
  ts.tv_nsec = (ms % 1000) * 1000000L;
  nanosleep(&ts, NULL);
}

static int RunInProcess(void) {
  const char* path = "c_custom_data_source.pftrace";
  struct PerfettoProducerBackendInitArgs* args = PerfettoProducerBackendInitArgsCreate();
  struct PerfettoTracingSessionImpl* session;
  struct TraceFile out = {NULL, 0, false};
  pthread_t threads[2];
  size_t config_size;
  void* config;
  int i;
  PerfettoProducerInProcessInit(args);
  PerfettoProducerBackendInitArgsDestroy(args);
  if (!ZtCDataSourceRegister(&counter_source, "com.example.c_counter", NULL))
    return 1;
  session = PerfettoTracingSessionInProcessCreate();
  config = EncodeConfig("com.example.c_counter", &config_size);
  if (!session || !config)
    return 1;
  PerfettoTracingSessionSetup(session, config, config_size);
  free(config);
  PerfettoTracingSessionStartBlocking(session);
  for (i = 0; i < 2; i++)
    pthread_create(&threads[i], NULL, WriterThread, NULL);
  for (i = 0; i < 2; i++)
    pthread_join(threads[i], NULL);
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
  printf("wrote %s (%lu bytes): %ld packets of com.example.c_counter from 2 threads\n", path,
         (unsigned long)out.bytes, CountOurPackets(path));
  return 0;
}

/* Waits (up to a minute) for the data source to be `on` or off. */
static bool WaitForEnabled(bool on) {
  int i;
  for (i = 0; i < 60000; i++) {
    if (ZT_C_ATOMIC_LOAD_ACQUIRE(counter_source.enabled) == on)
      return true;
    SleepMs(1);
  }
  return false;
}

static int RunSystem(long packets) {
  struct PerfettoProducerBackendInitArgs* args = PerfettoProducerBackendInitArgsCreate();
  long i;
  PerfettoProducerSystemInit(args);
  PerfettoProducerBackendInitArgsDestroy(args);
  if (!ZtCDataSourceRegister(&counter_source, "com.example.c_counter", NULL))
    return 1;
  printf("registered\n");
  fflush(stdout);
  if (!WaitForEnabled(true)) {
    fprintf(stderr, "no session recorded com.example.c_counter within a minute\n");
    return 1;
  }
  for (i = 0; i < packets; i++)
    WritePacket((uint64_t)i);
  ZT_C_DATA_SOURCE_TRACE(counter_source, it) {
    PerfettoDsTracerImplFlush(it.tracer, NULL, NULL);
  }
  printf("done\n");
  fflush(stdout);
  return WaitForEnabled(false) ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "--system") == 0)
    return RunSystem(atol(argv[2]));
  if (argc != 1) {
    fprintf(stderr, "usage: %s [--system PACKETS]\n", argv[0]);
    return 2;
  }
  return RunInProcess();
}
