// Data source types defined from C (zt/c/abi/data_source.h), over the
// SDK's muxer and per-thread writer state: the same machinery as
// zt::DataSource<T>, with the type's callbacks and its state in a DsType
// object instead of a template's statics.

#include "zt/c/abi/data_source.h"

#include <time.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "src/c_abi/stream_writer.h"
#include "zt/base/logging.h"
#include "zt/common/data_source_descriptor.gen.h"
#include "zt/config/data_source_config.gen.h"
#include "zt/ext/tracing/core/trace_writer.h"
#include "zt/tracing/data_source.h"
#include "zt/tracing/internal/data_source_internal.h"

extern "C" {
ZT_C_EXPORT std::atomic<bool> perfetto_atomic_false{false};
}

namespace zt {
namespace c_abi {
namespace {

using internal::DataSourceInstanceState;
using internal::DataSourceInstanceThreadLocalState;
using internal::DataSourceStaticState;
using internal::DataSourceThreadLocalState;
using internal::kMaxDataSourceInstances;

// Types per process: each has a slot in every tracing thread's table.
constexpr uint32_t kMaxTypes = 128;
std::atomic<uint32_t> g_next_type_id{0};

// Each thread's state per type, as DataSource<T>'s thread_local pointer
// (trivially destructible; freed when the thread ends).
thread_local DataSourceThreadLocalState* t_states[kMaxTypes];
// Whether this thread is inside an iteration over a type's instances: a
// trace point of the same type reached from inside (a nested
// PERFETTO_DS_TRACE, an OnCreateTls/Incr callback that traces) is ignored,
// as the ABI says, instead of opening a second packet on the writer.
thread_local bool t_in_trace_point[kMaxTypes];

// Behind the opaque PerfettoDsImpl.
struct DsType {
  PerfettoDsOnSetupCb on_setup = nullptr;
  PerfettoDsOnStartCb on_start = nullptr;
  PerfettoDsOnStopCb on_stop = nullptr;
  PerfettoDsOnDestroyCb on_destroy = nullptr;
  PerfettoDsOnFlushCb on_flush = nullptr;
  PerfettoDsOnCreateCustomState on_create_tls = nullptr;
  PerfettoDsOnDeleteCustomState on_delete_tls = nullptr;
  PerfettoDsOnCreateCustomState on_create_incr = nullptr;
  PerfettoDsOnDeleteCustomState on_delete_incr = nullptr;
  PerfettoDsOnClearCustomState on_clear_incr = nullptr;
  void* user_arg = nullptr;
  BufferExhaustedPolicy policy = BufferExhaustedPolicy::kDrop;
  // Set (release) once registered; writer threads read it (acquire).
  std::atomic<bool> registered{false};
  uint32_t id = kMaxTypes;  // Set at registration.
  std::string name;
  DataSourceStaticState state;
  std::atomic<bool> enabled{false};

  PerfettoDsImpl* c() { return reinterpret_cast<PerfettoDsImpl*>(this); }
};

DsType* FromC(PerfettoDsImpl* ds, const char* what) {
  if (ds == nullptr)
    ZT_FATAL("%s: the data source type is NULL", what);
  return reinterpret_cast<DsType*>(ds);
}

DsType* Unregistered(PerfettoDsImpl* ds, const char* what) {
  DsType* type = FromC(ds, what);
  if (type->registered.load(std::memory_order_acquire))
    ZT_FATAL("%s: \"%s\" is registered already; set callbacks before PerfettoDsImplRegister",
             what, type->name.c_str());
  return type;
}

// Behind PerfettoDsOnStopArgs / PerfettoDsAsyncStopper.
struct CStopArgs {
  const DataSourceBase::StopArgs* args;
};
struct AsyncStopper {
  std::function<void()> done;
};
// Behind PerfettoDsOnFlushArgs / PerfettoDsAsyncFlusher.
struct CFlushArgs {
  const DataSourceBase::FlushArgs* args;
};
struct AsyncFlusher {
  std::function<void()> done;
};

// An instance: forwards the SDK's callbacks to the type's C callbacks.
class CDataSource : public DataSourceBase {
 public:
  explicit CDataSource(DsType* type) : type_(type) {}
  ~CDataSource() override {
    if (type_->on_destroy)
      type_->on_destroy(type_->c(), type_->user_arg, inst_ctx_);
  }
  void* inst_ctx() const { return inst_ctx_; }

