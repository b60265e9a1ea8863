// TracingServiceImpl: the one implementation of TracingService. Owns the
// producers' SMBs, the sessions and their TraceBuffers; see
// docs/design/tracing_service.md. Everything runs on its task runner, and
// every call to a client is posted through its endpoint (never made from
// inside a service method), so no client can re-enter the service.
//
// Files: tracing_service_impl.cc (producers, data sources, session
// lifecycle), tracing_service_endpoints.h (the endpoint classes),
// tracing_service_commit.cc (chunks in: commit, scrape, writers),
// tracing_service_output.cc (packets out: reads, files, stats); what
// only the daemon's ports ask for is in files of its own (state, triggers,
// change_config, observe: see docs/design/tracing_service.md).

#ifndef ZT_SRC_TRACING_SERVICE_TRACING_SERVICE_IMPL_H_
#define ZT_SRC_TRACING_SERVICE_TRACING_SERVICE_IMPL_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "src/tracing/service/file_output.h"
#include "src/tracing/service/service_limits.h"
#include "src/tracing/service/session_service_packets.h"
#include "src/tracing/service/trace_buffer.h"
#include "zt/ext/base/weak_ptr.h"
#include "zt/ext/tracing/core/shared_memory_abi.h"
#include "zt/ext/tracing/core/tracing_service.h"

namespace zt {

namespace protos {
namespace pbzero {
class TraceStats;
}  // namespace pbzero
}  // namespace protos

class TracingServiceImpl : public TracingService {
 public:
  // Default SMB geometry and timeouts when clients give none.
  static constexpr size_t kDefaultShmSize = 256 * 1024;
  static constexpr size_t kDefaultShmPageSize = 4096;
  static constexpr size_t kMaxShmSize = 32 * 1024 * 1024;
  static constexpr uint32_t kDefaultStopTimeoutMs = 5000;
  static constexpr uint32_t kDefaultFlushTimeoutMs = 5000;
  // How long a started data source that acknowledges starts may take before
  // the session counts it as started anyway.
  static constexpr uint32_t kStartTimeoutMs = 5000;
  // Flushes a session may have pending at once; more are refused.
  static constexpr size_t kMaxPendingFlushes = 1000;
  // The encoded TracingServiceState's bound (QueryServiceState): within
  // one reply frame to an upstream consumer (128 KiB), with room for the
  // session fields and the reply's own framing.
  static constexpr size_t kMaxServiceStateBytes = 96 * 1024;
  // ReadBuffers() hands packets over in batches of about this many bytes.
  static constexpr size_t kReadBatchBytes = 1024 * 1024;
  // write_into_file: the trace is collected for the fd in pieces of about
  // this size; one piece at most waits for a reader that is slow (the
  // session's backlog), the rest stays in the session's buffers.
  static constexpr size_t kFileWriteChunkBytes = 1024 * 1024;
  // A pipe or socket whose reader takes no byte for this long ends its
  // session with an error (it is not reading: a `ztrace ... -o - | cmd`
  // whose cmd stopped). As upstream's IPC send timeout.
  static constexpr uint32_t kOutputStallTimeoutMs = 10000;

  TracingServiceImpl(base::TaskRunner* task_runner,
                     std::unique_ptr<base::SharedMemory::Factory> shm_factory);
  ~TracingServiceImpl() override;

