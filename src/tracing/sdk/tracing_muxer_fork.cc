// The muxer across fork() (tracing_muxer_impl.h: AtFork*, forked()): the
// child has none of the SDK's threads, so it stops every instance and
// forgets its sessions; Tracing::Initialize() there makes a new muxer.

#include <new>

#include "src/tracing/sdk/tracing_muxer_impl.h"

namespace zt {
namespace internal {

void TracingMuxerImpl::AtForkPrepare() {
  // Held across fork(), so that the child finds them in a known state.
  init_mutex().lock();
  if (TracingMuxerImpl* muxer = instance())
    muxer->mutex_.lock();
}

void TracingMuxerImpl::AtForkParent() {
  if (TracingMuxerImpl* muxer = instance())
    muxer->mutex_.unlock();
  init_mutex().unlock();
}

void TracingMuxerImpl::AtForkChild() {
  if (TracingMuxerImpl* muxer = instance()) {
    muxer->forked_ = true;
    for (Registered& r : muxer->registry_) {
      DataSourceStaticState* state = r.state;
      // Trace() writes nothing from now on: no bit set, and every cached
      // sequence is stale (epoch). The parent's data source objects are
      // left alone; the slots are free for a new muxer's sessions.
      state->valid_instances.store(0, std::memory_order_relaxed);
      if (state->any_valid_mirror)
        state->any_valid_mirror->store(false, std::memory_order_relaxed);
      for (DataSourceInstanceState& slot : state->instances) {
        // A parent thread may have held it at the fork: made anew.
        new (&slot.lock) std::recursive_mutex();
        slot.in_use = false;
        slot.data_source = nullptr;
        slot.instance_id = 0;
        slot.epoch.fetch_add(1, std::memory_order_relaxed);
      }
    }
    for (MuxedSession* session : muxer->sessions_)
      session->ForgetAfterFork();
    muxer->mutex_.unlock();
  }
  init_mutex().unlock();
}

}  // namespace internal
}  // namespace zt
