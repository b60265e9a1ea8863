#include "src/tracing/ipc/consumer_port.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "zt/base/logging.h"
#include "zt/base/task_runner.h"
#include "zt/ipc/consumer_port.gen.h"
#include "zt/protozero/proto_utils.h"

namespace zt {
namespace {

using protos::gen::ObservableEvents;

// Slices of at most this many packet bytes per ReadBuffers reply: frames
// stay far below the 128 KiB limit, as upstream's do (~32 KB each).
constexpr size_t kReadReplyBytes = 32 * 1024;
// A stream (ReadBuffers, ObserveEvents) waits while more than this is
// queued to a client that reads slower than the service produces, instead
// of growing the socket's queue to its limit (which would cost the client
// its connection).
constexpr size_t kMaxQueuedReplyBytes = 4u << 20;
constexpr uint32_t kReadPacingDelayMs = 1;
// ReadBuffers replies the port holds for a client (serialized, not yet
// handed to its socket) are bounded: past this many bytes the service is
// asked to pause the read (ConsumerEndpoint::SetReadPaused), and to resume
// it once half of it went out. Twice the socket's pacing threshold: a
// client that reads keeps getting data while the service reads its next
// ~1 MiB batch. With one read at a time per client, what a client that
// never reads can pin is this, plus a batch in flight, plus its socket's
// kMaxQueuedReplyBytes.
constexpr size_t kMaxHeldReadBytes = 8u << 20;
// A client that held this much at some point makes its disconnection give
// the freed memory back to the system (malloc_trim).
constexpr size_t kTrimAfterBytes = 4u << 20;
// ObserveEvents replies carry at most this many bytes of instance state
// changes (a frame must stay under 128 KiB); a change longer than that on
// its own (names no real producer has) is dropped.
constexpr size_t kObserveReplyBytes = 32 * 1024;
// While the client is not reading, the changes kept for it are bounded:
// beyond this many bytes the oldest are dropped (the newest say where the
// instances stand now), counted and logged.
constexpr size_t kMaxHeldObservedBytes = 256 * 1024;
// How often a held ObserveEvents stream looks again at the client's queue:
// a client that never reads keeps it waiting for good, so less often than
// a read does.
constexpr uint32_t kObservePacingDelayMs = 10;

using InstanceStateChange = ObservedEvents::InstanceStateChange;

// About what |change| adds to an ObserveEventsResponse: its two names and
// the fields' tags, lengths and state.
size_t EncodedSize(const InstanceStateChange& change) {
  return change.producer_name.size() + change.data_source_name.size() + 16;
}

// A length-delimited field 1 around |bytes| already encoded (what the
// service hands out): cheaper than parsing them into a message to wrap.
std::string WrapAsField1(const std::vector<uint8_t>& bytes) {
  uint8_t header[1 + protozero::proto_utils::kMaxVarIntEncodedSize];
  header[0] = 0x0a;
  const uint8_t* end = protozero::proto_utils::WriteVarInt(bytes.size(), header + 1);
  std::string out(reinterpret_cast<const char*>(header), static_cast<size_t>(end - header));
  out.append(bytes.begin(), bytes.end());
  return out;
}

// One connected consumer: the service's Consumer callbacks become replies
// to the requests the client left open.
class RemoteConsumer : public Consumer {
 public:
  RemoteConsumer(const ipc::ClientInfo& client, base::TaskRunner* runner)
      : client_(client), runner_(runner) {}
  ~RemoteConsumer() override { ReportDroppedChanges(); }

  const ipc::ClientInfo& client() const { return client_; }
  ConsumerEndpoint* endpoint() const { return endpoint_.get(); }
  void set_endpoint(std::unique_ptr<ConsumerEndpoint> e) { endpoint_ = std::move(e); }

