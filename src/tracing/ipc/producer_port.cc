#include "src/tracing/ipc/producer_port.h"

#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "src/base/memfd_shared_memory.h"
#include "src/base/scoped_file.h"
#include "src/tracing/ipc/commit_queue.h"
#include "src/tracing/ipc/commit_record.h"
#include "zt/base/logging.h"
#include "zt/ext/base/weak_ptr.h"
#include "zt/ext/tracing/core/commit_data_codec.h"
#include "zt/ipc/producer_port.gen.h"

namespace zt {
namespace {

using protos::gen::GetAsyncCommandResponse;

// How much of a producer's ring one drain may read. On a doorbell or after
// a message, 64 KiB (a ring's worth at the default size); then the rest
// waits for a task of its own, so that a producer committing flat out
// cannot keep the service from everyone else. Before a message, every
// record made before it must be applied first (order), and those were all
// in the ring at once: a ring's size. A drain that finds more than that is
// reading records rewritten as fast as they are read, which only a hostile
// producer does; its queue is closed.
constexpr size_t kMaxBytesPerDrain = 64 * 1024;

// Polling under load (docs/design/commit_queue.md "Polling"): a queue whose
// records come faster than one per kQueuePollInterval is not marked idle
// after a drain; it is read again an interval later, from a timer, for as
// long as each look finds two records or more. Its producer then rings no
// doorbell, and the service is woken once per interval instead of once per
// batch. A look that finds one record or none saved nothing over the
// doorbell: the ring goes idle. A record waits at most an interval, and a
// queue costs the service at most one wake-up per interval, never more
// than the doorbells its producer could ring instead.
constexpr std::chrono::microseconds kQueuePollInterval(50);

// One connected producer: the service's Producer callbacks become commands
// on the client's GetAsyncCommand stream.
class RemoteProducer : public Producer {
 public:
  RemoteProducer(const ipc::ClientInfo& client, base::TaskRunner* runner,
                 ProducerPortStats* stats)
      : client_(client), runner_(runner), stats_(stats) {}
  ~RemoteProducer() override {
    if (queue_)
      UnwatchQueue(queue_.get());
  }

  const ipc::ClientInfo& client() const { return client_; }
  ProducerEndpoint* endpoint() const { return endpoint_.get(); }
  // The data sources it registered, by name, with their descriptors'
  // sizes (the limits count them: ServiceLimits).
  std::map<std::string, size_t>& registered() { return registered_; }
  size_t registered_bytes() const {
    size_t total = 0;
    for (const auto& entry : registered_)
      total += entry.second;
    return total;
  }


  // Applies one CommitData, from a message or a ring record.
  void ApplyCommit(const void* bytes, size_t size) {
    if (!ParseCommitData(static_cast<const uint8_t*>(bytes), size, &commit_buffer_)) {
      ZT_WLOG("producer pid %d: malformed CommitData (%zu bytes) ignored",
              static_cast<int>(client_.pid), size);
      return;
    }
    endpoint_->CommitData(commit_buffer_);
  }