  std::unique_ptr<ProducerEndpoint> ConnectProducer(
      Producer* producer, const ProducerOptions& options) override;
  std::unique_ptr<ConsumerEndpoint> ConnectConsumer(Consumer* consumer,
                                                    int32_t uid) override;
  // TracingService::QueryServiceState, DetachConsumer, AttachConsumer
  // (tracing_service_state.cc).
  std::vector<uint8_t> ComputeServiceState(int32_t asking_uid, bool sessions_only) const;
  bool Detach(ConsumerEndpoint* endpoint, const std::string& key);
  bool Attach(ConsumerEndpoint* endpoint, const std::string& key,
              protos::gen::TraceConfig* config);
  // The per-uid session limits EnableTracing enforces (none until called;
  // ServiceIpcHost passes the daemon's), and what they refused.
  void set_limits(const ServiceLimits& limits) { limits_ = limits; }
  const ServiceLimitStats& limit_stats() const { return limit_stats_; }
  // TracingService::ActivateTriggers (tracing_service_triggers.cc).
  void ActivateTriggersFrom(ProducerEndpoint* endpoint, const std::vector<std::string>& names);
  // TracingService::ChangeTraceConfig (tracing_service_change_config.cc).
  bool ChangeConfig(ConsumerEndpoint* endpoint, const protos::gen::TraceConfig& config,
                    std::string* error);
  // TracingService::ObserveEvents (tracing_service_observe.cc).
  void Observe(ConsumerEndpoint* endpoint, uint32_t events_mask);
  // TracingService::CloneSession (tracing_service_clone.cc).
  void Clone(ConsumerEndpoint* endpoint, const ConsumerEndpoint::CloneSessionArgs& args,
             std::function<void(const ConsumerEndpoint::CloneSessionResult&)> done);
  // kOutputStallTimeoutMs, shorter for tests. On the service's thread.
  void set_output_stall_timeout_ms(uint32_t ms) { output_stall_timeout_ms_ = ms; }

 private:
  class ProducerEndpointImpl;
  class ConsumerEndpointImpl;
  friend class ProducerEndpointImpl;
  friend class ConsumerEndpointImpl;

  struct ProducerState {
    uint32_t id = 0;
    ProducerEndpointImpl* endpoint = nullptr;  // Posts to the Producer.
    ProducerOptions options;
    std::shared_ptr<base::SharedMemory> smb;  // Shared if the producer made it.
    size_t page_size = 0;
    SharedMemoryABI abi;
    std::map<std::string, protos::gen::DataSourceDescriptor> data_sources;
    // Buffers this producer's instances were told to write into.
    std::multiset<uint32_t> allowed_buffers;
    // Writer id -> target buffer, for scraping chunks still being written.
    std::map<uint16_t, uint32_t> writer_buffers;
  };

  struct DataSourceInstance {
    enum class State { kSetUp, kStarting, kStarted, kStopping, kStopped };
    DataSourceInstanceId id = 0;
    uint32_t producer_id = 0;
    std::string name;
    protos::gen::DataSourceConfig config;
    bool will_notify_on_start = false;
    bool will_notify_on_stop = false;
    // Its descriptor's no_flush: never asked to flush (counts as answered).
    bool no_flush = false;
    State state = State::kSetUp;
    // Its data source was unregistered or its producer left. Kept (the
    // producer's identity is still needed for its data), but no longer
    // among the instances an observing consumer is told about, as upstream
    // forgets such instances.
    bool withdrawn = false;
  };

  struct PendingFlush {
    std::set<uint32_t> producers;  // Still to answer.
    std::function<void(bool)> done;  // The consumer's: posted to it.
    // The service's own continuation (a stop or a file write waiting for
    // the flush): run in place, after the outcome is recorded.
    std::function<void(bool)> then;
  };

  // TraceConfig.trigger_config (a lazy field: kept as bytes in the config
  // class), decoded once at EnableTracing.
  struct TriggerSpec {
    enum Mode { kNone = 0, kStartTracing = 1, kStopTracing = 2 };
    struct Trigger {
      std::string name;
      uint32_t stop_delay_ms = 0;
      uint32_t max_per_24_h = 0;
      double skip_probability = 0;
    };
    Mode mode = kNone;
    uint32_t timeout_ms = 0;
    std::vector<Trigger> list;
  };

  struct Session {
    explicit Session(const protos::gen::TraceConfig& c) : config(c) {}
    // A session with a trigger mode yields no data, not even the service's
    // packets, until a trigger arrives (upstream's rule).
    // (With no trigger listed there is nothing to wait for, as upstream.)
    bool waits_for_trigger() const {
      return triggers.mode != TriggerSpec::kNone && !triggers.list.empty() &&
             triggers_received == 0;
    }
    TriggerSpec triggers;  // The config's trigger_config, decoded.
    uint32_t triggers_received = 0;
    // A STOP_TRACING trigger posted the stop (the timeout then yields).
    bool stop_trigger_scheduled = false;
    bool trigger_records_capped = false;  // Logged once.
    enum class State { kConfigured, kStarted, kStopping, kStopped };
    uint64_t id = 0;
    // Null once the consumer is gone (the session then ends by itself,
    // unless it is detached).
    ConsumerEndpointImpl* consumer = nullptr;
    int32_t consumer_uid = -1;  // Who may attach to it once detached.
    std::string detach_key;     // Non-empty while detached.