  void OnSetup(const SetupArgs& args) override {
    if (!type_->on_setup)
      return;
    std::vector<uint8_t> config;
    if (args.config)
      config = args.config->SerializeAsArray();
    inst_ctx_ = type_->on_setup(type_->c(), args.internal_instance_index, config.data(),
                                config.size(), type_->user_arg, nullptr);
  }
  void OnStart(const StartArgs& args) override {
    if (type_->on_start)
      type_->on_start(type_->c(), args.internal_instance_index, type_->user_arg, inst_ctx_,
                      nullptr);
  }
  void OnStop(const DataSourceBase::StopArgs& args) override {
    if (!type_->on_stop)
      return;
    CStopArgs c_args{&args};
    type_->on_stop(type_->c(), args.internal_instance_index, type_->user_arg, inst_ctx_,
                   reinterpret_cast<PerfettoDsOnStopArgs*>(&c_args));
  }
  void OnFlush(const FlushArgs& args) override {
    if (!type_->on_flush)
      return;
    CFlushArgs c_args{&args};
    type_->on_flush(type_->c(), args.internal_instance_index, type_->user_arg, inst_ctx_,
                    reinterpret_cast<PerfettoDsOnFlushArgs*>(&c_args));
  }

 private:
  DsType* const type_;
  void* inst_ctx_ = nullptr;
};

// The tracer is this thread's state for one instance.
DataSourceInstanceThreadLocalState* Tls(PerfettoDsTracerImpl* tracer, const char* what) {
  if (tracer == nullptr)
    ZT_FATAL("%s: the tracer is NULL", what);
  return reinterpret_cast<DataSourceInstanceThreadLocalState*>(tracer);
}

// Fills *it with the first instance from `from` on that this thread can
// write into (making its writer if needed), or tracer NULL.
void Advance(DsType* type, uint32_t from, PerfettoDsImplTracerIterator* it) {
  it->tracer = nullptr;
  // Cleared unless an instance is found below: the iteration ends.
  t_in_trace_point[type->id] = false;
  const uint32_t valid = type->state.valid_instances.load(std::memory_order_acquire);
  if (valid == 0 || from >= kMaxDataSourceInstances)
    return;
  DataSourceThreadLocalState*& slot = t_states[type->id];
  DataSourceThreadLocalState* tls_state = slot;
  if (!tls_state)
    tls_state = internal::CreateThreadLocalState(&slot);
  it->tls = reinterpret_cast<PerfettoDsTlsImpl*>(tls_state);
  for (uint32_t i = from; i < kMaxDataSourceInstances; i++) {
    if (!(valid & (1u << i)))
      continue;
    DataSourceInstanceThreadLocalState& tls = tls_state->instances[i];
    if (!internal::EnsureInstanceWriter(&type->state, i, &tls, type->policy))
      continue;
    it->inst_id = i;
    it->tracer = reinterpret_cast<PerfettoDsTracerImpl*>(&tls);
    t_in_trace_point[type->id] = true;
    return;
  }
}

// A C object with its C deleter, as the SDK's per-thread state holds it.
std::shared_ptr<void> OwnedState(void* obj, PerfettoDsOnDeleteCustomState deleter) {
  return std::shared_ptr<void>(obj, [deleter](void* p) {
    if (deleter)
      deleter(p);
  });
}

}  // namespace
}  // namespace c_abi
}  // namespace zt

using zt::c_abi::CDataSource;
using zt::c_abi::DsType;
using zt::c_abi::FromC;
using zt::c_abi::Unregistered;

PerfettoDsImpl* PerfettoDsImplCreate(void) { return (new DsType())->c(); }

