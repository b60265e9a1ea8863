#include "src/tracing/service/tracing_service_impl.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "src/tracing/service/service_packets.h"
#include "src/tracing/service/trusted_fields.h"

namespace zt {

using ABI = SharedMemoryABI;

Producer::~Producer() = default;
Consumer::~Consumer() = default;
ProducerEndpoint::~ProducerEndpoint() = default;
ConsumerEndpoint::~ConsumerEndpoint() = default;
TracingService::~TracingService() = default;

std::unique_ptr<TracingService> TracingService::Create(
    base::TaskRunner* task_runner) {
  return std::unique_ptr<TracingService>(new TracingServiceImpl(task_runner));
}

// --- Endpoints: thin forwarders that remember who they are. ---

class TracingServiceImpl::ProducerEndpointImpl : public ProducerEndpoint {
 public:
  ProducerEndpointImpl(TracingServiceImpl* service, uint32_t id)
      : service_(service), id_(id) {}
  ~ProducerEndpointImpl() override { service_->DisconnectProducer(id_); }

  void RegisterDataSource(
      const protos::gen::DataSourceDescriptor& descriptor) override {
    service_->RegisterDataSource(id_, descriptor);
  }
  void UnregisterDataSource(const std::string& name) override {
    service_->UnregisterDataSource(id_, name);
  }
  void CommitData(const zt::CommitData& data) override {
    service_->CommitData(id_, data);
  }
  void NotifyDataSourceStarted(DataSourceInstanceId) override {}
  void NotifyDataSourceStopped(DataSourceInstanceId id) override {
    service_->NotifyDataSourceStopped(id_, id);
  }
  void NotifyFlushComplete(FlushRequestId id) override {
    service_->NotifyFlushComplete(id_, id);
  }
  void RegisterTraceWriter(uint32_t writer_id, uint32_t target_buffer) override {
    service_->RegisterTraceWriter(id_, writer_id, target_buffer);
  }
  void UnregisterTraceWriter(uint32_t writer_id) override {
    service_->UnregisterTraceWriter(id_, writer_id);
  }
  uint8_t* shared_memory() const override { return state()->smb.get(); }
  size_t shared_memory_size() const override { return state()->smb_size; }
  size_t shared_memory_page_size() const override { return state()->page_size; }
  uint32_t producer_id() const override { return id_; }

 private:
  ProducerState* state() const { return service_->producers_.at(id_).get(); }

  TracingServiceImpl* const service_;
  const uint32_t id_;
};

class TracingServiceImpl::ConsumerEndpointImpl : public ConsumerEndpoint {
 public:
  ConsumerEndpointImpl(TracingServiceImpl* service, Consumer* consumer,
                       int32_t uid)
      : service_(service), consumer_(consumer), uid_(uid) {}
  ~ConsumerEndpointImpl() override { service_->DisconnectConsumer(this); }

  void EnableTracing(const protos::gen::TraceConfig& config, int fd) override {
    service_->EnableTracing(this, config, fd);
  }
  void StartTracing() override { service_->StartTracing(this); }
  void DisableTracing() override { service_->DisableTracing(this); }
  void Flush(uint32_t timeout_ms, std::function<void(bool)> done) override {
    service_->Flush(this, timeout_ms, std::move(done));
  }
  void ReadBuffers() override { service_->ReadBuffers(this); }
  void FreeBuffers() override { service_->FreeBuffers(this); }
  void GetTraceStats() override { service_->GetTraceStats(this); }

  Consumer* consumer() const { return consumer_; }
  int32_t uid() const { return uid_; }
  uint64_t session_id = 0;

