// The producer's side of the "ProducerPort" (producer_ipc_client.h).
//
// The connection, as the v14 transcripts show upstream's SDK making it
// (docs/wire.md): bind, then InitializeConnection and GetAsyncCommand sent
// back to back without waiting; OnConnect() once InitializeConnection is
// answered. GetAsyncCommand stays open for the connection's life, each
// reply one command from the service (the first SetupTracing carries the
// service's SMB as an fd). Everything the producer tells the service that
// needs no answer goes with drop_reply, as upstream's SDK sends it.

#include "src/tracing/ipc/producer_ipc_client.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "src/base/memfd_shared_memory.h"
#include "src/base/scoped_file.h"
#include "src/ipc/client.h"
#include "src/tracing/ipc/commit_queue.h"
#include "src/tracing/ipc/commit_queue_committer.h"
#include "src/tracing/ipc/commit_record.h"
#include "zt/base/logging.h"
#include "zt/ext/base/weak_ptr.h"
#include "zt/ext/tracing/core/commit_data_codec.h"
#include "zt/ext/tracing/core/shared_memory_abi.h"
#include "zt/ipc/producer_port.gen.h"

namespace zt {
namespace {

using protos::gen::GetAsyncCommandResponse;

// What InitializeConnection says we are (upstream sends its own version
// string there; services only log it).
#ifdef ZT_VERSION
constexpr char kSdkVersion[] = "zerotrace " ZT_VERSION;
#else
constexpr char kSdkVersion[] = "zerotrace 0.1";
#endif

class ProducerIpcClientImpl : public ProducerEndpoint {
 public:
  ProducerIpcClientImpl(Producer* producer, const TracingService::ProducerOptions& options,
                        bool provide_smb);
  ~ProducerIpcClientImpl() override;

  void Connect(const std::string& address, base::TaskRunner* runner);

  // ProducerEndpoint.
  void RegisterDataSource(const protos::gen::DataSourceDescriptor& descriptor) override;
  void UpdateDataSource(const protos::gen::DataSourceDescriptor& descriptor) override;
  void UnregisterDataSource(const std::string& name) override;
  void CommitData(const zt::CommitData& data) override;
  void NotifyDataSourceStarted(DataSourceInstanceId id) override;
  void NotifyDataSourceStopped(DataSourceInstanceId id) override;
  void NotifyFlushComplete(FlushRequestId id) override;
  void RegisterTraceWriter(uint32_t writer_id, uint32_t target_buffer) override;
  void UnregisterTraceWriter(uint32_t writer_id) override;
  void ActivateTriggers(const std::vector<std::string>& names,
                        std::function<void(bool)> done) override;
  base::SharedMemory* shared_memory() const override {
    return smb_ready_ ? smb_.get() : nullptr;
  }
  size_t shared_memory_page_size() const override { return smb_ready_ ? page_size_ : 0; }
  // The service assigns the id and never tells a remote producer; nothing
  // on the producer's side needs it (the service stamps it on its data).
  uint32_t producer_id() const override { return 0; }
  std::shared_ptr<ConcurrentCommitter> concurrent_committer() override { return committer_; }

 private:
  enum class State {
    kBinding,       // Calls are queued until the port is bound.
    kInitializing,  // InitializeConnection sent, not answered yet.
    kConnected,
    kDisconnected,  // Inert: calls are dropped.
  };

  // A call made before the port was bound, sent once it is.
  struct QueuedCall {
    std::string method;
    std::string args;
    bool drop_reply;
    ipc::Client::ResponseCallback callback;
  };

  // A command that came before InitializeConnection's answer (a service
  // need not order them): replayed after OnConnect().
  struct EarlyCommand {
    GetAsyncCommandResponse command;
    base::ScopedFile fd;
  };