void PerfettoDsSetOnSetupCallback(PerfettoDsImpl* ds, PerfettoDsOnSetupCb cb) {
  Unregistered(ds, "PerfettoDsSetOnSetupCallback")->on_setup = cb;
}
void PerfettoDsSetOnStartCallback(PerfettoDsImpl* ds, PerfettoDsOnStartCb cb) {
  Unregistered(ds, "PerfettoDsSetOnStartCallback")->on_start = cb;
}
void PerfettoDsSetOnStopCallback(PerfettoDsImpl* ds, PerfettoDsOnStopCb cb) {
  Unregistered(ds, "PerfettoDsSetOnStopCallback")->on_stop = cb;
}
void PerfettoDsSetOnDestroyCallback(PerfettoDsImpl* ds, PerfettoDsOnDestroyCb cb) {
  Unregistered(ds, "PerfettoDsSetOnDestroyCallback")->on_destroy = cb;
}
void PerfettoDsSetOnFlushCallback(PerfettoDsImpl* ds, PerfettoDsOnFlushCb cb) {
  Unregistered(ds, "PerfettoDsSetOnFlushCallback")->on_flush = cb;
}
void PerfettoDsSetOnCreateTls(PerfettoDsImpl* ds, PerfettoDsOnCreateCustomState cb) {
  Unregistered(ds, "PerfettoDsSetOnCreateTls")->on_create_tls = cb;
}
void PerfettoDsSetOnDeleteTls(PerfettoDsImpl* ds, PerfettoDsOnDeleteCustomState cb) {
  Unregistered(ds, "PerfettoDsSetOnDeleteTls")->on_delete_tls = cb;
}
void PerfettoDsSetOnCreateIncr(PerfettoDsImpl* ds, PerfettoDsOnCreateCustomState cb) {
  Unregistered(ds, "PerfettoDsSetOnCreateIncr")->on_create_incr = cb;
}
void PerfettoDsSetOnDeleteIncr(PerfettoDsImpl* ds, PerfettoDsOnDeleteCustomState cb) {
  Unregistered(ds, "PerfettoDsSetOnDeleteIncr")->on_delete_incr = cb;
}
void PerfettoDsSetOnClearIncr(PerfettoDsImpl* ds, PerfettoDsOnClearCustomState cb) {
  Unregistered(ds, "PerfettoDsSetOnClearIncr")->on_clear_incr = cb;
}
void PerfettoDsSetCbUserArg(PerfettoDsImpl* ds, void* user_arg) {
  Unregistered(ds, "PerfettoDsSetCbUserArg")->user_arg = user_arg;
}

bool PerfettoDsSetBufferExhaustedPolicy(PerfettoDsImpl* ds, uint32_t policy) {
  DsType* type = Unregistered(ds, "PerfettoDsSetBufferExhaustedPolicy");
  switch (policy) {
    case PERFETTO_DS_BUFFER_EXHAUSTED_POLICY_DROP:
      type->policy = zt::BufferExhaustedPolicy::kDrop;
      return true;
    case PERFETTO_DS_BUFFER_EXHAUSTED_POLICY_STALL_AND_ABORT:
    case PERFETTO_DS_BUFFER_EXHAUSTED_POLICY_STALL_AND_DROP:
      // Our writers stall up to 1 s, then drop (counted and marked): a
      // stall that would abort upstream loses data here instead, told in
      // the trace's stats.
      type->policy = zt::BufferExhaustedPolicy::kStallThenDrop;
      return true;
    default:
      ZT_ELOG("PerfettoDsSetBufferExhaustedPolicy: unknown policy %u", policy);
      return false;
  }
}

bool PerfettoDsSetBufferExhaustedPolicyConfigurable(PerfettoDsImpl* ds, bool configurable) {
  Unregistered(ds, "PerfettoDsSetBufferExhaustedPolicyConfigurable");
  if (configurable) {
    // Refused, not pretended: the caller learns that sessions cannot.
    ZT_WLOG("PerfettoDsSetBufferExhaustedPolicyConfigurable: sessions cannot choose a data "
            "source's policy here (not supported yet); the one set stays");
    return false;
  }
  return true;
}

