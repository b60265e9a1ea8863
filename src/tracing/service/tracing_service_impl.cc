// The service's control plane: producers and their data sources, consumers
// and the lifecycle of their sessions. Calls to clients go through
// ProducerEndpointImpl::Post / ConsumerEndpointImpl::Post (never inline), so
// nothing below can be re-entered by a client while it runs.

#include "src/tracing/service/tracing_service_impl.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "src/base/heap_shared_memory.h"
#include "src/tracing/service/tracing_service_endpoints.h"
#include "zt/base/logging.h"

namespace zt {

using ABI = SharedMemoryABI;

std::unique_ptr<TracingService> TracingService::Create(
    base::TaskRunner* task_runner,
    std::unique_ptr<base::SharedMemory::Factory> shm_factory) {
  if (!shm_factory)
    shm_factory.reset(new base::HeapSharedMemory::Factory());
  return std::unique_ptr<TracingService>(
      new TracingServiceImpl(task_runner, std::move(shm_factory)));
}

TracingServiceImpl::Session::~Session() {
  if (fd >= 0) {
    file_out.Detach(fd);
    close(fd);
  }
}

TracingServiceImpl::DataSourceInstance* TracingServiceImpl::Session::FindInstance(
    DataSourceInstanceId instance_id) {
  for (DataSourceInstance& inst : instances) {
    if (inst.id == instance_id)
      return &inst;
  }
  return nullptr;
}

TracingServiceImpl::TracingServiceImpl(
    base::TaskRunner* task_runner,
    std::unique_ptr<base::SharedMemory::Factory> shm_factory)
    : task_runner_(task_runner),
      shm_factory_(std::move(shm_factory)),
      service_uid_(static_cast<int32_t>(getuid())) {}

TracingServiceImpl::~TracingServiceImpl() {
  // A file still waiting for its reader: the watch goes before the fd.
  for (auto& entry : sessions_)
    CloseFile(entry.second.get());
}

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

// --- Producers and data sources ---

std::unique_ptr<ProducerEndpoint> TracingServiceImpl::ConnectProducer(
    Producer* producer, const ProducerOptions& options) {
  auto state = std::make_unique<ProducerState>();
  state->id = next_producer_id_++;
  state->options = options;
  const ShmGeometry geometry = ComputeShmGeometry(
      options.shm_size_hint_bytes, options.shm_page_size_hint_bytes);
  if (options.provided_shm) {
    // The producer sized it from the same hints (ComputeShmGeometry). The
    // ABI's atomics need alignment; both sides must agree on the layout.
    const base::SharedMemory& shm = *options.provided_shm;
    if (reinterpret_cast<uintptr_t>(shm.start()) % 4096 != 0 ||
        shm.size() != geometry.size) {
      ZT_ELOG("producer \"%s\" refused: its shared memory buffer (%zu bytes) "
              "is misaligned or not the %zu bytes its hints ask for",
              options.name.c_str(), shm.size(), geometry.size);
      return nullptr;
    }
    state->smb = options.provided_shm;
  } else {
    state->smb = shm_factory_->CreateSharedMemory(geometry.size);
    if (!state->smb) {  // Out of memory: the smallest valid SMB, then none.
      state->smb = shm_factory_->CreateSharedMemory(2 * geometry.page_size);
      if (!state->smb) {
        ZT_ELOG("producer \"%s\" refused: no shared memory buffer could be made",
                options.name.c_str());
        return nullptr;
      }
    }
  }
  state->page_size = geometry.page_size;
  // The producer's arbiter sees the same size (ProducerEndpoint).
  state->abi.Initialize(state->smb->start(), state->smb->size(), geometry.page_size);
  const uint32_t id = state->id;
  auto endpoint = std::make_unique<ProducerEndpointImpl>(this, producer, id);
  state->endpoint = endpoint.get();
  producer_identities_[id] = {options.uid, options.pid};
  producers_[id] = std::move(state);
  producers_seen_++;
  endpoint->Post([](Producer* p) {
    p->OnConnect();
    p->OnTracingSetup();
  });
  return endpoint;
}

void TracingServiceImpl::DisconnectProducer(uint32_t producer_id) {
  if (!producers_.count(producer_id))
    return;
  // What it still held in chunks being written is taken first; its
  // instances count as stopped and pending flushes stop waiting for it.
  for (auto& entry : sessions_) {
    Session* s = entry.second.get();
    if (s->state != SessionState::kStopped)
      ScrapeSharedMemoryBuffers(s);
    for (DataSourceInstance& inst : s->instances) {
      if (inst.producer_id != producer_id)
        continue;
      inst.withdrawn = true;
      OnInstanceStopped(s, &inst);
    }
    std::vector<FlushRequestId> answered;
    for (auto& f : s->flushes) {
      if (f.second.producers.erase(producer_id) && f.second.producers.empty())
        answered.push_back(f.first);
    }
    for (FlushRequestId f : answered)
      CompleteFlush(s->id, f, true);
  }
  // Nothing of what its writers were writing will be finished now: the
  // buffers read their scraped chunks to the end and count torn packets.
  for (auto& buffer : buffers_)
    buffer.second->OnProducerGone(producer_id);
  producers_.erase(producer_id);
  PruneGoneProducers();
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
  // Sessions already set up or running pick up a matching data source now.
  for (auto& entry : sessions_) {
    Session* s = entry.second.get();
    if (s->stopping_or_stopped())
      continue;
    for (const auto& cfg_ds : s->config.data_sources()) {
      if (cfg_ds.config().name() != descriptor.name())
        continue;
      DataSourceInstance* inst = SetUpInstance(s, producer, cfg_ds);
      if (inst && s->state == SessionState::kStarted)
        StartInstance(s, inst);
    }
  }
}

void TracingServiceImpl::UnregisterDataSource(uint32_t producer_id,
                                              const std::string& name) {
  auto it = producers_.find(producer_id);
  if (it == producers_.end() || !it->second->data_sources.erase(name))
    return;
  // Its instances are gone with it: a stop no longer waits for them.
  for (auto& entry : sessions_) {
    for (DataSourceInstance& inst : entry.second->instances) {
      if (inst.producer_id != producer_id || inst.name != name || inst.withdrawn)
        continue;
      inst.withdrawn = true;
      OnInstanceStopped(entry.second.get(), &inst);
    }
  }
}

TracingServiceImpl::DataSourceInstance* TracingServiceImpl::SetUpInstance(
    Session* session, ProducerState* producer,
    const protos::gen::TraceConfig_DataSource& cfg_ds) {
  const std::string& name = cfg_ds.config().name();
  auto ds = producer->data_sources.find(name);
  if (ds == producer->data_sources.end())
    return nullptr;
  const auto& filter = cfg_ds.producer_name_filter();
  if (!filter.empty() && std::find(filter.begin(), filter.end(),
                                   producer->options.name) == filter.end()) {
    return nullptr;
  }
  const uint32_t index = cfg_ds.config().target_buffer();
  if (index >= session->buffer_ids.size())
    return nullptr;  // Checked at EnableTracing; kept for late registrations.
  DataSourceInstance inst;
  inst.id = next_instance_id_++;
  inst.producer_id = producer->id;
  inst.name = name;
  inst.config = cfg_ds.config();
  inst.config.set_target_buffer(session->buffer_ids[index]);
  inst.config.set_tracing_session_id(session->id);
  // What upstream's service tells every instance about its session: data
  // sources arm their own watchdogs and stop deadlines from these.
  inst.config.set_trace_duration_ms(session->config.duration_ms());
  inst.config.set_stop_timeout_ms(session->config.data_source_stop_timeout_ms()
                                      ? session->config.data_source_stop_timeout_ms()
                                      : kDefaultStopTimeoutMs);
  inst.config.set_enable_extra_guardrails(session->config.enable_extra_guardrails());
  inst.will_notify_on_start = ds->second.will_notify_on_start();
  inst.will_notify_on_stop = ds->second.will_notify_on_stop();
  inst.no_flush = ds->second.no_flush();
  producer->allowed_buffers.insert(session->buffer_ids[index]);
  session->instances.push_back(inst);
  producer->endpoint->Post(
      [id = inst.id, config = inst.config](Producer* p) { p->SetupDataSource(id, config); });
  ReportObserved(session, &session->instances.back());  // Stopped, until it starts.
  return &session->instances.back();
}

void TracingServiceImpl::StartInstance(Session* session,
                                       DataSourceInstance* inst) {
  auto p = producers_.find(inst->producer_id);
  if (inst->state != InstanceState::kSetUp || p == producers_.end())
    return;
  SetInstanceState(session, inst,
                   inst->will_notify_on_start ? InstanceState::kStarting : InstanceState::kStarted);
  p->second->endpoint->Post([id = inst->id, config = inst->config](Producer* pr) {
    pr->StartDataSource(id, config);
  });
  if (inst->state != InstanceState::kStarting)
    return;
  // A producer that never acknowledges must not hold the session's start
  // back for ever: after the timeout the instance counts as started.
  const uint64_t session_id = session->id;
  const DataSourceInstanceId instance_id = inst->id;
  PostDelayedIfAlive(kStartTimeoutMs, [session_id, instance_id](TracingServiceImpl* self) {
    Session* s = self->SessionById(session_id);
    DataSourceInstance* i = s ? s->FindInstance(instance_id) : nullptr;
    if (!i || i->state != InstanceState::kStarting)
      return;
    ZT_WLOG("data source \"%s\" did not acknowledge its start within %u ms",
            i->name.c_str(), kStartTimeoutMs);
    self->SetInstanceState(s, i, InstanceState::kStarted);
    self->MaybeNotifyAllStarted(s);
  });
}

void TracingServiceImpl::NotifyDataSourceStarted(uint32_t producer_id,
                                                 DataSourceInstanceId id) {
  for (auto& entry : sessions_) {
    DataSourceInstance* inst = entry.second->FindInstance(id);
    if (!inst || inst->producer_id != producer_id)
      continue;
    if (inst->state == InstanceState::kStarting) {
      SetInstanceState(entry.second.get(), inst, InstanceState::kStarted);
      MaybeNotifyAllStarted(entry.second.get());
    }
    return;
  }
}

void TracingServiceImpl::NotifyDataSourceStopped(uint32_t producer_id,
                                                 DataSourceInstanceId id) {
  for (auto& entry : sessions_) {
    DataSourceInstance* inst = entry.second->FindInstance(id);
    if (inst && inst->producer_id == producer_id) {
      OnInstanceStopped(entry.second.get(), inst);
      return;
    }
  }
}

// --- Consumers and sessions ---

std::unique_ptr<ConsumerEndpoint> TracingServiceImpl::ConnectConsumer(
    Consumer* consumer, int32_t uid) {
  auto endpoint = std::make_unique<ConsumerEndpointImpl>(this, consumer, uid);
  endpoint->Post([](Consumer* c) { c->OnConnect(); });
  return endpoint;
}

void TracingServiceImpl::DisconnectConsumer(ConsumerEndpointImpl* consumer) {
  FreeBuffers(consumer);
}

TracingServiceImpl::Session* TracingServiceImpl::SessionOf(
    ConsumerEndpointImpl* consumer) {
  return consumer->session_id ? SessionById(consumer->session_id) : nullptr;
}

TracingServiceImpl::Session* TracingServiceImpl::SessionById(uint64_t session_id) {
  auto it = sessions_.find(session_id);
  return it == sessions_.end() ? nullptr : it->second.get();
}

TracingServiceImpl::TriggerConfigDecoder TracingServiceImpl::trigger_config_decoder = nullptr;

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
  auto refuse = [consumer](std::string error) {
    consumer->Post([error = std::move(error)](Consumer* c) { c->OnTracingDisabled(error); });
  };
  if (config.write_into_file() && fd < 0)
    return refuse("EnableTracing: write_into_file is set but no file was given");
  if (SessionOf(consumer))
    return refuse("EnableTracing: this consumer already has a session");
  if (config.buffers().empty())
    return refuse("EnableTracing: no buffers in the config");
  for (const auto& ds : config.data_sources()) {
    // Refused rather than ignored: ignoring it would enable the data source
    // on every producer, which is not what was asked.
    if (!ds.producer_name_regex_filter().empty()) {
      return refuse("EnableTracing: data source \"" + ds.config().name() +
                    "\" has a producer_name_regex_filter, which this service does not "
                    "support; list the names in producer_name_filter");
    }
    if (ds.config().target_buffer() >= config.buffers().size()) {
      return refuse("EnableTracing: data source \"" + ds.config().name() +
                    "\" targets buffer " +
                    std::to_string(ds.config().target_buffer()) +
                    ", but the config defines " +
                    std::to_string(config.buffers().size()) +
                    " buffer(s) (target_buffer counts from 0)");
    }
  }
  TriggerSpec triggers;
  if (config.has_trigger_config()) {
    // Decoded by the object that also matches triggers, which a program
    // links only if it can activate any (tracing_service_triggers.cc).
    if (!trigger_config_decoder)
      return refuse("EnableTracing: the config has a trigger_config, but this program "
                    "cannot activate triggers (it never calls Tracing::ActivateTriggers)");
    std::string trigger_error = trigger_config_decoder(config, &triggers);
    if (!trigger_error.empty())
      return refuse("EnableTracing: " + trigger_error);
  }
  if (!config.unique_session_name().empty()) {
    for (const auto& entry : sessions_) {
      // A clone keeps its source's name, as upstream's do, but holds none.
      if (!entry.second->is_clone &&
          entry.second->config.unique_session_name() == config.unique_session_name()) {
        return refuse("EnableTracing: a session named \"" +
                      config.unique_session_name() + "\" already exists");
      }
    }
  }
  if (std::string over = OverSessionLimits(consumer->uid(), config); !over.empty()) {
    limit_stats_.sessions_refused++;
    ZT_ELOG("EnableTracing of uid %d refused: %s", static_cast<int>(consumer->uid()),
            over.c_str());
    return refuse("EnableTracing: " + over);
  }
  // Copy-constructed: a TraceConfig assignment would link ~2 KB more code
  // into every program (docs/benchmarks.md, build cost).
  auto session = std::make_unique<Session>(config);
  session->id = next_session_id_++;
  session->consumer = consumer;
  session->consumer_uid = consumer->uid();
  session->service_packets.reset(new SessionServicePackets(config, service_uid_));
  std::vector<std::unique_ptr<TraceBuffer>> buffers;
  for (const auto& buffer_cfg : config.buffers()) {
    const auto policy =
        buffer_cfg.fill_policy() ==
                protos::gen::TraceConfig_BufferConfig_FillPolicy_DISCARD
            ? TraceBuffer::OverwritePolicy::kDiscard
            : TraceBuffer::OverwritePolicy::kOverwrite;
    // Null when the size is impossible or the memory is not there (the
    // ring is allocated with nothrow): refused, with the reason.
    std::unique_ptr<TraceBuffer> buffer = TraceBuffer::Create(
        static_cast<size_t>(std::max<uint32_t>(buffer_cfg.size_kb(), 4)) * 1024,
        policy);
    if (!buffer) {
      return refuse("EnableTracing: cannot allocate a buffer of " +
                    std::to_string(buffer_cfg.size_kb()) + " KiB");
    }
    buffers.push_back(std::move(buffer));
  }
  Session* s = session.get();
  for (auto& buffer : buffers) {
    const uint32_t id = next_buffer_id_++;
    buffers_[id] = std::move(buffer);
    buffer_owner_[id] = s->id;
    s->buffer_ids.push_back(id);
  }
  if (config.write_into_file()) {
    s->fd = fd_owner.fd;
    fd_owner.fd = -1;
    s->file_out.Attach(s->fd);
  }
  consumer->session_id = s->id;
  sessions_[s->id] = std::move(session);
  const FlushPlan flushes = PlanFlushes(config);
  if (flushes.periodic_ms > 0)
    SchedulePeriodic(s->id, flushes.periodic_ms, &TracingServiceImpl::PeriodicFlush);
  if (config.has_incremental_state_config() &&
      config.incremental_state_config().clear_period_ms() > 0) {
    SchedulePeriodic(s->id, config.incremental_state_config().clear_period_ms(),
                     &TracingServiceImpl::PeriodicClearIncrementalState);
  }
  for (const auto& cfg_ds : config.data_sources()) {
    for (auto& p : producers_)
      SetUpInstance(s, p.second.get(), cfg_ds);
  }
  s->triggers = std::move(triggers);
  const uint32_t trigger_timeout_ms = s->triggers.timeout_ms;
  if (s->triggers.mode == TriggerSpec::kStartTracing) {
    // Set up, and started by a trigger (tracing_service_triggers.cc);
    // without one in time it ends, empty.
    const uint64_t session_id = s->id;
    PostDelayedIfAlive(trigger_timeout_ms, [session_id](TracingServiceImpl* self) {
      Session* waiting = self->SessionById(session_id);
      if (waiting && waiting->state == SessionState::kConfigured)
        self->StopSession(waiting);
    });
    return;
  }
  // STOP_TRACING: traces until a trigger's stop delay, or this long.
  if (s->triggers.mode == TriggerSpec::kStopTracing)
    s->config.set_duration_ms(trigger_timeout_ms);
  if (!config.deferred_start())
    StartSession(s);
}

