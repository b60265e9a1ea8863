#include "src/tracing/sdk/tracing_muxer_impl.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "src/tracing/sdk/tracing_muxer_producer.h"
#include "zt/base/logging.h"
#include "zt/tracing/data_source.h"

namespace zt {

DataSourceBase::~DataSourceBase() = default;
DataSourceBase::StopArgs::~StopArgs() = default;
DataSourceBase::FlushArgs::~FlushArgs() = default;

namespace internal {

// One flush request of one backend: answered (the commit carrying its id)
// once the muxer's pass over the instances and every deferred flush are
// done. Shared by the closures handed out; touched on the muxer thread only.
struct PendingFlush {
  uint32_t backend_id = 0;
  FlushRequestId request = 0;
  int left = 1;  // The pass itself, then one per deferred flush.
};

namespace {

std::atomic<TracingMuxer*> g_muxer{nullptr};
std::mutex g_init_mutex;
// Muxers Shutdown() retired, kept reachable (not freed: another thread may
// still hold a writer into their shared memory buffer). Under g_init_mutex.
TracingMuxerImpl* g_retired_muxers = nullptr;

// The StopArgs of one OnStop call: remembers whether the data source took
// over the end of the stop.
class StopArgsImpl : public DataSourceBase::StopArgs {
 public:
  StopArgsImpl(TracingMuxer* muxer, DataSourceStaticState* state,
               uint32_t index, uint64_t instance_id)
      : muxer_(muxer), state_(state), instance_id_(instance_id) {
    internal_instance_index = index;
  }
  std::function<void()> HandleStopAsynchronously() const override {
    deferred_ = true;
    TracingMuxer* muxer = muxer_;
    DataSourceStaticState* state = state_;
    const uint32_t index = internal_instance_index;
    const uint64_t id = instance_id_;
    return [muxer, state, index, id] { muxer->NotifyStopped(state, index, id); };
  }
  bool deferred() const { return deferred_; }

 private:
  TracingMuxer* muxer_;
  DataSourceStaticState* state_;
  uint64_t instance_id_;
  mutable bool deferred_ = false;
};

class FlushArgsImpl : public DataSourceBase::FlushArgs {
 public:
  FlushArgsImpl(TracingMuxerImpl* muxer, std::shared_ptr<PendingFlush> pending, uint32_t index)
      : muxer_(muxer), pending_(std::move(pending)) {
    internal_instance_index = index;
  }
  std::function<void()> HandleFlushAsynchronously() const override {
    pending_->left++;
    TracingMuxerImpl* muxer = muxer_;
    std::shared_ptr<PendingFlush> pending = pending_;
    auto once = std::make_shared<std::atomic<bool>>(false);
    return [muxer, pending, once] {
      if (once->exchange(true))
        return;  // Called twice: the answer went with the first.
      muxer->PostToTracingThread([muxer, pending] { muxer->FinishFlushPart(pending.get()); });
    };
  }