  void OnBound(bool bound);
  // Keeps |fd| for the reply it came for (see received_fd_).
  void KeepFd(base::ScopedFile fd);
  // Every message to the service goes through here: it counts them, which
  // orders ring records against them (docs/design/commit_queue.md).
  void Invoke(const std::string& method, const std::string& args,
              ipc::Client::ResponseCallback callback, bool drop_reply, int fd = -1);
  // Offers the service a commit queue if it has the method (ours does,
  // upstream's does not).
  void MaybeSetUpCommitQueue();
  void OnCommitQueueReply(ipc::Client::Response response);
  void OnInitialized(ipc::Client::Response response);
  void OnCommandReply(ipc::Client::Response response);
  // One command to the producer, which may destroy the endpoint or end
  // the connection from it: callers check before going on.
  void Dispatch(const GetAsyncCommandResponse& command, base::ScopedFile fd);
  // Maps the service's SMB and says so, or ends the connection.
  void SetupTracing(const GetAsyncCommandResponse::SetupTracing& setup, base::ScopedFile fd);
  void Send(const char* method, const std::string& args, bool drop_reply,
            ipc::Client::ResponseCallback callback = nullptr);
  // Ends the connection for a reason of ours (the service broke the
  // protocol): closes the socket and tells the producer.
  void Drop(const char* why);
  // The connection is over, whoever ended it: OnDisconnect(), once. The
  // endpoint may be destroyed by the time it returns.
  void OnConnectionLost();

  Producer* const producer_;
  const std::string name_;
  const size_t size_hint_;
  const size_t page_size_hint_;
  State state_ = State::kBinding;
  std::unique_ptr<ipc::Client> client_;
  std::vector<QueuedCall> queued_;
  std::vector<EarlyCommand> early_commands_;
  // ipc::Client gives a received fd to the frame that ends the read it came
  // with (docs/design/ipc.md). Our service sends each fd-carrying frame as
  // a message of its own, so the fd comes with its own answer; a peer that
  // glues later frames to it (another implementation) would hand it to one
  // of those. So, as upstream's clients keep a received fd until something
  // takes it, any fd a reply or command brings is kept here for the
  // SetupTracing that needs it. A doorbell (an eventfd, not a regular
  // file) is kept apart, for the commit queue's answer.
  base::ScopedFile received_fd_;
  base::ScopedFile received_doorbell_;
  std::string commit_bytes_;  // CommitData()'s message encoding buffer, reused.

  // The commit queue, once the service took it: commits go into its ring,
  // from this thread or a writer's, and only go as messages when it is
  // full or closed. The committer also counts the messages sent.
  const bool want_commit_queue_;
  std::unique_ptr<base::MemfdSharedMemory> queue_shm_;  // Offered, not answered yet.
  const std::shared_ptr<CommitQueueCommitter> committer_;

  // The SMB: ours while offered to the service and if it takes it, else
  // the service's once SetupTracing brings it. Kept, mapped, after a
  // disconnection: the producer's writers may still be writing into it.
  std::shared_ptr<base::SharedMemory> smb_;
  size_t page_size_ = 0;
  bool smb_offered_ = false;  // InitializeConnection carries smb_'s fd.
  bool smb_ready_ = false;    // Ours taken, or the service's mapped.
  // Instances the service set up, so that a StartDataSource without a
  // SetupDataSource (services older than v10 send none) gets one first.
  std::set<DataSourceInstanceId> set_up_;

