// TracingMuxerImpl: the SDK's process-wide muxer. It owns the task runner
// every SDK callback runs on, the registry of DataSource<T> types and their
// instance slots, and one producer connection per backend (TracingBackend:
// in-process today, a daemon next), through which it creates instances when
// a service asks and hands out TraceWriters over that producer's SMB.
// Created by Tracing::Initialize(). Never deleted: thread-local writers may
// still return chunks to an arbiter while the process exits, or after
// Tracing::Shutdown(), which disconnects and destroys the backends but
// keeps the arbiters and SMBs (see Retire()).

#ifndef ZT_SRC_TRACING_SDK_TRACING_MUXER_IMPL_H_
#define ZT_SRC_TRACING_SDK_TRACING_MUXER_IMPL_H_

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "src/base/thread_task_runner.h"
#include "src/tracing/sdk/muxer_triggers.h"
#include "src/tracing/sdk/tracing_backend.h"
#include "zt/ext/tracing/core/shared_memory_arbiter.h"
#include "zt/ext/tracing/core/tracing_service.h"
#include "zt/tracing/internal/data_source_internal.h"
#include "zt/tracing/tracing.h"

namespace zt {
namespace internal {

// A consumer session, as Shutdown sees it.
class MuxedSession {
 public:
  // As TracingSession::StopBlocking(). Not on the muxer's thread.
  virtual void StopBlocking() = 0;
  // Muxer thread: drops the connection to the service; every later call on
  // the session does nothing.
  virtual void DetachFromService() = 0;
  // In a child process after fork(), its only thread: as DetachFromService,
  // without touching the connection (the parent's; left as it is).
  virtual void ForgetAfterFork() = 0;

 protected:
  ~MuxedSession() = default;
};

struct PendingFlush;  // A flush request being answered (tracing_muxer_impl.cc).

class TracingMuxerImpl : public TracingMuxer {
 public:
  // How long a kStallThenDrop writer waits for a free chunk.
  static constexpr uint32_t kStallTimeoutMs = 1000;

  // Creates the instance if |args| asks for a backend we have; true once
  // tracing is initialized. Later calls do nothing.
  static bool InitializeInstance(const TracingInitArgs& args);
  // Retires the instance (if any): Tracing::Shutdown().
  static void ShutdownInstance();
  static TracingMuxerImpl* instance();
  // True in a child process forked after this muxer was made: its thread
  // and service connections stayed in the parent. Sessions, registrations
  // and writers are then refused at once (a log line says why), and
  // Tracing::Initialize() makes a new muxer for the child.
  bool forked() const { return forked_; }

  // A consumer connection for a session on |backend| (kUnspecifiedBackend:
  // the first initialized one that takes sessions), or null if there is
  // none. Muxer thread only; the endpoint is used there too.
  std::unique_ptr<ConsumerEndpoint> ConnectConsumer(BackendType backend,
                                                    Consumer* consumer);
  // Whether ConnectConsumer(|backend|) has a backend to connect to: one
  // initialized, and for the system backend, enable_system_consumer.
  bool TakesSessions(BackendType backend) const;
  // Muxer thread. Runs |then| (on the muxer thread) once the service of the
  // backend a session on |backend| connects to has received every data
  // source this process registered so far, so that a session enabled next
  // sets them up and StartBlocking() waits for them. A daemon gets the
  // registrations on the producer's socket and the session on the
  // consumer's, in no set order: this waits for the producer's connection
  // (if it is being made) and a round trip on it (requests are handled in
  // order), at most kRegistrationSyncTimeoutMs. In process: at once.
  void WhenRegistrationsDelivered(BackendType backend, std::function<void()> then);
  static constexpr uint32_t kRegistrationSyncTimeoutMs = 5000;
  bool HasBackend(BackendType backend) const;

  // Tracing::ActivateTriggers (through ActivateTriggersOnMuxer,
  // muxer_triggers.h).
  void ActivateTriggers(const std::vector<std::string>& triggers,
                        InProcessTriggers in_process);

  // Sessions register themselves so that Shutdown can stop them. Any thread.
  void AddSession(MuxedSession* session);
  void RemoveSession(MuxedSession* session);

  // TracingMuxer (any thread).
  bool RegisterDataSource(const protos::gen::DataSourceDescriptor& descriptor,
                          DataSourceFactory factory,
                          DataSourceStaticState* state) override;
  std::unique_ptr<TraceWriter> CreateTraceWriter(
      DataSourceStaticState* state, uint32_t index, uint64_t generation,
      BufferExhaustedPolicy policy) override;
  void NotifyStopped(DataSourceStaticState* state, uint32_t index,
                     uint64_t instance_id) override;

  base::ThreadTaskRunner* task_runner() { return task_runner_.get(); }