void TracingServiceImpl::StartTracing(ConsumerEndpointImpl* consumer) {
  Session* s = SessionOf(consumer);
  if (s && s->state == SessionState::kConfigured)
    StartSession(s);
}

void TracingServiceImpl::StartSession(Session* s) {
  s->state = SessionState::kStarted;
  struct timespec now {};
  clock_gettime(CLOCK_REALTIME, &now);
  s->start_realtime_ns = int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
  s->service_packets->OnStarted();
  // The periodic task (clock snapshot, sync marker, stats): now, then
  // every snapshot interval.
  PeriodicSnapshot(s);
  SchedulePeriodic(s->id, s->service_packets->snapshot_interval_ms(),
                   &TracingServiceImpl::PeriodicSnapshot);
  // The file is written from the start on (not before: with deferred_start
  // it would begin without the start's clock snapshot and events).
  if (s->fd >= 0)
    SchedulePeriodicWrite(s);
  if (s->config.duration_ms() > 0) {
    const uint64_t session_id = s->id;
    PostDelayedIfAlive(s->config.duration_ms(), [session_id](TracingServiceImpl* self) {
      Session* session = self->SessionById(session_id);
      // A STOP_TRACING trigger received meanwhile set its own stop.
      if (session && !session->stop_trigger_scheduled) {
        self->FlushAndStopSession(session);
      }
    });
  }
  for (DataSourceInstance& inst : s->instances)
    StartInstance(s, &inst);
  MaybeNotifyAllStarted(s);
}

