// Backend initialization (zt/c/abi/producer.h) over zt::Tracing.

#include "zt/c/abi/producer.h"

#include <string>
#include <vector>

#include "src/tracing/sdk/track_event_hook.h"
#include "zt/base/logging.h"
#include "zt/tracing/tracing.h"

namespace {

// Behind the ABI's opaque PerfettoProducerBackendInitArgs (which is never
// defined: its layout is ours to change).
struct InitArgs {
  uint32_t shmem_size_hint_kb = 0;
  uint32_t machine_id = 0;
};

InitArgs* FromC(PerfettoProducerBackendInitArgs* args) {
  ZT_CHECK(args != nullptr);
  return reinterpret_cast<InitArgs*>(args);
}

void InitBackend(const PerfettoProducerBackendInitArgs* c_args, uint32_t backend) {
  const InitArgs* args = reinterpret_cast<const InitArgs*>(c_args);
  zt::TracingInitArgs init;
  init.backends = backend;
  if (args != nullptr) {
    // As the ABI says: a size that is no multiple of 4 KiB, or over 32 MiB,
    // is ignored.
    const uint32_t kb = args->shmem_size_hint_kb;
    if (kb != 0 && (kb % 4 != 0 || kb > 32 * 1024)) {
      ZT_WLOG("PerfettoProducerBackendInitArgsSetShmemSizeHintKb(%u): not a multiple of 4 "
              "KiB up to 32 MiB; the default size is used",
              kb);
    } else {
      init.shmem_size_hint_kb = kb;
    }
    if (args->machine_id != 0) {
      ZT_WLOG("PerfettoProducerBackendInitArgsSetMachineId(%u): machine ids are not supported; "
              "the data is this host's",
              args->machine_id);
    }
  }
  // The C ABI's track events are its own data source (PerfettoTeInit). The
  // static library holds the C++ SDK's track event code as well (it is
  // linked whole), whose hook would register a "track_event" of its own
  // first: never from here.
  zt::internal::g_track_event_initializer = nullptr;
  zt::Tracing::Initialize(init);
}

}  // namespace

PerfettoProducerBackendInitArgs* PerfettoProducerBackendInitArgsCreate(void) {
  return reinterpret_cast<PerfettoProducerBackendInitArgs*>(new InitArgs());
}

void PerfettoProducerBackendInitArgsSetShmemSizeHintKb(PerfettoProducerBackendInitArgs* args,
                                                       uint32_t size_kb) {
  FromC(args)->shmem_size_hint_kb = size_kb;
}

void PerfettoProducerBackendInitArgsSetMachineId(PerfettoProducerBackendInitArgs* args,
                                                 uint32_t machine_id) {
  FromC(args)->machine_id = machine_id;
}

void PerfettoProducerBackendInitArgsDestroy(PerfettoProducerBackendInitArgs* args) {
  delete reinterpret_cast<InitArgs*>(args);
}

void PerfettoProducerSystemInit(const PerfettoProducerBackendInitArgs* args) {
  InitBackend(args, zt::kSystemBackend);
}

void PerfettoProducerInProcessInit(const PerfettoProducerBackendInitArgs* args) {
  InitBackend(args, zt::kInProcessBackend);
}

void PerfettoProducerActivateTriggers(const char* trigger_names[], uint32_t) {
  std::vector<std::string> names;
  for (size_t i = 0; trigger_names != nullptr && trigger_names[i] != nullptr; i++)
    names.emplace_back(trigger_names[i]);
  if (!names.empty())
    zt::Tracing::ActivateTriggers(names);
}
