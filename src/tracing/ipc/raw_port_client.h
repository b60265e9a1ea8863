// Raw clients of the service's ports, for tests at the protocol level:
// hand-built frames over real socketpairs into a ServiceIpcHost on a
// virtual-time runner (Wire), every frame the host sends collected with
// its descriptor (RawClient), and what the clients sent recorded in the
// input format of service_ports_fuzzer (Record, Serialize); a producer
// that connects with its own SMB and writes chunks into it by hand
// (RawProducer). Test support only.

#ifndef ZT_SRC_TRACING_IPC_RAW_PORT_CLIENT_H_
#define ZT_SRC_TRACING_IPC_RAW_PORT_CLIENT_H_

#include <sys/socket.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/memfd_shared_memory.h"
#include "src/base/scoped_file.h"
#include "src/base/test/test_task_runner.h"
#include "src/base/unix_socket.h"
#include "src/ipc/frame.h"
#include "src/ipc/host.h"
#include "src/tracing/ipc/service_ipc_host.h"
#include "zt/base/logging.h"
#include "zt/ext/tracing/core/commit_data_codec.h"
#include "zt/ext/tracing/core/shared_memory_abi.h"
#include "zt/ext/tracing/core/tracing_service.h"
#include "zt/ipc/producer_port.gen.h"

namespace zt {

// What a client sent, as service_ports_fuzzer reads its input (see its
// header): the seed corpus is the recording of real sessions.
struct Record {
  enum Flags : uint8_t {
    kToConsumer = 1 << 0,
    kWithSmb = 1 << 1,
    kAdvanceTime = 1 << 3,
    kIntoSmb = 1 << 4,
  };
  uint8_t flags;
  std::string bytes;
};

inline std::string Serialize(const std::vector<Record>& records) {
  std::string out;
  for (const Record& r : records) {
    ZT_CHECK(r.bytes.size() <= 0xffff);
    out.push_back(static_cast<char>(r.flags));
    out.push_back(static_cast<char>(r.bytes.size() & 0xff));
    out.push_back(static_cast<char>(r.bytes.size() >> 8));
    out += r.bytes;
  }
  return out;
}

class Wire;

// One client connection: the test's end of a socketpair whose other end a
// port's host adopted, served by the same runner. Sends what the test
// builds, collects every frame the host sends (with its descriptor).
class RawClient : public base::UnixSocket::EventListener {
 public:
  struct Received {
    std::unique_ptr<ipc::Frame> frame;
    base::ScopedFile fd;
  };

  RawClient(Wire* wire, bool consumer);

  bool consumer() const { return consumer_; }
  bool closed() const { return closed_; }
  uint64_t next_request_id() const { return next_request_id_; }

  // Sends |bytes| in one sendmsg (with |fd| if not -1).
  void Send(const std::string& bytes, int fd = -1);
  // Binds the port's service and learns its method ids (pumps).
  void Bind();
  // The frame of a call to |method| (by name) with a new request id.
  std::string CallFrame(const std::string& method, const std::string& args,
                        uint64_t* request_id = nullptr);
  uint64_t Call(const std::string& method, const std::string& args = "", int fd = -1) {
    uint64_t id = 0;
    Send(CallFrame(method, args, &id), fd);
    return id;
  }
  void Close() { sock_.reset(); }

  // UnixSocket::EventListener.
  void OnDataAvailable(base::UnixSocket* socket) override;
  void OnDisconnect(base::UnixSocket*) override { closed_ = true; }

  // The replies received for |request_id|, in order.
  std::vector<const Received*> Replies(uint64_t request_id) const {
    std::vector<const Received*> out;
    for (const Received& r : received_) {
      if (r.frame->request_id() == request_id && r.frame->has_msg_invoke_method_reply())
        out.push_back(&r);
    }
    return out;
  }
  // The one final reply to |request_id|: its success, and its reply_proto.
  bool Answered(uint64_t request_id, bool* success, std::string* reply = nullptr) const {
    for (const Received* r : Replies(request_id)) {
      const auto& m = r->frame->msg_invoke_method_reply();
      if (!m.has_more()) {
        *success = m.success();
        if (reply)
          *reply = m.reply_proto();
        return true;
      }
    }
    return false;
  }
  const std::vector<Received>& received() const { return received_; }

 private:
  Wire* const wire_;
  const bool consumer_;
  std::unique_ptr<base::UnixSocket> sock_;
  ipc::BufferedFrameDeserializer frames_;
  std::vector<Received> received_;
  bool closed_ = false;
  uint64_t next_request_id_ = 1;
  uint32_t service_id_ = 0;
  std::map<std::string, uint32_t> method_ids_;
};

// A ServiceIpcHost on a virtual-time runner, and the raw clients of its
// two ports. Optionally records what the clients send (the seed corpus).
class Wire {
 public:
  explicit Wire(const ServiceLimits& limits = ServiceLimits())
      : host_(ServiceIpcHost::CreateUnbound(&runner_, limits)) {
    ZT_CHECK(host_ != nullptr);
  }
  ~Wire() {
    clients_.clear();
    runner_.RunUntilIdle();
    host_.reset();  // Before the runner its endpoints post to.
  }