namespace {

// As the ABI says, a type whose registration failed is invalid afterwards:
// it is freed here (a caller makes a new one to try again).
bool Refuse(DsType* type) {
  delete type;
  return false;
}

}  // namespace

bool PerfettoDsImplRegister(PerfettoDsImpl* ds, ZT_C_ATOMIC(bool) * *enabled_ptr,
                            const void* descriptor, size_t descriptor_size) {
  DsType* type = FromC(ds, "PerfettoDsImplRegister");
  if (type->registered.load(std::memory_order_acquire)) {
    // Not freed: it is registered, and the service may be using it.
    ZT_ELOG("PerfettoDsImplRegister: \"%s\" is registered already", type->name.c_str());
    return false;
  }
  zt::protos::gen::DataSourceDescriptor desc;
  if ((descriptor == nullptr && descriptor_size != 0) ||
      !desc.ParseFromArray(descriptor, descriptor_size) || desc.name().empty()) {
    ZT_ELOG("PerfettoDsImplRegister: the %zu bytes given are not a DataSourceDescriptor with a "
            "name",
            descriptor_size);
    return Refuse(type);
  }
  zt::internal::TracingMuxer* muxer = zt::internal::TracingMuxer::Get();
  if (!muxer) {
    ZT_ELOG("PerfettoDsImplRegister(\"%s\"): no backend is initialized (call "
            "PerfettoProducerInit first)",
            desc.name().c_str());
    return Refuse(type);
  }
  const uint32_t id = zt::c_abi::g_next_type_id.fetch_add(1);
  if (id >= zt::c_abi::kMaxTypes) {
    ZT_ELOG("PerfettoDsImplRegister(\"%s\"): this process has %u data source types already",
            desc.name().c_str(), zt::c_abi::kMaxTypes);
    return Refuse(type);
  }
  type->id = id;
  type->name = desc.name();
  type->state.any_valid_mirror = &type->enabled;
  if (!muxer->RegisterDataSource(
          desc, [type] { return std::unique_ptr<zt::DataSourceBase>(new CDataSource(type)); },
          &type->state)) {
    ZT_ELOG("PerfettoDsImplRegister(\"%s\"): the name is taken", desc.name().c_str());
    return Refuse(type);
  }
  type->registered.store(true, std::memory_order_release);
  if (enabled_ptr)
    *enabled_ptr = &type->enabled;
  return true;
}

void PerfettoDsImplUpdateDescriptor(PerfettoDsImpl* ds, const void* descriptor,
                                    size_t descriptor_size) {
  DsType* type = FromC(ds, "PerfettoDsImplUpdateDescriptor");
  zt::protos::gen::DataSourceDescriptor desc;
  if (!type->registered.load(std::memory_order_acquire) ||
      (descriptor == nullptr && descriptor_size != 0) ||
      !desc.ParseFromArray(descriptor, descriptor_size) || desc.name() != type->name) {
    ZT_ELOG("PerfettoDsImplUpdateDescriptor(\"%s\"): not a registered type, or the %zu bytes "
            "given are not a DataSourceDescriptor of that name; the descriptor stays",
            type->name.c_str(), descriptor_size);
    return;
  }
  zt::internal::TracingMuxer* muxer = zt::internal::TracingMuxer::Get();
  if (!muxer || !muxer->UpdateDataSource(desc))
    ZT_ELOG("PerfettoDsImplUpdateDescriptor(\"%s\"): tracing was shut down", type->name.c_str());
}

PerfettoDsAsyncStopper* PerfettoDsOnStopArgsPostpone(PerfettoDsOnStopArgs* c_args) {
  if (c_args == nullptr)
    ZT_FATAL("PerfettoDsOnStopArgsPostpone: the stop arguments are NULL");
  const auto* args = reinterpret_cast<zt::c_abi::CStopArgs*>(c_args);
  auto* stopper = new zt::c_abi::AsyncStopper{args->args->HandleStopAsynchronously()};
  return reinterpret_cast<PerfettoDsAsyncStopper*>(stopper);
}

