// TracingMuxerImpl: the SDK's process-wide glue for the in-process backend.
// It owns the service (on its own ThreadTaskRunner), is the process's one
// producer (creating instances of registered DataSource types when the
// service asks) and hands out TraceWriters over the producer's SMB. Created
// by Tracing::Initialize(). Never deleted: thread-local writers may still
// return chunks to its arbiter while the process exits, or after
// Tracing::Shutdown(), which stops the service and its thread but keeps the
// arbiter and the SMB (see Retire()).

#ifndef ZT_SRC_TRACING_SDK_TRACING_MUXER_IMPL_H_
#define ZT_SRC_TRACING_SDK_TRACING_MUXER_IMPL_H_

#include <atomic>
#include <map>
#include <memory>
#include <set>
#include <mutex>
#include <string>
#include <vector>

#include "src/base/thread_task_runner.h"
#include "zt/ext/tracing/core/shared_memory_arbiter.h"
#include "zt/ext/tracing/core/tracing_service.h"
#include "zt/tracing/internal/data_source_internal.h"
#include "zt/tracing/tracing.h"

namespace zt {
namespace internal {

// A consumer session of the in-process backend, as Shutdown sees it.
class InProcessSession {
 public:
  // As TracingSession::StopBlocking(). Not on the service thread.
  virtual void StopBlocking() = 0;
  // Service thread: drops the connection to the service; every later call
  // on the session does nothing.
  virtual void DetachFromService() = 0;

 protected:
  ~InProcessSession() = default;
};

class TracingMuxerImpl : public TracingMuxer, public Producer, public CommitSink {
 public:
  // How long a kStallThenDrop writer waits for a free chunk.
  static constexpr uint32_t kStallTimeoutMs = 1000;

  // Creates the instance if |args| asks for a backend we have; true once
  // tracing is initialized. Later calls do nothing.
  static bool InitializeInstance(const TracingInitArgs& args);
  // Retires the instance (if any): Tracing::Shutdown().
  static void ShutdownInstance();
  static TracingMuxerImpl* instance();

  // Sessions register themselves so that Shutdown can stop them. Any thread.
  void AddSession(InProcessSession* session);
  void RemoveSession(InProcessSession* session);

  // TracingMuxer (any thread).
  bool RegisterDataSource(const protos::gen::DataSourceDescriptor& descriptor,
                          DataSourceFactory factory,
                          DataSourceStaticState* state) override;
  std::unique_ptr<TraceWriter> CreateTraceWriter(
      DataSourceStaticState* state, uint32_t index, uint64_t generation,
      BufferExhaustedPolicy policy) override;
  void NotifyStopped(DataSourceStaticState* state, uint32_t index,
                     uint64_t instance_id) override;

  // Producer (service thread).
  void OnConnect() override {}
  void OnDisconnect() override {}
  void OnTracingSetup() override {}
  void SetupDataSource(DataSourceInstanceId id,
                       const protos::gen::DataSourceConfig& config) override;
  void StartDataSource(DataSourceInstanceId id,
                       const protos::gen::DataSourceConfig& config) override;
  void StopDataSource(DataSourceInstanceId id) override;
  void Flush(FlushRequestId request,
             const std::vector<DataSourceInstanceId>& ids) override;
  void ClearIncrementalState(
      const std::vector<DataSourceInstanceId>& ids) override;

  // CommitSink (any writer thread): posted to the service thread.
  void OnCommit(CommitData data) override;

  base::ThreadTaskRunner* task_runner() { return task_runner_.get(); }
  TracingService* service() { return service_.get(); }  // Service thread.

 private:
  explicit TracingMuxerImpl(const TracingInitArgs& args);
  ~TracingMuxerImpl() override;

  // Stops every session, tears down every data source instance, destroys
  // the service and joins its thread. Afterwards commits from writers still
  // alive are dropped (nobody can read them any more) and the arbiter and
  // SMB stay valid for those writers' last calls.
  void Retire();

  struct Registered {
    protos::gen::DataSourceDescriptor descriptor;
    DataSourceFactory factory;
    DataSourceStaticState* state;
  };
  struct InstanceRef {
    DataSourceStaticState* state;
    uint32_t index;
  };

  // Ends slot |index| of |state|: Trace() stops writing into it, its data
  // source is deleted and the slot can be reused. Not under mutex_.
  void ReleaseSlot(DataSourceStaticState* state, uint32_t index);
  // Ends a stop (at once, or when a deferred stop's closure runs).
  void FinishStop(DataSourceStaticState* state, uint32_t index,
                  DataSourceInstanceId id);
  bool FindInstance(DataSourceInstanceId id, InstanceRef* ref);

  std::unique_ptr<base::ThreadTaskRunner> task_runner_;  // Null once retired.
  std::unique_ptr<TracingService> service_;               // Service thread.
  std::unique_ptr<ProducerEndpoint> producer_endpoint_;   // Service thread.
  std::shared_ptr<uint8_t> smb_;  // Ours; shared with the service.
  std::unique_ptr<SharedMemoryArbiter> arbiter_;          // Any thread.
  std::atomic<bool> retired_{false};
  // The list of retired muxers (see ShutdownInstance()).
  TracingMuxerImpl* next_retired_ = nullptr;

  std::mutex mutex_;  // Guards the maps and the set below.
  std::vector<Registered> registry_;
  std::map<DataSourceInstanceId, InstanceRef> instances_;
  std::set<InProcessSession*> sessions_;
};

}  // namespace internal
}  // namespace zt

#endif  // ZT_SRC_TRACING_SDK_TRACING_MUXER_IMPL_H_