 private:
  TracingMuxerImpl* muxer_;
  std::shared_ptr<PendingFlush> pending_;
};

}  // namespace

TracingMuxer::~TracingMuxer() = default;

TracingMuxer* TracingMuxer::Get() {
  return g_muxer.load(std::memory_order_acquire);
}

void TracingMuxer::SetInstance(TracingMuxer* muxer) {
  g_muxer.store(muxer, std::memory_order_release);
}

std::mutex& TracingMuxerImpl::init_mutex() {
  return g_init_mutex;
}

bool TracingMuxerImpl::InitializeInstance(const TracingInitArgs& args) {
  std::lock_guard<std::mutex> guard(g_init_mutex);
  if (TracingMuxerImpl* existing = instance()) {
    if (!existing->forked_) {
      // A later call adds the backends it names that are not running yet
      // (the C ABI initializes one backend per call); its other arguments
      // apply to those only.
      TracingInitArgs more = args;
      more.backends &= kInProcessBackend | kSystemBackendBit;
      if ((more.backends & kSystemBackendBit) && !zt_create_system_tracing_backend) {
        ZT_ELOG("Tracing::Initialize: kSystemBackend needs the system backend library, which "
                "this program does not link (zerotrace::tracing_system); ignored");
        more.backends &= ~uint32_t{kSystemBackendBit};
      }
      if (((more.backends & kInProcessBackend) && !existing->HasBackend(kInProcessBackend)) ||
          ((more.backends & kSystemBackendBit) && !existing->HasBackend(kSystemBackendBit))) {
        existing->AddBackends(more);
      }
      return true;
    }
    // A forked child: the parent's muxer is left as it is (leaked) and the
    // child gets its own.
    SetInstance(nullptr);
  }
  static const bool at_fork_registered = [] {
    return pthread_atfork(&AtForkPrepare, &AtForkParent, &AtForkChild) == 0;
  }();
  (void)at_fork_registered;
  // The SDK names the system backend by its bit only (kSystemBackend would
  // need the system backend's library: tracing.h).
  constexpr uint32_t kKnown = kInProcessBackend | kSystemBackendBit;
  if (args.backends & ~kKnown) {
    ZT_WLOG("Tracing::Initialize: unknown backend bits 0x%x ignored",
            args.backends & ~kKnown);
  }
  TracingInitArgs available = args;
  // A program that names kSystemBackend does not link without the library;
  // one that sets the bit otherwise (a number from its own config) gets
  // here.
  if ((args.backends & kSystemBackendBit) && !zt_create_system_tracing_backend) {
    ZT_ELOG("Tracing::Initialize: kSystemBackend needs the system backend "
            "library, which this program does not link: link "
            "zerotrace::tracing_system (CMake) or use `pkg-config "
            "zerotrace-system`. kSystemBackend is ignored.");
    available.backends &= ~uint32_t{kSystemBackendBit};
  }
  if (!(available.backends & kKnown)) {
    ZT_ELOG("Tracing::Initialize: no available backend requested (backends = "
            "0x%x); tracing stays off. Set TracingInitArgs::backends to "
            "zt::kInProcessBackend and/or zt::kSystemBackend.",
            args.backends);
    return false;
  }
  SetInstance(new TracingMuxerImpl(available));  // Never deleted, on purpose.
  return true;
}

void TracingMuxerImpl::ShutdownInstance() {
  std::lock_guard<std::mutex> guard(g_init_mutex);
  TracingMuxerImpl* muxer = instance();
  if (!muxer)
    return;
  if (muxer->forked_) {
    // Its thread is the parent's: nothing to stop here.
    SetInstance(nullptr);
    return;
  }
  if (muxer->task_runner_->RunsTasksOnCurrentThread()) {
    ZT_FATAL("Tracing::Shutdown() called on the tracing thread (from a "
             "tracing callback); call it from another thread");
  }
  // Sessions first, while data sources can still reach the muxer to write
  // their last packets from OnStop.
  std::vector<MuxedSession*> sessions;
  {
    std::lock_guard<std::mutex> lock(muxer->mutex_);
    sessions.assign(muxer->sessions_.begin(), muxer->sessions_.end());
  }
  for (MuxedSession* session : sessions)
    session->StopBlocking();
  SetInstance(nullptr);
  muxer->Retire();
  muxer->next_retired_ = g_retired_muxers;
  g_retired_muxers = muxer;
}

TracingMuxerImpl* TracingMuxerImpl::instance() {
  return static_cast<TracingMuxerImpl*>(Get());
}

void ActivateTriggersOnMuxer(const std::vector<std::string>& triggers,
                             InProcessTriggers in_process) {
  if (TracingMuxerImpl* muxer = TracingMuxerImpl::instance())
    muxer->ActivateTriggers(triggers, in_process);
}

void TracingMuxerImpl::ActivateTriggers(const std::vector<std::string>& triggers,
                                        InProcessTriggers in_process) {
  // This code is in every program (it is the muxer's), so it is kept to
  // one posted closure.
  PostUnlessRetired([this, triggers, in_process] {
    for (uint32_t id = 0; id < backend_count(); id++) {
    BackendConnection& b = backends_[id];
      ProducerEndpoint* endpoint = b.backend && b.producer ? b.producer->endpoint() : nullptr;
      if (!endpoint)
        continue;
      if (b.type == kInProcessBackend) {
        // The service is ours: asked directly (its endpoint has no socket
        // to send them on).
        in_process(static_cast<InProcessTracingBackend*>(b.backend.get())->service(), endpoint,
                   triggers);
        continue;
      }
      endpoint->ActivateTriggers(triggers, [](bool ok) {
        if (!ok)
          ZT_WLOG("Tracing::ActivateTriggers: the tracing service did not take the triggers");
      });
    }
  });
}

TracingMuxerImpl::TracingMuxerImpl(const TracingInitArgs& args)
    : task_runner_(new base::ThreadTaskRunner("zt.tracing")) {
  AddBackends(args);
}

void TracingMuxerImpl::AddBackends(const TracingInitArgs& args) {
  // On the muxer thread, as registrations are: a data source registered
  // meanwhile reaches the new backend either directly (it is counted
  // before it connects) or when it connects (RegisterAllWith).
  task_runner_->PostTaskAndWait([this, args] {
    for (BackendType type : {kInProcessBackend, kSystemBackendBit}) {
      if (!(args.backends & type) || HasBackend(type))
        continue;
      const uint32_t id = backend_count();
      ZT_CHECK(id < kMaxBackends);
      BackendConnection& b = backends_[id];
      b.type = type;
      b.takes_sessions = type != kSystemBackendBit || args.enable_system_consumer;
      b.producer.reset(new ProducerImpl(this, id, args));
      if (type == kInProcessBackend)
        b.backend.reset(new InProcessTracingBackend(task_runner_.get()));
      else
        b.backend.reset(zt_create_system_tracing_backend());
      // Published (release) with every field above set: other threads read
      // type and takes_sessions of the backends they count.
      backend_count_.store(id + 1, std::memory_order_release);
      b.producer->Connect(b.backend.get());
    }
  });
}

TracingMuxerImpl::~TracingMuxerImpl() = default;

bool TracingMuxerImpl::retired_for_posts() {
  std::lock_guard<std::mutex> lock(retire_mutex_);
  return retired_;
}

void TracingMuxerImpl::RegisterAllWith(ProducerEndpoint* endpoint) {
  // Muxer thread, as RegisterDataSource's task: each registration is sent
  // by exactly one of the two. Endpoints never call back from inside a
  // call, so holding the lock is safe.
  std::lock_guard<std::mutex> guard(mutex_);
  for (const Registered& r : registry_)
    endpoint->RegisterDataSource(r.descriptor);
}

void TracingMuxerImpl::EndInstancesOf(uint32_t backend_id) {
  // By key order, one at a time: a stop may end its instance at once or
  // later (a deferred stop), so the map is not walked while stops run.
  DataSourceInstanceId next = 0;
  for (;;) {
    DataSourceInstanceId id;
    {
      std::lock_guard<std::mutex> guard(mutex_);
      auto it = instances_.lower_bound({backend_id, next});
      if (it == instances_.end() || it->first.first != backend_id)
        return;
      id = it->first.second;
    }
    next = id + 1;
    StopDataSource(backend_id, id);
  }
}

bool TracingMuxerImpl::PostUnlessRetired(std::function<void()> task) {
  std::lock_guard<std::mutex> lock(retire_mutex_);
  if (retired_)
    return false;
  task_runner_->PostTask(std::move(task));
  return true;
}

void TracingMuxerImpl::Retire() {
  {
    // From here on posts from other threads (commits, deferred stops) are
    // dropped; tasks already queued run first and find no endpoint once
    // the task below disconnected it.
    std::lock_guard<std::mutex> lock(retire_mutex_);
    retired_ = true;
  }
  task_runner_->PostTaskAndWait([this] {
    std::vector<MuxedSession*> sessions;
    std::map<InstanceKey, InstanceRef> left;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      sessions.assign(sessions_.begin(), sessions_.end());
      left.swap(instances_);
    }
    for (MuxedSession* session : sessions)
      session->DetachFromService();
    // Instances whose deferred stop never completed: nothing can read their
    // data any more, so they end here.
    for (const auto& entry : left)
      ReleaseSlot(entry.second.state, entry.second.index);
    for (uint32_t id = 0; id < backend_count(); id++) {
    BackendConnection& b = backends_[id];
      b.producer->Disconnect();
      b.backend.reset();
    }
  });
  task_runner_.reset();  // Joins the thread; tasks still queued are dropped.
}

bool TracingMuxerImpl::HasBackend(BackendType backend) const {
  for (uint32_t id = 0; id < backend_count(); id++) {
    const BackendConnection& b = backends_[id];
    if (backend == kUnspecifiedBackend || b.type == backend)
      return true;
  }
  return false;
}

bool TracingMuxerImpl::TakesSessions(BackendType backend) const {
  for (uint32_t id = 0; id < backend_count(); id++) {
    const BackendConnection& b = backends_[id];
    if (b.takes_sessions && (backend == kUnspecifiedBackend || b.type == backend))
      return true;
  }
  return false;
}

void TracingMuxerImpl::WhenRegistrationsDelivered(BackendType backend,
                                                  std::function<void()> then) {
  for (uint32_t id = 0; id < backend_count(); id++) {
    BackendConnection& b = backends_[id];
    if (b.backend && b.takes_sessions &&
        (backend == kUnspecifiedBackend || b.type == backend)) {
      // In process, registrations are calls on this thread: delivered.
      if (b.type != kInProcessBackend) {
        b.producer->WhenRegistrationsDelivered(std::move(then));
        return;
      }
      break;
    }
  }
  then();
}

std::unique_ptr<ConsumerEndpoint> TracingMuxerImpl::ConnectConsumer(
    BackendType backend, Consumer* consumer) {
  for (uint32_t id = 0; id < backend_count(); id++) {
    BackendConnection& b = backends_[id];
    if (b.backend && b.takes_sessions &&
        (backend == kUnspecifiedBackend || b.type == backend)) {
      TracingBackend::ConnectConsumerArgs args;
      args.consumer = consumer;
      args.task_runner = task_runner_.get();
      args.uid = static_cast<int32_t>(getuid());
      return b.backend->ConnectConsumer(args);
    }
  }
  return nullptr;
}

void TracingMuxerImpl::AddSession(MuxedSession* session) {
  std::lock_guard<std::mutex> lock(mutex_);
  sessions_.insert(session);
}

void TracingMuxerImpl::RemoveSession(MuxedSession* session) {
  std::lock_guard<std::mutex> lock(mutex_);
  sessions_.erase(session);
}

bool TracingMuxerImpl::RegisterDataSource(
    const protos::gen::DataSourceDescriptor& descriptor,
    DataSourceFactory factory, DataSourceStaticState* state) {
  if (descriptor.name().empty())
    return false;
  if (forked_) {
    ZT_ELOG("DataSource::Register(\"%s\"): this process was forked from the one that "
            "initialized tracing, whose tracing thread it does not have; call "
            "Tracing::Initialize() in the child first",
            descriptor.name().c_str());
    return false;
  }
  protos::gen::DataSourceDescriptor desc = descriptor;
  // Every SDK data source acknowledges its start (right after OnStart) and
  // may defer its stop: the service waits for both.
  desc.set_will_notify_on_start(true);
  desc.set_will_notify_on_stop(true);
  // Entered in the registry and sent in one task on the muxer thread,
  // where connections complete too (OnConnect sends the whole registry):
  // a connection completes either before (this task sends it) or after
  // (OnConnect does), never in between, which sent it twice. Synchronous,
  // so that a session started right after sees it.
  bool added = false;
  auto do_register = [this, &desc, &factory, state, &added] {
    {
      std::lock_guard<std::mutex> guard(mutex_);
      for (const Registered& r : registry_) {
        if (r.descriptor.name() == desc.name())
          return;
      }
      registry_.push_back(Registered{desc, std::move(factory), state});
    }
    added = true;
    for (uint32_t id = 0; id < backend_count(); id++) {
    BackendConnection& b = backends_[id];
      if (b.producer->endpoint())
        b.producer->endpoint()->RegisterDataSource(desc);
    }
  };
  if (task_runner_->RunsTasksOnCurrentThread())
    do_register();
  else
    task_runner_->PostTaskAndWait(do_register);
  return added;
}

bool TracingMuxerImpl::UpdateDataSource(const protos::gen::DataSourceDescriptor& desc) {
  bool found = false;
  auto do_update = [this, &desc, &found] {
    {
      std::lock_guard<std::mutex> guard(mutex_);
      for (Registered& r : registry_) {
        if (r.descriptor.name() == desc.name()) {
          r.descriptor = desc;  // A producer (re)connecting registers this one.
          found = true;
        }
      }
    }
    if (!found)
      return;
    for (uint32_t id = 0; id < backend_count(); id++) {
      BackendConnection& b = backends_[id];
      if (b.producer->endpoint())
        b.producer->endpoint()->UpdateDataSource(desc);
    }
  };
  if (task_runner_->RunsTasksOnCurrentThread())
    do_update();
  else
    task_runner_->PostTaskAndWait(do_update);
  return found;
}

bool TracingMuxerImpl::FindInstance(const InstanceKey& key, InstanceRef* ref) {
  std::lock_guard<std::mutex> guard(mutex_);
  auto it = instances_.find(key);
  if (it == instances_.end())
    return false;
  *ref = it->second;
  return true;
}

void TracingMuxerImpl::SetupDataSource(uint32_t backend_id,
                                       DataSourceInstanceId id,
                                       const protos::gen::DataSourceConfig& config) {
  DataSourceStaticState* state = nullptr;
  DataSourceFactory factory;
  uint32_t index = kMaxDataSourceInstances;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    for (const Registered& r : registry_) {
      if (r.descriptor.name() == config.name()) {
        state = r.state;
        factory = r.factory;
        break;
      }
    }
    if (!state)
      return;  // Unregistered meanwhile: the stop is acknowledged as unknown.
    for (uint32_t i = 0; i < kMaxDataSourceInstances; i++) {
      if (!state->instances[i].in_use) {
        index = i;
        break;
      }
    }
    if (index == kMaxDataSourceInstances) {
      ZT_WLOG("data source \"%s\" is already in %u sessions: this one goes "
              "without it", config.name().c_str(), kMaxDataSourceInstances);
      return;
    }
    state->instances[index].in_use = true;
    instances_[{backend_id, id}] = InstanceRef{state, index};
  }
  DataSourceInstanceState& slot = state->instances[index];
  std::lock_guard<std::recursive_mutex> slot_guard(slot.lock);
  slot.data_source = factory().release();
  slot.backend_id = backend_id;
  slot.target_buffer = config.target_buffer();
  slot.instance_id = id;
  slot.generation.fetch_add(1, std::memory_order_release);
  slot.epoch.fetch_add(1, std::memory_order_release);
  DataSourceBase::SetupArgs args;
  args.config = &config;
  args.internal_instance_index = index;
  slot.data_source->OnSetup(args);
}

