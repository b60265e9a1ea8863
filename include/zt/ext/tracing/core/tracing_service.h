// TracingService: the tracing service's core, independent of how clients
// reach it. Producers (processes with data sources) and consumers (whoever
// starts sessions and reads traces) talk to it through endpoints whose
// methods mirror the producer and consumer IPC ports one to one; the IPC
// transport and the in-process backend both sit on top of these.
//
// Threading: the service and every endpoint must be used on the service's
// task runner only; callbacks to Producer and Consumer run there too, each
// in a task of its own: the service never calls a client from inside an
// endpoint method (so a client may call its endpoint from any callback),
// calls to one client arrive in the order they were made, and calls still
// queued when a client's endpoint is destroyed are dropped. Producer
// writer threads never call an endpoint directly: they commit through
// their SharedMemoryArbiter's CommitSink, which posts to the task runner,
// or, where the endpoint offers one, through its ConcurrentCommitter.

#ifndef ZT_EXT_TRACING_CORE_TRACING_SERVICE_H_
#define ZT_EXT_TRACING_CORE_TRACING_SERVICE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "zt/base/task_runner.h"
#include "zt/ext/base/shared_memory.h"
#include "zt/common/data_source_descriptor.gen.h"
#include "zt/config/data_source_config.gen.h"
#include "zt/config/trace_config.gen.h"
#include "zt/ext/tracing/core/commit_data.h"