  RawClient* NewClient(bool consumer) {
    clients_.push_back(std::make_unique<RawClient>(this, consumer));
    return clients_.back().get();
  }
  RawClient* NewProducer() { return NewClient(false); }
  RawClient* NewConsumer() { return NewClient(true); }

  // Runs the service and the clients until nothing is left to do (bounded:
  // the runner aborts a test that never becomes idle).
  void Pump() { runner_.RunUntilIdle(); }
  // Virtual time forward (timeouts), running what falls due on the way.
  void Advance(uint32_t ms) {
    runner_.AdvanceTimeAndRunUntilIdle(ms);
    if (recording_ && !recording_->empty())
      recording_->back().flags |= Record::kAdvanceTime;
  }

  base::TestTaskRunner* runner() { return &runner_; }
  ServiceIpcHost* host() { return host_.get(); }
  std::vector<Record>* recording() { return recording_; }
  void set_recording(std::vector<Record>* recording) { recording_ = recording; }

 private:
  base::TestTaskRunner runner_;
  std::unique_ptr<ServiceIpcHost> host_;
  std::vector<std::unique_ptr<RawClient>> clients_;
  std::vector<Record>* recording_ = nullptr;
};

inline RawClient::RawClient(Wire* wire, bool consumer) : wire_(wire), consumer_(consumer) {
  int fds[2];
  ZT_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
  ipc::Host* host = consumer ? wire->host()->consumer_host() : wire->host()->producer_host();
  host->AdoptClient(
      base::UnixSocket::AdoptConnected(base::ScopedFile(fds[1]), nullptr, wire->runner()));
  sock_ = base::UnixSocket::AdoptConnected(base::ScopedFile(fds[0]), this, wire->runner());
}

inline void RawClient::Send(const std::string& bytes, int fd) {
  if (std::vector<Record>* rec = wire_->recording()) {
    uint8_t flags = consumer_ ? Record::kToConsumer : 0;
    if (fd >= 0)
      flags |= Record::kWithSmb;
    rec->push_back(Record{flags, bytes});
  }
  ASSERT_TRUE(sock_->Send(bytes.data(), bytes.size(), fd >= 0 ? &fd : nullptr, fd >= 0 ? 1 : 0));
}

inline void RawClient::Bind() {
  ipc::Frame bind;
  const uint64_t id = next_request_id_++;
  bind.set_request_id(id);
  bind.mutable_msg_bind_service()->set_service_name(consumer_ ? "ConsumerPort" : "ProducerPort");
  Send(ipc::SerializeFrame(bind));
  wire_->Pump();
  for (const Received& r : received_) {
    if (r.frame->request_id() != id || !r.frame->has_msg_bind_service_reply())
      continue;
    ASSERT_TRUE(r.frame->msg_bind_service_reply().success());
    service_id_ = r.frame->msg_bind_service_reply().service_id();
    for (const auto& m : r.frame->msg_bind_service_reply().methods())
      method_ids_[m.name()] = m.id();
  }
  ASSERT_NE(service_id_, 0u) << "no bind reply";
}

inline std::string RawClient::CallFrame(const std::string& method, const std::string& args,
                                 uint64_t* request_id) {
  ipc::Frame call;
  const uint64_t id = next_request_id_++;
  if (request_id)
    *request_id = id;
  call.set_request_id(id);
  auto* invoke = call.mutable_msg_invoke_method();
  invoke->set_service_id(service_id_);
  // An unknown name gets an id no port has (the host must refuse it).
  invoke->set_method_id(method_ids_.count(method) ? method_ids_[method] : 999);
  invoke->set_args_proto(args);
  return ipc::SerializeFrame(call);
}

inline void RawClient::OnDataAvailable(base::UnixSocket* socket) {
  for (;;) {
    const ipc::BufferedFrameDeserializer::ReceiveBuffer room = frames_.BeginReceive();
    base::ScopedFile fd;
    const size_t n = socket->Receive(room.data, room.size, &fd, 1);
    if (n == 0)
      return;  // Nothing more now, or the host closed it (OnDisconnect).
    ASSERT_TRUE(frames_.EndReceive(n, std::move(fd))) << frames_.error();
    for (;;) {
      Received r;
      r.frame = frames_.PopNextFrame(&r.fd);
      if (!r.frame)
        break;
      received_.push_back(std::move(r));
    }
  }
}

// The arguments of a raw producer's first calls.
inline std::string InitializeConnectionArgs(bool provided_shmem) {
  protos::gen::InitializeConnectionRequest req;
  req.set_producer_name("raw");
  if (provided_shmem)
    req.set_producer_provided_shmem(true);
  return req.SerializeAsString();
}

inline std::string RegisterDataSourceArgs(const std::string& name) {
  protos::gen::RegisterDataSourceRequest req;
  req.mutable_data_source_descriptor()->set_name(name);
  return req.SerializeAsString();
}

// A producer speaking the port by hand: its SMB (its own memfd, the default
// geometry) written with SharedMemoryABI as a writer thread would.
class RawProducer {
 public:
  explicit RawProducer(Wire* wire, bool provide_smb = true) : wire_(wire) {
    client_ = wire->NewProducer();
    client_->Bind();
    const TracingService::ShmGeometry g = TracingService::ComputeShmGeometry(0, 0);
    if (provide_smb) {
      smb_ = base::MemfdSharedMemory::Create(g.size);
      ZT_CHECK(smb_ != nullptr);
      abi_.Initialize(smb_->start(), smb_->size(), g.page_size);
    }
    init_id_ = client_->Call("InitializeConnection", InitializeConnectionArgs(provide_smb),
                             smb_ ? smb_->fd() : -1);
    commands_id_ = client_->Call("GetAsyncCommand");
    client_->Call("RegisterDataSource", RegisterDataSourceArgs("ds"));
    wire->Pump();
  }

