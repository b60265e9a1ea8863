#include "src/tracing/sdk/tracing_muxer_impl.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "zt/tracing/data_source.h"

namespace zt {

DataSourceBase::~DataSourceBase() = default;
DataSourceBase::StopArgs::~StopArgs() = default;

namespace internal {

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

}  // namespace

TracingMuxer::~TracingMuxer() = default;

TracingMuxer* TracingMuxer::Get() {
  return g_muxer.load(std::memory_order_acquire);
}

void TracingMuxer::SetInstance(TracingMuxer* muxer) {
  g_muxer.store(muxer, std::memory_order_release);
}

bool TracingMuxerImpl::InitializeInstance(const TracingInitArgs& args) {
  std::lock_guard<std::mutex> guard(g_init_mutex);
  if (Get())
    return true;
  constexpr uint32_t kKnown = kInProcessBackend | kSystemBackend;
  if (args.backends & ~kKnown) {
    fprintf(stderr, "zt: Tracing::Initialize: unknown backend bits 0x%x ignored\n",
            args.backends & ~kKnown);
  }
  if (args.backends & kSystemBackend) {
    fprintf(stderr,
            "zt: Tracing::Initialize: the system backend (a tracing daemon "
            "over a UNIX socket) is not available in this build yet; "
            "ignoring kSystemBackend\n");
  }
  if (!(args.backends & kInProcessBackend)) {
    fprintf(stderr,
            "zt: Tracing::Initialize: no available backend requested "
            "(backends = 0x%x); tracing stays off. Set "
            "TracingInitArgs::backends to zt::kInProcessBackend.\n",
            args.backends);
    return false;
  }
  SetInstance(new TracingMuxerImpl(args));  // Never deleted, on purpose.
  return true;
}

void TracingMuxerImpl::ShutdownInstance() {
  std::lock_guard<std::mutex> guard(g_init_mutex);
  TracingMuxerImpl* muxer = instance();
  if (!muxer)
    return;
  if (muxer->task_runner_->RunsTasksOnCurrentThread()) {
    fprintf(stderr,
            "zt: Tracing::Shutdown() called on the tracing service's thread "
            "(from a tracing callback); call it from another thread\n");
    abort();
  }
  // Sessions first, while data sources can still reach the muxer to write
  // their last packets from OnStop.
  std::vector<InProcessSession*> sessions;
  {
    std::lock_guard<std::mutex> lock(muxer->mutex_);
    sessions.assign(muxer->sessions_.begin(), muxer->sessions_.end());
  }
  for (InProcessSession* session : sessions)
    session->StopBlocking();
  SetInstance(nullptr);
  muxer->Retire();
  muxer->next_retired_ = g_retired_muxers;
  g_retired_muxers = muxer;
}

void TracingMuxerImpl::Retire() {
  task_runner_->PostTaskAndWait([this] {
    // From here on commits are dropped and tasks already queued find no
    // endpoint (they check).
    retired_.store(true, std::memory_order_release);
    std::vector<InProcessSession*> sessions;
    std::map<DataSourceInstanceId, InstanceRef> left;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      sessions.assign(sessions_.begin(), sessions_.end());
      left.swap(instances_);
    }
    for (InProcessSession* session : sessions)
      session->DetachFromService();
    // Instances whose deferred stop never completed: nothing can read their
    // data any more, so they end here.
    for (const auto& entry : left)
      ReleaseSlot(entry.second.state, entry.second.index);
    producer_endpoint_.reset();
    service_.reset();
  });
  task_runner_.reset();  // Joins the thread; tasks still queued are dropped.
}

void TracingMuxerImpl::AddSession(InProcessSession* session) {
  std::lock_guard<std::mutex> lock(mutex_);
  sessions_.insert(session);
}

void TracingMuxerImpl::RemoveSession(InProcessSession* session) {
  std::lock_guard<std::mutex> lock(mutex_);
  sessions_.erase(session);
}

TracingMuxerImpl* TracingMuxerImpl::instance() {
  return static_cast<TracingMuxerImpl*>(Get());
}