  // EnableTracing's reply is held until the session ends.
  void SetEnableTracingReply(ipc::Reply reply) { enable_tracing_ = std::move(reply); }
  // One read at a time: a ReadBuffers while the previous one is still
  // being answered is refused (false: the reply is dropped, success =
  // false), as upstream's service drops the earlier one. Each accepted one
  // would otherwise make the service read the buffers again into replies
  // a client that does not read would pile up.
  bool AddReadBuffersReply(ipc::Reply reply) {
    if (!reads_.empty()) {
      if (refused_reads_++ == 0) {
        ZT_WLOG("consumer pid %d uid %u: ReadBuffers while its previous read is still being "
                "answered (%zu bytes held for it): refused, one read at a time",
                static_cast<int>(client_.pid), static_cast<unsigned>(client_.uid),
                held_read_bytes_);
      }
      return false;
    }
    reads_.push_back(std::move(reply));
    return true;
  }
  // What it held at most in ReadBuffers replies not yet sent.
  size_t peak_held_read_bytes() const { return peak_held_read_bytes_; }
  uint64_t refused_reads() const { return refused_reads_; }
  void AddTraceStatsReply(ipc::Reply reply) { stats_.push_back(std::move(reply)); }
  // A new ObserveEvents stream replaces the previous one, which gets what
  // was held for it and then its end, as upstream ends it (an empty reply
  // without has_more).
  void StartObserving(ipc::Reply reply) {
    SendObservedEvents(/*even_if_congested=*/true);
    if (observe_.pending())
      observe_.Resolve("", /*has_more=*/false);
    observe_ = std::move(reply);
  }
  void StopObserving() {
    if (observe_.pending())
      observe_.Resolve("", /*has_more=*/false);
  }

  // Consumer.
  void OnConnect() override {}
  void OnDisconnect() override {}
  void OnTracingDisabled(const std::string& error) override {
    // The stops that ended the session go out before its end, as
    // upstream's do, even to a client that is slow to read (what is held
    // is bounded).
    SendObservedEvents(/*even_if_congested=*/true);
    if (!enable_tracing_.pending()) {
      // An attached session that stopped before the client asked to hear
      // of it (EnableTracing with attach_notification_only): kept for it.
      disabled_before_asked_ = true;
      disabled_error_ = error;
      return;
    }
    AnswerDisabled(&enable_tracing_, error);
  }
  // Attaching: an end seen before belonged to a session of before.
  void ForgetEarlierEnd() { disabled_before_asked_ = false; }
  // EnableTracing(attach_notification_only): the end of the session this
  // client attached to, now if it came already.
  void SetAttachNotificationReply(ipc::Reply reply) {
    enable_tracing_ = std::move(reply);
    if (disabled_before_asked_) {
      disabled_before_asked_ = false;
      AnswerDisabled(&enable_tracing_, disabled_error_);
    }
  }
  // Observed (if asked) through OnObservedEvents, in the batch of the
  // starts that completed it.
  void OnAllDataSourcesStarted() override {}
  void OnObservedEvents(const ObservedEvents& events) override {
    if (!observe_.pending())
      return;  // The stream ended (an empty ObserveEvents, or the client is gone).
    const uint64_t dropped_before = observed_dropped_;
    for (const InstanceStateChange& change : events.instance_state_changes) {
      const size_t size = EncodedSize(change);
      if (size > kObserveReplyBytes) {
        observed_dropped_++;
        continue;
      }
      held_changes_.push_back(change);
      held_bytes_ += size;
    }
    held_all_started_ |= events.all_data_sources_started;
    SendObservedEvents(/*even_if_congested=*/false);
    // What the client's queue could not take waits, bounded.
    while (held_bytes_ > kMaxHeldObservedBytes) {
      held_bytes_ -= EncodedSize(held_changes_.front());
      held_changes_.pop_front();
      observed_dropped_++;
    }
    if (dropped_before == 0 && observed_dropped_ > 0) {
      ZT_WLOG("consumer pid %d: dropping data source state changes it has not read (or with "
              "names over %zu bytes); the count follows when it catches up",
              static_cast<int>(client_.pid), kObserveReplyBytes);
    }
  }
  void OnTraceData(std::vector<uint8_t> trace, bool has_more) override {
    AppendSlices(trace);
    if (!has_more)
      read_complete_ = true;
    SendReadReplies();
  }
  void OnTraceStats(bool success, std::vector<uint8_t> stats) override {
    if (stats_.empty())
      return;
    ipc::Reply reply = std::move(stats_.front());
    stats_.pop_front();
    if (!success)
      return;  // Dropped: answers success = false.
    // GetTraceStatsResponse { trace_stats = 1 }.
    reply.Resolve(WrapAsField1(stats));
  }

 private:
  static bool ReadVarint(const uint8_t** p, const uint8_t* end, uint64_t* value) {
    const uint8_t* next = protozero::proto_utils::ParseVarInt(*p, end, value);
    if (next == *p)
      return false;
    *p = next;
    return true;
  }

  static void AnswerDisabled(ipc::Reply* reply, const std::string& error) {
    protos::gen::EnableTracingResponse resp;
    resp.set_disabled(true);
    if (!error.empty())
      resp.set_error(error);
    reply->Resolve(resp.SerializeAsString());
  }

