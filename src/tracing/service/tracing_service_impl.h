// TracingServiceImpl: the one implementation of TracingService. Owns the
// producers' SMBs, the sessions and their TraceBuffers; see
// docs/design/tracing_service.md. Everything runs on its task runner.

#ifndef ZT_SRC_TRACING_SERVICE_TRACING_SERVICE_IMPL_H_
#define ZT_SRC_TRACING_SERVICE_TRACING_SERVICE_IMPL_H_

#include <unistd.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "src/tracing/service/trace_buffer.h"
#include "zt/ext/tracing/core/shared_memory_abi.h"
#include "zt/ext/tracing/core/tracing_service.h"

namespace zt {

class TracingServiceImpl : public TracingService {
 public:
  // Default SMB geometry and timeouts when clients give none.
  static constexpr size_t kDefaultShmSize = 256 * 1024;
  static constexpr size_t kDefaultShmPageSize = 4096;
  static constexpr size_t kMaxShmSize = 32 * 1024 * 1024;
  static constexpr uint32_t kDefaultStopTimeoutMs = 5000;
  static constexpr uint32_t kDefaultFlushTimeoutMs = 5000;
  // ReadBuffers() hands packets over in batches of about this many bytes.
  static constexpr size_t kReadBatchBytes = 1024 * 1024;

  explicit TracingServiceImpl(base::TaskRunner* task_runner);
  ~TracingServiceImpl() override;

  std::unique_ptr<ProducerEndpoint> ConnectProducer(
      Producer* producer, const ProducerOptions& options) override;
  std::unique_ptr<ConsumerEndpoint> ConnectConsumer(Consumer* consumer,
                                                    int32_t uid) override;

 private:
  class ProducerEndpointImpl;
  class ConsumerEndpointImpl;
  friend class ProducerEndpointImpl;
  friend class ConsumerEndpointImpl;

  struct ProducerState {
    uint32_t id = 0;
    Producer* client = nullptr;
    ProducerOptions options;
    std::shared_ptr<uint8_t> smb;  // Shared with a producer that provided it.
    size_t smb_size = 0;
    size_t page_size = 0;
    SharedMemoryABI abi;
    std::map<std::string, protos::gen::DataSourceDescriptor> data_sources;
    // Buffers this producer's instances were told to write into.
    std::multiset<uint32_t> allowed_buffers;
    // Writer id -> target buffer, for scraping chunks still being written.
    std::map<uint16_t, uint32_t> writer_buffers;
  };

  struct DataSourceInstance {
    DataSourceInstanceId id = 0;
    uint32_t producer_id = 0;
    std::string name;
    protos::gen::DataSourceConfig config;
    bool will_notify_on_stop = false;
    bool stopped = false;
  };

  struct PendingFlush {
    std::set<uint32_t> producers;  // Still to answer.
    std::function<void(bool)> done;
  };

  struct Session {
    uint64_t id = 0;
    ConsumerEndpointImpl* consumer = nullptr;
    protos::gen::TraceConfig config;
    std::vector<uint32_t> buffer_ids;  // Index in config.buffers -> id.
    std::vector<DataSourceInstance> instances;
    bool started = false;
    bool stopping = false;
    bool disabled = false;
    size_t pending_stop_acks = 0;
    bool sending_stops = false;  // DisableTracing is calling StopDataSource.
    std::map<FlushRequestId, PendingFlush> flushes;
    uint64_t invalid_packets = 0;
    uint64_t flushes_requested = 0;
    uint64_t flushes_succeeded = 0;
    uint64_t flushes_failed = 0;  // Timed out (or the session ended first).
    // Buffer id -> packets that carried their writer's own loss mark.
    std::map<uint32_t, uint64_t> writer_loss_marks;
    bool preamble_emitted = false;  // Config + clock snapshot.
    bool stats_emitted = false;     // The closing TraceStats.
    int fd = -1;                    // write_into_file target, owned.
    uint64_t file_bytes = 0;
    bool file_full = false;         // max_file_size_bytes reached.
    std::string error;              // Reported by OnTracingDisabled.

    ~Session() {
      if (fd >= 0)
        close(fd);
    }
  };