  // The commit queue (docs/design/commit_queue.md): maps the producer's
  // ring and makes its doorbell; false (logged) if it cannot.
  bool SetUpCommitQueue(std::unique_ptr<base::MemfdSharedMemory> shm) {
    if (queue_) {
      ZT_WLOG("producer pid %d: a second commit queue refused", static_cast<int>(client_.pid));
      return false;
    }
    base::ScopedFile doorbell(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (!doorbell) {
      ZT_PLOG("producer pid %d: no eventfd for a commit queue", static_cast<int>(client_.pid));
      return false;
    }
    base::ScopedFile poll_timer(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
    if (!poll_timer) {
      ZT_PLOG("producer pid %d: no timerfd for a commit queue", static_cast<int>(client_.pid));
      return false;
    }
    queue_.reset(new Queue);
    queue_->shm = std::move(shm);
    queue_->doorbell = std::move(doorbell);
    queue_->poll_timer = std::move(poll_timer);
    queue_->reader.reset(new CommitQueueReader(queue_->shm->start(), queue_->shm->size()));
    base::WeakPtr<RemoteProducer> weak = weak_factory_.GetWeakPtr();
    runner_->AddFileDescriptorWatch(queue_->poll_timer.get(), [weak] {
      if (weak)
        weak->OnPollTimer();
    });
    // Edge-triggered where the runner can: each ring wakes us once and
    // the eventfd is never read back (one system call fewer per wake-up).
    queue_->edge_triggered =
        runner_->AddEdgeTriggeredFileDescriptorWatch(queue_->doorbell.get(), [weak] {
          if (weak)
            weak->OnDoorbell();
        });
    stats_->queues_set_up++;
    // Idle from the start: the first record rings.
    DrainCommitQueue(Drain::kOnDoorbell);
    return true;
  }
  int commit_queue_doorbell() const { return queue_ ? queue_->doorbell.get() : -1; }

  // A socket message of this producer was handled: ring records made
  // after it may now be applied.
  void CountSocketMessage() { socket_messages_++; }

  // What a drain is for (see kMaxBytesPerDrain).
  enum class Drain {
    kOnDoorbell,     // The doorbell rang, or a drain's rest: bounded, then a task.
    kBeforeMessage,  // Records made before a message: all, in order.
    kAfterMessage,   // Records its handling let through: bounded, then a task.
    kFinal,          // The connection is over: what is left, in any order.
  };

  // Applies the ring's records that the socket has caught up with, within
  // the drain's budget, then marks the ring idle if it is empty.
  void DrainCommitQueue(Drain drain) {
    if (!queue_ || !endpoint_)
      return;
    const bool any_order = drain == Drain::kFinal;
    const bool whole_ring = drain == Drain::kBeforeMessage || any_order;
    size_t budget = whole_ring ? queue_->reader->capacity() : kMaxBytesPerDrain;
    size_t applied = 0;
    for (;;) {
      switch (queue_->reader->Next(socket_messages_, any_order, &record_)) {
        case CommitQueueReader::Status::kRecord: {
          const size_t cost = kCommitRecordHeaderBytes + record_.size();
          if (cost > budget && whole_ring && !any_order)
            return CloseCommitQueue("more records before one message than the ring holds");
          if (!DecodeCommitRecord(reinterpret_cast<const uint8_t*>(record_.data()),
                                  record_.size(), &commit_buffer_)) {
            // Both ends agreed on the layout: this producer is broken.
            return CloseCommitQueue("a record that does not decode");
          }
          stats_->commits_by_queue++;
          applied++;
          endpoint_->CommitData(commit_buffer_);
          if (cost < budget) {
            budget -= cost;
            continue;
          }
          if (!any_order)
            PostDrain();  // Still busy (the writer rings nobody): the rest in a task.
          return;
        }
        case CommitQueueReader::Status::kWaiting:
          return;  // Busy: the socket message it waits for drains it.
        case CommitQueueReader::Status::kEmpty:
          // Busy still, with a look scheduled: the producer rings nobody.
          if (!any_order && KeepPolling(applied))
            return;
          if (queue_->reader->GoIdle())
            return;
          // A record came as the ring went idle; a producer making that
          // happen again and again pays from the same budget.
          if (budget <= kCommitRecordHeaderBytes) {
            if (!any_order)
              PostDrain();
            return;
          }
          budget -= kCommitRecordHeaderBytes;
          continue;
        case CommitQueueReader::Status::kCorrupt:
          return CloseCommitQueue(nullptr);
      }
    }
  }

  void set_endpoint(std::unique_ptr<ProducerEndpoint> endpoint, bool provided_smb) {
    endpoint_ = std::move(endpoint);
    provided_smb_ = provided_smb;
  }

  // The client's long-lived GetAsyncCommand request. Commands made before
  // it arrived go out now, in order. A second request replaces the first
  // (which ends with a failure), as a reconnecting client's would.
  void SetCommandStream(ipc::Reply reply) {
    command_stream_ = std::move(reply);
    while (!queued_.empty() && command_stream_.pending()) {
      QueuedCommand& c = queued_.front();
      ResolveCommand(c.bytes, c.with_smb_fd);
      queued_.pop_front();
    }
  }

  // Producer (called back by the service on its runner).
  void OnConnect() override {}
  void OnDisconnect() override {}
  void OnTracingSetup() override { smb_ready_ = true; }
  void SetupDataSource(DataSourceInstanceId id,
                       const protos::gen::DataSourceConfig& config) override {
    MaybeSendSetupTracing();
    GetAsyncCommandResponse cmd;
    cmd.mutable_setup_data_source()->set_new_instance_id(id);
    cmd.mutable_setup_data_source()->set_config(config);
    Send(cmd);
  }
  void StartDataSource(DataSourceInstanceId id,
                       const protos::gen::DataSourceConfig& config) override {
    GetAsyncCommandResponse cmd;
    cmd.mutable_start_data_source()->set_new_instance_id(id);
    cmd.mutable_start_data_source()->set_config(config);
    Send(cmd);
  }
  void StopDataSource(DataSourceInstanceId id) override {
    GetAsyncCommandResponse cmd;
    cmd.mutable_stop_data_source()->set_instance_id(id);
    Send(cmd);
  }
  void Flush(FlushRequestId request,
             const std::vector<DataSourceInstanceId>& ids) override {
    FlushWithFlags(request, ids, 0);
  }
  void FlushWithFlags(FlushRequestId request, const std::vector<DataSourceInstanceId>& ids,
                      uint64_t flags) override {
    GetAsyncCommandResponse cmd;
    for (DataSourceInstanceId id : ids)
      cmd.mutable_flush()->add_data_source_ids(id);
    cmd.mutable_flush()->set_request_id(request);
    if (flags)  // Why and by whom (flush_flags), as upstream's service says.
      cmd.mutable_flush()->set_flags(flags);
    Send(cmd);
  }
  void ClearIncrementalState(const std::vector<DataSourceInstanceId>& ids) override {
    GetAsyncCommandResponse cmd;
    for (DataSourceInstanceId id : ids)
      cmd.mutable_clear_incremental_state()->add_data_source_ids(id);
    Send(cmd);
  }

 private:
  struct QueuedCommand {
    std::string bytes;
    bool with_smb_fd;
  };

  // A ring the producer commits through, mapped from its memfd.
  struct Queue {
    std::unique_ptr<base::MemfdSharedMemory> shm;
    std::unique_ptr<CommitQueueReader> reader;
    base::ScopedFile doorbell;  // Written by the producer, watched here.
    base::ScopedFile poll_timer;  // A timerfd: the next look while polling.
    bool edge_triggered = false;  // Else the doorbell must be read back.
    bool polling = false;         // The timer is armed; the ring stays busy.
    bool timer_look = false;      // In the timer's drain.
    // When a drain last applied records.
    std::chrono::steady_clock::time_point last_applied;
  };

  void UnwatchQueue(Queue* queue) {
    runner_->RemoveFileDescriptorWatch(queue->doorbell.get());
    runner_->RemoveFileDescriptorWatch(queue->poll_timer.get());
  }

  // Called when a drain (not the final one) found the ring empty after
  // applying |applied| records: true if the queue is polled (the timer is
  // armed, the ring left busy), false if it should go idle.
  bool KeepPolling(size_t applied) {
    Queue* queue = queue_.get();
    if (queue->polling)
      return true;  // A drain between the timer's looks (after a message).
    // A look or a wake-up that found one record saved nothing over the
    // doorbell; two or more, or records closer together than an interval,
    // are worth polling for.
    const auto now = std::chrono::steady_clock::now();
    const bool close_together = now - queue->last_applied < kQueuePollInterval;
    if (applied)
      queue->last_applied = now;
    if (applied < 2 && !(applied == 1 && close_together && !queue->timer_look))
      return false;
    itimerspec when = {};
    when.it_value.tv_nsec = std::chrono::nanoseconds(kQueuePollInterval).count();
    if (timerfd_settime(queue->poll_timer.get(), 0, &when, nullptr) != 0) {
      ZT_PLOG("producer pid %d: commit queue poll timer", static_cast<int>(client_.pid));
      return false;
    }
    if (!queue->timer_look)
      stats_->queue_polls_started++;
    queue->polling = true;
    return true;
  }

  // The poll timer fired: one look at the ring, then polling goes on (the
  // timer re-armed) or ends (the ring idle, waiting for the doorbell).
  void OnPollTimer() {
    if (!queue_)
      return;
    uint64_t expirations = 0;
    if (read(queue_->poll_timer.get(), &expirations, sizeof(expirations)) < 0 || !queue_->polling)
      return;
    stats_->queue_poll_wakeups++;
    queue_->polling = false;
    queue_->timer_look = true;
    DrainCommitQueue(Drain::kOnDoorbell);
    if (queue_)  // Not closed by the drain.
      queue_->timer_look = false;
  }

  void PostDrain() {
    if (drain_posted_)
      return;
    drain_posted_ = true;
    base::WeakPtr<RemoteProducer> weak = weak_factory_.GetWeakPtr();
    runner_->PostTask([weak] {
      if (!weak)
        return;
      weak->drain_posted_ = false;
      weak->DrainCommitQueue(Drain::kOnDoorbell);
    });
  }

  // Stops reading the ring for good (|why|, or the reader's own error):
  // the producer's next batch goes as a CommitData message. What was
  // published and not read is lost, and counted.
  void CloseCommitQueue(const char* why) {
    if (why)
      queue_->reader->Close(why);
    const uint64_t lost = queue_->reader->UnreadBytes();
    ZT_ELOG("producer pid %d: commit queue closed: %s (%llu bytes of records unread, lost)",
            static_cast<int>(client_.pid), queue_->reader->error().c_str(),
            static_cast<unsigned long long>(lost));
    UnwatchQueue(queue_.get());
    stats_->queues_closed++;
    stats_->queue_bytes_lost += lost;
    closed_queue_ = std::move(queue_);
  }

  void OnDoorbell() {
    stats_->queue_wakeups++;
    uint64_t rings = 0;
    // A level-triggered watch fires until the eventfd is reset; EAGAIN if
    // it already was.
    if (!queue_->edge_triggered && read(queue_->doorbell.get(), &rings, sizeof(rings)) < 0 &&
        errno != EAGAIN)
      ZT_PLOG("producer pid %d: commit queue doorbell", static_cast<int>(client_.pid));
    DrainCommitQueue(Drain::kOnDoorbell);
  }

  int smb_fd() const {
    return endpoint_ && endpoint_->shared_memory() ? endpoint_->shared_memory()->fd() : -1;
  }

  // The SMB goes to the producer with the first command that needs it, as
  // upstream's service sends it: the SetupTracing before the first
  // SetupDataSource, carrying the memfd unless the producer gave us its own.
  void MaybeSendSetupTracing() {
    if (setup_tracing_sent_ || !smb_ready_ || !endpoint_)
      return;
    setup_tracing_sent_ = true;
    GetAsyncCommandResponse cmd;
    cmd.mutable_setup_tracing()->set_shared_buffer_page_size_kb(
        static_cast<uint32_t>(endpoint_->shared_memory_page_size() / 1024));
    Send(cmd, /*with_smb_fd=*/!provided_smb_);
  }

  // One command on the stream. A command over what the producer's
  // connection takes (a config of megabytes, to an upstream producer, whose
  // limit is 128 KiB) would end its stream, and with it the producer's
  // connection: it is not sent, and that data source instance does not
  // start there (counted, logged).
  void ResolveCommand(const std::string& bytes, bool with_smb_fd) {
    const size_t limit = command_stream_.max_reply_bytes();
    if (bytes.size() > limit) {
      stats_->commands_too_large++;
      ZT_ELOG("producer pid %d: a command of %zu bytes (a data source config) is over the "
              "%zu bytes its connection takes; not sent, so that data source does not run "
              "there",
              static_cast<int>(client_.pid), bytes.size(), limit);
      return;
    }
    command_stream_.Resolve(bytes, /*has_more=*/true, with_smb_fd ? smb_fd() : -1);
  }

  void Send(const GetAsyncCommandResponse& cmd, bool with_smb_fd = false) {
    std::string bytes = cmd.SerializeAsString();
    if (command_stream_.pending())
      ResolveCommand(bytes, with_smb_fd);
    else
      queued_.push_back(QueuedCommand{std::move(bytes), with_smb_fd});
  }

  const ipc::ClientInfo client_;
  std::map<std::string, size_t> registered_;
  std::unique_ptr<ProducerEndpoint> endpoint_;
  bool provided_smb_ = false;
  bool smb_ready_ = false;
  bool setup_tracing_sent_ = false;
  ipc::Reply command_stream_;
  std::deque<QueuedCommand> queued_;
  // Where this producer's commits are parsed, one after the other: its
  // vectors keep their capacity, so a batch allocates nothing.
  CommitData commit_buffer_;
  base::TaskRunner* const runner_;
  ProducerPortStats* const stats_;
  std::unique_ptr<Queue> queue_;
  // A queue closed for corruption: kept mapped (the producer may still be
  // writing into it until it sees the state) but never read again.
  std::unique_ptr<Queue> closed_queue_;
  uint32_t socket_messages_ = 0;  // Handled so far (wraps, as the records').
  std::string record_;            // A ring record, copied out; reused.
  bool drain_posted_ = false;
  base::WeakPtrFactory<RemoteProducer> weak_factory_{this};  // Last member.
};

// The port's state, shared by its method handlers. Destroying it (with the
// Service) disconnects every producer from the service.
struct ProducerPortState {
  TracingService* service;
  base::TaskRunner* runner;
  std::shared_ptr<ProducerPortStats> stats;
  ServiceLimits limits;
  std::map<ipc::ClientId, std::unique_ptr<RemoteProducer>> producers;

  // The producer of an initialized connection, or null (the request is
  // then refused: nothing but InitializeConnection and GetAsyncCommand
  // makes sense before it).
  RemoteProducer* Connected(const ipc::Request& request) {
    auto it = producers.find(request.client.id);
    return it != producers.end() && it->second->endpoint() ? it->second.get() : nullptr;
  }
  RemoteProducer* GetOrCreate(const ipc::ClientInfo& client) {
    std::unique_ptr<RemoteProducer>& p = producers[client.id];
    if (!p)
      p.reset(new RemoteProducer(client, runner, stats.get()));
    return p.get();
  }
};

// Parses a request of type T; false (and a log line) if it does not decode.
template <typename T>
bool ParseProducerRequest(const ipc::Request& request, const char* method, T* out) {
  if (out->ParseFromString(request.args))
    return true;
  ZT_WLOG("producer pid %d: undecodable %s request (%zu bytes) refused",
          static_cast<int>(request.client.pid), method, request.args.size());
  return false;
}

// Why |uid| may not connect one more producer asking for |req|'s SMB, or
// "" if it may.
std::string OverUidLimits(const ProducerPortState& state, uint32_t uid,
                          const protos::gen::InitializeConnectionRequest& req) {
  const ServiceLimits& limits = state.limits;
  size_t producers = 0;
  uint64_t shm_bytes = 0;
  for (const auto& entry : state.producers) {
    const RemoteProducer& p = *entry.second;
    if (p.client().uid != uid || !p.endpoint())
      continue;
    producers++;
    if (p.endpoint()->shared_memory())
      shm_bytes += p.endpoint()->shared_memory()->size();
  }
  if (limits.max_producers_per_uid && producers >= limits.max_producers_per_uid) {
    return "uid " + std::to_string(uid) + " has " + std::to_string(producers) +
           " producers connected, the limit (ztraced --max-producers-per-uid)";
  }
  const uint64_t smb = TracingService::ComputeShmGeometry(
                           req.shared_memory_size_hint_bytes(),
                           req.shared_memory_page_size_hint_bytes())
                           .size;
  if (limits.max_shm_bytes_per_uid && shm_bytes + smb > limits.max_shm_bytes_per_uid) {
    return "its shared memory buffer of " + std::to_string(smb) + " bytes would take uid " +
           std::to_string(uid) + "'s to " + std::to_string(shm_bytes + smb) +
           " bytes, over the limit of " + std::to_string(limits.max_shm_bytes_per_uid) +
           " (ztraced --max-shm-bytes-per-uid)";
  }
  return std::string();
}

// Why |p| may not register |descriptor|, or "" if it may (an update of a
// name it registered counts the new size instead of the old).
std::string OverProducerLimits(const ServiceLimits& limits, RemoteProducer& p,
                               const protos::gen::DataSourceDescriptor& descriptor,
                               size_t descriptor_bytes) {
  const std::string& name = descriptor.name();
  if (limits.max_data_source_name_bytes && name.size() > limits.max_data_source_name_bytes) {
    return "a data source name of " + std::to_string(name.size()) +
           " bytes is over the limit of " + std::to_string(limits.max_data_source_name_bytes);
  }
  if (limits.max_data_source_descriptor_bytes &&
      descriptor_bytes > limits.max_data_source_descriptor_bytes) {
    return "the descriptor of data source \"" + name.substr(0, 64) + "\" is " +
           std::to_string(descriptor_bytes) + " bytes, over the limit of " +
           std::to_string(limits.max_data_source_descriptor_bytes);
  }
  auto it = p.registered().find(name);
  const bool known = it != p.registered().end();
  if (!known && limits.max_data_sources_per_producer &&
      p.registered().size() >= limits.max_data_sources_per_producer) {
    return "this producer has " + std::to_string(p.registered().size()) +
           " data sources registered, the limit (ztraced --max-data-sources-per-producer)";
  }
  const size_t total = p.registered_bytes() - (known ? it->second : 0) + descriptor_bytes;
  if (limits.max_descriptor_bytes_per_producer &&
      total > limits.max_descriptor_bytes_per_producer) {
    return "this producer's descriptors would hold " + std::to_string(total) +
           " bytes, over the limit of " + std::to_string(limits.max_descriptor_bytes_per_producer);
  }
  return std::string();
}

void InitializeConnection(ProducerPortState* state, ipc::Request& request, ipc::Reply reply) {
  protos::gen::InitializeConnectionRequest req;
  if (!ParseProducerRequest(request, "InitializeConnection", &req))
    return;
  RemoteProducer* producer = state->GetOrCreate(request.client);
  if (producer->endpoint()) {
    ZT_WLOG("producer pid %d sent InitializeConnection twice; refused",
            static_cast<int>(request.client.pid));
    return;
  }
  if (const std::string over = OverUidLimits(*state, request.client.uid, req); !over.empty()) {
    state->stats->producers_refused++;
    ZT_ELOG("producer \"%s\" (pid %d, uid %d) refused: %s", req.producer_name().c_str(),
            static_cast<int>(request.client.pid), static_cast<int>(request.client.uid),
            over.c_str());
    return;  // The reply fails: the client's connection ends.
  }
  TracingService::ProducerOptions options;
  options.name = req.producer_name().empty() ? "unnamed" : req.producer_name();
  // Reported by QueryServiceState; the producer says it, so bounded.
  options.sdk_version = req.sdk_version().substr(
      0, TracingService::ProducerOptions::kMaxSdkVersionLength);
  options.uid = static_cast<int32_t>(request.client.uid);
  options.pid = static_cast<int32_t>(request.client.pid);
  options.shm_size_hint_bytes = req.shared_memory_size_hint_bytes();
  options.shm_page_size_hint_bytes = req.shared_memory_page_size_hint_bytes();
  // A producer may bring its own SMB (it can write before it is connected,
  // as upstream's SDK does at startup). Only a sealed memfd of exactly the
  // size the hints give is taken; anything else and the service makes one.
  if (req.producer_provided_shmem() && static_cast<bool>(*request.received_fd)) {
    const TracingService::ShmGeometry geometry = TracingService::ComputeShmGeometry(
        options.shm_size_hint_bytes, options.shm_page_size_hint_bytes);
    std::unique_ptr<base::MemfdSharedMemory> shm = base::MemfdSharedMemory::AttachToFd(
        std::move(*request.received_fd), geometry.size, /*require_seals=*/true);
    if (shm)
      options.provided_shm = std::move(shm);
    else
      ZT_WLOG("producer \"%s\": its shared memory buffer is unusable; the service makes one",
              options.name.c_str());
  }
  const bool provided = options.provided_shm != nullptr;
  std::unique_ptr<ProducerEndpoint> endpoint = state->service->ConnectProducer(producer, options);
  if (!endpoint && provided) {
    options.provided_shm.reset();
    endpoint = state->service->ConnectProducer(producer, options);
  }
  if (!endpoint)
    return;  // Logged by the service; the reply fails.
  const bool used_provided = provided && options.provided_shm != nullptr;
  producer->set_endpoint(std::move(endpoint), used_provided);
  protos::gen::InitializeConnectionResponse resp;
  resp.set_using_shmem_provided_by_producer(used_provided);
  // Patches always travel in CommitData: the service never applies a
  // producer's direct SMB writes to chunks it has not been told about.
  resp.set_direct_smb_patching_supported(false);
  reply.Resolve(resp.SerializeAsString());
}

}  // namespace

std::unique_ptr<ipc::Service> CreateProducerPort(TracingService* service,
                                                base::TaskRunner* runner,
                                                std::shared_ptr<ProducerPortStats> stats,
                                                const ServiceLimits& limits) {
  auto state = std::make_shared<ProducerPortState>();
  state->limits = limits;
  state->service = service;
  state->runner = runner;
  state->stats = stats ? std::move(stats) : std::make_shared<ProducerPortStats>();
  auto port = std::make_unique<ipc::Service>("ProducerPort");
  // Every method keeps the producer's ring records in order with its socket
  // messages (docs/design/commit_queue.md): the records made before this
  // message are applied before it, those made after it once it is counted.
  auto add = [&port, state](const char* name, ipc::Method::Handler handler) {
    port->AddMethod(name, [state, handler = std::move(handler)](ipc::Request& request,
                                                                ipc::Reply reply) {
      RemoteProducer* producer = state->GetOrCreate(request.client);
      producer->DrainCommitQueue(RemoteProducer::Drain::kBeforeMessage);
      handler(request, std::move(reply));
      producer->CountSocketMessage();
      producer->DrainCommitQueue(RemoteProducer::Drain::kAfterMessage);
    });
  };
  // Declaration order of upstream's ProducerPort: clients look methods up
  // by name, but upstream's own numbering is what tools expect to see.
  add("InitializeConnection", [state](ipc::Request& request, ipc::Reply reply) {
    InitializeConnection(state.get(), request, std::move(reply));
  });
  add("RegisterDataSource", [state](ipc::Request& request, ipc::Reply reply) {
    protos::gen::RegisterDataSourceRequest req;
    RemoteProducer* p = state->Connected(request);
    if (!p || !ParseProducerRequest(request, "RegisterDataSource", &req))
      return;
    if (req.data_source_descriptor().name().empty()) {
      protos::gen::RegisterDataSourceResponse resp;
      resp.set_error("a data source needs a name");
      return reply.Resolve(resp.SerializeAsString());
    }
    // The descriptor's size as it came (the request is little more).
    const size_t descriptor_bytes = request.args.size();
    const std::string over = OverProducerLimits(state->limits, *p, req.data_source_descriptor(),
                                                descriptor_bytes);
    if (!over.empty()) {
      state->stats->data_sources_refused++;
      ZT_ELOG("producer pid %d (uid %d): RegisterDataSource refused: %s",
              static_cast<int>(request.client.pid),
              static_cast<int>(request.client.uid), over.c_str());
      protos::gen::RegisterDataSourceResponse resp;
      resp.set_error("refused: " + over);
      return reply.Resolve(resp.SerializeAsString());
    }
    p->registered()[req.data_source_descriptor().name()] = descriptor_bytes;
    p->endpoint()->RegisterDataSource(req.data_source_descriptor());
    reply.Resolve(protos::gen::RegisterDataSourceResponse().SerializeAsString());
  });
  add("UnregisterDataSource", [state](ipc::Request& request, ipc::Reply reply) {
    protos::gen::UnregisterDataSourceRequest req;
    RemoteProducer* p = state->Connected(request);
    if (!p || !ParseProducerRequest(request, "UnregisterDataSource", &req))
      return;
    p->registered().erase(req.data_source_name());
    p->endpoint()->UnregisterDataSource(req.data_source_name());
    reply.Resolve("");
  });
  add("CommitData", [state](ipc::Request& request, ipc::Reply reply) {
    RemoteProducer* p = state->Connected(request);
    if (!p)
      return;
    // Synchronous: by the time the reply goes, the chunks are in their
    // buffers (what TraceWriter::Flush(callback) waits for).
    state->stats->commits_by_message++;
    p->ApplyCommit(request.args.data(), request.args.size());
    reply.Resolve(std::string());  // Nothing to say; nothing sent for drop_reply.
  });
  add("GetAsyncCommand", [state](ipc::Request& request, ipc::Reply reply) {
    state->GetOrCreate(request.client)->SetCommandStream(std::move(reply));
  });
  add("RegisterTraceWriter", [state](ipc::Request& request, ipc::Reply reply) {
    protos::gen::RegisterTraceWriterRequest req;
    RemoteProducer* p = state->Connected(request);
    if (!p || !ParseProducerRequest(request, "RegisterTraceWriter", &req))
      return;
    p->endpoint()->RegisterTraceWriter(req.trace_writer_id(), req.target_buffer());
    reply.Resolve("");
  });
  add("UnregisterTraceWriter", [state](ipc::Request& request, ipc::Reply reply) {
    protos::gen::UnregisterTraceWriterRequest req;
    RemoteProducer* p = state->Connected(request);
    if (!p || !ParseProducerRequest(request, "UnregisterTraceWriter", &req))
      return;
    p->endpoint()->UnregisterTraceWriter(req.trace_writer_id());
    reply.Resolve("");
  });
  add("NotifyDataSourceStarted", [state](ipc::Request& request, ipc::Reply reply) {
    protos::gen::NotifyDataSourceStartedRequest req;
    RemoteProducer* p = state->Connected(request);
    if (!p || !ParseProducerRequest(request, "NotifyDataSourceStarted", &req))
      return;
    p->endpoint()->NotifyDataSourceStarted(req.data_source_id());
    reply.Resolve("");
  });
  add("NotifyDataSourceStopped", [state](ipc::Request& request, ipc::Reply reply) {
    protos::gen::NotifyDataSourceStoppedRequest req;
    RemoteProducer* p = state->Connected(request);
    if (!p || !ParseProducerRequest(request, "NotifyDataSourceStopped", &req))
      return;
    p->endpoint()->NotifyDataSourceStopped(req.data_source_id());
    reply.Resolve("");
  });
  add("ActivateTriggers", [state](ipc::Request& request, ipc::Reply reply) {
    protos::gen::ActivateTriggersRequest req;
    RemoteProducer* p = state->Connected(request);
    if (!p || !ParseProducerRequest(request, "ActivateTriggers", &req))
      return;
    state->service->ActivateTriggers(p->endpoint(), req.trigger_names());
    reply.Resolve("");
  });
  // Requests are handled in the order they arrive, each completely: when
  // Sync is handled, everything sent before it has been.
  add("Sync", [](ipc::Request&, ipc::Reply reply) { reply.Resolve(""); });
  // A registered data source's new descriptor (same name), under the
  // registration's limits; unknown names and refusals are rejected.
  add("UpdateDataSource", [state](ipc::Request& request, ipc::Reply reply) {
    protos::gen::UpdateDataSourceRequest req;
    RemoteProducer* p = state->Connected(request);
    if (!p || !ParseProducerRequest(request, "UpdateDataSource", &req))
      return;
    const protos::gen::DataSourceDescriptor& descriptor = req.data_source_descriptor();
    if (p->registered().count(descriptor.name()) == 0)
      return reply.Reject();  // Not registered (or no name): nothing to update.
    const size_t descriptor_bytes = request.args.size();
    const std::string over = OverProducerLimits(state->limits, *p, descriptor, descriptor_bytes);
    if (!over.empty()) {
      state->stats->data_sources_refused++;
      ZT_ELOG("producer pid %d (uid %d): UpdateDataSource refused: %s",
              static_cast<int>(request.client.pid), static_cast<int>(request.client.uid),
              over.c_str());
      return reply.Reject();
    }
    p->registered()[descriptor.name()] = descriptor_bytes;
    p->endpoint()->RegisterDataSource(descriptor);  // A known name: an update.
    reply.Resolve(protos::gen::UpdateDataSourceResponse().SerializeAsString());
  });
  // zerotrace's own, listed last (docs/design/commit_queue.md): a sealed
  // memfd of exactly the size asked for (so the producer cannot make us
  // fault by shrinking it), answered with the doorbell's eventfd.
  add("ZtSetupCommitQueue", [state](ipc::Request& request, ipc::Reply reply) {
    protos::gen::ZtSetupCommitQueueRequest req;
    RemoteProducer* p = state->Connected(request);
    if (!p || !ParseProducerRequest(request, "ZtSetupCommitQueue", &req))
      return;
    if (!IsValidCommitQueueSize(req.size_bytes()) || !*request.received_fd ||
        req.record_version() != kCommitRecordVersion) {
      ZT_WLOG("producer pid %d: a commit queue of %u bytes, records of version %u%s refused "
              "(this service knows version %u)",
              static_cast<int>(request.client.pid), req.size_bytes(), req.record_version(),
              *request.received_fd ? "" : ", without its memfd", kCommitRecordVersion);
      return;
    }
    std::unique_ptr<base::MemfdSharedMemory> shm = base::MemfdSharedMemory::AttachToFd(
        std::move(*request.received_fd), req.size_bytes(), /*require_seals=*/true);
    if (!shm || !p->SetUpCommitQueue(std::move(shm)))
      return;  // Logged; the producer keeps to CommitData.
    reply.Resolve(protos::gen::ZtSetupCommitQueueResponse().SerializeAsString(),
                  /*has_more=*/false, p->commit_queue_doorbell());
  });
  port->on_client_disconnected = [state](const ipc::ClientInfo& client) {
    // Destroying the endpoint disconnects the producer: its SMB is scraped
    // one last time and its instances count as stopped. Its ring first:
    // what it committed before it went is applied, as its last messages
    // were.
    auto it = state->producers.find(client.id);
    if (it == state->producers.end())
      return;
    it->second->DrainCommitQueue(RemoteProducer::Drain::kFinal);
    state->producers.erase(it);
  };
  return port;
}

}  // namespace zt