  // Cuts a batch (a `Trace`: field 1 per packet) into ReadBuffersResponse
  // slices, each packet's last slice marked, replies of ~32 KB.
  void AppendSlices(const std::vector<uint8_t>& trace) {
    const uint8_t* p = trace.data();
    const uint8_t* const end = p + trace.size();
    while (p < end) {
      uint64_t tag = 0, size = 0;
      if (!ReadVarint(&p, end, &tag) || tag != 0x0a || !ReadVarint(&p, end, &size) ||
          size > static_cast<uint64_t>(end - p)) {
        // The service's own output: never malformed. Stop rather than send
        // the consumer bytes it would misread.
        ZT_ELOG("consumer port: malformed trace batch from the service (%zu bytes)",
                trace.size());
        return;
      }
      size_t left = static_cast<size_t>(size);
      do {
        if (!pending_ || pending_bytes_ >= kReadReplyBytes) {
          if (pending_) {
            ready_.push_back(pending_->SerializeAsString());
            held_read_bytes_ += ready_.back().size();
            peak_held_read_bytes_ = std::max(peak_held_read_bytes_, held_read_bytes_);
          }
          pending_.reset(new protos::gen::ReadBuffersResponse());
          pending_bytes_ = 0;
        }
        const size_t n = std::min(left, kReadReplyBytes - pending_bytes_);
        protos::gen::ReadBuffersResponse_Slice* slice = pending_->add_slices();
        slice->set_data(std::string(reinterpret_cast<const char*>(p), n));
        slice->set_last_slice_for_packet(n == left);
        p += n;
        left -= n;
        pending_bytes_ += n;
      } while (left > 0);
    }
  }

  // Sends the events held for the ObserveEvents stream, in replies of at
  // most kObserveReplyBytes of changes, all_data_sources_started with the
  // last; while the client's queue is over kMaxQueuedReplyBytes they wait
  // (unless |even_if_congested|), and the stream looks again later.
  void SendObservedEvents(bool even_if_congested) {
    while (observe_.pending() && (!held_changes_.empty() || held_all_started_)) {
      if (!even_if_congested && observe_.queued_send_bytes() > kMaxQueuedReplyBytes) {
        if (!observe_pacing_scheduled_) {
          observe_pacing_scheduled_ = true;
          runner_->PostDelayedTask(
              [weak = weak_factory_.GetWeakPtr()] {
                if (!weak)
                  return;
                weak->observe_pacing_scheduled_ = false;
                weak->SendObservedEvents(/*even_if_congested=*/false);
              },
              kObservePacingDelayMs);
        }
        return;
      }
      protos::gen::ObserveEventsResponse resp;
      protos::gen::ObservableEvents* events = resp.mutable_events();
      size_t bytes = 0;
      while (!held_changes_.empty() &&
             bytes + EncodedSize(held_changes_.front()) <= kObserveReplyBytes) {
        const InstanceStateChange& change = held_changes_.front();
        auto* out = events->add_instance_state_changes();
        out->set_producer_name(change.producer_name);
        out->set_data_source_name(change.data_source_name);
        out->set_state(change.state == InstanceStateChange::State::kStarted
                           ? ObservableEvents::DATA_SOURCE_INSTANCE_STATE_STARTED
                           : ObservableEvents::DATA_SOURCE_INSTANCE_STATE_STOPPED);
        bytes += EncodedSize(change);
        held_bytes_ -= EncodedSize(change);
        held_changes_.pop_front();
      }
      if (held_changes_.empty() && held_all_started_) {
        events->set_all_data_sources_started(true);
        held_all_started_ = false;
      }
      observe_.Resolve(resp.SerializeAsString(), /*has_more=*/true);
    }
    if (held_changes_.empty())
      ReportDroppedChanges();
  }

  void ReportDroppedChanges() {
    if (observed_dropped_ == 0)
      return;
    ZT_WLOG("consumer pid %d: %llu data source state changes were dropped, not sent",
            static_cast<int>(client_.pid), static_cast<unsigned long long>(observed_dropped_));
    observed_dropped_ = 0;
  }