  // Posts |task| to the muxer thread unless the muxer is retired (then
  // drops it, and returns false). Any thread, Retire() included: the check
  // and the post are one step, so no thread posts to a runner being freed
  // (a deferred stop's closure, a thread exiting during Shutdown()).
  // One part of a flush request done (the muxer's pass, or a deferred
  // flush): the last answers it. Muxer thread.
  void FinishFlushPart(PendingFlush* pending);
  bool UpdateDataSource(const protos::gen::DataSourceDescriptor& descriptor) override;
  bool PostToTracingThread(std::function<void()> task) override {
    return PostUnlessRetired(std::move(task));
  }
  bool PostUnlessRetired(std::function<void()> task);
  bool retired_for_posts();

 private:
  class ProducerImpl;

  struct BackendConnection {
    BackendType type = kUnspecifiedBackend;
    std::unique_ptr<TracingBackend> backend;  // Null once retired.
    std::unique_ptr<ProducerImpl> producer;   // Kept after retirement.
    bool takes_sessions = true;  // False: enable_system_consumer was false.
  };
  struct Registered {
    protos::gen::DataSourceDescriptor descriptor;
    DataSourceFactory factory;
    DataSourceStaticState* state;
  };
  struct InstanceRef {
    DataSourceStaticState* state;
    uint32_t index;
  };
  using InstanceKey = std::pair<uint32_t, DataSourceInstanceId>;  // Backend, id.

  explicit TracingMuxerImpl(const TracingInitArgs& args);
  ~TracingMuxerImpl() override;

  // The service's requests of a backend's producer (muxer thread).
  void SetupDataSource(uint32_t backend_id, DataSourceInstanceId id,
                       const protos::gen::DataSourceConfig& config);
  void StartDataSource(uint32_t backend_id, DataSourceInstanceId id);
  void StopDataSource(uint32_t backend_id, DataSourceInstanceId id);
  void FlushDataSources(uint32_t backend_id, FlushRequestId request,
                        const std::vector<DataSourceInstanceId>& ids);
  void ClearIncrementalState(uint32_t backend_id,
                             const std::vector<DataSourceInstanceId>& ids);
  // A backend's connection ended: its data source instances stop (their
  // sessions are gone with the service). Muxer thread.
  void EndInstancesOf(uint32_t backend_id);
  // Registers every registered data source with a (re)connected producer's
  // endpoint. Muxer thread.
  void RegisterAllWith(ProducerEndpoint* endpoint);

  // Stops every session, tears down every data source instance, destroys
  // the backends (and an in-process service) on the muxer thread and joins
  // it. Afterwards commits from writers still alive are dropped (nobody can
  // read them any more) and the arbiters and SMBs stay valid for those
  // writers' last calls.
  void Retire();

  // Ends slot |index| of |state|: Trace() stops writing into it, its data
  // source is deleted and the slot can be reused. Not under mutex_.
  void ReleaseSlot(DataSourceStaticState* state, uint32_t index);
  // Ends a stop (at once, or when a deferred stop's closure runs).
  void FinishStop(DataSourceStaticState* state, uint32_t index,
                  DataSourceInstanceId id);
  bool FindInstance(const InstanceKey& key, InstanceRef* ref);

  std::unique_ptr<base::ThreadTaskRunner> task_runner_;  // Null once retired.
  // Backends are added (never removed) on the muxer thread; other threads
  // read the first backend_count() of them, whose type and takes_sessions
  // were set before the count was published.
  static constexpr uint32_t kMaxBackends = 2;
  BackendConnection backends_[kMaxBackends];
  std::atomic<uint32_t> backend_count_{0};
  uint32_t backend_count() const { return backend_count_.load(std::memory_order_acquire); }
  // Starts the backends |args| names that are not running. Not on the
  // muxer thread.
  void AddBackends(const TracingInitArgs& args);
  std::mutex retire_mutex_;  // Guards retired_ and posts that check it.
  bool retired_ = false;
  // The list of retired muxers (see ShutdownInstance()).
  TracingMuxerImpl* next_retired_ = nullptr;

  // pthread_atfork handlers (registered at the first Initialize): the
  // child stops every instance (a system backend's SMB is shared with the
  // parent: the child must not write into it) and forgets its sessions.
  static std::mutex& init_mutex();  // Guards Initialize and Shutdown.
  static void AtForkPrepare();
  static void AtForkParent();
  static void AtForkChild();
  bool forked_ = false;  // Set only in a forked child (single-threaded then).

  std::mutex mutex_;  // Guards the containers below.
  std::vector<Registered> registry_;
  std::map<InstanceKey, InstanceRef> instances_;
  std::set<MuxedSession*> sessions_;
};

}  // namespace internal
}  // namespace zt

#endif  // ZT_SRC_TRACING_SDK_TRACING_MUXER_IMPL_H_
