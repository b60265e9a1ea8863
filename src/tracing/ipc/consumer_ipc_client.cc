// The consumer's side of the "ConsumerPort" (consumer_ipc_client.h).
//
// As the v14 transcripts show upstream's SDK consumer: bind, ObserveEvents
// (a stream, for all_data_sources_started), then EnableTracing, whose
// answer is held by the service until the session ends. ReadBuffers is a
// stream of packet slices, reassembled here into the `Trace` encoding the
// Consumer interface delivers.
//
// Callbacks: answers reach the consumer from the client's socket tasks;
// failures are posted (a call made while disconnected must not call back
// from inside itself), so after a disconnection OnDisconnect() comes
// first and the failed answers follow, unless the endpoint is destroyed
// in between.

#include "src/tracing/ipc/consumer_ipc_client.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "src/base/scoped_file.h"
#include "src/ipc/client.h"
#include "zt/base/logging.h"
#include "zt/ext/base/weak_ptr.h"
#include "zt/ipc/consumer_port.gen.h"
#include "zt/protozero/proto_utils.h"
#include "zt/protozero/proto_decoder.h"

namespace zt {
namespace {

constexpr char kConnectionLost[] = "the connection to the tracing service was lost";
constexpr char kConfigNotSent[] = "the trace config cannot be sent: ";
// The most a QueryServiceState answer may hold, its streamed parts merged:
// ours fits one 128 KiB frame; a newer upstream service's parts add up to
// a few MB at most.
constexpr size_t kMaxServiceStateBytes = 32 * 1024 * 1024;

void AppendVarint(uint64_t value, std::vector<uint8_t>* out) {
  uint8_t buf[protozero::proto_utils::kMaxVarIntEncodedSize];
  out->insert(out->end(), buf, protozero::proto_utils::WriteVarInt(value, buf));
}

// Appends the bytes of every field 1 (a message; repeated occurrences
// merge, so their bytes concatenate) of |reply| to |out|. False if the
// reply does not decode.
bool AppendField1Bytes(const std::string& reply, std::vector<uint8_t>* out) {
  protozero::ProtoDecoder decoder(reply.data(), reply.size());
  for (protozero::Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
    if (f.id() != 1)
      continue;
    if (f.type() != protozero::proto_utils::ProtoWireType::kLengthDelimited)
      return false;
    out->insert(out->end(), f.data(), f.data() + f.size());
  }
  return !decoder.parse_error();
}

class ConsumerIpcClientImpl : public ConsumerEndpoint {
 public:
  ConsumerIpcClientImpl(Consumer* consumer, base::TaskRunner* runner)
      : consumer_(consumer), runner_(runner) {}
  ~ConsumerIpcClientImpl() override {
    client_.reset();  // First: no callback reaches a half-destroyed endpoint.
  }

  void Connect(const std::string& address);

  // ConsumerEndpoint.
  void EnableTracing(const protos::gen::TraceConfig& config, int fd) override;
  void StartTracing() override;
  void DisableTracing() override;
  void Flush(uint32_t timeout_ms, std::function<void(bool)> done) override;
  void FlushWithFlags(uint32_t timeout_ms, std::function<void(bool)> done,
                      uint64_t flags) override;
  void ReadBuffers() override;
  void FreeBuffers() override;
  void GetTraceStats() override;
  void QueryServiceState(std::function<void(bool, std::vector<uint8_t>)> done) override;
  void CloneSession(const CloneSessionArgs& args,
                    std::function<void(const CloneSessionResult&)> done) override;

 private:
  enum class State { kBinding, kConnected, kDisconnected };

  // A call made before the port was bound, sent once it is (or failed).
  struct QueuedCall {
    std::string method;
    std::string args;
    ipc::Client::ResponseCallback callback;
    base::ScopedFile fd;
  };

  // One ReadBuffers stream: the packet whose slices are still coming.
  struct Read {
    std::vector<uint8_t> partial;
  };