void TracingServiceImpl::MaybeNotifyAllStarted(Session* s) {
  if (s->state != SessionState::kStarted || s->all_started_notified)
    return;
  for (const DataSourceInstance& inst : s->instances) {
    if (inst.state != InstanceState::kStarted && inst.state != InstanceState::kStopped)
      return;
  }
  s->all_started_notified = true;
  s->service_packets->OnAllDataSourcesStarted();
  if (!s->consumer)
    return;
  s->consumer->Post([](Consumer* c) { c->OnAllDataSourcesStarted(); });
  ReportObserved(s, nullptr);  // If observed: with the starts that completed it.
}

void TracingServiceImpl::SetInstanceState(Session* s, DataSourceInstance* inst,
                                          InstanceState state) {
  if (inst->state == state)
    return;
  inst->state = state;
  ReportObserved(s, inst);
}

void TracingServiceImpl::ReportObserved(Session* s, const DataSourceInstance* inst) {
  // Set by the first ObserveEvents: a program that never observes links
  // none of the reporting (tracing_service_observe.cc).
  if (report_observed_ && s->consumer && s->consumer->observed_events)
    (this->*report_observed_)(s, inst);
}

void TracingServiceImpl::DisableTracing(ConsumerEndpointImpl* consumer) {
  if (Session* s = SessionOf(consumer))
    StopSession(s);
}

