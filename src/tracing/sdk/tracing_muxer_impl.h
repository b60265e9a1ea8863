// TracingMuxerImpl: the SDK's process-wide glue for the in-process backend.
// It owns the service (on its own ThreadTaskRunner), is the process's one
// producer (creating instances of registered DataSource types when the
// service asks) and hands out TraceWriters over the producer's SMB. Created
// by Tracing::Initialize() and never destroyed: thread-local writers may
// still return chunks while the process exits.

#ifndef SRC_TRACING_SDK_TRACING_MUXER_IMPL_H_
#define SRC_TRACING_SDK_TRACING_MUXER_IMPL_H_

#include <map>
#include <memory>
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

class TracingMuxerImpl : public TracingMuxer, public Producer, public CommitSink {
 public:
  // How long a kStallThenDrop writer waits for a free chunk.
  static constexpr uint32_t kStallTimeoutMs = 1000;

  // Creates the instance the first time; later calls do nothing.
  static void InitializeInstance(const TracingInitArgs& args);
  static TracingMuxerImpl* instance();

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

  base::ThreadTaskRunner* task_runner() { return &task_runner_; }
  TracingService* service() { return service_.get(); }  // Service thread.

 private:
  explicit TracingMuxerImpl(const TracingInitArgs& args);
  ~TracingMuxerImpl() override;

  struct Registered {
    protos::gen::DataSourceDescriptor descriptor;
    DataSourceFactory factory;
    DataSourceStaticState* state;
  };
  struct InstanceRef {
    DataSourceStaticState* state;
    uint32_t index;
  };

  // Ends a stop (at once, or when a deferred stop's closure runs).
  void FinishStop(DataSourceStaticState* state, uint32_t index,
                  DataSourceInstanceId id);
  bool FindInstance(DataSourceInstanceId id, InstanceRef* ref);

  base::ThreadTaskRunner task_runner_;
  std::unique_ptr<TracingService> service_;               // Service thread.
  std::unique_ptr<ProducerEndpoint> producer_endpoint_;   // Service thread.
  std::unique_ptr<SharedMemoryArbiter> arbiter_;          // Any thread.

  std::mutex mutex_;  // Guards the two maps below.
  std::vector<Registered> registry_;
  std::map<DataSourceInstanceId, InstanceRef> instances_;
};

}  // namespace internal
}  // namespace zt

#endif  // SRC_TRACING_SDK_TRACING_MUXER_IMPL_H_
