// TracingMuxerImpl::ProducerImpl (tracing_muxer_producer.h): the process's
// producer on one backend, its connections and their SMBs and arbiters.

#include "src/tracing/sdk/tracing_muxer_producer.h"

#include <unistd.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "zt/base/logging.h"

namespace zt {
namespace internal {

namespace {

// TracingInitArgs::shmem_size_hint_kb when it is 0.
constexpr uint32_t kDefaultSmbKb = 1024;

}  // namespace

// One connection's SMB, arbiters and, if the SMB is the endpoint's, the
// endpoint: what writers may still touch once it ended. Also the
// arbiters' commit sink: commits of an earlier connection's writers are
// dropped, never sent to the next service (its buffers are another
// session's). Connections chain to the ones before and are never freed.
struct TracingMuxerImpl::ProducerImpl::Connection : public CommitSink {
  Connection(ProducerImpl* p, uint64_t g) : producer(p), generation(g) {}
  // Any writer thread: committed on it through the endpoint's committer
  // where it has one (the socket client's commit queue), else posted to
  // the muxer thread. Batches stay in order across the two ways: none
  // takes the first while one posted is not delivered yet.
  void OnCommit(CommitData data) override {
    // In a forked child (no SDK thread; the ring is the parent's) the post
    // below goes nowhere, as before; the check comes before any lock a
    // parent's thread may have held at the fork.
    const bool counted = committer && !producer->muxer_->forked();
    if (counted) {
      std::lock_guard<std::mutex> lock(commit_order_mutex);
      if (commits_posted == 0 && !retired && committer->TryCommit(data))
        return;
      commits_posted++;
    }
    ProducerImpl* const p = producer;
    const uint64_t g = generation;
    // After Shutdown(), a writer some thread still held returns its
    // chunk: no session can read it any more, and the post is dropped.
    p->muxer_->PostUnlessRetired([this, p, g, counted, data = std::move(data)] {
      ProducerEndpoint* e = p->endpoint();
      if (e && p->connection_->generation == g)
        e->CommitData(data);
      if (counted) {
        std::lock_guard<std::mutex> lock(commit_order_mutex);
        commits_posted--;
      }
    });
  }