void TracingServiceImpl::StopSession(Session* s) {
  if (s->stopping_or_stopped())
    return;
  // Never started (a start trigger that did not come, a deferred start
  // never given): its instances are told to stop, but nothing they could
  // write would be kept, so their acknowledgements are not waited for.
  const bool never_started = s->state == SessionState::kConfigured;
  s->state = SessionState::kStopping;
  bool waiting = false;
  for (DataSourceInstance& inst : s->instances) {
    auto p = producers_.find(inst.producer_id);
    if (inst.state == InstanceState::kStopped || p == producers_.end()) {
      SetInstanceState(s, &inst, InstanceState::kStopped);
      continue;
    }
    p->second->endpoint->Post([id = inst.id](Producer* pr) { pr->StopDataSource(id); });
    if (inst.will_notify_on_stop && !never_started) {
      SetInstanceState(s, &inst, InstanceState::kStopping);
      waiting = true;
    } else {
      SetInstanceState(s, &inst, InstanceState::kStopped);
    }
  }
  if (!waiting) {
    FinishStop(s);
    return;
  }
  const uint32_t timeout = s->config.data_source_stop_timeout_ms()
                               ? s->config.data_source_stop_timeout_ms()
                               : kDefaultStopTimeoutMs;
  const uint64_t session_id = s->id;
  PostDelayedIfAlive(timeout, [session_id, timeout](TracingServiceImpl* self) {
    Session* session = self->SessionById(session_id);
    if (!session || session->state != SessionState::kStopping)
      return;
    for (DataSourceInstance& inst : session->instances) {
      if (inst.state == InstanceState::kStopping) {
        ZT_WLOG("data source \"%s\" did not acknowledge its stop within %u ms",
                inst.name.c_str(), timeout);
        self->SetInstanceState(session, &inst, InstanceState::kStopped);
      }
    }
    self->FinishStop(session);
  });
}