  // Sends what is ready to the oldest ReadBuffers request, pacing on the
  // client's socket queue; the last reply (has_more false) once the
  // service said the read is complete.
  void SendReadReplies() {
    pacing_scheduled_ = false;
    while (!reads_.empty()) {
      ipc::Reply& reply = reads_.front();
      if (reply.queued_send_bytes() > kMaxQueuedReplyBytes) {
        if (!pacing_scheduled_) {
          pacing_scheduled_ = true;
          runner_->PostDelayedTask(
              [weak = weak_factory_.GetWeakPtr()] {
                if (weak)
                  weak->SendReadReplies();
              },
              kReadPacingDelayMs);
        }
        break;
      }
      if (!ready_.empty()) {
        reply.Resolve(ready_.front(), /*has_more=*/true);
        held_read_bytes_ -= ready_.front().size();
        ready_.pop_front();
        continue;
      }
      if (!read_complete_)
        break;
      reply.Resolve(pending_ ? pending_->SerializeAsString() : std::string(),
                    /*has_more=*/false);
      pending_.reset();
      pending_bytes_ = 0;
      read_complete_ = false;
      reads_.pop_front();
      break;
    }
    PaceServiceReads();
  }

  // Pauses the service's read while the replies held for this client are
  // over kMaxHeldReadBytes; resumes it once they are under half of that.
  void PaceServiceReads() {
    if (!read_paused_ && held_read_bytes_ > kMaxHeldReadBytes) {
      read_paused_ = true;
      endpoint_->SetReadPaused(true);
    } else if (read_paused_ && held_read_bytes_ <= kMaxHeldReadBytes / 2) {
      read_paused_ = false;
      endpoint_->SetReadPaused(false);
    }
  }

  const ipc::ClientInfo client_;
  base::TaskRunner* const runner_;
  std::unique_ptr<ConsumerEndpoint> endpoint_;
  ipc::Reply enable_tracing_;
  bool disabled_before_asked_ = false;
  std::string disabled_error_;
  // The ObserveEvents stream, and what the service reported that it has
  // not been sent yet (the client's queue is full).
  ipc::Reply observe_;
  std::deque<InstanceStateChange> held_changes_;
  size_t held_bytes_ = 0;
  bool held_all_started_ = false;
  bool observe_pacing_scheduled_ = false;
  uint64_t observed_dropped_ = 0;  // Since the last count logged.
  std::deque<ipc::Reply> reads_;
  std::deque<ipc::Reply> stats_;
  // ReadBuffers replies serialized and waiting to be sent, and the one
  // being filled.
  std::deque<std::string> ready_;
  size_t held_read_bytes_ = 0;  // In ready_.
  size_t peak_held_read_bytes_ = 0;
  bool read_paused_ = false;     // The service's read, by PaceServiceReads.
  uint64_t refused_reads_ = 0;
  std::unique_ptr<protos::gen::ReadBuffersResponse> pending_;
  size_t pending_bytes_ = 0;
  bool read_complete_ = false;
  bool pacing_scheduled_ = false;
  base::WeakPtrFactory<RemoteConsumer> weak_factory_{this};  // Last member.
};

struct ConsumerPortState {
  TracingService* service;
  base::TaskRunner* runner;
  std::map<ipc::ClientId, std::unique_ptr<RemoteConsumer>> consumers;