    protos::gen::TraceConfig config;
    State state = State::kConfigured;
    std::vector<uint32_t> buffer_ids;  // Index in config.buffers -> id.
    std::vector<DataSourceInstance> instances;
    bool all_started_notified = false;
    std::map<FlushRequestId, PendingFlush> flushes;
    uint64_t invalid_packets = 0;
    uint64_t flushes_requested = 0;
    uint64_t flushes_succeeded = 0;
    uint64_t flushes_failed = 0;  // Timed out (or the session ended first).
    // What the service writes into the trace by itself, and when.
    std::unique_ptr<SessionServicePackets> service_packets;
    // TraceStats.FinalFlushOutcome of the flush a stop by duration_ms
    // starts with (0: none happened).
    int final_flush_outcome = 0;
    // Output progress (ReadBuffers or the file, whichever the session uses).
    bool read_in_progress = false;  // A ReadBuffers task chain is running.
    uint32_t reads_queued = 0;      // ReadBuffers calls it will answer next.
    bool read_paused = false;       // By its consumer (SetReadPaused).
    bool read_waits = false;        // The chain stopped there; resumed with it.
    int fd = -1;                    // write_into_file target, owned.
    FileOutput file_out;            // How |fd| is written (never blocking).
    uint64_t file_bytes = 0;
    bool file_full = false;         // max_file_size_bytes reached.
    std::string error;              // Reported by OnTracingDisabled.
    // CLOCK_REALTIME at StartTracing (0: not started), for QueryServiceState.
    int64_t start_realtime_ns = 0;
    // A read-only snapshot made by CloneSession: stopped from its creation,
    // no instances; |cloned_producers| are the producers whose data its
    // buffers may hold (their identities are kept while it exists).
    bool is_clone = false;
    std::set<uint32_t> cloned_producers;

    ~Session();
    bool stopping_or_stopped() const {
      return state == State::kStopping || state == State::kStopped;
    }
    DataSourceInstance* FindInstance(DataSourceInstanceId id);
  };

  using InstanceState = DataSourceInstance::State;
  using SessionState = Session::State;

  // Producer side.
  void DisconnectProducer(uint32_t producer_id);
  void RegisterDataSource(uint32_t producer_id,
                          const protos::gen::DataSourceDescriptor& descriptor);
  void UnregisterDataSource(uint32_t producer_id, const std::string& name);
  void CommitData(uint32_t producer_id, const CommitData& data);
  void NotifyDataSourceStarted(uint32_t producer_id, DataSourceInstanceId id);
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
             std::function<void(bool)> done, uint64_t flags);
  void ReadBuffers(ConsumerEndpointImpl* consumer);
  void SetReadPaused(ConsumerEndpointImpl* consumer, bool paused);
  void FreeBuffers(ConsumerEndpointImpl* consumer);
  void GetTraceStats(ConsumerEndpointImpl* consumer);
  // Why a session of |uid| for |config| is over limits_, or "".
  std::string OverSessionLimits(int32_t uid, const protos::gen::TraceConfig& config) const;

  // Session lifecycle (by session, so that sessions without a consumer can
  // run to their end).
  Session* SessionOf(ConsumerEndpointImpl* consumer);
  Session* SessionById(uint64_t session_id);
  // Decodes |config|'s trigger_config into |spec|; an error (empty if none)
  // for what upstream's service also refuses and what ours does not support
  // (tracing_service_triggers.cc). Null unless that object is linked: a
  // program that can activate no trigger refuses trigger configs, which
  // would never fire.
  using TriggerConfigDecoder = std::string (*)(const protos::gen::TraceConfig& config,
                                               TriggerSpec* spec);
  static TriggerConfigDecoder trigger_config_decoder;
 public:
  // Sets trigger_config_decoder; run by tracing_service_triggers.cc's static
  // initializer, i.e. in every program that links trigger matching.
  static bool InstallTriggerConfigDecoder();