namespace zt {

using DataSourceInstanceId = uint64_t;
using FlushRequestId = uint64_t;

// Why a flush was asked and by whom: the `flags` of the consumer's
// FlushRequest and of the producer's Flush command, upstream's FlushFlags
// bits (reason in bits 0-3, initiator in 4-7, clone target in 8-11). The
// service passes a consumer's flags on to producers unchanged and sets its
// own for the flushes it starts. 0: not said.
namespace flush_flags {
constexpr uint64_t kReasonPeriodic = 1;
constexpr uint64_t kReasonTraceStop = 2;
constexpr uint64_t kReasonTraceClone = 3;
constexpr uint64_t kReasonExplicit = 4;
constexpr uint64_t kInitiatorTraced = 1 << 4;  // The service itself.
constexpr uint64_t kInitiatorPerfettoCmd = 2 << 4;
constexpr uint64_t kInitiatorConsumerSdk = 3 << 4;
constexpr uint64_t kCloneTargetBugreport = 1 << 8;
}  // namespace flush_flags

// Callbacks from the service to a producer.
class Producer {
 public:
  virtual ~Producer();
  virtual void OnConnect() = 0;
  virtual void OnDisconnect() = 0;
  // The SMB exists now (ProducerEndpoint::shared_memory()).
  virtual void OnTracingSetup() = 0;
  // |config.target_buffer()| is the buffer the instance's writers must use.
  virtual void SetupDataSource(DataSourceInstanceId id,
                               const protos::gen::DataSourceConfig& config) = 0;
  virtual void StartDataSource(DataSourceInstanceId id,
                               const protos::gen::DataSourceConfig& config) = 0;
  virtual void StopDataSource(DataSourceInstanceId id) = 0;
  // Commit everything of |ids| and answer NotifyFlushComplete(|request|).
  virtual void Flush(FlushRequestId request,
                     const std::vector<DataSourceInstanceId>& ids) = 0;
  // The same, with the flush's flags (flush_flags): what the service
  // calls. The default drops them and calls Flush() (a producer in process
  // has no use for them); the producer port sends them on the wire.
  virtual void FlushWithFlags(FlushRequestId request,
                              const std::vector<DataSourceInstanceId>& ids,
                              uint64_t flags);
  virtual void ClearIncrementalState(
      const std::vector<DataSourceInstanceId>& ids) = 0;
};

// The sequence id of the packets the service writes itself (the config, the
// clock snapshot, the stats). Producers' sequences get ids above it.
constexpr uint32_t kServicePacketSequenceId = 1;

// What a consumer observes (TracingService::ObserveEvents), one batch per
// delivery: everything that happened since the previous batch was handed
// over.
struct ObservedEvents {
  // The bits of an ObserveEvents mask: the values of ObservableEvents.Type
  // (protos/zt/common/observable_events.proto), which are bits upstream too.
  enum Type : uint32_t {
    kDataSourceInstances = 1,    // TYPE_DATA_SOURCES_INSTANCES
    kAllDataSourcesStarted = 2,  // TYPE_ALL_DATA_SOURCES_STARTED
  };
  struct InstanceStateChange {
    // ObservableEvents.DataSourceInstanceState's values. An instance set up
    // but not started yet is reported stopped.
    enum class State : int32_t { kStopped = 1, kStarted = 2 };
    std::string producer_name;
    std::string data_source_name;
    State state = State::kStopped;
  };
  std::vector<InstanceStateChange> instance_state_changes;  // In order.
  bool all_data_sources_started = false;
};

// Callbacks from the service to a consumer.
class Consumer {
 public:
  virtual ~Consumer();
  virtual void OnConnect() = 0;
  virtual void OnDisconnect() = 0;
  // The session ended (stopped, timed out, or failed with |error|; a
  // session stopped by max_file_size_bytes says so here too). Comes after
  // every OnTraceData batch sent before it.
  virtual void OnTracingDisabled(const std::string& error) = 0;
  // Every data source instance of the started session has started (those
  // that acknowledge starts did, or the start timeout passed). Once per
  // session; not sent if the session stops first.
  virtual void OnAllDataSourcesStarted() = 0;
  // A batch of ReadBuffers() output, encoded as a `Trace` message: each
  // packet a `Trace.packet` field (tag, length, then the TracePacket with
  // the service's trusted fields), i.e. the byte format of a trace file.
  // The last batch has |has_more| false.
  virtual void OnTraceData(std::vector<uint8_t> trace, bool has_more) = 0;
  // The session's TraceStats (protos/zt/common/trace_stats.proto),
  // encoded; empty when |success| is false.
  virtual void OnTraceStats(bool success, std::vector<uint8_t> stats) = 0;
  // What this consumer asked for with TracingService::ObserveEvents, in
  // batches. Only consumers that ask get any: the default ignores them.
  virtual void OnObservedEvents(const ObservedEvents& events);
};

// A producer endpoint's way to take a commit on the calling thread, any
// thread, without a task on the endpoint's runner: the socket client's,
// once the service took its commit queue (docs/design/commit_queue.md,
// "Committing from the writer's thread"). A writer that stalls on a full
// SMB would otherwise wait for a wake-up of the producer's IPC thread
// before the service even hears of its chunks.
class ConcurrentCommitter {
 public:
  virtual ~ConcurrentCommitter();
  // Thread-safe. True if |data| is committed (in order after every batch
  // this committer or its endpoint took before); false, with nothing done,
  // if it must go through the endpoint's CommitData() on the runner
  // instead. The caller keeps its batches in order across the two ways:
  // none goes here while one it handed to the runner is not delivered yet.
  virtual bool TryCommit(const CommitData& data) = 0;
};

class ProducerEndpoint {
 public:
  virtual ~ProducerEndpoint();
  virtual void RegisterDataSource(
      const protos::gen::DataSourceDescriptor& descriptor) = 0;
  virtual void UnregisterDataSource(const std::string& name) = 0;
  // Replaces the descriptor of a registered data source (same name): what
  // QueryServiceState lists. The default registers it again, which the
  // in-process service takes as an update; the socket client sends
  // UpdateDataSource (a service without it logs a refusal).
  virtual void UpdateDataSource(const protos::gen::DataSourceDescriptor& descriptor);
  // Moves the named chunks out of the SMB into their target buffers and
  // applies the patches. Untrusted: every index and id is validated.
  virtual void CommitData(const CommitData& data) = 0;
  virtual void NotifyDataSourceStarted(DataSourceInstanceId id) = 0;
  virtual void NotifyDataSourceStopped(DataSourceInstanceId id) = 0;
  virtual void NotifyFlushComplete(FlushRequestId id) = 0;
  // Tells the service which buffer a writer's chunks go to, so that chunks
  // still being written can be scraped into it at flush and stop.
  virtual void RegisterTraceWriter(uint32_t writer_id,
                                   uint32_t target_buffer) = 0;
  virtual void UnregisterTraceWriter(uint32_t writer_id) = 0;
  // Activates the triggers named (TraceConfig.trigger_config) in the
  // service; |done| says whether the service took them (not whether a
  // session listed them). Only the socket client supports it: the default,
  // the in-process endpoint's, answers false (in process, the service's own
  // TracingService::ActivateTriggers is the way).
  virtual void ActivateTriggers(const std::vector<std::string>& names,
                                std::function<void(bool)> done);
  // The producer's SMB (valid from the connection on; a socket transport
  // sends its fd) and its page size.
  virtual base::SharedMemory* shared_memory() const = 0;
  virtual size_t shared_memory_page_size() const = 0;
  virtual uint32_t producer_id() const = 0;
  // The endpoint's ConcurrentCommitter, or null (the default: every commit
  // goes through CommitData() on the runner). Valid for as long as it is
  // held, the endpoint's destruction included, after which it refuses.
  virtual std::shared_ptr<ConcurrentCommitter> concurrent_committer();
};

class ConsumerEndpoint {
 public:
  virtual ~ConsumerEndpoint();
  // Creates the session (buffers, data source instances set up) and starts
  // it unless |config.deferred_start()|. One session per consumer. A
  // malformed config is refused with OnTracingDisabled(error). With
  // |config.write_into_file()|, |fd| (owned from now on) receives the trace,
  // written by the service every |file_write_period_ms| and at the end.
  virtual void EnableTracing(const protos::gen::TraceConfig& config,
                             int fd = -1) = 0;
  virtual void StartTracing() = 0;
  // Stops the data sources, waits for their acknowledgements (bounded by the
  // stop timeout), then calls OnTracingDisabled(""). Buffers stay readable.
  virtual void DisableTracing() = 0;
  // Asks every producer of the session to commit; |done(true)| when all
  // answered, |done(false)| at |timeout_ms| (0: the config's or 5000).
  // |done| is called like any consumer callback (posted, dropped if the
  // consumer is gone).
  virtual void Flush(uint32_t timeout_ms, std::function<void(bool)> done) = 0;
  // The same with flush_flags, passed on to the producers. The default
  // drops them (an endpoint that cannot send them).
  virtual void FlushWithFlags(uint32_t timeout_ms, std::function<void(bool)> done,
                              uint64_t flags);
  // Delivers all readable packets through OnTraceData (at least one call),
  // about 1 MiB per batch, one batch read per task.
  virtual void ReadBuffers() = 0;
  // Flow control for ReadBuffers: while paused, the service reads no
  // further batch out of the buffers for this consumer; the read goes on
  // where it was once resumed. For a consumer that forwards the batches to
  // a slower reader (the daemon's consumer port), so that what it holds
  // stays bounded. The default does nothing (every batch is delivered).
  virtual void SetReadPaused(bool paused);
  // Ends the session and frees its buffers. A session still running is
  // stopped first, as DisableTracing does (its file, if any, is completed),
  // and freed once stopped; nothing reaches this consumer about it but the
  // "not flushed" answers of its pending flushes.
  virtual void FreeBuffers() = 0;
  virtual void GetTraceStats() = 0;
  // Asks what the service holds: |done(true, state)| with an encoded
  // TracingServiceState (producers, the data sources they registered,
  // sessions), |done(false, {})| when the service cannot say (refused, the
  // connection gone). Called like any consumer callback. The default, for
  // endpoints that cannot ask (the in-process service's: its owner can call
  // TracingService::QueryServiceState itself), answers false at once, from
  // inside the call.
  virtual void QueryServiceState(std::function<void(bool, std::vector<uint8_t>)> done);

