// CloneSession: a running (or stopped) session's buffers snapshotted into a
// new read-only session that the asking consumer owns and reads with
// ReadBuffers, as upstream's service does. In the ports library: only the
// daemon's consumer port asks for it.

#include <string>
#include <utility>

#include "src/tracing/service/tracing_service_endpoints.h"
#include "src/tracing/service/tracing_service_impl.h"
#include "zt/base/logging.h"

namespace zt {

using CloneSessionArgs = ConsumerEndpoint::CloneSessionArgs;
using CloneSessionResult = ConsumerEndpoint::CloneSessionResult;
using CloneDone = std::function<void(const CloneSessionResult&)>;

void TracingService::CloneSession(ConsumerEndpoint* consumer, const CloneSessionArgs& args,
                                  CloneDone done) {
  static_cast<TracingServiceImpl*>(this)->Clone(consumer, args, std::move(done));
}

void TracingServiceImpl::Clone(ConsumerEndpoint* endpoint, const CloneSessionArgs& args,
                               CloneDone done) {
  auto* consumer = static_cast<ConsumerEndpointImpl*>(endpoint);
  auto refuse = [consumer, &done](std::string error) {
    CloneSessionResult result;
    result.error = "CloneSession: " + error;
    consumer->Post([done = std::move(done), result](Consumer*) { done(result); });
  };
  if (SessionOf(consumer))
    return refuse("this consumer already has a session (one per consumer: free it first)");
  Session* src = nullptr;
  if (args.session_id != 0) {
    src = SessionById(args.session_id);
  } else if (!args.unique_session_name.empty()) {
    for (auto& entry : sessions_) {
      // Clones keep their source's name; only sources are found by it.
      if (!entry.second->is_clone &&
          entry.second->config.unique_session_name() == args.unique_session_name) {
        src = entry.second.get();
        break;
      }
    }
  } else {
    return refuse("no session named: give its id or its unique_session_name");
  }
  if (!src) {
    return refuse(args.session_id ? "no session with id " + std::to_string(args.session_id)
                                  : "no session named \"" + args.unique_session_name + "\"");
  }
  // Upstream's rule: the session's own uid, or root.
  if (consumer->uid() != 0 && consumer->uid() != src->consumer_uid) {
    return refuse("session " + std::to_string(src->id) +
                  " belongs to another uid: only its uid or root may clone it");
  }
  if (src->config.write_into_file()) {
    // Its data is in its file, drained from the buffers as it goes: a copy
    // of the buffers would be a trace without its beginning.
    return refuse("session " + std::to_string(src->id) +
                  " writes into a file: read the file (its buffers hold only what was "
                  "not written yet)");
  }
  if (src->waits_for_trigger()) {
    return refuse("session " + std::to_string(src->id) +
                  " waits for a trigger: until one comes it holds nothing");
  }
  // A clone is a session of the asking uid with buffers as large as the
  // source's: the same per-uid limits as EnableTracing (checked again when
  // the copy is made, as sessions may start meanwhile).
  if (std::string over = OverSessionLimits(consumer->uid(), src->config); !over.empty()) {
    limit_stats_.sessions_refused++;
    ZT_ELOG("CloneSession of uid %d refused: %s", static_cast<int>(consumer->uid()),
            over.c_str());
    return refuse(over);
  }
  // Flushed first when it runs, so that the copy has what producers hold;
  // the copy is made in a task of its own (the flush can end inside a
  // stop, whose callers still hold the session).
  const uint64_t source_id = src->id;
  auto copy = [this, source_id, weak = consumer->GetWeakPtr(),
               done = std::move(done)](bool flushed) mutable {
    PostDelayedIfAlive(0, [source_id, weak, flushed, done = std::move(done)](
                              TracingServiceImpl* self) mutable {
      self->FinishClone(source_id, weak, flushed, std::move(done));
    });
  };
  if (src->state != SessionState::kStarted) {
    copy(true);  // Nothing runs that could hold data back.
    return;
  }
  uint64_t flags = flush_flags::kInitiatorTraced | flush_flags::kReasonTraceClone;
  if (args.for_bugreport)
    flags |= flush_flags::kCloneTargetBugreport;
  FlushSession(src, 0, nullptr, std::move(copy), flags);
}

void TracingServiceImpl::FinishClone(uint64_t source_id,
                                     base::WeakPtr<ConsumerEndpointImpl> weak,
                                     bool flushed, CloneDone done) {
  if (!weak)
    return;  // The consumer left: nobody to clone for.
  ConsumerEndpointImpl* consumer = weak.get();
  CloneSessionResult result;
  auto answer = [consumer, &done, &result] {
    consumer->Post([done = std::move(done), result](Consumer*) { done(result); });
  };
  Session* src = SessionById(source_id);
  if (!src) {
    result.error = "CloneSession: session " + std::to_string(source_id) +
                   " ended before it could be copied";
    return answer();
  }
  if (SessionOf(consumer)) {
    result.error = "CloneSession: this consumer started a session meanwhile";
    return answer();
  }
  if (std::string over = OverSessionLimits(consumer->uid(), src->config); !over.empty()) {
    limit_stats_.sessions_refused++;
    result.error = "CloneSession: " + over;
    return answer();
  }
  std::vector<std::unique_ptr<TraceBuffer>> copies;
  for (size_t i = 0; i < src->buffer_ids.size(); i++) {
    TraceBuffer* buffer = BufferById(src->buffer_ids[i]);
    std::unique_ptr<TraceBuffer> copy = buffer ? CloneTraceBuffer(*buffer) : nullptr;
    if (!copy) {
      result.error = "CloneSession: no memory for a copy of buffer " + std::to_string(i) +
                     (buffer ? " (" + std::to_string(buffer->size() / 1024) + " KiB)" : "");
      return answer();
    }
    copies.push_back(std::move(copy));
  }
  // Copy-constructed (see EnableTracing).
  auto clone = std::make_unique<Session>(src->config);
  Session* c = clone.get();
  c->id = next_session_id_++;
  c->consumer = consumer;
  c->consumer_uid = consumer->uid();
  c->is_clone = true;
  c->state = SessionState::kStopped;
  c->start_realtime_ns = src->start_realtime_ns;
  c->cloned_producers = ProducersOf(*src);
  // What the service says about the trace, as upstream's clone keeps it:
  // the source's counters, the flush's outcome as the final one.
  c->invalid_packets = src->invalid_packets;
  c->flushes_requested = src->flushes_requested;
  c->flushes_succeeded = src->flushes_succeeded;
  c->flushes_failed = src->flushes_failed;
  c->final_flush_outcome = flushed ? 1 : 2;  // TraceStats.FinalFlushOutcome.
  // A new TraceUuid (not the config's, were it set there), its low half the
  // source's.
  protos::gen::TraceConfig packets_config(src->config);
  packets_config.set_trace_uuid_msb(0);
  packets_config.set_trace_uuid_lsb(0);
  c->service_packets.reset(new SessionServicePackets(packets_config, service_uid_));
  c->service_packets->set_uuid_lsb(src->service_packets->uuid_lsb());
  c->service_packets->OnDisabled();  // The end of the clone's tracing: now.
  for (auto& copy : copies) {
    const uint32_t id = next_buffer_id_++;
    buffers_[id] = std::move(copy);
    buffer_owner_[id] = c->id;
    c->buffer_ids.push_back(id);
  }
  consumer->session_id = c->id;
  result.success = true;
  result.uuid_msb = c->service_packets->uuid_msb();
  result.uuid_lsb = c->service_packets->uuid_lsb();
  sessions_[c->id] = std::move(clone);
  answer();
}

}  // namespace zt