void TracingServiceImpl::OnInstanceStopped(Session* s, DataSourceInstance* inst) {
  if (inst->state == InstanceState::kStopped)
    return;
  SetInstanceState(s, inst, InstanceState::kStopped);
  if (s->state == SessionState::kStarted) {
    MaybeNotifyAllStarted(s);  // It may have been the one not started yet.
    return;
  }
  if (s->state != SessionState::kStopping)
    return;
  for (const DataSourceInstance& other : s->instances) {
    if (other.state == InstanceState::kStopping)
      return;
  }
  FinishStop(s);
}

void TracingServiceImpl::FinishStop(Session* s) {
  if (s->state == SessionState::kStopped)
    return;
  ScrapeSharedMemoryBuffers(s);
  s->state = SessionState::kStopped;
  // Flushes still pending end here, unsuccessful: nothing about them may
  // follow the stop (their events, their counts, the consumer's answer).
  std::map<FlushRequestId, PendingFlush> pending;
  pending.swap(s->flushes);
  for (auto& f : pending) {
    s->flushes_failed++;
    if (f.second.done && s->consumer)
      s->consumer->Post([done = std::move(f.second.done)](Consumer*) { done(false); });
    if (f.second.then)
      f.second.then(false);  // Sees the session stopped: records only.
  }
  s->service_packets->OnDisabled();
  for (DataSourceInstance& inst : s->instances)
    SetInstanceState(s, &inst, InstanceState::kStopped);
  if (s->fd >= 0) {
    // The rest of the trace goes into the file first: at once, or as its
    // reader takes it (WriteIntoFile then completes the stop).
    s->file_out.stop_waits = true;
    WriteIntoFile(s);
    return;
  }
  CompleteStop(s);
}