TracingMuxerImpl::TracingMuxerImpl(const TracingInitArgs& args)
    : task_runner_(new base::ThreadTaskRunner("zt.service")) {
  TracingService::ProducerOptions options;
  options.name = "zt.process." + std::to_string(getpid());
  options.uid = static_cast<int32_t>(getuid());
  options.pid = static_cast<int32_t>(getpid());
  options.shm_size_hint_bytes = size_t{args.shmem_size_hint_kb} * 1024;
  options.shm_page_size_hint_bytes = size_t{args.shmem_page_size_hint_kb} * 1024;
  // The SMB is ours (shared with the service), so that it outlives the
  // service after Shutdown() for writers other threads still hold.
  const TracingService::ShmGeometry geometry = TracingService::ComputeShmGeometry(
      options.shm_size_hint_bytes, options.shm_page_size_hint_bytes);
  void* memory = aligned_alloc(4096, geometry.size);
  if (!memory) {
    fprintf(stderr, "zt: cannot allocate a %zu-byte shared memory buffer\n",
            geometry.size);
    abort();
  }
  memset(memory, 0, geometry.size);
  smb_ = std::shared_ptr<uint8_t>(static_cast<uint8_t*>(memory), &free);
  options.provided_shm = smb_;
  task_runner_->PostTaskAndWait([&] {
    service_ = TracingService::Create(task_runner_.get());
    producer_endpoint_ = service_->ConnectProducer(this, options);
    SharedMemoryArbiter::Options arbiter_options;
    // kStallThenDrop data sources wait this long for a free chunk before
    // dropping: long enough to ride out a busy machine, short enough that a
    // stuck service cannot hang the program.
    arbiter_options.stall_timeout = std::chrono::milliseconds(kStallTimeoutMs);
    arbiter_.reset(new SharedMemoryArbiter(
        producer_endpoint_->shared_memory(),
        producer_endpoint_->shared_memory_size(),
        producer_endpoint_->shared_memory_page_size(), this, arbiter_options));
  });
}

TracingMuxerImpl::~TracingMuxerImpl() = default;

bool TracingMuxerImpl::RegisterDataSource(
    const protos::gen::DataSourceDescriptor& descriptor,
    DataSourceFactory factory, DataSourceStaticState* state) {
  if (descriptor.name().empty())
    return false;
  protos::gen::DataSourceDescriptor desc = descriptor;
  // Every SDK data source may defer its stop: the service waits for us.
  desc.set_will_notify_on_stop(true);
  {
    std::lock_guard<std::mutex> guard(mutex_);
    for (const Registered& r : registry_) {
      if (r.descriptor.name() == desc.name())
        return false;
    }
    registry_.push_back(Registered{desc, std::move(factory), state});
  }
  // Synchronous, so that a session started right after sees it.
  auto do_register = [this, desc] { producer_endpoint_->RegisterDataSource(desc); };
  if (task_runner_->RunsTasksOnCurrentThread())
    do_register();
  else
    task_runner_->PostTaskAndWait(do_register);
  return true;
}

bool TracingMuxerImpl::FindInstance(DataSourceInstanceId id, InstanceRef* ref) {
  std::lock_guard<std::mutex> guard(mutex_);
  auto it = instances_.find(id);
  if (it == instances_.end())
    return false;
  *ref = it->second;
  return true;
}

void TracingMuxerImpl::SetupDataSource(
    DataSourceInstanceId id, const protos::gen::DataSourceConfig& config) {
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
    if (index == kMaxDataSourceInstances)
      return;  // Already in 8 sessions: this one goes without it.
    state->instances[index].in_use = true;
    instances_[id] = InstanceRef{state, index};
  }
  DataSourceInstanceState& slot = state->instances[index];
  std::lock_guard<std::recursive_mutex> slot_guard(slot.lock);
  slot.data_source = factory().release();
  slot.target_buffer = config.target_buffer();
  slot.instance_id = id;
  slot.generation.fetch_add(1, std::memory_order_release);
  DataSourceBase::SetupArgs args;
  args.config = &config;
  args.internal_instance_index = index;
  slot.data_source->OnSetup(args);
}