 private:
  TracingServiceImpl* const service_;
  Consumer* const consumer_;
  const int32_t uid_;
};

// --- Service ---

TracingServiceImpl::TracingServiceImpl(base::TaskRunner* task_runner)
    : task_runner_(task_runner),
      service_uid_(static_cast<int32_t>(getuid())),
      alive_(std::make_shared<TracingServiceImpl*>(this)) {}

TracingServiceImpl::~TracingServiceImpl() { *alive_ = nullptr; }

TracingService::ShmGeometry TracingService::ComputeShmGeometry(
    size_t size_hint, size_t page_size_hint) {
  // Bad hints fall back to the defaults instead of failing.
  ShmGeometry g;
  g.page_size = page_size_hint;
  if (g.page_size == 0 || g.page_size % 4096 != 0 || g.page_size > 32768)
    g.page_size = TracingServiceImpl::kDefaultShmPageSize;
  size_t size = size_hint;
  if (size == 0 || size > TracingServiceImpl::kMaxShmSize)
    size = TracingServiceImpl::kDefaultShmSize;
  g.size = std::max(2 * g.page_size,
                    (size + g.page_size - 1) / g.page_size * g.page_size);
  return g;
}

std::unique_ptr<ProducerEndpoint> TracingServiceImpl::ConnectProducer(
    Producer* producer, const ProducerOptions& options) {
  auto state = std::make_unique<ProducerState>();
  state->id = next_producer_id_++;
  state->client = producer;
  state->options = options;
  const ShmGeometry geometry = ComputeShmGeometry(
      options.shm_size_hint_bytes, options.shm_page_size_hint_bytes);
  size_t page = geometry.page_size;
  size_t size = geometry.size;
  if (options.provided_shm) {
    // The producer sized it from the same hints (ComputeShmGeometry).
    // The ABI's atomics need alignment; a misaligned buffer would corrupt
    // every trace written through it.
    if (reinterpret_cast<uintptr_t>(options.provided_shm.get()) % 4096 != 0) {
      fprintf(stderr, "zt: provided shared memory buffer is not 4 KiB-aligned\n");
      abort();
    }
    state->smb = options.provided_shm;
  } else {
    void* memory = aligned_alloc(4096, size);
    if (!memory) {  // Out of memory: fall back to the smallest valid SMB.
      size = 2 * page;
      memory = aligned_alloc(4096, size);
      if (!memory) {
        fprintf(stderr, "zt: cannot allocate a %zu-byte shared memory buffer\n", size);
        abort();
      }
    }
    state->smb = std::shared_ptr<uint8_t>(static_cast<uint8_t*>(memory), &free);
    memset(state->smb.get(), 0, size);
  }
  state->smb_size = size;
  state->page_size = page;
  state->abi.Initialize(state->smb.get(), size, page);
  const uint32_t id = state->id;
  producers_[id] = std::move(state);
  producers_seen_++;
  auto endpoint = std::make_unique<ProducerEndpointImpl>(this, id);
  producer->OnConnect();
  producer->OnTracingSetup();
  return endpoint;
}

void TracingServiceImpl::DisconnectProducer(uint32_t producer_id) {
  auto it = producers_.find(producer_id);
  if (it == producers_.end())
    return;
  // Its instances count as stopped; pending flushes stop waiting for it.
  // What it still held in chunks being written is taken first. Callbacks
  // below may end sessions: each is looked up again by id.
  std::vector<uint64_t> session_ids;
  for (auto& entry : sessions_)
    session_ids.push_back(entry.first);
  for (uint64_t session_id : session_ids) {
    auto found = sessions_.find(session_id);
    if (found == sessions_.end())
      continue;
    Session* s = found->second.get();
    if (!s->disabled)
      ScrapeSharedMemoryBuffers(s);
    for (DataSourceInstance& inst : s->instances) {
      if (inst.producer_id == producer_id && !inst.stopped) {
        inst.stopped = true;
        if (s->stopping && inst.will_notify_on_stop && s->pending_stop_acks)
          s->pending_stop_acks--;
      }
    }
    std::vector<FlushRequestId> answered;
    for (auto& f : s->flushes) {
      f.second.producers.erase(producer_id);
      if (f.second.producers.empty())
        answered.push_back(f.first);
    }
    for (FlushRequestId f : answered)
      CompleteFlush(session_id, f, true);
    found = sessions_.find(session_id);
    if (found != sessions_.end() && found->second->stopping &&
        !found->second->sending_stops && found->second->pending_stop_acks == 0 &&
        !found->second->disabled) {
      FinishDisable(session_id);
    }
  }
  producers_.erase(producer_id);
  for (auto seq = sequence_ids_.begin(); seq != sequence_ids_.end();) {
    if (seq->first.first == producer_id)
      seq = sequence_ids_.erase(seq);
    else
      ++seq;
  }
}

void TracingServiceImpl::RegisterDataSource(
    uint32_t producer_id, const protos::gen::DataSourceDescriptor& descriptor) {
  auto it = producers_.find(producer_id);
  if (it == producers_.end() || descriptor.name().empty())
    return;
  ProducerState* producer = it->second.get();
  const bool known = producer->data_sources.count(descriptor.name()) != 0;
  producer->data_sources[descriptor.name()] = descriptor;
  if (known)
    return;  // Registered again: the descriptor is updated, nothing else.
  data_sources_seen_++;
  // Sessions already running pick up a matching data source now. Producer
  // callbacks may re-enter the service: sessions are looked up by id.
  std::vector<uint64_t> session_ids;
  for (auto& entry : sessions_)
    session_ids.push_back(entry.first);
  for (uint64_t session_id : session_ids) {
    auto found = sessions_.find(session_id);
    if (found == sessions_.end() || found->second->disabled ||
        found->second->stopping) {
      continue;
    }
    const protos::gen::TraceConfig config = found->second->config;
    for (const auto& cfg_ds : config.data_sources()) {
      if (cfg_ds.config().name() != descriptor.name())
        continue;
      found = sessions_.find(session_id);
      auto p = producers_.find(producer_id);
      if (found == sessions_.end() || p == producers_.end())
        break;
      const DataSourceInstanceId id =
          SetUpInstance(found->second.get(), p->second.get(), cfg_ds);
      found = sessions_.find(session_id);
      p = producers_.find(producer_id);
      if (!id || found == sessions_.end() || p == producers_.end() ||
          !found->second->started) {
        continue;
      }
      for (const DataSourceInstance& inst : found->second->instances) {
        if (inst.id == id) {
          const protos::gen::DataSourceConfig ds_config = inst.config;
          p->second->client->StartDataSource(id, ds_config);
          break;
        }
      }
    }
  }
}

void TracingServiceImpl::UnregisterDataSource(uint32_t producer_id,
                                              const std::string& name) {
  auto it = producers_.find(producer_id);
  if (it == producers_.end() || !it->second->data_sources.erase(name))
    return;
  // Its instances are gone with it: a stop no longer waits for them.
  std::vector<uint64_t> to_finish;
  for (auto& entry : sessions_) {
    Session* s = entry.second.get();
    for (DataSourceInstance& inst : s->instances) {
      if (inst.producer_id != producer_id || inst.name != name || inst.stopped)
        continue;
      inst.stopped = true;
      if (s->stopping && inst.will_notify_on_stop && s->pending_stop_acks &&
          --s->pending_stop_acks == 0 && !s->sending_stops) {
        to_finish.push_back(s->id);
      }
    }
  }
  for (uint64_t session_id : to_finish)
    FinishDisable(session_id);
}

DataSourceInstanceId TracingServiceImpl::SetUpInstance(
    Session* session, ProducerState* producer,
    const protos::gen::TraceConfig_DataSource& cfg_ds) {
  const std::string& name = cfg_ds.config().name();
  auto ds = producer->data_sources.find(name);
  if (ds == producer->data_sources.end())
    return 0;
  const auto& filter = cfg_ds.producer_name_filter();
  if (!filter.empty() && std::find(filter.begin(), filter.end(),
                                   producer->options.name) == filter.end()) {
    return 0;
  }
  const uint32_t index = cfg_ds.config().target_buffer();
  if (index >= session->buffer_ids.size())
    return 0;  // Checked at EnableTracing; kept for late registrations.
  DataSourceInstance inst;
  inst.id = next_instance_id_++;
  inst.producer_id = producer->id;
  inst.name = name;
  inst.config = cfg_ds.config();
  inst.config.set_target_buffer(session->buffer_ids[index]);
  inst.will_notify_on_stop = ds->second.will_notify_on_stop();
  producer->allowed_buffers.insert(session->buffer_ids[index]);
  session->instances.push_back(inst);
  // The last use of |session|: the callback may re-enter the service.
  producer->client->SetupDataSource(inst.id, inst.config);
  return inst.id;
}

std::unique_ptr<ConsumerEndpoint> TracingServiceImpl::ConnectConsumer(
    Consumer* consumer, int32_t uid) {
  auto endpoint = std::make_unique<ConsumerEndpointImpl>(this, consumer, uid);
  consumer->OnConnect();
  return endpoint;
}

void TracingServiceImpl::DisconnectConsumer(ConsumerEndpointImpl* consumer) {
  FreeBuffers(consumer);
}

TracingServiceImpl::Session* TracingServiceImpl::SessionOf(
    ConsumerEndpointImpl* consumer) {
  auto it = sessions_.find(consumer->session_id);
  return it == sessions_.end() ? nullptr : it->second.get();
}

void TracingServiceImpl::EnableTracing(ConsumerEndpointImpl* consumer,
                                       const protos::gen::TraceConfig& config,
                                       int fd) {
  // The fd is ours from here on, whatever happens.
  struct FdOwner {
    int fd;
    ~FdOwner() {
      if (fd >= 0)
        close(fd);
    }
  } fd_owner{fd};
  if (config.write_into_file() && fd < 0) {
    consumer->consumer()->OnTracingDisabled(
        "EnableTracing: write_into_file is set but no file was given");
    return;
  }
  if (SessionOf(consumer)) {
    consumer->consumer()->OnTracingDisabled(
        "EnableTracing: this consumer already has a session");
    return;
  }
  if (config.buffers().empty()) {
    consumer->consumer()->OnTracingDisabled("EnableTracing: no buffers in the config");
    return;
  }
  for (const auto& ds : config.data_sources()) {
    if (ds.config().target_buffer() >= config.buffers().size()) {
      consumer->consumer()->OnTracingDisabled(
          "EnableTracing: data source \"" + ds.config().name() +
          "\" targets buffer " + std::to_string(ds.config().target_buffer()) +
          " but the config has " + std::to_string(config.buffers().size()));
      return;
    }
  }
  auto session = std::make_unique<Session>();
  session->id = next_session_id_++;
  session->consumer = consumer;
  session->config = config;
  for (const auto& buffer_cfg : config.buffers()) {
    const auto policy =
        buffer_cfg.fill_policy() ==
                protos::gen::TraceConfig_BufferConfig_FillPolicy_DISCARD
            ? TraceBuffer::OverwritePolicy::kDiscard
            : TraceBuffer::OverwritePolicy::kOverwrite;
    std::unique_ptr<TraceBuffer> buffer;
    try {
      buffer = TraceBuffer::Create(
          static_cast<size_t>(std::max<uint32_t>(buffer_cfg.size_kb(), 4)) * 1024,
          policy);
    } catch (const std::bad_alloc&) {
      // A consumer asking for more than the machine has: refused below.
    }
    if (!buffer) {
      for (uint32_t id : session->buffer_ids) {
        buffers_.erase(id);
        buffer_owner_.erase(id);
      }
      consumer->consumer()->OnTracingDisabled(
          "EnableTracing: cannot allocate a buffer of " +
          std::to_string(buffer_cfg.size_kb()) + " KiB");
      return;
    }
    const uint32_t id = next_buffer_id_++;
    buffers_[id] = std::move(buffer);
    buffer_owner_[id] = session->id;
    session->buffer_ids.push_back(id);
  }
  Session* s = session.get();
  if (config.write_into_file()) {
    s->fd = fd_owner.fd;
    fd_owner.fd = -1;
  }
  consumer->session_id = s->id;
  sessions_[s->id] = std::move(session);
  if (s->fd >= 0)
    SchedulePeriodicWrite(s);
  if (config.flush_period_ms() > 0)
    SchedulePeriodic(s->id, config.flush_period_ms(), &TracingServiceImpl::PeriodicFlush);
  if (config.has_incremental_state_config() &&
      config.incremental_state_config().clear_period_ms() > 0) {
    SchedulePeriodic(s->id, config.incremental_state_config().clear_period_ms(),
                     &TracingServiceImpl::PeriodicClearIncrementalState);
  }
  const uint64_t session_id = s->id;
  std::vector<uint32_t> producer_ids;
  for (auto& p : producers_)
    producer_ids.push_back(p.first);
  for (const auto& cfg_ds : config.data_sources()) {
    for (uint32_t producer_id : producer_ids) {
      auto found = sessions_.find(session_id);
      auto p = producers_.find(producer_id);
      if (found == sessions_.end())
        return;  // Freed by a producer callback.
      if (p != producers_.end())
        SetUpInstance(found->second.get(), p->second.get(), cfg_ds);
    }
  }
  if (!config.deferred_start() && sessions_.count(session_id))
    StartTracing(consumer);
}

void TracingServiceImpl::StartTracing(ConsumerEndpointImpl* consumer) {
  Session* s = SessionOf(consumer);
  if (!s || s->started || s->stopping)
    return;
  s->started = true;
  const protos::gen::TraceConfig& config = s->config;
  if (config.duration_ms() > 0) {
    const uint64_t session_id = s->id;
    PostDelayedIfAlive(config.duration_ms(), [session_id](TracingServiceImpl* self) {
      auto it = self->sessions_.find(session_id);
      if (it != self->sessions_.end())
        self->DisableTracing(it->second->consumer);
    });
  }
  // Callbacks may re-enter: copy what they need first.
  std::vector<std::pair<uint32_t, DataSourceInstance>> to_start;
  for (const DataSourceInstance& inst : s->instances)
    to_start.emplace_back(inst.producer_id, inst);
  for (const auto& entry : to_start) {
    auto p = producers_.find(entry.first);
    if (p != producers_.end())
      p->second->client->StartDataSource(entry.second.id, entry.second.config);
  }
}

void TracingServiceImpl::SchedulePeriodic(uint64_t session_id,
                                          uint32_t period_ms,
                                          void (TracingServiceImpl::*task)(Session*)) {
  period_ms = std::max<uint32_t>(period_ms, 10);
  PostDelayedIfAlive(period_ms, [session_id, period_ms, task](TracingServiceImpl* self) {
    auto it = self->sessions_.find(session_id);
    if (it == self->sessions_.end() || it->second->disabled ||
        it->second->stopping) {
      return;  // The session ended: so does the period.
    }
    (self->*task)(it->second.get());
    self->SchedulePeriodic(session_id, period_ms, task);
  });
}

void TracingServiceImpl::PostDelayedIfAlive(
    uint32_t delay_ms, std::function<void(TracingServiceImpl*)> task) {
  std::weak_ptr<TracingServiceImpl*> weak = alive_;
  task_runner_->PostDelayedTask(
      [weak, task = std::move(task)] {
        auto alive = weak.lock();
        if (alive && *alive)
          task(*alive);
      },
      delay_ms);
}

void TracingServiceImpl::PeriodicFlush(Session* s) {
  if (s->started)
    Flush(s->consumer, 0, nullptr);
}

void TracingServiceImpl::PeriodicClearIncrementalState(Session* s) {
  if (!s->started)
    return;
  std::map<uint32_t, std::vector<DataSourceInstanceId>> by_producer;
  for (const DataSourceInstance& inst : s->instances) {
    if (!inst.stopped)
      by_producer[inst.producer_id].push_back(inst.id);
  }
  for (const auto& p : by_producer) {
    auto it = producers_.find(p.first);
    if (it != producers_.end())
      it->second->client->ClearIncrementalState(p.second);
  }
}


void TracingServiceImpl::DisableTracing(ConsumerEndpointImpl* consumer) {
  Session* s = SessionOf(consumer);
  if (!s || s->stopping || s->disabled)
    return;
  s->stopping = true;
  s->pending_stop_acks = 0;
  // Count every ack first and only then send the stops: an ack may come
  // back while they are being sent, and must not end the session before
  // every data source was told to stop.
  std::vector<std::pair<uint32_t, DataSourceInstanceId>> to_stop;
  for (DataSourceInstance& inst : s->instances) {
    if (!producers_.count(inst.producer_id) || inst.stopped)
      continue;
    if (inst.will_notify_on_stop)
      s->pending_stop_acks++;
    else
      inst.stopped = true;
    to_stop.emplace_back(inst.producer_id, inst.id);
  }
  const uint64_t session_id = s->id;
  s->sending_stops = true;
  for (const auto& entry : to_stop) {
    auto p = producers_.find(entry.first);
    if (p != producers_.end())
      p->second->client->StopDataSource(entry.second);
  }
  auto found = sessions_.find(session_id);
  if (found == sessions_.end())
    return;  // Freed by a callback.
  s = found->second.get();
  s->sending_stops = false;
  if (s->pending_stop_acks == 0) {
    FinishDisable(session_id);
    return;
  }
  const uint32_t timeout = s->config.data_source_stop_timeout_ms()
                               ? s->config.data_source_stop_timeout_ms()
                               : kDefaultStopTimeoutMs;
  PostDelayedIfAlive(timeout, [session_id](TracingServiceImpl* self) {
    self->FinishDisable(session_id);
  });
}

void TracingServiceImpl::NotifyDataSourceStopped(uint32_t producer_id,
                                                 DataSourceInstanceId id) {
  for (auto& entry : sessions_) {
    Session* s = entry.second.get();
    for (DataSourceInstance& inst : s->instances) {
      if (inst.id != id || inst.producer_id != producer_id || inst.stopped)
        continue;
      inst.stopped = true;
      if (s->stopping && inst.will_notify_on_stop && s->pending_stop_acks &&
          --s->pending_stop_acks == 0 && !s->sending_stops) {
        FinishDisable(s->id);
      }
      return;
    }
  }
}

void TracingServiceImpl::FinishDisable(uint64_t session_id) {
  auto it = sessions_.find(session_id);
  if (it == sessions_.end() || it->second->disabled)
    return;
  Session* s = it->second.get();
  ScrapeSharedMemoryBuffers(s);
  s->disabled = true;
  for (DataSourceInstance& inst : s->instances)
    inst.stopped = true;
  if (s->fd >= 0) {
    WriteIntoFile(s->id);
    CloseFile(s);
  }
  s->consumer->consumer()->OnTracingDisabled(s->error);
}

void TracingServiceImpl::Flush(ConsumerEndpointImpl* consumer,
                               uint32_t timeout_ms,
                               std::function<void(bool)> done) {
  Session* s = SessionOf(consumer);
  if (!s) {
    if (done)
      done(false);
    return;
  }
  std::map<uint32_t, std::vector<DataSourceInstanceId>> by_producer;
  for (const DataSourceInstance& inst : s->instances) {
    if (!inst.stopped && producers_.count(inst.producer_id))
      by_producer[inst.producer_id].push_back(inst.id);
  }
  const FlushRequestId id = next_flush_id_++;
  s->flushes_requested++;
  if (by_producer.empty()) {
    s->flushes_succeeded++;
    if (done)
      done(true);
    return;
  }
  PendingFlush& pending = s->flushes[id];
  pending.done = std::move(done);
  for (const auto& p : by_producer)
    pending.producers.insert(p.first);
  for (const auto& p : by_producer)
    producers_[p.first]->client->Flush(id, p.second);
  if (timeout_ms == 0) {
    timeout_ms = s->config.flush_timeout_ms() ? s->config.flush_timeout_ms()
                                              : kDefaultFlushTimeoutMs;
  }
  const uint64_t session_id = s->id;
  PostDelayedIfAlive(timeout_ms, [session_id, id](TracingServiceImpl* self) {
    self->CompleteFlush(session_id, id, false);
  });
}

void TracingServiceImpl::NotifyFlushComplete(uint32_t producer_id,
                                             FlushRequestId id) {
  for (auto& entry : sessions_) {
    Session* s = entry.second.get();
    auto f = s->flushes.find(id);
    if (f == s->flushes.end())
      continue;
    f->second.producers.erase(producer_id);
    if (f->second.producers.empty())
      CompleteFlush(s->id, id, true);
    return;
  }
}

void TracingServiceImpl::CompleteFlush(uint64_t session_id, FlushRequestId id,
                                       bool success) {
  auto it = sessions_.find(session_id);
  if (it == sessions_.end())
    return;
  auto f = it->second->flushes.find(id);
  if (f == it->second->flushes.end())
    return;  // Answered already (the timeout came after the answers).
  std::function<void(bool)> done = std::move(f->second.done);
  it->second->flushes.erase(f);
  (success ? it->second->flushes_succeeded : it->second->flushes_failed)++;
  ScrapeSharedMemoryBuffers(it->second.get());
  if (done)
    done(success);
}

void TracingServiceImpl::ReadBuffers(ConsumerEndpointImpl* consumer) {
  Consumer* client = consumer->consumer();
  Session* s = SessionOf(consumer);
  if (!s || s->fd >= 0) {  // A session writing into a file is read there.
    client->OnTraceData({}, false);
    return;
  }
  std::vector<ConsumerPacket> batch;
  size_t batch_bytes = 0;
  CollectPackets(s, [&](std::vector<uint8_t> data) {
    batch_bytes += data.size();
    batch.push_back(ConsumerPacket{std::move(data)});
    if (batch_bytes >= kReadBatchBytes) {
      client->OnTraceData(std::move(batch), true);
      batch = {};
      batch_bytes = 0;
    }
    return true;
  });
  client->OnTraceData(std::move(batch), false);
}

void TracingServiceImpl::FreeBuffers(ConsumerEndpointImpl* consumer) {
  auto it = sessions_.find(consumer->session_id);
  if (it == sessions_.end())
    return;
  Session* s = it->second.get();
  const uint64_t session_id = s->id;
  // The session ends here whatever its state: no callback below may start
  // another stop or write (they check these flags).
  const bool was_running = !s->disabled && !s->stopping;
  if (!s->disabled && s->fd >= 0) {
    // Freed without a stop: the file still gets everything, stats last.
    ScrapeSharedMemoryBuffers(s);
    s->disabled = true;
    WriteIntoFile(session_id);
  }
  s->disabled = true;
  s->stopping = true;
  std::vector<std::pair<uint32_t, DataSourceInstanceId>> to_stop;
  for (DataSourceInstance& inst : s->instances) {
    // A session still stopping already sent its stops.
    if (was_running && !inst.stopped && producers_.count(inst.producer_id))
      to_stop.emplace_back(inst.producer_id, inst.id);
    inst.stopped = true;
  }
  std::vector<std::function<void(bool)>> flush_callbacks;
  for (auto& f : s->flushes) {
    s->flushes_failed++;
    flush_callbacks.push_back(std::move(f.second.done));
  }
  s->flushes.clear();
  CloseFile(s);
  // Callbacks last, on state that no longer changes under them.
  for (const auto& entry : to_stop) {
    auto p = producers_.find(entry.first);
    if (p != producers_.end())
      p->second->client->StopDataSource(entry.second);
  }
  for (auto& done : flush_callbacks) {
    if (done)
      done(false);
  }
  it = sessions_.find(session_id);
  if (it == sessions_.end())
    return;
  s = it->second.get();
  for (uint32_t id : s->buffer_ids) {
    buffers_.erase(id);
    buffer_owner_.erase(id);
    for (auto& p : producers_) {
      auto& allowed = p.second->allowed_buffers;
      allowed.erase(id);
    }
  }
  sessions_.erase(it);
  consumer->session_id = 0;
}

void TracingServiceImpl::GetTraceStats(ConsumerEndpointImpl* consumer) {
  Session* s = SessionOf(consumer);
  if (!s) {
    consumer->consumer()->OnTraceStats(false, protos::gen::TraceStats());
    return;
  }
  consumer->consumer()->OnTraceStats(true, ComputeStats(*s));
}

}  // namespace zt