  // Producer side.
  void DisconnectProducer(uint32_t producer_id);
  void RegisterDataSource(uint32_t producer_id,
                          const protos::gen::DataSourceDescriptor& descriptor);
  void UnregisterDataSource(uint32_t producer_id, const std::string& name);
  void CommitData(uint32_t producer_id, const CommitData& data);
  void NotifyDataSourceStopped(uint32_t producer_id, DataSourceInstanceId id);
  void NotifyFlushComplete(uint32_t producer_id, FlushRequestId id);
  void RegisterTraceWriter(uint32_t producer_id, uint32_t writer_id,
                           uint32_t target_buffer);
  void UnregisterTraceWriter(uint32_t producer_id, uint32_t writer_id);

  // Consumer side.
  void DisconnectConsumer(ConsumerEndpointImpl* consumer);
  void EnableTracing(ConsumerEndpointImpl* consumer,
                     const protos::gen::TraceConfig& config, int fd);
  void StartTracing(ConsumerEndpointImpl* consumer);
  void DisableTracing(ConsumerEndpointImpl* consumer);
  void Flush(ConsumerEndpointImpl* consumer, uint32_t timeout_ms,
             std::function<void(bool)> done);
  void ReadBuffers(ConsumerEndpointImpl* consumer);
  void FreeBuffers(ConsumerEndpointImpl* consumer);
  void GetTraceStats(ConsumerEndpointImpl* consumer);

  // Session helpers.
  Session* SessionOf(ConsumerEndpointImpl* consumer);
  // Sets up an instance on |producer| if it matches |cfg_ds|; returns its
  // id, or 0. The producer's callback may re-enter the service: callers
  // look the session up again afterwards.
  DataSourceInstanceId SetUpInstance(
      Session* session, ProducerState* producer,
      const protos::gen::TraceConfig_DataSource& cfg_ds);
  void FinishDisable(uint64_t session_id);
  void CompleteFlush(uint64_t session_id, FlushRequestId id, bool success);
  TraceBuffer* BufferById(uint32_t buffer_id);
  uint32_t SequenceIdFor(uint32_t producer_id, uint16_t writer_id);
  // Copies the complete packets of chunks still being written by the
  // session's producers into its buffers (flush, stop).
  void ScrapeSharedMemoryBuffers(Session* session);
  // Hands every readable packet of |session| to |sink|, stamped, preceded
  // the first time by the config and a clock snapshot and, once the session
  // is disabled, followed by its stats. |sink| returns false to stop early.
  void CollectPackets(Session* session,
                      const std::function<bool(std::vector<uint8_t>)>& sink);
  void WriteIntoFile(uint64_t session_id);
  // Runs |task| on the session every |period_ms| while it is running.
  void SchedulePeriodic(uint64_t session_id, uint32_t period_ms,
                        void (TracingServiceImpl::*task)(Session*));
  // Runs |task| on the task runner after |delay_ms| unless the service is
  // gone by then (timeouts and periods outlive nothing).
  void PostDelayedIfAlive(uint32_t delay_ms,
                          std::function<void(TracingServiceImpl*)> task);
  void PeriodicFlush(Session* session);            // flush_period_ms
  void PeriodicClearIncrementalState(Session* session);  // clear_period_ms
  void SchedulePeriodicWrite(Session* session);
  void CloseFile(Session* session);
  protos::gen::TraceStats ComputeStats(const Session& session) const;

  base::TaskRunner* const task_runner_;
  std::map<uint32_t, std::unique_ptr<ProducerState>> producers_;
  std::map<uint64_t, std::unique_ptr<Session>> sessions_;
  std::map<uint32_t, std::unique_ptr<TraceBuffer>> buffers_;
  std::map<uint32_t, uint64_t> buffer_owner_;  // Buffer id -> session id.
  std::map<std::pair<uint32_t, uint16_t>, uint32_t> sequence_ids_;
  uint32_t next_producer_id_ = 1;
  uint64_t next_session_id_ = 1;
  uint32_t next_buffer_id_ = 1;
  DataSourceInstanceId next_instance_id_ = 1;
  FlushRequestId next_flush_id_ = 1;
  uint32_t next_sequence_id_ = kServicePacketSequenceId + 1;
  const int32_t service_uid_;
  uint64_t producers_seen_ = 0;
  uint64_t data_sources_seen_ = 0;
  uint64_t chunks_discarded_ = 0;   // Bad moves: indices, states, buffers.
  uint64_t patches_discarded_ = 0;  // Patches for buffers not allowed.
  // Weak pointer for delayed tasks (timeouts) that may outlive the service.
  std::shared_ptr<TracingServiceImpl*> alive_;
};

}  // namespace zt

#endif  // ZT_SRC_TRACING_SERVICE_TRACING_SERVICE_IMPL_H_