  void OnBound(bool bound);
  void OnConnectionLost();
  // Invokes |method|, or queues it before the bind; after a disconnection
  // |callback| gets a failure (which it must only post onward).
  void Send(const char* method, std::string args, ipc::Client::ResponseCallback callback,
            base::ScopedFile fd = base::ScopedFile());
  // Runs |task| in a task of its own, unless the endpoint is gone by then.
  void Post(std::function<void()> task);
  // A callback for calls whose answer carries nothing: a failure is logged.
  static ipc::Client::ResponseCallback LogFailure(const char* method);
  void OnEnableTracingReply(uint64_t session, ipc::Client::Response response);
  void OnReadBuffersReply(Read* read, ipc::Client::Response response);
  void OnTraceStatsReply(ipc::Client::Response response);
  // A TracingServiceState may come in several replies (newer services split
  // a large one); their fields merge, so their bytes concatenate.
  struct StateQuery {
    std::vector<uint8_t> state;
    std::function<void(bool, std::vector<uint8_t>)> done;
  };
  void OnServiceStateReply(const std::shared_ptr<StateQuery>& query,
                           ipc::Client::Response response);

  Consumer* const consumer_;
  base::TaskRunner* const runner_;
  State state_ = State::kBinding;
  std::unique_ptr<ipc::Client> client_;
  std::vector<QueuedCall> queued_;
  // Counts FreeBuffers() calls: the end of a session freed before it
  // ended is not reported (as in process: after FreeBuffers nothing of the
  // session reaches the consumer), so each EnableTracing remembers the
  // count it was made under.
  uint64_t frees_ = 0;
  base::WeakPtrFactory<ConsumerIpcClientImpl> weak_factory_{this};  // Last member.
};

void ConsumerIpcClientImpl::Connect(const std::string& address) {
  // The client calls back only while it exists, and we own it: |this| is safe.
  client_ = ipc::Client::Connect(
      address, "ConsumerPort", runner_, [this](bool bound) { OnBound(bound); },
      [this] { OnConnectionLost(); });
}

void ConsumerIpcClientImpl::OnBound(bool bound) {
  if (!bound) {
    // Not logged here: the consumer's owner reports it in its own words
    // (ztrace's message, a session's error callback).
    return OnConnectionLost();
  }
  state_ = State::kConnected;
  // Before anything else, as upstream's SDK does: the session's start can
  // then not be missed.
  protos::gen::ObserveEventsRequest observe;
  observe.add_events_to_observe(protos::gen::ObservableEvents::TYPE_ALL_DATA_SOURCES_STARTED);
  client_->Invoke("ObserveEvents", observe.SerializeAsString(),
                  [this](ipc::Client::Response response) {
                    // A failure: an older service, or the connection going.
                    protos::gen::ObserveEventsResponse resp;
                    if (response.success && resp.ParseFromString(response.reply_proto) &&
                        resp.events().all_data_sources_started()) {
                      consumer_->OnAllDataSourcesStarted();
                    }
                  });
  std::vector<QueuedCall> queued = std::move(queued_);
  queued_.clear();
  for (QueuedCall& call : queued)
    client_->Invoke(call.method, call.args, std::move(call.callback), false, call.fd.get());
  consumer_->OnConnect();
}

void ConsumerIpcClientImpl::OnConnectionLost() {
  if (state_ == State::kDisconnected)
    return;
  state_ = State::kDisconnected;
  // Never sent: their failures are posted, after OnDisconnect().
  std::vector<QueuedCall> queued = std::move(queued_);
  queued_.clear();
  for (QueuedCall& call : queued) {
    if (call.callback)
      call.callback(ipc::Client::Response());
  }
  consumer_->OnDisconnect();  // May destroy |this|.
}

void ConsumerIpcClientImpl::Send(const char* method, std::string args,
                                 ipc::Client::ResponseCallback callback, base::ScopedFile fd) {
  switch (state_) {
    case State::kBinding:
      queued_.push_back(QueuedCall{method, std::move(args), std::move(callback), std::move(fd)});
      return;
    case State::kConnected:
      // The fd is sent with the request (the socket keeps a duplicate
      // until it is out); ours closes on return.
      client_->Invoke(method, args, std::move(callback), /*drop_reply=*/false, fd.get());
      return;
    case State::kDisconnected:
      if (callback)
        callback(ipc::Client::Response());
      return;
  }
}

void ConsumerIpcClientImpl::Post(std::function<void()> task) {
  runner_->PostTask([weak = weak_factory_.GetWeakPtr(), task = std::move(task)] {
    if (weak)
      task();
  });
}

ipc::Client::ResponseCallback ConsumerIpcClientImpl::LogFailure(const char* method) {
  return [method](ipc::Client::Response response) {
    if (!response.success)
      ZT_DLOG("consumer: %s failed (refused, or the connection is gone)", method);
  };
}

void ConsumerIpcClientImpl::EnableTracing(const protos::gen::TraceConfig& config, int fd) {
  base::ScopedFile file(fd);  // Ours from here on, whatever happens.
  protos::gen::EnableTracingRequest req;
  *req.mutable_trace_config() = config;
  Send("EnableTracing", req.SerializeAsString(),
       [this, session = frees_](ipc::Client::Response response) {
         OnEnableTracingReply(session, std::move(response));
       },
       std::move(file));
}

void ConsumerIpcClientImpl::OnEnableTracingReply(uint64_t session,
                                                 ipc::Client::Response response) {
  // Answered when the session ends. A session freed before then is not
  // reported: the service may end its request either way.
  if (session != frees_)
    return;
  if (!response.success) {
    const bool refused = client_ && client_->bound();
    // Not sent at all (over the service's frame limit): the error says the
    // sizes; the connection stays.
    std::string error = !response.error.empty()
                            ? std::string(kConfigNotSent) + response.error
                            : refused ? "the tracing service refused EnableTracing"
                                      : kConnectionLost;
    Post([this, error = std::move(error)] { consumer_->OnTracingDisabled(error); });
    return;
  }
  protos::gen::EnableTracingResponse resp;
  if (!resp.ParseFromString(response.reply_proto)) {
    ZT_ELOG("consumer: undecodable EnableTracing answer (%zu bytes)",
            response.reply_proto.size());
    consumer_->OnTracingDisabled("undecodable answer from the tracing service");
    return;
  }
  if (resp.disabled())
    consumer_->OnTracingDisabled(resp.error());
}

void ConsumerIpcClientImpl::StartTracing() {
  Send("StartTracing", protos::gen::StartTracingRequest().SerializeAsString(),
       LogFailure("StartTracing"));
}

void ConsumerIpcClientImpl::DisableTracing() {
  Send("DisableTracing", protos::gen::DisableTracingRequest().SerializeAsString(),
       LogFailure("DisableTracing"));
}

void ConsumerIpcClientImpl::Flush(uint32_t timeout_ms, std::function<void(bool)> done) {
  FlushWithFlags(timeout_ms, std::move(done), 0);
}

void ConsumerIpcClientImpl::FlushWithFlags(uint32_t timeout_ms, std::function<void(bool)> done,
                                           uint64_t flags) {
  protos::gen::FlushRequest req;
  req.set_timeout_ms(timeout_ms);
  if (flags)  // Passed on to the producers (flush_flags).
    req.set_flags(flags);
  Send("Flush", req.SerializeAsString(),
       [this, done = std::move(done)](ipc::Client::Response response) {
         if (!done)
           return;
         if (response.success)
           done(true);
         else
           Post([done] { done(false); });
       });
}

void ConsumerIpcClientImpl::ReadBuffers() {
  // Each read its own reassembly state: two reads may be in flight.
  auto read = std::make_shared<Read>();
  Send("ReadBuffers", protos::gen::ReadBuffersRequest().SerializeAsString(),
       [this, read](ipc::Client::Response response) {
         OnReadBuffersReply(read.get(), std::move(response));
       });
}

void ConsumerIpcClientImpl::OnReadBuffersReply(Read* read, ipc::Client::Response response) {
  if (!response.success) {
    // The read ends, with what it delivered so far: a consumer waiting for
    // the last batch must not wait forever.
    if (!read->partial.empty())
      ZT_WLOG("consumer: a packet cut short by the end of ReadBuffers was dropped");
    Post([this] { consumer_->OnTraceData({}, /*has_more=*/false); });
    return;
  }
  protos::gen::ReadBuffersResponse resp;
  std::vector<uint8_t> batch;
  if (resp.ParseFromString(response.reply_proto)) {
    for (const auto& slice : resp.slices()) {
      const std::string& data = slice.data();
      read->partial.insert(read->partial.end(), data.begin(), data.end());
      if (!slice.last_slice_for_packet())
        continue;
      // Trace.packet (field 1, length-delimited): a trace file's bytes.
      batch.push_back(0x0a);
      AppendVarint(read->partial.size(), &batch);
      batch.insert(batch.end(), read->partial.begin(), read->partial.end());
      read->partial.clear();
    }
  } else {
    // Its packets are lost, and the one in progress with them; the rest of
    // the read still arrives intact.
    ZT_ELOG("consumer: undecodable ReadBuffers answer (%zu bytes) dropped",
            response.reply_proto.size());
    read->partial.clear();
  }
  if (!response.has_more && !read->partial.empty()) {
    ZT_WLOG("consumer: ReadBuffers ended inside a packet (%zu bytes dropped)",
            read->partial.size());
    read->partial.clear();
  }
  if (!batch.empty() || !response.has_more)
    consumer_->OnTraceData(std::move(batch), response.has_more);
}

void ConsumerIpcClientImpl::FreeBuffers() {
  frees_++;
  Send("FreeBuffers", protos::gen::FreeBuffersRequest().SerializeAsString(),
       LogFailure("FreeBuffers"));
}

void ConsumerIpcClientImpl::GetTraceStats() {
  Send("GetTraceStats", protos::gen::GetTraceStatsRequest().SerializeAsString(),
       [this](ipc::Client::Response response) { OnTraceStatsReply(std::move(response)); });
}

void ConsumerIpcClientImpl::OnTraceStatsReply(ipc::Client::Response response) {
  if (!response.success) {
    Post([this] { consumer_->OnTraceStats(false, {}); });
    return;
  }
  // GetTraceStatsResponse { trace_stats = 1 }: the stats' bytes are passed
  // on as the service encoded them, not parsed and re-encoded.
  std::vector<uint8_t> stats;
  if (!AppendField1Bytes(response.reply_proto, &stats)) {
    ZT_ELOG("consumer: undecodable GetTraceStats answer (%zu bytes)",
            response.reply_proto.size());
    consumer_->OnTraceStats(false, {});
    return;
  }
  consumer_->OnTraceStats(true, std::move(stats));
}

void ConsumerIpcClientImpl::QueryServiceState(
    std::function<void(bool, std::vector<uint8_t>)> done) {
  auto query = std::make_shared<StateQuery>();
  query->done = std::move(done);
  // QueryServiceStateRequest: no field we set (sessions_only is newer).
  Send("QueryServiceState", std::string(), [this, query](ipc::Client::Response response) {
    OnServiceStateReply(query, std::move(response));
  });
}

void ConsumerIpcClientImpl::CloneSession(const CloneSessionArgs& args,
                                         std::function<void(const CloneSessionResult&)> done) {
  protos::gen::CloneSessionRequest req;
  if (args.session_id)
    req.set_session_id(args.session_id);
  else
    req.set_unique_session_name(args.unique_session_name);
  if (args.for_bugreport)
    req.set_for_bugreport(true);
  Send("CloneSession", req.SerializeAsString(),
       [this, done = std::move(done)](ipc::Client::Response response) {
         CloneSessionResult result;
         protos::gen::CloneSessionResponse resp;
         if (!response.success) {
           // A service without the method (upstream's before v30, ours
           // before it was implemented) refuses the call; so does a lost
           // connection.
           result.error = state_ == State::kDisconnected
                              ? kConnectionLost
                              : "the tracing service does not support CloneSession";
         } else if (!resp.ParseFromString(response.reply_proto)) {
           result.error = "undecodable CloneSession answer from the tracing service";
         } else {
           result.success = resp.success();
           result.error = resp.error();
           result.uuid_msb = resp.uuid_msb();
           result.uuid_lsb = resp.uuid_lsb();
         }
         Post([done, result] { done(result); });
       });
}

void ConsumerIpcClientImpl::OnServiceStateReply(const std::shared_ptr<StateQuery>& query,
                                                ipc::Client::Response response) {
  if (!query->done)
    return;  // Answered already (a failure part way).
  // QueryServiceStateResponse { service_state = 1 }. A service that streams
  // parts without end must not grow this process without bound: past
  // kMaxServiceStateBytes the query fails.
  if (!response.success || !AppendField1Bytes(response.reply_proto, &query->state) ||
      query->state.size() > kMaxServiceStateBytes) {
    if (query->state.size() > kMaxServiceStateBytes)
      ZT_ELOG("consumer: the service state is over %zu bytes; the query fails",
              kMaxServiceStateBytes);
    Post([done = std::move(query->done)] { done(false, {}); });
    query->done = nullptr;
    return;
  }
  if (response.has_more)
    return;
  Post([done = std::move(query->done), state = std::move(query->state)]() mutable {
    done(true, std::move(state));
  });
  query->done = nullptr;
}

}  // namespace

std::unique_ptr<ConsumerEndpoint> ConsumerIpcClient::Connect(const std::string& address,
                                                             Consumer* consumer,
                                                             base::TaskRunner* runner) {
  std::unique_ptr<ConsumerIpcClientImpl> endpoint(new ConsumerIpcClientImpl(consumer, runner));
  endpoint->Connect(address);
  return endpoint;
}

}  // namespace zt