  // When a session's producers are flushed, as upstream's service (v54 and
  // later) decides it: with write_into_file and write_flush_mode AUTO, a
  // write period of at most 5 s gets a flush every 5 s on a timer of its
  // own (the writes do not wait for it: a flush before each 100 ms write
  // left the buffer filling while 64 busy writers answered), a longer one
  // a flush before each write; ENABLED flushes before each write; DISABLED,
  // and sessions without a file, flush every flush_period_ms (0: never).
  struct FlushPlan {
    uint32_t periodic_ms = 0;
    bool before_each_write = false;
  };
  static FlushPlan PlanFlushes(const protos::gen::TraceConfig& config);

 private:
  static std::string DecodeTriggerConfig(const protos::gen::TraceConfig& config,
                                         TriggerSpec* spec);
  // Sets up an instance on |producer| if it matches |cfg_ds|; null if not.
  DataSourceInstance* SetUpInstance(Session* session, ProducerState* producer,
                                    const protos::gen::TraceConfig_DataSource& cfg_ds);
  void StartInstance(Session* session, DataSourceInstance* instance);
  void StartSession(Session* session);
  void StopSession(Session* session);
  // An instance ended, whichever way (acknowledged, timed out, its data
  // source or producer gone); ends the session's stop after the last one.
  void OnInstanceStopped(Session* session, DataSourceInstance* instance);
  // Every change of an instance's state goes through here, so that a
  // consumer observing instances hears of it.
  void SetInstanceState(Session* session, DataSourceInstance* instance, InstanceState state);
  // Tells the session's consumer, if it observes it, |instance|'s new
  // state (null: all data sources started). The telling is
  // tracing_service_observe.cc's AddObservedEvent, reached through
  // report_observed_, which the first ObserveEvents sets.
  void ReportObserved(Session* session, const DataSourceInstance* instance);
  void AddObservedEvent(Session* session, const DataSourceInstance* instance);
  void MaybeNotifyAllStarted(Session* session);
  void FinishStop(Session* session);
  // The end of a stop, once the file (if any) is complete: the consumer is
  // told, and a session nobody will free is freed.
  void CompleteStop(Session* session);
  // Flushes, records the outcome as the final flush's, then stops.
  void FlushAndStopSession(Session* session);
  // |done| goes to the consumer (posted); |then| is the service's own.
  // |flags| (flush_flags) go to the producers; the default is the
  // service's periodic flush's. Instances whose data source declared
  // no_flush are not asked.
  void FlushSession(Session* session, uint32_t timeout_ms,
                    std::function<void(bool)> done,
                    std::function<void(bool)> then = nullptr,
                    uint64_t flags = flush_flags::kInitiatorTraced |
                                     flush_flags::kReasonPeriodic);
  void CompleteFlush(uint64_t session_id, FlushRequestId id, bool success);
  // Frees the session's buffers and forgets it. |session| is dangling after.
  void DestroySession(Session* session);
  // The session's consumer, if it is still connected, is told |error|.
  void NotifyDisabled(Session* session);
  TraceBuffer* BufferById(uint32_t buffer_id);
  uint32_t SequenceIdFor(uint32_t producer_id, uint16_t writer_id);
  // Producer ids of |session|'s instances, including producers gone since.
  std::set<uint32_t> ProducersOf(const Session& session) const;
  // The instances not stopped yet, by connected producer; with
  // |flushable_only|, less those whose data source declared no_flush.
  std::map<uint32_t, std::vector<DataSourceInstanceId>> LiveInstancesByProducer(
      const Session& session, bool flushable_only = false) const;
  // Forgets sequence ids and identities of producers that left and that no
  // remaining session has data of.
  void PruneGoneProducers();
  // Copies the complete packets of chunks still being written by the
  // session's producers into its buffers (flush, stop).
  void ScrapeSharedMemoryBuffers(Session* session);