  RemoteConsumer* Get(const ipc::ClientInfo& client) {
    std::unique_ptr<RemoteConsumer>& c = consumers[client.id];
    if (!c) {
      c.reset(new RemoteConsumer(client, runner));
      c->set_endpoint(service->ConnectConsumer(c.get(), static_cast<int32_t>(client.uid)));
    }
    return c.get();
  }
};

template <typename T>
bool ParseConsumerRequest(const ipc::Request& request, const char* method, T* out) {
  if (out->ParseFromString(request.args))
    return true;
  ZT_WLOG("consumer pid %d: undecodable %s request (%zu bytes) refused",
          static_cast<int>(request.client.pid), method, request.args.size());
  return false;
}

using Handler = void (*)(ConsumerPortState* state, RemoteConsumer* consumer,
                         ipc::Request& request, ipc::Reply reply);

void EnableTracing(ConsumerPortState*, RemoteConsumer* c, ipc::Request& request,
                   ipc::Reply reply) {
  protos::gen::EnableTracingRequest req;
  if (!ParseConsumerRequest(request, "EnableTracing", &req))
    return;
  if (req.attach_notification_only())
    return c->SetAttachNotificationReply(std::move(reply));
  // The fd of write_into_file comes with the request.
  const int fd = static_cast<bool>(*request.received_fd) ? request.received_fd->release() : -1;
  c->SetEnableTracingReply(std::move(reply));
  c->endpoint()->EnableTracing(req.trace_config(), fd);
}

void Flush(ConsumerPortState*, RemoteConsumer* c, ipc::Request& request, ipc::Reply reply) {
  protos::gen::FlushRequest req;
  if (!ParseConsumerRequest(request, "Flush", &req))
    return;
  // std::function needs a copyable callable; the Reply is move-only.
  auto shared = std::make_shared<ipc::Reply>(std::move(reply));
  // Its flags (why, by whom) go on to the producers.
  c->endpoint()->FlushWithFlags(req.timeout_ms(), [shared](bool ok) {
    if (ok)
      shared->Resolve("");
    else
      shared->Reject();
  }, req.flags());
}

void ObserveEvents(ConsumerPortState* state, RemoteConsumer* c, ipc::Request& request,
                   ipc::Reply reply) {
  protos::gen::ObserveEventsRequest req;
  if (!ParseConsumerRequest(request, "ObserveEvents", &req))
    return;
  uint32_t mask = 0;
  for (auto type : req.events_to_observe()) {
    if (type == ObservableEvents::TYPE_DATA_SOURCES_INSTANCES)
      mask |= ObservedEvents::kDataSourceInstances;
    else if (type == ObservableEvents::TYPE_ALL_DATA_SOURCES_STARTED)
      mask |= ObservedEvents::kAllDataSourcesStarted;
  }
  c->StartObserving(std::move(reply));
  state->service->ObserveEvents(c->endpoint(), mask);
  // Nothing (known) to observe: the stream ends at once, as upstream's.
  if (mask == 0)
    c->StopObserving();
}

void Detach(ConsumerPortState* state, RemoteConsumer* c, ipc::Request& request,
            ipc::Reply reply) {
  protos::gen::DetachRequest req;
  if (!ParseConsumerRequest(request, "Detach", &req))
    return;
  if (state->service->DetachConsumer(c->endpoint(), req.key()))
    reply.Resolve("");
}

void Attach(ConsumerPortState* state, RemoteConsumer* c, ipc::Request& request,
            ipc::Reply reply) {
  protos::gen::AttachRequest req;
  if (!ParseConsumerRequest(request, "Attach", &req))
    return;
  protos::gen::AttachResponse resp;
  c->ForgetEarlierEnd();
  if (state->service->AttachConsumer(c->endpoint(), req.key(), resp.mutable_trace_config()))
    reply.Resolve(resp.SerializeAsString());
}

void ChangeTraceConfig(ConsumerPortState* state, RemoteConsumer* c, ipc::Request& request,
                       ipc::Reply reply) {
  protos::gen::ChangeTraceConfigRequest req;
  if (!ParseConsumerRequest(request, "ChangeTraceConfig", &req))
    return;
  std::string error;
  if (state->service->ChangeTraceConfig(c->endpoint(), req.trace_config(), &error))
    return reply.Resolve("");
  ZT_WLOG("consumer pid %d: %s", static_cast<int>(request.client.pid), error.c_str());
}

void QueryCapabilities(ConsumerPortState*, RemoteConsumer*, ipc::Request&, ipc::Reply reply) {
  protos::gen::QueryCapabilitiesResponse resp;
  auto* caps = resp.mutable_capabilities();
  caps->set_has_query_capabilities(true);
  caps->add_observable_events(ObservableEvents::TYPE_DATA_SOURCES_INSTANCES);
  caps->add_observable_events(ObservableEvents::TYPE_ALL_DATA_SOURCES_STARTED);
  caps->set_has_trace_config_output_path(false);
  caps->set_has_clone_session(true);
  reply.Resolve(resp.SerializeAsString());
}

void QueryServiceState(ConsumerPortState* state, RemoteConsumer*, ipc::Request& request,
                       ipc::Reply reply) {
  protos::gen::QueryServiceStateRequest req;
  if (!ParseConsumerRequest(request, "QueryServiceState", &req))
    return;
  // QueryServiceStateResponse { service_state = 1 }. The sessions listed
  // are those the client's uid may see.
  reply.Resolve(WrapAsField1(state->service->QueryServiceState(
      static_cast<int32_t>(request.client.uid), req.sessions_only())));
}

// The session cloned becomes this client's, read with ReadBuffers. Always
// answered: success with the clone's uuid, or the error.
void CloneSession(ConsumerPortState* state, RemoteConsumer* c, ipc::Request& request,
                  ipc::Reply reply) {
  protos::gen::CloneSessionRequest req;
  if (!ParseConsumerRequest(request, "CloneSession", &req))
    return;
  ConsumerEndpoint::CloneSessionArgs args;
  args.session_id = req.session_id();
  args.unique_session_name = req.unique_session_name();
  args.for_bugreport = req.for_bugreport();
  auto shared = std::make_shared<ipc::Reply>(std::move(reply));
  state->service->CloneSession(
      c->endpoint(), args, [shared](const ConsumerEndpoint::CloneSessionResult& result) {
        protos::gen::CloneSessionResponse resp;
        resp.set_success(result.success);
        if (!result.success)
          resp.set_error(result.error);
        resp.set_uuid_msb(result.uuid_msb);
        resp.set_uuid_lsb(result.uuid_lsb);
        resp.set_was_write_into_file(false);
        shared->Resolve(resp.SerializeAsString());
      });
}

void AddMethod(ipc::Service* port, const std::shared_ptr<ConsumerPortState>& state,
               const char* name, Handler handler) {
  port->AddMethod(name, [state, handler](ipc::Request& request, ipc::Reply reply) {
    RemoteConsumer* c = state->Get(request.client);
    if (!c->endpoint())
      return;  // The service refused the consumer: every call fails.
    handler(state.get(), c, request, std::move(reply));
  });
}

// A method whose request carries nothing the service needs: the call, then
// an empty success.
template <void (ConsumerEndpoint::*kCall)()>
void Simple(ConsumerPortState*, RemoteConsumer* c, ipc::Request&, ipc::Reply reply) {
  (c->endpoint()->*kCall)();
  reply.Resolve("");
}

void NotSupported(ConsumerPortState*, RemoteConsumer*, ipc::Request&, ipc::Reply) {}

}  // namespace

std::unique_ptr<ipc::Service> CreateConsumerPort(TracingService* service,
                                                 base::TaskRunner* runner) {
  auto state = std::make_shared<ConsumerPortState>();
  state->service = service;
  state->runner = runner;
  auto port = std::make_unique<ipc::Service>("ConsumerPort");
  // Upstream's declaration order (its method ids).
  AddMethod(port.get(), state, "EnableTracing", &EnableTracing);
  AddMethod(port.get(), state, "DisableTracing", &Simple<&ConsumerEndpoint::DisableTracing>);
  AddMethod(port.get(), state, "ReadBuffers",
            [](ConsumerPortState*, RemoteConsumer* c, ipc::Request&, ipc::Reply reply) {
              if (c->AddReadBuffersReply(std::move(reply)))
                c->endpoint()->ReadBuffers();
            });
  AddMethod(port.get(), state, "FreeBuffers", &Simple<&ConsumerEndpoint::FreeBuffers>);
  AddMethod(port.get(), state, "Flush", &Flush);
  AddMethod(port.get(), state, "StartTracing", &Simple<&ConsumerEndpoint::StartTracing>);
  AddMethod(port.get(), state, "ChangeTraceConfig", &ChangeTraceConfig);
  AddMethod(port.get(), state, "Detach", &Detach);
  AddMethod(port.get(), state, "Attach", &Attach);
  AddMethod(port.get(), state, "GetTraceStats",
            [](ConsumerPortState*, RemoteConsumer* c, ipc::Request&, ipc::Reply reply) {
              c->AddTraceStatsReply(std::move(reply));
              c->endpoint()->GetTraceStats();
            });
  AddMethod(port.get(), state, "ObserveEvents", &ObserveEvents);
  AddMethod(port.get(), state, "QueryServiceState", &QueryServiceState);
  AddMethod(port.get(), state, "QueryCapabilities", &QueryCapabilities);
  AddMethod(port.get(), state, "SaveTraceForBugreport", &NotSupported);
  AddMethod(port.get(), state, "CloneSession", &CloneSession);
  port->on_client_disconnected = [state](const ipc::ClientInfo& client) {
    // The session of a consumer that went away ends and is freed (the
    // public SDK never sends FreeBuffers; it just disconnects).
    auto it = state->consumers.find(client.id);
    if (it == state->consumers.end())
      return;
    const size_t peak = it->second->peak_held_read_bytes();
    state->consumers.erase(it);
#if defined(__GLIBC__)
    // What it held is free now; given back to the system rather than kept
    // by the allocator for a peak that may not come again.
    if (peak >= kTrimAfterBytes)
      malloc_trim(0);
#else
    (void)peak;
#endif
  };
  return port;
}

}  // namespace zt