void PerfettoDsStopDone(PerfettoDsAsyncStopper* c_stopper) {
  if (c_stopper == nullptr)
    ZT_FATAL("PerfettoDsStopDone: the stopper is NULL");
  auto* stopper = reinterpret_cast<zt::c_abi::AsyncStopper*>(c_stopper);
  stopper->done();
  delete stopper;
}

PerfettoDsAsyncFlusher* PerfettoDsOnFlushArgsPostpone(PerfettoDsOnFlushArgs* c_args) {
  if (c_args == nullptr)
    ZT_FATAL("PerfettoDsOnFlushArgsPostpone: the flush arguments are NULL");
  const auto* args = reinterpret_cast<zt::c_abi::CFlushArgs*>(c_args);
  auto* flusher = new zt::c_abi::AsyncFlusher{args->args->HandleFlushAsynchronously()};
  return reinterpret_cast<PerfettoDsAsyncFlusher*>(flusher);
}

void PerfettoDsFlushDone(PerfettoDsAsyncFlusher* c_flusher) {
  if (c_flusher == nullptr)
    ZT_FATAL("PerfettoDsFlushDone: the flusher is NULL");
  auto* flusher = reinterpret_cast<zt::c_abi::AsyncFlusher*>(c_flusher);
  flusher->done();
  delete flusher;
}

void* PerfettoDsImplGetInstanceLocked(PerfettoDsImpl* ds, PerfettoDsInstanceIndex inst_id) {
  DsType* type = FromC(ds, "PerfettoDsImplGetInstanceLocked");
  if (inst_id >= zt::internal::kMaxDataSourceInstances)
    return nullptr;
  zt::internal::DataSourceInstanceState& slot = type->state.instances[inst_id];
  slot.lock.lock();
  auto* source = static_cast<CDataSource*>(slot.data_source);
  // Only a started instance: the slot may hold one set up but not started
  // (or another session's since the caller's iteration).
  const bool started =
      type->state.valid_instances.load(std::memory_order_acquire) & (1u << inst_id);
  if (source == nullptr || !started || source->inst_ctx() == nullptr) {
    slot.lock.unlock();
    return nullptr;
  }
  return source->inst_ctx();
}

void PerfettoDsImplReleaseInstanceLocked(PerfettoDsImpl* ds, PerfettoDsInstanceIndex inst_id) {
  DsType* type = FromC(ds, "PerfettoDsImplReleaseInstanceLocked");
  ZT_CHECK(inst_id < zt::internal::kMaxDataSourceInstances);
  type->state.instances[inst_id].lock.unlock();
}

void* PerfettoDsImplGetCustomTls(PerfettoDsImpl* ds, PerfettoDsTracerImpl* tracer,
                                 PerfettoDsInstanceIndex inst_id) {
  DsType* type = FromC(ds, "PerfettoDsImplGetCustomTls");
  auto* tls = zt::c_abi::Tls(tracer, "PerfettoDsImplGetCustomTls");
  if (!tls->custom_state && type->on_create_tls) {
    tls->custom_state = zt::c_abi::OwnedState(
        type->on_create_tls(ds, inst_id, tracer, type->user_arg), type->on_delete_tls);
  }
  return tls->custom_state.get();
}

void* PerfettoDsImplGetIncrementalState(PerfettoDsImpl* ds, PerfettoDsTracerImpl* tracer,
                                        PerfettoDsInstanceIndex inst_id) {
  DsType* type = FromC(ds, "PerfettoDsImplGetIncrementalState");
  auto* tls = zt::c_abi::Tls(tracer, "PerfettoDsImplGetIncrementalState");
  ZT_CHECK(inst_id < zt::internal::kMaxDataSourceInstances);
  const uint32_t generation =
      type->state.instances[inst_id].incremental_generation.load(std::memory_order_acquire);
  if (tls->incremental_state && tls->incremental_generation != generation) {
    // Cleared: in place if the type can, else made anew.
    if (!type->on_clear_incr || !type->on_clear_incr(tls->incremental_state.get(), type->user_arg))
      tls->incremental_state.reset();
    tls->incremental_generation = generation;
  }
  if (!tls->incremental_state && type->on_create_incr) {
    tls->incremental_state = zt::c_abi::OwnedState(
        type->on_create_incr(ds, inst_id, tracer, type->user_arg), type->on_delete_incr);
    tls->incremental_generation = generation;
  }
  return tls->incremental_state.get();
}