  // CloneSession (TracingService::CloneSession says what it does).
  struct CloneSessionArgs {
    uint64_t session_id = 0;          // Which session; 0: by name.
    std::string unique_session_name;  // Its unique_session_name (not a clone's).
    bool for_bugreport = false;       // Only sets the flush's clone target.
  };
  struct CloneSessionResult {
    bool success = false;
    std::string error;  // Why not, when !success.
    int64_t uuid_msb = 0;  // The clone's TraceUuid.
    int64_t uuid_lsb = 0;
  };
  // Called like any consumer callback. The default, for endpoints that
  // cannot ask (the in-process one: its owner calls the service's
  // TracingService::CloneSession), answers "not supported" at once.
  virtual void CloneSession(const CloneSessionArgs& args,
                            std::function<void(const CloneSessionResult&)> done);
};

class TracingService {
 public:
  struct ProducerOptions {
    std::string name;
    int32_t uid = -1;  // From the connection's credentials, not the peer.
    int32_t pid = -1;
    size_t shm_size_hint_bytes = 0;       // 0: 256 KiB.
    size_t shm_page_size_hint_bytes = 0;  // 0: 4 KiB.
    // Memory the producer provides for its shared memory buffer, zeroed,
    // page-aligned, of the size ComputeShmGeometry() gives for the two
    // hints above (what a producer does over the socket with
    // producer_provided_shmem). Ownership is shared so that the producer
    // can keep the memory beyond the service's life. Null: the service
    // creates it with its factory.
    std::shared_ptr<base::SharedMemory> provided_shm;
    // For a producer over a socket (ProducerIpcClient): commit through a
    // ring in shared memory when the service offers one
    // (docs/design/commit_queue.md); false sends every commit as a
    // CommitData message, as upstream's SDK does. The service ignores it.
    bool commit_queue = true;
    // What the producer said its SDK is (InitializeConnection's
    // sdk_version), reported by QueryServiceState; untrusted, kept to
    // kMaxSdkVersionLength bytes.
    std::string sdk_version;
    static constexpr size_t kMaxSdkVersionLength = 256;
  };