void TracingMuxerImpl::StartDataSource(uint32_t backend_id,
                                       DataSourceInstanceId id) {
  InstanceRef ref;
  if (!FindInstance({backend_id, id}, &ref))
    return;
  DataSourceInstanceState& slot = ref.state->instances[ref.index];
  // Writing is on before OnStart runs, as in upstream's SDK: what OnStart
  // writes, or threads it wakes write, is kept, not silently dropped.
  // Writers of other threads wait on the slot's lock until OnStart returns.
  std::lock_guard<std::recursive_mutex> slot_guard(slot.lock);
  ref.state->valid_instances.fetch_or(1u << ref.index, std::memory_order_release);
  if (ref.state->any_valid_mirror)
    ref.state->any_valid_mirror->store(true, std::memory_order_release);
  slot.epoch.fetch_add(1, std::memory_order_release);
  DataSourceBase::StartArgs args;
  args.internal_instance_index = ref.index;
  slot.data_source->OnStart(args);
}

void TracingMuxerImpl::StopDataSource(uint32_t backend_id,
                                      DataSourceInstanceId id) {
  InstanceRef ref;
  if (!FindInstance({backend_id, id}, &ref)) {
    // Never set up here (unregistered, or all 8 slots taken).
    backends_[backend_id].producer->PostToEndpoint(
        [id](ProducerEndpoint* e) { e->NotifyDataSourceStopped(id); });
    return;
  }
  DataSourceInstanceState& slot = ref.state->instances[ref.index];
  StopArgsImpl args(this, ref.state, ref.index, id);
  {
    // Trace() keeps writing into the instance until the stop finishes, so
    // that OnStop (or the deferred stop) can write its last data.
    std::lock_guard<std::recursive_mutex> slot_guard(slot.lock);
    slot.data_source->OnStop(args);
  }
  if (!args.deferred())
    FinishStop(ref.state, ref.index, id);
}

