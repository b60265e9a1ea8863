// Internals of zt::DataSource<T>, public only because the template needs
// them: the per-type static state (which of the 8 instance slots trace) and
// the per-thread state (each slot's TraceWriter and incremental state).
// Users never touch these directly.
//
// The one place the public tier includes the unstable ext/ tier: the
// template keeps a TraceWriter per thread and hands out its packet handles,
// and the writer's fast path must be inline to cost a few instructions per
// packet. Nothing else from ext/ is needed (tools/check_layering enforces
// this).

#ifndef ZT_TRACING_INTERNAL_DATA_SOURCE_INTERNAL_H_
#define ZT_TRACING_INTERNAL_DATA_SOURCE_INTERNAL_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include "zt/ext/tracing/core/trace_writer.h"
#include "zt/tracing/buffer_exhausted_policy.h"

namespace zt {
namespace protos {
namespace gen {
class DataSourceDescriptor;
}  // namespace gen
}  // namespace protos

class DataSourceBase;

namespace internal {

// Concurrent sessions one data source type can be in at once.
constexpr uint32_t kMaxDataSourceInstances = 8;

// One instance slot. The muxer (service thread) fills it under |lock|;
// writer threads read |generation| (acquire) and then the plain fields,
// which were written before the generation was bumped (release).
//
// Trivially destructible on purpose (the data source is a raw pointer the
// muxer deletes at stop): the static state must outlive every thread and
// task that may still touch it while the process exits.
struct DataSourceInstanceState {
  // Held around OnSetup/OnStart/OnStop/OnFlush and by GetDataSourceLocked();
  // recursive so that callbacks may call Trace() and GetDataSourceLocked().
  std::recursive_mutex lock;
  std::atomic<uint64_t> generation{0};  // +1 at every setup of the slot.
  std::atomic<uint32_t> incremental_generation{0};  // +1 per clear request.
  // +1 (release) after each change a writer thread must notice: setup,
  // start, stop, incremental-state clear. A writer that read it (acquire)
  // before looking at the rest may skip looking again while it is unchanged:
  // one load on a fast path instead of three.
  std::atomic<uint64_t> epoch{0};
  uint32_t backend_id = 0;  // Which of the muxer's backends the instance is on.
  uint32_t target_buffer = 0;
  uint64_t instance_id = 0;
  bool in_use = false;  // Slot taken (setup .. stopped); under the muxer lock.
  DataSourceBase* data_source = nullptr;  // Owned; deleted by the muxer.
};

struct DataSourceStaticState {
  // Bit i set: slot i is started and Trace() writes into it. Set after the
  // instance's OnStart, cleared when its stop finishes (after OnStop, or
  // when a deferred stop's closure runs), so that OnStop can still write.
  std::atomic<uint32_t> valid_instances{0};
  DataSourceInstanceState instances[kMaxDataSourceInstances];
  // Mirrors valid_instances != 0 when set (before registration): the flag
  // a C ABI data source type hands to C code, which reads a bool.
  std::atomic<bool>* any_valid_mirror = nullptr;
};

// What one thread keeps for one slot.
struct DataSourceInstanceThreadLocalState {
  std::unique_ptr<TraceWriter> trace_writer;
  uint64_t generation = 0;  // Of the slot when the writer was made.
  std::shared_ptr<void> incremental_state;
  uint32_t incremental_generation = 0;
  std::shared_ptr<void> custom_state;
};

struct DataSourceThreadLocalState {
  DataSourceInstanceThreadLocalState instances[kMaxDataSourceInstances];
};

// This thread's state for one DataSource type, made on first use and kept
// in |*slot|, a trivially destructible thread_local pointer. Why not a
// thread_local object: exit() runs the calling thread's thread_local
// destructors before static destructors, and those may still trace (a
// static destructor, another thread's teardown); a destroyed writer would
// then be used. Here the state is freed only when its thread ends (a
// pthread key destructor, which exit() does not run): |*slot| is reset to
// null first, so code that traces later on that thread (another key's
// destructor) gets a new state, freed in turn. A thread that calls exit()
// keeps its state (and its writers) until the process is gone. Cost: one
// allocation per thread and data source type.
DataSourceThreadLocalState* CreateThreadLocalState(DataSourceThreadLocalState** slot);
// The same, calling |on_release(arg)| on the ending thread just before
// |*slot| is reset (for callers that keep pointers into the state).
DataSourceThreadLocalState* CreateThreadLocalState(DataSourceThreadLocalState** slot,
                                                   void (*on_release)(void*), void* arg);

// Gives |tls| a writer for slot |index| of |state| as set up at
// |generation| (the slot's, read with acquire), after dropping what it kept
// for an earlier setup of the slot: custom and incremental state first (they
// may hold a packet of the old writer open), then the old writer, which
// returns its chunk. False if no writer can be made (the slot moved on,
// tracing is shut down). The out-of-line half of EnsureInstanceWriter().
bool RenewInstanceWriter(DataSourceStaticState* state, uint32_t index, uint64_t generation,
                         DataSourceInstanceThreadLocalState* tls, BufferExhaustedPolicy policy);

// True with |tls| holding a writer for the current setup of slot |index|:
// two loads and a compare when it already does. Called on the writing
// thread, for a slot whose bit in valid_instances it saw set.
inline bool EnsureInstanceWriter(DataSourceStaticState* state, uint32_t index,
                                 DataSourceInstanceThreadLocalState* tls,
                                 BufferExhaustedPolicy policy) {
  const uint64_t generation = state->instances[index].generation.load(std::memory_order_acquire);
  if (tls->trace_writer && tls->generation == generation)
    return true;
  return RenewInstanceWriter(state, index, generation, tls, policy);
}

using DataSourceFactory = std::function<std::unique_ptr<DataSourceBase>()>;

// The process-wide backend glue the template talks to (src/tracing/sdk).
class TracingMuxer {
 public:
  // Null before Tracing::Initialize().
  static TracingMuxer* Get();
  virtual ~TracingMuxer();

  // Makes |state|'s type known to the service under |descriptor|'s name.
  // False if the name is empty or already registered. Thread-safe.
  virtual bool RegisterDataSource(
      const protos::gen::DataSourceDescriptor& descriptor,
      DataSourceFactory factory, DataSourceStaticState* state) = 0;

  // Replaces the descriptor registered under |descriptor|'s name, here and
  // in every connected service. False if no data source has that name.
  // Thread-safe.
  virtual bool UpdateDataSource(const protos::gen::DataSourceDescriptor& descriptor) = 0;
  // A writer for slot |index| of |state| as of |generation|, or null if the
  // slot moved on (stopped, reused). Called on the writing thread.
  virtual std::unique_ptr<TraceWriter> CreateTraceWriter(
      DataSourceStaticState* state, uint32_t index, uint64_t generation,
      BufferExhaustedPolicy policy) = 0;

  // Tells the service that instance |instance_id| finished stopping
  // (deferred stops). Thread-safe, idempotent per instance.
  virtual void NotifyStopped(DataSourceStaticState* state, uint32_t index,
                             uint64_t instance_id) = 0;
  // Runs |task| on the SDK's thread after what is queued there (the C ABI's
  // flush callbacks); false, with |task| dropped, once tracing is shut
  // down. Thread-safe.
  virtual bool PostToTracingThread(std::function<void()> task) = 0;

 protected:
  static void SetInstance(TracingMuxer* muxer);
};

}  // namespace internal
}  // namespace zt

#endif  // ZT_TRACING_INTERNAL_DATA_SOURCE_INTERNAL_H_