  // The shared memory buffer the service sets up for the given hints:
  // pages of 4 KiB multiples up to 32 KiB (else 4 KiB), a whole number of
  // pages, at least two, at most 32 MiB (else 256 KiB).
  struct ShmGeometry {
    size_t size = 0;
    size_t page_size = 0;
  };
  static ShmGeometry ComputeShmGeometry(size_t size_hint, size_t page_size_hint);

  // |task_runner| must outlive the service. Producers' SMBs come from
  // |shm_factory| (null: heap memory, for producers in this process; the
  // daemon passes a memfd factory).
  static std::unique_ptr<TracingService> Create(
      base::TaskRunner* task_runner,
      std::unique_ptr<base::SharedMemory::Factory> shm_factory = nullptr);
  virtual ~TracingService();

  // Both return endpoints whose destruction disconnects the client, and
  // which must be destroyed before the service. ConnectProducer returns
  // null (and logs why) if no shared memory could be made for it.
  virtual std::unique_ptr<ProducerEndpoint> ConnectProducer(
      Producer* producer, const ProducerOptions& options) = 0;
  virtual std::unique_ptr<ConsumerEndpoint> ConnectConsumer(Consumer* consumer,
                                                            int32_t uid) = 0;

  // What a consumer's QueryServiceState sees, as an encoded
  // TracingServiceState (protos/zt/common/tracing_service_state.proto): the
  // producers connected, the data sources they registered, how many
  // sessions exist and run, the service's version. Not virtual: defined
  // with the one implementation, in a file of its own, so that only the
  // programs that ask (the daemon's consumer port) link it.
  std::vector<uint8_t> QueryServiceState() const;
  // The same as a consumer of |asking_uid| sees it: tracing_sessions lists
  // only the sessions it may clone (its own uid's; every one for root).
  // The no-argument form is the service's own uid's view. |sessions_only|
  // (QueryServiceStateRequest.sessions_only, sent by upstream's `perfetto
  // --clone-all-for-bugreport`) leaves producers and data sources out, so
  // that the sessions alone share the reply's size budget.
  std::vector<uint8_t> QueryServiceState(int32_t asking_uid, bool sessions_only = false) const;

