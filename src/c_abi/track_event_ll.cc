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
  it->ds.inst_id = slot.index;
  it->ds.tracer = reinterpret_cast<PerfettoDsTracerImpl*>(slot.tls);
  it->ds.tls = nullptr;  // Not used by this library's functions.
  it->incr = reinterpret_cast<PerfettoTeLlImplIncr*>(slot.incr);
  it->tls = reinterpret_cast<PerfettoTeLlImplTls*>(slot.settings);
}

void End(PerfettoTeLlImplIterator* it) {
  *it = PerfettoTeLlImplIterator();
  zt::c_abi::TeInTracePoint() = false;
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
  if (mask == 0 || zt::c_abi::TeInTracePoint())
    return it;
  TeSlot slot;
  if (!zt::c_abi::TeNextSlot(mask, 0, &slot))
    return it;
  zt::c_abi::TeInTracePoint() = true;
  Fill(slot, ts, &it);
  return it;
}

void PerfettoTeLlImplNext(PerfettoTeCategoryImpl* cat, PerfettoTeTimestamp ts,
                          PerfettoTeLlImplIterator* it) {
  ZT_CHECK(it != nullptr);
  const uint32_t mask = zt::c_abi::TeInstances(Category(cat, "PerfettoTeLlImplNext"));
  TeSlot slot;
  if (it->ds.tracer == nullptr || !zt::c_abi::TeNextSlot(mask, it->ds.inst_id + 1, &slot)) {
    End(it);
    return;
  }
  Fill(slot, ts, it);
}

void PerfettoTeLlImplBreak(PerfettoTeCategoryImpl*, PerfettoTeLlImplIterator* it) {
  if (it)
    End(it);
  else
    zt::c_abi::TeInTracePoint() = false;
}

bool PerfettoTeLlImplDynCatEnabled(PerfettoDsTracerImpl* tracer, PerfettoDsInstanceIndex inst_id,
                                   const PerfettoTeCategoryDescriptor* dyn_cat) {
  if (tracer == nullptr || dyn_cat == nullptr || inst_id >= zt::internal::kMaxDataSourceInstances)
    return false;
  auto* tls = reinterpret_cast<zt::internal::DataSourceInstanceThreadLocalState*>(tracer);
  TeSlot slot;
  slot.index = inst_id;
  slot.tls = tls;
  slot.settings = static_cast<zt::c_abi::TeSequenceSettings*>(tls->custom_state.get());
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