void TracingMuxerImpl::StartDataSource(DataSourceInstanceId id,
                                       const protos::gen::DataSourceConfig&) {
  InstanceRef ref;
  if (!FindInstance(id, &ref))
    return;
  DataSourceInstanceState& slot = ref.state->instances[ref.index];
  {
    std::lock_guard<std::recursive_mutex> slot_guard(slot.lock);
    DataSourceBase::StartArgs args;
    args.internal_instance_index = ref.index;
    slot.data_source->OnStart(args);
  }
  ref.state->valid_instances.fetch_or(1u << ref.index, std::memory_order_release);
}

void TracingMuxerImpl::StopDataSource(DataSourceInstanceId id) {
  InstanceRef ref;
  if (!FindInstance(id, &ref)) {
    // Never set up here (unregistered, or all 8 slots taken). Posted: the
    // service is still sending this session's other stops.
    task_runner_->PostTask([this, id] {
      if (producer_endpoint_)
        producer_endpoint_->NotifyDataSourceStopped(id);
    });
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
  if (retired_.load(std::memory_order_acquire))
    return;  // Retire() ended the instance already.
  task_runner_->PostTask(
      [this, state, index, instance_id] { FinishStop(state, index, instance_id); });
}

void TracingMuxerImpl::ReleaseSlot(DataSourceStaticState* state,
                                   uint32_t index) {
  state->valid_instances.fetch_and(~(1u << index), std::memory_order_release);
  DataSourceInstanceState& slot = state->instances[index];
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
  {
    std::lock_guard<std::mutex> guard(mutex_);
    auto it = instances_.find(id);
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
  arbiter_->FlushPendingCommitData();
  task_runner_->PostTask([this, id] {
    if (producer_endpoint_)
      producer_endpoint_->NotifyDataSourceStopped(id);
  });
}

void TracingMuxerImpl::Flush(FlushRequestId request,
                             const std::vector<DataSourceInstanceId>& ids) {
  for (DataSourceInstanceId id : ids) {
    InstanceRef ref;
    if (!FindInstance(id, &ref))
      continue;
    DataSourceInstanceState& slot = ref.state->instances[ref.index];
    std::lock_guard<std::recursive_mutex> slot_guard(slot.lock);
    if (slot.data_source) {
      DataSourceBase::FlushArgs args;
      args.internal_instance_index = ref.index;
      slot.data_source->OnFlush(args);
    }
  }
  // Chunks still held by writer threads are scraped by the service.
  arbiter_->FlushPendingCommitData(request);
}

void TracingMuxerImpl::ClearIncrementalState(
    const std::vector<DataSourceInstanceId>& ids) {
  for (DataSourceInstanceId id : ids) {
    InstanceRef ref;
    if (FindInstance(id, &ref)) {
      ref.state->instances[ref.index].incremental_generation.fetch_add(
          1, std::memory_order_release);
    }
  }
}

void TracingMuxerImpl::OnCommit(CommitData data) {
  // After Shutdown(): a writer some thread still held returned its chunk.
  // No session can read it any more.
  if (retired_.load(std::memory_order_acquire))
    return;
  task_runner_->PostTask([this, data = std::move(data)] {
    if (producer_endpoint_)
      producer_endpoint_->CommitData(data);
  });
}

std::unique_ptr<TraceWriter> TracingMuxerImpl::CreateTraceWriter(
    DataSourceStaticState* state, uint32_t index, uint64_t generation,
    BufferExhaustedPolicy policy) {
  if (index >= kMaxDataSourceInstances)
    return nullptr;
  DataSourceInstanceState& slot = state->instances[index];
  uint32_t target_buffer;
  {
    std::lock_guard<std::recursive_mutex> slot_guard(slot.lock);
    if (slot.generation.load(std::memory_order_relaxed) != generation ||
        !slot.data_source) {
      return nullptr;
    }
    target_buffer = slot.target_buffer;
  }
  std::unique_ptr<TraceWriter> writer =
      arbiter_->CreateTraceWriter(target_buffer, policy);
  if (!writer)
    return nullptr;
  const uint32_t writer_id = writer->writer_id();
  // Ahead of any chunk of this writer on the same FIFO: the service knows
  // where to scrape it to before it can see it.
  task_runner_->PostTask([this, writer_id, target_buffer] {
    if (producer_endpoint_)
      producer_endpoint_->RegisterTraceWriter(writer_id, target_buffer);
  });
  return writer;
}

}  // namespace internal
}  // namespace zt