  // Detaches |consumer|'s session under |key|: the session goes on without
  // a consumer (stopping by itself at its duration) and keeps its buffers
  // for a consumer of the same uid that attaches with the key. False (and
  // nothing changes) without a session, with an empty key, or a key a
  // detached session holds already. |consumer| must be one of this
  // service's endpoints. Like QueryServiceState, linked only by callers.
  bool DetachConsumer(ConsumerEndpoint* consumer, const std::string& key);
  // Gives |consumer|, which has no session, the session detached under
  // |key| by a consumer of the same uid, and its config. If that session
  // stopped meanwhile, OnTracingDisabled follows. False otherwise.
  bool AttachConsumer(ConsumerEndpoint* consumer, const std::string& key,
                      protos::gen::TraceConfig* config);
  // |producer| (one of this service's endpoints) activates the triggers
  // named: each session whose trigger_config lists one (and does not skip
  // it by skip_probability or max_per_24_h) records it in its trace, then
  // starts (START_TRACING; its duration is the trigger's stop_delay_ms) or
  // stops after the trigger's stop_delay_ms (STOP_TRACING, first trigger
  // only). Unknown names do nothing. Linked only by callers.
  void ActivateTriggers(ProducerEndpoint* producer, const std::vector<std::string>& names);
  // Changes the producer_name_filter of |consumer|'s session's data sources
  // to those of the same names in |config|, and sets up (and, if the
  // session runs, starts) each data source on the producers that match now
  // and had no instance of it. Instances already running go on, even on a
  // producer the new filter leaves out. Every other difference in |config|
  // is ignored, with a log line (as upstream's service does). False, with
  // |error|, if the session is stopping or stopped, there is none, or
  // |config| has a producer_name_regex_filter. Linked only by callers.
  bool ChangeTraceConfig(ConsumerEndpoint* consumer, const protos::gen::TraceConfig& config,
                         std::string* error);
  // From now on |consumer| (one of this service's endpoints) observes the
  // events of |events_mask| (ObservedEvents::Type bits; 0: none; it
  // replaces the previous mask) in its session, through
  // Consumer::OnObservedEvents, as upstream's service reports them:
  //  * kDataSourceInstances: an instance is reported stopped when it is
  //    set up, started when the service starts it (or, for a data source
  //    that acknowledges starts, at the acknowledgement or the start
  //    timeout), stopped when the service stops it (or, for one that
  //    acknowledges stops, at the acknowledgement or the stop timeout) or
  //    its data source or producer goes. Asking for it reports at once the
  //    state of every instance of the session whose data source is still
  //    registered (none between a start or stop and its acknowledgement).
  //  * kAllDataSourcesStarted: the session's all_data_sources_started (also
  //    sent, always, as Consumer::OnAllDataSourcesStarted); at once to a
  //    consumer that asks while its session runs after it happened. Once
  //    per session and consumer.
  // What happens while a batch is on its way joins it. Linked only by callers.
  void ObserveEvents(ConsumerEndpoint* consumer, uint32_t events_mask);
  // Snapshots a session into a new, read-only one that |consumer| (one of
  // this service's endpoints, without a session) then owns and reads with
  // ReadBuffers, as upstream's CloneSession: the session named by
  // |args.session_id| or, if 0, by |args.unique_session_name| (clones are
  // not looked up by name) is flushed first if it runs (flags: the
  // service's, reason clone), then each of its buffers is copied as it
  // stands (what was already read from it is not in the copy), with its
  // stats. The source goes on. The clone is stopped, with the outcome of
  // that flush as its final_flush_outcome, and a new TraceUuid whose low
  // half is the source's. Refused (|done| with the error): no such session,
  // another uid's (root may clone any), a session writing into a file,
  // |consumer| has a session, no memory for the copy. |done| is called
  // like any consumer callback. Linked only by callers.
  void CloneSession(ConsumerEndpoint* consumer, const ConsumerEndpoint::CloneSessionArgs& args,
                    std::function<void(const ConsumerEndpoint::CloneSessionResult&)> done);
};

}  // namespace zt

#endif  // ZT_EXT_TRACING_CORE_TRACING_SERVICE_H_