  // Output (tracing_service_output.cc).
  // Where CollectPackets puts packets: appended to |out| as Trace.packet
  // fields (tag, length, stamped bytes), each copied once, straight from
  // the buffer. |admit| is asked first with the field's size and whether
  // it is the session's final TraceStats: false stops the collection (the
  // packet counts as consumed). |appended| is called after: false stops.
  struct PacketSink {
    std::vector<uint8_t>* out = nullptr;
    std::function<bool(size_t framed_size, bool closing_stats)> admit;
    std::function<bool()> appended;
  };
  // Hands every readable packet of |session| to |sink|, preceded the first
  // time by the config and a clock snapshot and, once the session is
  // stopped and everything was read, followed by its stats. Stops after
  // about |max_bytes| (0: no limit) or when |sink| says so; returns true
  // if it stopped early (more may be readable).
  bool CollectPackets(Session* session, size_t max_bytes, const PacketSink& sink);
  void ReadNextBatch(uint64_t session_id);
  // Writes what the session's buffers hold into its file, as far as the fd
  // takes it now (never blocking: see file_output.h); a watch on the fd
  // goes on later (|new_round| false). At the end of a stop, the file is
  // then closed and the stop completed.
  void WriteIntoFile(Session* session, bool new_round = true);
  // Hands |session|'s file backlog to its fd: 0 once it is all taken,
  // EAGAIN if some is left (the fd is full), or the errno of a failure.
  int DrainFileBacklog(Session* session);
  // Collects the next piece of the trace into the empty backlog; true if
  // more may be readable (it stopped because the piece was full).
  bool CollectFileChunk(Session* session);
  // The fd is full: resumes WriteIntoFile when it is writable, and ends the
  // session if its reader takes nothing for output_stall_timeout_ms_.
  void WaitForWritable(Session* session);
  void CheckFileStalled(uint64_t session_id, uint64_t bytes_taken_then);
  // The file cannot be written any more: the session stops with |error|.
  void FailFile(Session* session, std::string error);
  void SchedulePeriodicWrite(Session* session);
  void CloseFile(Session* session);
  // CloneSession's second half, after the source's flush
  // (tracing_service_clone.cc).
  void FinishClone(uint64_t source_id, base::WeakPtr<ConsumerEndpointImpl> consumer,
                   bool flushed,
                   std::function<void(const ConsumerEndpoint::CloneSessionResult&)> done);
  // The session's TraceStats, encoded.
  std::vector<uint8_t> ComputeStats(const Session& session) const;
  void AddWriterStats(const Session& session,
                      protos::pbzero::TraceStats* stats) const;

  // Runs |task| on the session every |period_ms| while it is running.
  void SchedulePeriodic(uint64_t session_id, uint32_t period_ms,
                        void (TracingServiceImpl::*task)(Session*));
  // Runs |task| on the task runner after |delay_ms| unless the service is
  // gone by then (timeouts and periods outlive nothing).
  void PostDelayedIfAlive(uint32_t delay_ms,
                          std::function<void(TracingServiceImpl*)> task);
  void PeriodicFlush(Session* session);                  // flush_period_ms
  void PeriodicClearIncrementalState(Session* session);  // clear_period_ms
  void PeriodicSnapshot(Session* session);  // snapshot_interval_ms

  base::TaskRunner* const task_runner_;
  const std::unique_ptr<base::SharedMemory::Factory> shm_factory_;
  std::map<uint32_t, std::unique_ptr<ProducerState>> producers_;
  // uid and pid of every producer whose data a buffer may still hold
  // (producers that left included), stamped on its packets when read.
  std::map<uint32_t, std::pair<int32_t, int32_t>> producer_identities_;
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
  ServiceLimits limits_ = ServiceLimits::Unlimited();  // In process: none.
  ServiceLimitStats limit_stats_;
  // Triggers applied (boot time ns, name), for max_per_24_h; and the state
  // of the generator that draws against skip_probability
  // (tracing_service_triggers.cc).
  std::vector<std::pair<uint64_t, std::string>> trigger_history_;
  uint64_t trigger_random_state_ = 0;
  uint64_t producers_seen_ = 0;
  uint64_t data_sources_seen_ = 0;
  void (TracingServiceImpl::*report_observed_)(Session*, const DataSourceInstance*) = nullptr;
  uint64_t chunks_discarded_ = 0;   // Bad moves: indices, states, buffers.
  uint64_t patches_discarded_ = 0;  // Patches for buffers not allowed.
  uint32_t output_stall_timeout_ms_ = kOutputStallTimeoutMs;
  base::WeakPtrFactory<TracingServiceImpl> weak_factory_{this};  // Last.
};

}  // namespace zt

#endif  // ZT_SRC_TRACING_SERVICE_TRACING_SERVICE_IMPL_H_