void TracingMuxerImpl::NotifyStopped(DataSourceStaticState* state,
                                     uint32_t index, uint64_t instance_id) {
  // Once retired, Retire() ended the instance already: dropped.
  PostUnlessRetired(
      [this, state, index, instance_id] { FinishStop(state, index, instance_id); });
}

void TracingMuxerImpl::ReleaseSlot(DataSourceStaticState* state,
                                   uint32_t index) {
  const uint32_t left =
      state->valid_instances.fetch_and(~(1u << index), std::memory_order_release) &
      ~(1u << index);
  if (state->any_valid_mirror)
    state->any_valid_mirror->store(left != 0, std::memory_order_release);
  DataSourceInstanceState& slot = state->instances[index];
  slot.epoch.fetch_add(1, std::memory_order_release);
  {
    std::lock_guard<std::recursive_mutex> slot_guard(slot.lock);
    delete slot.data_source;
    slot.data_source = nullptr;
    slot.instance_id = 0;
  }
  std::lock_guard<std::mutex> guard(mutex_);
  slot.in_use = false;
}

void TracingMuxerImpl::FinishStop(DataSourceStaticState* state, uint32_t index,
                                  DataSourceInstanceId id) {
  const uint32_t backend_id = state->instances[index].backend_id;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    auto it = instances_.find({backend_id, id});
    if (it == instances_.end() || it->second.state != state ||
        it->second.index != index) {
      return;  // Finished already (a deferred closure called twice).
    }
    instances_.erase(it);
  }
  ReleaseSlot(state, index);
  // Chunks completed but not yet committed (the arbiter batches them) go
  // out first; the acknowledgement follows them on the same FIFO, so the
  // service has them before it scrapes and closes the session.
  ProducerImpl* producer = backends_[backend_id].producer.get();
  producer->arbiter()->FlushPendingCommitData();
  producer->PostToEndpoint([id](ProducerEndpoint* e) { e->NotifyDataSourceStopped(id); });
}