  ProducerImpl* const producer;
  const uint64_t generation;
  // The endpoint's, set before any arbiter exists (so before any commit).
  std::shared_ptr<ConcurrentCommitter> committer;
  std::mutex commit_order_mutex;
  // Guarded by commit_order_mutex.
  uint32_t commits_posted = 0;
  // The endpoint was retired (a disconnection, Shutdown()): a writer still
  // held commits nothing more, even if the endpoint is kept (it owns the
  // SMB) and its connection lives on.
  bool retired = false;
  std::shared_ptr<base::SharedMemory> smb;
  std::unique_ptr<SharedMemoryArbiter> arbiter;
  std::unique_ptr<SharedMemoryArbiter> service_smb_arbiter;
  std::unique_ptr<ProducerEndpoint> endpoint;  // If it owns the SMB.
  std::unique_ptr<Connection> previous;
};

TracingMuxerImpl::ProducerImpl::ProducerImpl(TracingMuxerImpl* muxer, uint32_t backend_id,
                                             const TracingInitArgs& args)
    : muxer_(muxer), backend_id_(backend_id) {
  options_.name = "zt.process." + std::to_string(getpid());
  options_.uid = static_cast<int32_t>(getuid());
  options_.pid = static_cast<int32_t>(getpid());
  // 1 MiB unless asked otherwise, not upstream's 256 KiB: with 256 KiB a
  // writer stalls on a full SMB whenever the service is a wake-up late,
  // and throughput halves, in process as through a daemon
  // (docs/benchmarks.md, "System mode").
  options_.shm_size_hint_bytes =
      size_t{args.shmem_size_hint_kb ? args.shmem_size_hint_kb : kDefaultSmbKb} * 1024;
  options_.shm_page_size_hint_bytes = size_t{args.shmem_page_size_hint_kb} * 1024;
}

TracingMuxerImpl::ProducerImpl::~ProducerImpl() = default;

void TracingMuxerImpl::ProducerImpl::Connect(TracingBackend* backend) {
  backend_ = backend;
  const TracingService::ShmGeometry geometry = TracingService::ComputeShmGeometry(
      options_.shm_size_hint_bytes, options_.shm_page_size_hint_bytes);
  options_.provided_shm = backend->CreateSharedMemory(geometry.size);
  if (!options_.provided_shm)
    ZT_FATAL("cannot allocate a %zu-byte shared memory buffer", geometry.size);
  // The previous connection's objects stay reachable from the new one.
  std::unique_ptr<Connection> previous = std::move(connection_);
  const uint64_t generation = previous ? previous->generation + 1 : 1;
  connection_.reset(new Connection(this, generation));
  connection_->previous = std::move(previous);
  connection_->smb = options_.provided_shm;
  TracingBackend::ConnectProducerArgs connect_args;
  connect_args.producer = this;
  connect_args.task_runner = muxer_->task_runner();
  connect_args.options = options_;
  endpoint_ = backend->ConnectProducer(connect_args);
  ZT_CHECK(endpoint_);  // Backends connect asynchronously, never refuse here.
  connection_->committer = endpoint_->concurrent_committer();
  // The arbiter over our SMB exists from now on; a service that declines
  // the SMB (an older daemon) gets an arbiter over its own at setup.
  SetArbiter(options_.provided_shm.get(), geometry.page_size);
}

void TracingMuxerImpl::ProducerImpl::Disconnect() {
  connected_ = false;
  RetireEndpoint();
}

void TracingMuxerImpl::ProducerImpl::WhenRegistrationsDelivered(std::function<void()> then) {
  // Once, whichever comes first: the answer, the connection failing, or
  // the timeout.
  auto once = std::make_shared<std::function<void()>>(std::move(then));
  auto run = [once] {
    if (*once) {
      std::function<void()> f = std::move(*once);
      *once = nullptr;
      f();
    }
  };
  muxer_->task_runner()->PostDelayedTask(run, kRegistrationSyncTimeoutMs);
  if (connected_) {
    SendSync(run);
  } else if (endpoint_) {
    waiting_for_connection_.push_back(run);  // OnConnect sends the registry first.
  } else {
    run();  // Not connected, retrying later: no service has a session to set up.
  }
}

// An empty ActivateTriggers: upstream's services and ours answer it; it
// activates nothing.
void TracingMuxerImpl::ProducerImpl::SendSync(std::function<void()> done) {
  endpoint_->ActivateTriggers({}, [done](bool) { done(); });
}

void TracingMuxerImpl::ProducerImpl::RunWaitingForConnection(bool connected) {
  std::vector<std::function<void()>> waiting;
  waiting.swap(waiting_for_connection_);
  for (auto& w : waiting) {
    if (connected)
      SendSync(w);
    else
      w();
  }
}

void TracingMuxerImpl::ProducerImpl::PostToEndpoint(
    std::function<void(ProducerEndpoint*)> call) {
  muxer_->PostUnlessRetired([this, call = std::move(call)] {
    if (ProducerEndpoint* e = endpoint())
      call(e);
  });
}

void TracingMuxerImpl::ProducerImpl::OnConnect() {
  connected_ = true;
  muxer_->RegisterAllWith(endpoint_.get());
  RunWaitingForConnection(true);
}

void TracingMuxerImpl::ProducerImpl::OnDisconnect() {
  const bool was_connected = connected_;
  connected_ = false;
  RunWaitingForConnection(false);
  // The producer is never freed; the task is dropped with the runner.
  if (!backend_->OnProducerDisconnected(was_connected, muxer_->task_runner(), [this] {
        if (!muxer_->retired_for_posts())
          Connect(backend_);
      })) {
    return;
  }
  // Instances of that service's sessions end here: their writers stop.
  muxer_->EndInstancesOf(backend_id_);
  RetireEndpoint();
}

void TracingMuxerImpl::ProducerImpl::OnTracingSetup() {
  // A service that declined our SMB sent its own: writers use that one.
  base::SharedMemory* shm = endpoint_->shared_memory();
  if (shm && shm != options_.provided_shm.get()) {
    endpoint_owns_smb_ = true;
    SetArbiter(shm, endpoint_->shared_memory_page_size());
  }
}

void TracingMuxerImpl::ProducerImpl::SetupDataSource(
    DataSourceInstanceId id, const protos::gen::DataSourceConfig& config) {
  muxer_->SetupDataSource(backend_id_, id, config);
}

void TracingMuxerImpl::ProducerImpl::StartDataSource(DataSourceInstanceId id,
                                                     const protos::gen::DataSourceConfig&) {
  muxer_->StartDataSource(backend_id_, id);
  // Every SDK data source acknowledges its start (will_notify_on_start):
  // StartBlocking() returns once the service heard from all of them.
  if (ProducerEndpoint* e = endpoint())
    e->NotifyDataSourceStarted(id);
}

void TracingMuxerImpl::ProducerImpl::StopDataSource(DataSourceInstanceId id) {
  muxer_->StopDataSource(backend_id_, id);
}

void TracingMuxerImpl::ProducerImpl::Flush(FlushRequestId request,
                                           const std::vector<DataSourceInstanceId>& ids) {
  muxer_->FlushDataSources(backend_id_, request, ids);
}

void TracingMuxerImpl::ProducerImpl::ClearIncrementalState(
    const std::vector<DataSourceInstanceId>& ids) {
  muxer_->ClearIncrementalState(backend_id_, ids);
}

void TracingMuxerImpl::ProducerImpl::SetArbiter(base::SharedMemory* shm, size_t page_size) {
  SharedMemoryArbiter::Options arbiter_options;
  // kStallThenDrop data sources wait this long for a free chunk before
  // dropping: long enough to ride out a busy machine, short enough that a
  // stuck service cannot hang the program.
  arbiter_options.stall_timeout = std::chrono::milliseconds(kStallTimeoutMs);
  std::unique_ptr<SharedMemoryArbiter>& slot =
      connection_->arbiter ? connection_->service_smb_arbiter : connection_->arbiter;
  slot.reset(new SharedMemoryArbiter(shm->start(), shm->size(), page_size, connection_.get(),
                                     arbiter_options));
  arbiter_.store(slot.get(), std::memory_order_release);
}

void TracingMuxerImpl::ProducerImpl::RetireEndpoint() {
  if (connection_) {
    std::lock_guard<std::mutex> lock(connection_->commit_order_mutex);
    connection_->retired = true;
  }
  if (endpoint_owns_smb_)
    connection_->endpoint = std::move(endpoint_);
  endpoint_.reset();
  endpoint_owns_smb_ = false;
}

}  // namespace internal
}  // namespace zt