void TracingServiceImpl::CompleteStop(Session* s) {
  NotifyDisabled(s);
  if (!s->consumer && s->detach_key.empty()) {
    // Nobody will read or free it: it ends here, in a task of its own, so
    // that no caller up the stack holds it any more.
    const uint64_t session_id = s->id;
    PostDelayedIfAlive(0, [session_id](TracingServiceImpl* self) {
      if (Session* session = self->SessionById(session_id))
        self->DestroySession(session);
    });
  }
}

void TracingServiceImpl::NotifyDisabled(Session* s) {
  if (s->consumer)
    s->consumer->Post([error = s->error](Consumer* c) { c->OnTracingDisabled(error); });
}

// --- Periodic work ---

void TracingServiceImpl::SchedulePeriodic(uint64_t session_id,
                                          uint32_t period_ms,
                                          void (TracingServiceImpl::*task)(Session*)) {
  period_ms = std::max<uint32_t>(period_ms, 10);
  PostDelayedIfAlive(period_ms, [session_id, period_ms, task](TracingServiceImpl* self) {
    Session* s = self->SessionById(session_id);
    if (!s || s->stopping_or_stopped())
      return;  // The session ended: so does the period.
    (self->*task)(s);
    self->SchedulePeriodic(session_id, period_ms, task);
  });
}

void TracingServiceImpl::PostDelayedIfAlive(
    uint32_t delay_ms, std::function<void(TracingServiceImpl*)> task) {
  auto guarded = [weak = weak_factory_.GetWeakPtr(), task = std::move(task)] {
    if (weak)
      task(weak.get());
  };
  // No delay: in order with every task posted so far (a delayed task may
  // run after immediate ones posted later), e.g. so that a session freed
  // at its stop is gone before whatever its producers were told runs.
  if (delay_ms == 0)
    task_runner_->PostTask(std::move(guarded));
  else
    task_runner_->PostDelayedTask(std::move(guarded), delay_ms);
}