void TracingMuxerImpl::FlushDataSources(uint32_t backend_id,
                                        FlushRequestId request,
                                        const std::vector<DataSourceInstanceId>& ids) {
  auto pending = std::make_shared<PendingFlush>();
  pending->backend_id = backend_id;
  pending->request = request;
  for (DataSourceInstanceId id : ids) {
    InstanceRef ref;
    if (!FindInstance({backend_id, id}, &ref))
      continue;
    DataSourceInstanceState& slot = ref.state->instances[ref.index];
    std::lock_guard<std::recursive_mutex> slot_guard(slot.lock);
    if (slot.data_source) {
      FlushArgsImpl args(this, pending, ref.index);
      slot.data_source->OnFlush(args);
    }
  }
  FinishFlushPart(pending.get());
}

void TracingMuxerImpl::FinishFlushPart(PendingFlush* pending) {
  if (--pending->left > 0)
    return;  // Deferred flushes still to come.
  // Chunks still held by writer threads are scraped by the service; the
  // commit carrying the request's id answers the flush.
  backends_[pending->backend_id].producer->arbiter()->FlushPendingCommitData(pending->request);
}

void TracingMuxerImpl::ClearIncrementalState(
    uint32_t backend_id, const std::vector<DataSourceInstanceId>& ids) {
  for (DataSourceInstanceId id : ids) {
    InstanceRef ref;
    if (FindInstance({backend_id, id}, &ref)) {
      DataSourceInstanceState& slot = ref.state->instances[ref.index];
      slot.incremental_generation.fetch_add(1, std::memory_order_release);
      slot.epoch.fetch_add(1, std::memory_order_release);
    }
  }
}