  RawClient* client() { return client_; }
  uint64_t init_id() const { return init_id_; }
  // The pages of its SMB (the default geometry's).
  uint32_t num_pages() const { return static_cast<uint32_t>(abi_.num_pages()); }

  // The buffer of the last instance set up; 0 if none.
  uint32_t TargetBuffer() const {
    uint32_t target = 0;
    for (const RawClient::Received* r : client_->Replies(commands_id_)) {
      protos::gen::GetAsyncCommandResponse cmd;
      EXPECT_TRUE(cmd.ParseFromString(r->frame->msg_invoke_method_reply().reply_proto()));
      if (cmd.has_setup_data_source())
        target = cmd.setup_data_source().config().target_buffer();
    }
    return target;
  }

  // Writes |packets| (TracePacket { for_testing { str } }) into one chunk,
  // the whole of page |page|, as writer 1 with the next chunk id; returns
  // the CommitData that moves it. Recorded as the producer's own SMB write
  // when the wire records.
  CommitData::ChunkToMove WriteChunk(uint32_t page, const std::vector<std::string>& packets,
                                     uint32_t target_buffer) {
    SharedMemoryABI::ChunkHeaderValues header;
    header.chunk_id = next_chunk_id_++;
    header.writer_id = 1;
    header.packet_count = static_cast<uint16_t>(packets.size());
    SharedMemoryABI::Chunk chunk =
        abi_.TryPartitionPageAndAcquireFirstChunk(page, SharedMemoryABI::kPageDiv1, header);
    ZT_CHECK(chunk.is_valid());
    uint8_t* p = chunk.payload_begin();
    for (const std::string& str : packets) {
      // TestEvent { str = 1 } inside TracePacket { for_testing = 900 }.
      std::string event = "\x0a" + Varint(str.size()) + str;
      std::string packet = "\xa2\x38" + Varint(event.size()) + event;
      ZT_CHECK(p + 4 + packet.size() <= chunk.end());
      // The writers' redundant 4-byte size header.
      for (int i = 0; i < 4; i++)
        *p++ = static_cast<uint8_t>(((packet.size() >> (7 * i)) & 0x7f) | (i < 3 ? 0x80 : 0));
      memcpy(p, packet.data(), packet.size());
      p += packet.size();
    }
    const size_t used = static_cast<size_t>(p - abi_.start()) - page * abi_.page_size();
    ZT_CHECK(abi_.ReleaseChunkAsComplete(std::move(chunk)));
    if (std::vector<Record>* rec = wire_->recording()) {
      // u16 offset in 4-byte units, then the page's bytes.
      const uint32_t offset = page * static_cast<uint32_t>(abi_.page_size()) / 4;
      std::string bytes = {static_cast<char>(offset & 0xff), static_cast<char>(offset >> 8)};
      bytes.append(reinterpret_cast<const char*>(abi_.start() + page * abi_.page_size()), used);
      rec->push_back(Record{Record::kIntoSmb, bytes});
    }
    return CommitData::ChunkToMove{page, 0, target_buffer};
  }

  uint64_t Commit(const CommitData& data) {
    return client_->Call("CommitData", SerializeCommitData(data));
  }

 private:
  static std::string Varint(uint64_t v) {
    std::string out;
    for (; v >= 0x80; v >>= 7)
      out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    out.push_back(static_cast<char>(v));
    return out;
  }

  Wire* wire_;
  RawClient* client_;
  std::unique_ptr<base::MemfdSharedMemory> smb_;
  SharedMemoryABI abi_;
  uint64_t init_id_ = 0;
  uint64_t commands_id_ = 0;
  uint32_t next_chunk_id_ = 0;
};

}  // namespace zt

#endif  // ZT_SRC_TRACING_IPC_RAW_PORT_CLIENT_H_
