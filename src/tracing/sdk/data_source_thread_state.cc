// Per-thread DataSource state, freed when its thread ends and never by
// exit(): see CreateThreadLocalState() in data_source_internal.h.

#include <pthread.h>

#include <utility>
#include <vector>

#include "zt/base/logging.h"
#include "zt/ext/tracing/core/trace_writer.h"
#include "zt/tracing/internal/data_source_internal.h"

namespace zt {
namespace internal {

namespace {

// The states one thread made, with the thread_local pointer each is in and
// what to call before it goes.
struct ThreadStateEntry {
  DataSourceThreadLocalState** slot;
  DataSourceThreadLocalState* state;
  void (*on_release)(void*);
  void* arg;
};
using ThreadStates = std::vector<ThreadStateEntry>;

// Runs on the ending thread, after its thread_local destructors (glibc runs
// those first), so the pointers are still this thread's. Writers are
// destroyed here: each returns its chunk to the arbiter.
void DestroyThreadStates(void* value) {
  ThreadStates* states = static_cast<ThreadStates*>(value);
  for (auto& entry : *states) {
    if (entry.on_release)
      entry.on_release(entry.arg);
    *entry.slot = nullptr;  // Tracing from here on makes a new state.
  }
  for (auto& entry : *states)
    delete entry.state;
  delete states;
}

pthread_key_t ThreadStatesKey() {
  // Made once, never deleted (a function-local static of a trivial type:
  // nothing to destroy at exit).
  static const pthread_key_t key = [] {
    pthread_key_t k;
    if (pthread_key_create(&k, &DestroyThreadStates) != 0)
      ZT_FATAL("pthread_key_create failed: no key left for the tracing SDK's per-thread state");
    return k;
  }();
  return key;
}

}  // namespace

DataSourceThreadLocalState* CreateThreadLocalState(DataSourceThreadLocalState** slot) {
  return CreateThreadLocalState(slot, nullptr, nullptr);
}

DataSourceThreadLocalState* CreateThreadLocalState(DataSourceThreadLocalState** slot,
                                                   void (*on_release)(void*), void* arg) {
  const pthread_key_t key = ThreadStatesKey();
  ThreadStates* states = static_cast<ThreadStates*>(pthread_getspecific(key));
  if (!states) {
    states = new ThreadStates();
    // Set again inside a key destructor (a thread tracing while it ends),
    // glibc calls the destructor again (up to PTHREAD_DESTRUCTOR_ITERATIONS).
    pthread_setspecific(key, states);
  }
  DataSourceThreadLocalState* state = new DataSourceThreadLocalState();
  states->push_back(ThreadStateEntry{slot, state, on_release, arg});
  *slot = state;
  return state;
}

bool RenewInstanceWriter(DataSourceStaticState* state, uint32_t index, uint64_t generation,
                         DataSourceInstanceThreadLocalState* tls, BufferExhaustedPolicy policy) {
  tls->custom_state.reset();
  tls->incremental_state.reset();
  tls->trace_writer.reset();
  tls->generation = generation;
  if (TracingMuxer* muxer = TracingMuxer::Get())
    tls->trace_writer = muxer->CreateTraceWriter(state, index, generation, policy);
  return tls->trace_writer != nullptr;
}

}  // namespace internal
}  // namespace zt