std::unique_ptr<TraceWriter> TracingMuxerImpl::CreateTraceWriter(
    DataSourceStaticState* state, uint32_t index, uint64_t generation,
    BufferExhaustedPolicy policy) {
  if (index >= kMaxDataSourceInstances || forked_)
    return nullptr;
  DataSourceInstanceState& slot = state->instances[index];
  uint32_t target_buffer;
  uint32_t backend_id;
  {
    std::lock_guard<std::recursive_mutex> slot_guard(slot.lock);
    // Only a started instance writes: the slot may have been reused for an
    // instance that is set up but not started since Trace() saw its bit.
    const bool started =
        state->valid_instances.load(std::memory_order_acquire) & (1u << index);
    if (slot.generation.load(std::memory_order_relaxed) != generation ||
        !slot.data_source || !started) {
      return nullptr;
    }
    target_buffer = slot.target_buffer;
    backend_id = slot.backend_id;
  }
  ProducerImpl* producer = backends_[backend_id].producer.get();
  std::unique_ptr<TraceWriter> writer =
      producer->arbiter()->CreateTraceWriter(target_buffer, policy);
  if (!writer)
    return nullptr;
  const uint32_t writer_id = writer->writer_id();
  // Tells the service where to scrape this writer's chunks (at a flush or
  // a stop) before it can be asked to; a committed chunk names its own
  // target buffer, and may even come first, through the commit queue from
  // the writer's thread (docs/design/commit_queue.md).
  producer->PostToEndpoint([writer_id, target_buffer](ProducerEndpoint* e) {
    e->RegisterTraceWriter(writer_id, target_buffer);
  });
  return writer;
}

}  // namespace internal
}  // namespace zt