  base::WeakPtrFactory<ProducerIpcClientImpl> weak_factory_{this};  // Last member.
};

ProducerIpcClientImpl::ProducerIpcClientImpl(Producer* producer,
                                             const TracingService::ProducerOptions& options,
                                             bool provide_smb)
    : producer_(producer),
      name_(options.name),
      size_hint_(options.shm_size_hint_bytes),
      page_size_hint_(options.shm_page_size_hint_bytes),
      want_commit_queue_(options.commit_queue),
      committer_(std::make_shared<CommitQueueCommitter>(options.name)) {
  if (!provide_smb)
    return;
  // Sized as the service sizes an SMB for these hints, which is what it
  // checks a provided one against.
  const TracingService::ShmGeometry geometry =
      TracingService::ComputeShmGeometry(size_hint_, page_size_hint_);
  if (options.provided_shm) {
    // The SDK's own (its arbiter is already over it): offered as it is if
    // it can travel (a file) and has that geometry.
    if (options.provided_shm->fd() >= 0 && options.provided_shm->size() == geometry.size) {
      smb_ = options.provided_shm;
    } else {
      ZT_WLOG("producer \"%s\": its shared memory buffer cannot be sent (fd %d, %zu bytes "
              "for %zu); another is made", name_.c_str(), options.provided_shm->fd(),
              options.provided_shm->size(), geometry.size);
    }
  }
  if (!smb_)
    smb_ = base::MemfdSharedMemory::Create(geometry.size);
  if (!smb_) {
    ZT_WLOG("producer \"%s\": no shared memory buffer of its own (%zu bytes); the "
            "service will provide one", name_.c_str(), geometry.size);
    return;
  }
  page_size_ = geometry.page_size;
  smb_offered_ = true;
}

ProducerIpcClientImpl::~ProducerIpcClientImpl() {
  // The client first: no callback reaches a half-destroyed endpoint.
  client_.reset();
  // Writers may hold the committer longer: nothing more goes to a ring
  // nobody will read.
  committer_->Close();
}

void ProducerIpcClientImpl::Connect(const std::string& address, base::TaskRunner* runner) {
  // The client calls back only while it exists, and we own it: |this| is safe.
  client_ = ipc::Client::Connect(
      address, "ProducerPort", runner, [this](bool bound) { OnBound(bound); },
      [this] { OnConnectionLost(); });
}

void ProducerIpcClientImpl::OnBound(bool bound) {
  if (!bound) {
    // Not logged here: a producer retries while no daemon runs, and its
    // owner says so once (OnDisconnect before any OnConnect).
    return OnConnectionLost();
  }
  state_ = State::kInitializing;
  protos::gen::InitializeConnectionRequest req;
  req.set_producer_name(name_);
  req.set_smb_scraping_mode(protos::gen::InitializeConnectionRequest::SMB_SCRAPING_ENABLED);
  req.set_sdk_version(kSdkVersion);
  int fd = -1;
  if (smb_offered_) {
    // The exact geometry of what we offer, not the raw hints, so that the
    // service's check cannot disagree with ours.
    req.set_shared_memory_size_hint_bytes(static_cast<uint32_t>(smb_->size()));
    req.set_shared_memory_page_size_hint_bytes(static_cast<uint32_t>(page_size_));
    req.set_producer_provided_shmem(true);
    fd = smb_->fd();
  } else {
    // 0 (unset) lets the service pick, as upstream's SDK sends them.
    req.set_shared_memory_size_hint_bytes(static_cast<uint32_t>(size_hint_));
    req.set_shared_memory_page_size_hint_bytes(static_cast<uint32_t>(page_size_hint_));
  }
  Invoke("InitializeConnection", req.SerializeAsString(),
         [this](ipc::Client::Response r) { OnInitialized(std::move(r)); },
         /*drop_reply=*/false, fd);
  // Pipelined, as upstream's SDK does: commands may come as soon as the
  // service has the producer.
  Invoke("GetAsyncCommand", protos::gen::GetAsyncCommandRequest().SerializeAsString(),
         [this](ipc::Client::Response r) { OnCommandReply(std::move(r)); },
         /*drop_reply=*/false);
  std::vector<QueuedCall> queued = std::move(queued_);
  queued_.clear();
  for (QueuedCall& call : queued)
    Invoke(call.method, call.args, std::move(call.callback), call.drop_reply);
}

void ProducerIpcClientImpl::Invoke(const std::string& method, const std::string& args,
                                   ipc::Client::ResponseCallback callback, bool drop_reply,
                                   int fd) {
  // A call the client refuses (no such method) sends nothing: not counted.
  committer_->SendCounted([&] {
    return client_->Invoke(method, args, std::move(callback), drop_reply, fd);
  });
}

void ProducerIpcClientImpl::KeepFd(base::ScopedFile fd) {
  if (!fd)
    return;
  // A newer one replaces (closes) an older. The SMB is a file; the
  // commit queue's doorbell is an eventfd, which is not.
  struct stat st {};
  if (fstat(fd.get(), &st) == 0 && !S_ISREG(st.st_mode))
    received_doorbell_ = std::move(fd);
  else
    received_fd_ = std::move(fd);
}

void ProducerIpcClientImpl::MaybeSetUpCommitQueue() {
  if (!want_commit_queue_ || !client_->HasMethod("ZtSetupCommitQueue"))
    return;
  queue_shm_ = base::MemfdSharedMemory::Create(kCommitQueueBytes);
  if (!queue_shm_)
    return;  // Logged; CommitData messages it is.
  protos::gen::ZtSetupCommitQueueRequest req;
  req.set_size_bytes(static_cast<uint32_t>(kCommitQueueBytes));
  req.set_record_version(kCommitRecordVersion);
  Invoke("ZtSetupCommitQueue", req.SerializeAsString(),
         [this](ipc::Client::Response r) { OnCommitQueueReply(std::move(r)); },
         /*drop_reply=*/false, queue_shm_->fd());
}

void ProducerIpcClientImpl::OnCommitQueueReply(ipc::Client::Response response) {
  KeepFd(std::move(response.fd));
  base::ScopedFile doorbell = std::move(received_doorbell_);
  if (!response.success || !doorbell || state_ != State::kConnected) {
    // Refused (logged by the service) or the connection is going.
    queue_shm_.reset();
    return;
  }
  // Written on the commit path, which must never block: whatever the
  // service sent, it is made non-blocking here (a full pipe would block).
  const int flags = fcntl(doorbell.get(), F_GETFL);
  if (flags < 0 || fcntl(doorbell.get(), F_SETFL, flags | O_NONBLOCK) != 0) {
    queue_shm_.reset();
    return;
  }
  committer_->Open(std::move(queue_shm_), std::move(doorbell));
}

void ProducerIpcClientImpl::OnInitialized(ipc::Client::Response response) {
  KeepFd(std::move(response.fd));
  if (!response.success) {
    // A failed answer on a live connection: the service refused us. On a
    // dying one, OnDisconnect follows from the client.
    if (client_ && client_->bound())
      Drop("the service refused InitializeConnection");
    return;
  }
  protos::gen::InitializeConnectionResponse resp;
  if (!resp.ParseFromString(response.reply_proto))
    return Drop("undecodable InitializeConnection answer");
  if (smb_offered_ && resp.using_shmem_provided_by_producer()) {
    smb_ready_ = true;
  } else if (smb_offered_) {
    ZT_ILOG("producer \"%s\": the service declined our shared memory buffer; using its own",
            name_.c_str());
    smb_.reset();
    page_size_ = 0;
  }
  state_ = State::kConnected;
  MaybeSetUpCommitQueue();
  base::WeakPtr<ProducerIpcClientImpl> weak = weak_factory_.GetWeakPtr();
  producer_->OnConnect();
  if (!weak || state_ != State::kConnected)
    return;
  if (smb_ready_) {
    producer_->OnTracingSetup();
    if (!weak || state_ != State::kConnected)
      return;
  }
  std::vector<EarlyCommand> early = std::move(early_commands_);
  early_commands_.clear();
  for (EarlyCommand& c : early) {
    Dispatch(c.command, std::move(c.fd));
    if (!weak || state_ != State::kConnected)
      return;
  }
}

void ProducerIpcClientImpl::OnCommandReply(ipc::Client::Response response) {
  if (!response.success) {
    if (client_ && client_->bound())
      Drop("the service ended the command stream");
    return;  // Otherwise the connection is going; OnDisconnect follows.
  }
  GetAsyncCommandResponse command;
  if (!command.ParseFromString(response.reply_proto))
    return Drop("undecodable command from the service");
  if (state_ == State::kInitializing) {
    early_commands_.push_back(EarlyCommand{std::move(command), std::move(response.fd)});
  } else {
    base::WeakPtr<ProducerIpcClientImpl> weak = weak_factory_.GetWeakPtr();
    Dispatch(command, std::move(response.fd));
    if (!weak || state_ == State::kDisconnected)
      return;
  }
  // The stream ended with its last command: no command can reach us again.
  if (!response.has_more && client_ && client_->bound())
    Drop("the service ended the command stream");
}

void ProducerIpcClientImpl::Dispatch(const GetAsyncCommandResponse& command,
                                     base::ScopedFile fd) {
  if (command.has_setup_tracing())
    return SetupTracing(command.setup_tracing(), std::move(fd));
  KeepFd(std::move(fd));  // Read with this command's bytes, sent with a later one.
  if (command.has_setup_data_source()) {
    const auto& setup = command.setup_data_source();
    set_up_.insert(setup.new_instance_id());
    producer_->SetupDataSource(setup.new_instance_id(), setup.config());
  } else if (command.has_start_data_source()) {
    const auto& start = command.start_data_source();
    const DataSourceInstanceId id = start.new_instance_id();
    if (set_up_.insert(id).second) {
      base::WeakPtr<ProducerIpcClientImpl> weak = weak_factory_.GetWeakPtr();
      producer_->SetupDataSource(id, start.config());
      if (!weak || state_ == State::kDisconnected)
        return;
    }
    producer_->StartDataSource(id, start.config());
  } else if (command.has_stop_data_source()) {
    const DataSourceInstanceId id = command.stop_data_source().instance_id();
    set_up_.erase(id);
    producer_->StopDataSource(id);
  } else if (command.has_flush()) {
    // With its flags (why, by whom: flush_flags), for producers that look.
    producer_->FlushWithFlags(command.flush().request_id(), command.flush().data_source_ids(),
                              command.flush().flags());
  } else if (command.has_clear_incremental_state()) {
    producer_->ClearIncrementalState(command.clear_incremental_state().data_source_ids());
  } else {
    // A newer service's command: what upstream's older clients do too.
    ZT_DLOG("producer \"%s\": unknown command from the service ignored", name_.c_str());
  }
}

void ProducerIpcClientImpl::SetupTracing(const GetAsyncCommandResponse::SetupTracing& setup,
                                         base::ScopedFile fd) {
  if (smb_ready_) {
    // With our own SMB the service still sends SetupTracing (without an
    // fd): OnTracingSetup() was already said at OnConnect(). A second SMB
    // is never taken: the producer's writers are using the first.
    if (fd || received_fd_)
      ZT_WLOG("producer \"%s\": the service sent a shared memory buffer while one is in "
              "use; closed", name_.c_str());
    received_fd_.reset();
    return;
  }
  if (!fd)
    fd = std::move(received_fd_);
  received_fd_.reset();
  if (!fd)
    return Drop("SetupTracing came without the shared memory buffer");
  struct stat st {};
  if (fstat(fd.get(), &st) != 0 || st.st_size <= 0)
    return Drop("the shared memory buffer from the service cannot be sized");
  const size_t size = static_cast<size_t>(st.st_size);
  const size_t page_size = size_t{setup.shared_buffer_page_size_kb()} * 1024;
  // Sealed against shrinking, or refused: a service that truncated the
  // memory under our mapping would kill this program with SIGBUS at its
  // next event. ztraced and upstream's service both seal their memfds.
  std::unique_ptr<base::MemfdSharedMemory> smb =
      base::MemfdSharedMemory::AttachToFd(std::move(fd), size, /*require_seals=*/true);
  if (!smb)
    return Drop("the service's shared memory buffer cannot be mapped");
  // The geometry comes from the peer: a wrong one would have the writers
  // and the service disagree on where chunks are.
  if (!SharedMemoryABI::IsValidGeometry(smb->start(), size, page_size)) {
    ZT_ELOG("producer \"%s\": a shared memory buffer of %zu bytes in %zu-byte pages",
            name_.c_str(), size, page_size);
    return Drop("the service's shared memory buffer has an invalid geometry");
  }
  smb_ = std::move(smb);
  page_size_ = page_size;
  smb_ready_ = true;
  producer_->OnTracingSetup();
}

void ProducerIpcClientImpl::Send(const char* method, const std::string& args, bool drop_reply,
                                 ipc::Client::ResponseCallback callback) {
  switch (state_) {
    case State::kBinding:
      queued_.push_back(QueuedCall{method, args, drop_reply, std::move(callback)});
      return;
    case State::kInitializing:
    case State::kConnected:
      Invoke(method, args, std::move(callback), drop_reply);
      return;
    case State::kDisconnected:
      ZT_DLOG("producer \"%s\": %s dropped: not connected", name_.c_str(), method);
      return;
  }
}

void ProducerIpcClientImpl::RegisterDataSource(
    const protos::gen::DataSourceDescriptor& descriptor) {
  protos::gen::RegisterDataSourceRequest req;
  *req.mutable_data_source_descriptor() = descriptor;
  // Answered (as upstream's SDK asks): a refusal is worth a log line.
  Send("RegisterDataSource", req.SerializeAsString(), /*drop_reply=*/false,
       [this, name = descriptor.name()](ipc::Client::Response response) {
         KeepFd(std::move(response.fd));
         protos::gen::RegisterDataSourceResponse resp;
         if (!response.error.empty()) {  // Not sent: too large for the service.
           ZT_ELOG("data source \"%s\" not registered: %s", name.c_str(),
                   response.error.c_str());
         } else if (response.success && resp.ParseFromString(response.reply_proto) &&
                    !resp.error().empty()) {
           ZT_ELOG("the tracing service refused data source \"%s\": %s", name.c_str(),
                   resp.error().c_str());
         }
       });
}

void ProducerIpcClientImpl::UpdateDataSource(
    const protos::gen::DataSourceDescriptor& descriptor) {
  protos::gen::UpdateDataSourceRequest req;
  *req.mutable_data_source_descriptor() = descriptor;
  Send("UpdateDataSource", req.SerializeAsString(), /*drop_reply=*/false,
       [this, name = descriptor.name()](ipc::Client::Response response) {
         KeepFd(std::move(response.fd));
         if (!response.success) {
           // A service without the method (upstream before it), or one that
           // refused: the first descriptor stays.
           ZT_WLOG("the tracing service did not update data source \"%s\"%s%s", name.c_str(),
                   response.error.empty() ? "" : ": ", response.error.c_str());
         }
       });
}

void ProducerIpcClientImpl::UnregisterDataSource(const std::string& name) {
  protos::gen::UnregisterDataSourceRequest req;
  req.set_data_source_name(name);
  Send("UnregisterDataSource", req.SerializeAsString(), /*drop_reply=*/true);
}

void ProducerIpcClientImpl::CommitData(const zt::CommitData& data) {
  if (data.empty())
    return;
  // Encoded into a buffer kept for it: one commit per SMB flush, and the
  // client copies the bytes into its frame at once.
  // Into the ring when there is one with room; otherwise (full, closed by
  // the service, not set up) a message, which the service orders with the
  // ring's records all the same.
  // The ring's record has no place for writers' drop reports (rare: a
  // writer that dropped, at a flush): those commits go as messages.
  if (committer_->TryCommit(data))
    return;
  SerializeCommitData(data, &commit_bytes_);
  Send("CommitData", commit_bytes_, /*drop_reply=*/true);
}

void ProducerIpcClientImpl::NotifyDataSourceStarted(DataSourceInstanceId id) {
  protos::gen::NotifyDataSourceStartedRequest req;
  req.set_data_source_id(id);
  Send("NotifyDataSourceStarted", req.SerializeAsString(), /*drop_reply=*/true);
}

void ProducerIpcClientImpl::NotifyDataSourceStopped(DataSourceInstanceId id) {
  protos::gen::NotifyDataSourceStoppedRequest req;
  req.set_data_source_id(id);
  Send("NotifyDataSourceStopped", req.SerializeAsString(), /*drop_reply=*/true);
}

void ProducerIpcClientImpl::NotifyFlushComplete(FlushRequestId id) {
  // The port has no method of its own for it: a commit naming the flush
  // is the answer (as upstream's SDK sends it, the transcripts' #39).
  zt::CommitData data;
  data.flush_request_id = id;
  CommitData(data);
}

void ProducerIpcClientImpl::RegisterTraceWriter(uint32_t writer_id, uint32_t target_buffer) {
  protos::gen::RegisterTraceWriterRequest req;
  req.set_trace_writer_id(writer_id);
  req.set_target_buffer(target_buffer);
  Send("RegisterTraceWriter", req.SerializeAsString(), /*drop_reply=*/true);
}

void ProducerIpcClientImpl::UnregisterTraceWriter(uint32_t writer_id) {
  protos::gen::UnregisterTraceWriterRequest req;
  req.set_trace_writer_id(writer_id);
  Send("UnregisterTraceWriter", req.SerializeAsString(), /*drop_reply=*/true);
}

void ProducerIpcClientImpl::ActivateTriggers(const std::vector<std::string>& names,
                                             std::function<void(bool)> done) {
  if (state_ == State::kDisconnected) {
    done(false);
    return;
  }
  protos::gen::ActivateTriggersRequest req;
  for (const std::string& name : names)
    req.add_trigger_names(name);
  // Answered (a connection lost first answers it unsuccessful).
  Send("ActivateTriggers", req.SerializeAsString(), /*drop_reply=*/false,
       [done = std::move(done)](ipc::Client::Response response) { done(response.success); });
}

void ProducerIpcClientImpl::Drop(const char* why) {
  if (state_ == State::kDisconnected)
    return;
  ZT_ELOG("producer \"%s\": disconnecting from the tracing service: %s", name_.c_str(), why);
  // Allowed from inside the client's callbacks (client.h); the service
  // sees the socket close.
  client_.reset();
  OnConnectionLost();
}

void ProducerIpcClientImpl::OnConnectionLost() {
  if (state_ == State::kDisconnected)
    return;
  state_ = State::kDisconnected;
  queued_.clear();
  // Nobody reads the ring any more; a reconnection sets up another.
  committer_->Close();
  queue_shm_.reset();
  early_commands_.clear();
  set_up_.clear();
  producer_->OnDisconnect();  // May destroy |this|.
}

}  // namespace

std::unique_ptr<ProducerEndpoint> ProducerIpcClient::Connect(
    const std::string& address, Producer* producer, base::TaskRunner* runner,
    const TracingService::ProducerOptions& options, bool provide_smb) {
  std::unique_ptr<ProducerIpcClientImpl> endpoint(
      new ProducerIpcClientImpl(producer, options, provide_smb));
  endpoint->Connect(address, runner);
  return endpoint;
}

}  // namespace zt
