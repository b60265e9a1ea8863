// The low-level track event ABI: iteration over the instances a category
// is on in, with the sequence's state prepared (and its first packets
// written) at each step; interning and seen tracks for the caller's own
// packets.

#include "src/c_abi/track_event_internal.h"
#include "zt/base/logging.h"
#include "zt/c/abi/track_event_ll.h"

namespace {

using zt::c_abi::TeSlot;

void Fill(const TeSlot& slot, PerfettoTeTimestamp ts, PerfettoTeLlImplIterator* it) {
  zt::c_abi::TeResetIfCleared(slot, ts);
  // The caller writes packets on the writer itself.
  zt::c_abi::TeCloseOpenPacket(slot);
  it->ds.inst_id = slot.index;
  it->ds.tracer = reinterpret_cast<PerfettoDsTracerImpl*>(slot.tls);
  it->ds.tls = nullptr;  // Not used by this library's functions.
  it->incr = reinterpret_cast<PerfettoTeLlImplIncr*>(slot.incr);
  it->tls = reinterpret_cast<PerfettoTeLlImplTls*>(slot.seq);
}

void End(PerfettoTeLlImplIterator* it) {
  *it = PerfettoTeLlImplIterator();
  zt::c_abi::CurrentTeThread()->in_trace_point = false;
}

PerfettoTeCategoryImpl* Category(PerfettoTeCategoryImpl* cat, const char* what) {
  if (cat == nullptr)
    ZT_FATAL("%s: the category is NULL", what);
  return cat;
}

}  // namespace

PerfettoTeLlImplIterator PerfettoTeLlImplBegin(PerfettoTeCategoryImpl* cat,
                                               PerfettoTeTimestamp ts) {
  PerfettoTeLlImplIterator it = PerfettoTeLlImplIterator();
  const uint32_t mask = zt::c_abi::TeInstances(Category(cat, "PerfettoTeLlImplBegin"));
  zt::c_abi::TeThread* thread = zt::c_abi::CurrentTeThread();
  if (mask == 0 || thread->in_trace_point)
    return it;
  thread->ResetHot();  // The low-level path closes the packet the hot path writes into.
  TeSlot slot;
  if (!zt::c_abi::TeNextSlot(thread, mask, 0, &slot))
    return it;
  thread->in_trace_point = true;
  Fill(slot, ts, &it);
  return it;
}

void PerfettoTeLlImplNext(PerfettoTeCategoryImpl* cat, PerfettoTeTimestamp ts,
                          PerfettoTeLlImplIterator* it) {
  ZT_CHECK(it != nullptr);
  const uint32_t mask = zt::c_abi::TeInstances(Category(cat, "PerfettoTeLlImplNext"));
  TeSlot slot;
  if (it->ds.tracer == nullptr ||
      !zt::c_abi::TeNextSlot(zt::c_abi::CurrentTeThread(), mask, it->ds.inst_id + 1, &slot)) {
    End(it);
    return;
  }
  Fill(slot, ts, it);
}

void PerfettoTeLlImplBreak(PerfettoTeCategoryImpl*, PerfettoTeLlImplIterator* it) {
  if (it)
    End(it);
  else
    zt::c_abi::CurrentTeThread()->in_trace_point = false;
}

bool PerfettoTeLlImplDynCatEnabled(PerfettoDsTracerImpl* tracer, PerfettoDsInstanceIndex inst_id,
                                   const PerfettoTeCategoryDescriptor* dyn_cat) {
  if (tracer == nullptr || dyn_cat == nullptr || inst_id >= zt::internal::kMaxDataSourceInstances)
    return false;
  auto* tls = reinterpret_cast<zt::internal::DataSourceInstanceThreadLocalState*>(tracer);
  TeSlot slot;
  slot.index = inst_id;
  slot.tls = tls;
  slot.seq = static_cast<zt::c_abi::TeSequence*>(tls->custom_state.get());
  slot.incr = static_cast<zt::c_abi::TeIncrementalState*>(tls->incremental_state.get());
  if (slot.incr == nullptr)
    return false;  // Not a track event tracer.
  return zt::c_abi::TeDynamicCategoryEnabled(slot, *dyn_cat);
}

bool PerfettoTeLlImplTrackSeen(PerfettoTeLlImplIncr* incr, uint64_t uuid) {
  if (incr == nullptr)
    ZT_FATAL("PerfettoTeLlImplTrackSeen: the incremental state is NULL");
  return reinterpret_cast<zt::c_abi::TeIncrementalState*>(incr)->TrackSeen(uuid);
}

uint64_t PerfettoTeLlImplIntern(PerfettoTeLlImplIncr* incr, int32_t type, const void* data,
                                size_t data_size, bool* seen) {
  if (incr == nullptr || seen == nullptr || (data == nullptr && data_size != 0))
    ZT_FATAL("PerfettoTeLlImplIntern: the incremental state, the data or `seen` is NULL");
  bool is_new;
  const uint64_t iid = reinterpret_cast<zt::c_abi::TeIncrementalState*>(incr)->iids.FindOrAssign(
      type, data, data_size, &is_new);
  *seen = !is_new;
  return iid;
}