PerfettoDsImplTracerIterator PerfettoDsImplTraceIterateBegin(PerfettoDsImpl* ds) {
  PerfettoDsImplTracerIterator it = {0, nullptr, nullptr};
  DsType* type = FromC(ds, "PerfettoDsImplTraceIterateBegin");
  if (type->registered.load(std::memory_order_acquire) &&
      !zt::c_abi::t_in_trace_point[type->id]) {
    zt::c_abi::Advance(type, 0, &it);
  }
  return it;
}

void PerfettoDsImplTraceIterateNext(PerfettoDsImpl* ds, PerfettoDsImplTracerIterator* it) {
  ZT_CHECK(it != nullptr);
  zt::c_abi::Advance(FromC(ds, "PerfettoDsImplTraceIterateNext"), it->inst_id + 1, it);
}

void PerfettoDsImplTraceIterateBreak(PerfettoDsImpl* ds, PerfettoDsImplTracerIterator* it) {
  DsType* type = FromC(ds, "PerfettoDsImplTraceIterateBreak");
  if (type->registered.load(std::memory_order_acquire))
    zt::c_abi::t_in_trace_point[type->id] = false;
  if (it)
    it->tracer = nullptr;
}

PerfettoStreamWriter PerfettoDsTracerImplPacketBegin(PerfettoDsTracerImpl* tracer) {
  zt::TraceWriter* writer = zt::c_abi::Tls(tracer, "PerfettoDsTracerImplPacketBegin")->trace_writer.get();
  ZT_CHECK(writer != nullptr);
  writer->NewTracePacket().Detach();
  PerfettoStreamWriter w;
  zt::c_abi::MirrorWriter(writer->stream_writer_of_c_abi(), &w);
  return w;
}

void PerfettoDsTracerImplPacketEnd(PerfettoDsTracerImpl* tracer, PerfettoStreamWriter* w) {
  zt::TraceWriter* writer = zt::c_abi::Tls(tracer, "PerfettoDsTracerImplPacketEnd")->trace_writer.get();
  ZT_CHECK(writer != nullptr && w != nullptr);
  if (zt::c_abi::CppWriter(w) != writer->stream_writer_of_c_abi())
    ZT_FATAL("PerfettoDsTracerImplPacketEnd: the writer is not this tracer's packet's");
  zt::c_abi::SyncWritePtr(w);
  writer->FinishPacketOfCAbi();
  w->impl = nullptr;
}

void PerfettoDsTracerImplFlush(PerfettoDsTracerImpl* tracer, PerfettoDsTracerOnFlushCb cb,
                               void* user_arg) {
  zt::TraceWriter* writer = zt::c_abi::Tls(tracer, "PerfettoDsTracerImplFlush")->trace_writer.get();
  ZT_CHECK(writer != nullptr);
  writer->Flush();
  // As the ABI says, on an internal thread: after the commit Flush() sent,
  // which the SDK's thread delivers in order. Never if tracing shut down.
  if (cb) {
    if (zt::internal::TracingMuxer* muxer = zt::internal::TracingMuxer::Get())
      muxer->PostToTracingThread([cb, user_arg] { cb(user_arg); });
  }
}

uint32_t PerfettoDsGetDefaultClockId(void) { return PERFETTO_DS_CLOCK_BOOTTIME; }

PerfettoDsTimestamp PerfettoDsGetTimestamp(void) {
  timespec ts;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  PerfettoDsTimestamp result;
  result.clock_id = PERFETTO_DS_CLOCK_BOOTTIME;
  result.value = static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
  return result;
}