void TracingServiceImpl::PeriodicFlush(Session* s) {
  if (s->state == SessionState::kStarted)
    FlushSession(s, 0, nullptr);
}

void TracingServiceImpl::PeriodicSnapshot(Session* s) {
  s->service_packets->OnPeriodicTask();
}

void TracingServiceImpl::PeriodicClearIncrementalState(Session* s) {
  if (s->state != SessionState::kStarted)
    return;
  for (auto& p : LiveInstancesByProducer(*s)) {
    producers_.at(p.first)->endpoint->Post(
        [ids = std::move(p.second)](Producer* pr) { pr->ClearIncrementalState(ids); });
  }
}

// --- Ending sessions ---

void TracingServiceImpl::FreeBuffers(ConsumerEndpointImpl* consumer) {
  Session* s = SessionOf(consumer);
  consumer->session_id = 0;
  if (!s)
    return;
  // Its flushes still pending are answered now, unsuccessful; from here on
  // the session has no consumer: nothing about it reaches this one, and it
  // ends by itself.
  for (auto& f : s->flushes) {
    if (f.second.done)
      consumer->Post([done = std::move(f.second.done)](Consumer*) { done(false); });
    f.second.done = nullptr;
  }
  s->consumer = nullptr;
  if (s->state == SessionState::kStopped) {
    // Unless the rest of its file is still being written: it ends with
    // that (CompleteStop), complete.
    if (!s->file_out.stop_waits)
      DestroySession(s);
    return;
  }
  // Still tracing (or stopping): stopped as DisableTracing would, so that
  // everything written reaches the buffers and the file; freed by
  // FinishStop.
  StopSession(s);
}

void TracingServiceImpl::DestroySession(Session* s) {
  CloseFile(s);  // Its writable watch, if any, before its fd.
  for (uint32_t id : s->buffer_ids) {
    buffers_.erase(id);
    buffer_owner_.erase(id);
    for (auto& p : producers_)
      p.second->allowed_buffers.erase(id);
  }
  sessions_.erase(s->id);  // Closes its file, if any.
  PruneGoneProducers();
}

void TracingServiceImpl::GetTraceStats(ConsumerEndpointImpl* consumer) {
  Session* s = SessionOf(consumer);
  if (!s) {
    consumer->Post([](Consumer* c) { c->OnTraceStats(false, {}); });
    return;
  }
  consumer->Post([stats = ComputeStats(*s)](Consumer* c) mutable { c->OnTraceStats(true, std::move(stats)); });
}

// --- Bookkeeping ---

std::set<uint32_t> TracingServiceImpl::ProducersOf(const Session& session) const {
  std::set<uint32_t> ids = session.cloned_producers;
  for (const DataSourceInstance& inst : session.instances)
    ids.insert(inst.producer_id);
  return ids;
}

std::map<uint32_t, std::vector<DataSourceInstanceId>>
TracingServiceImpl::LiveInstancesByProducer(const Session& session,
                                            bool flushable_only) const {
  std::map<uint32_t, std::vector<DataSourceInstanceId>> by_producer;
  for (const DataSourceInstance& inst : session.instances) {
    if (flushable_only && inst.no_flush)
      continue;
    if (inst.state != InstanceState::kStopped && producers_.count(inst.producer_id))
      by_producer[inst.producer_id].push_back(inst.id);
  }
  return by_producer;
}

void TracingServiceImpl::PruneGoneProducers() {
  std::set<uint32_t> referenced;
  for (const auto& entry : sessions_) {
    const std::set<uint32_t> ids = ProducersOf(*entry.second);
    referenced.insert(ids.begin(), ids.end());
  }
  for (auto it = producer_identities_.begin(); it != producer_identities_.end();) {
    const uint32_t id = it->first;
    if (producers_.count(id) || referenced.count(id)) {
      ++it;
      continue;
    }
    it = producer_identities_.erase(it);
    for (auto seq = sequence_ids_.begin(); seq != sequence_ids_.end();) {
      if (seq->first.first == id)
        seq = sequence_ids_.erase(seq);
      else
        ++seq;
    }
  }
}

}  // namespace zt
