// What one consumer can make the daemon hold for it (issue 27, item 2): a
// client that sends ReadBuffers again and again and never reads its socket,
// against the real ports (ServiceIpcHost) over a socketpair, on virtual
// time. One read at a time is answered (the rest refused), and what the
// service reads out of the buffers for it stays bounded
// (consumer_port.cc, kMaxHeldReadBytes) however much the producer writes.

#include <sys/socket.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/scoped_file.h"
#include "src/base/unix_socket.h"
#include "src/ipc/frame.h"
#include "src/tracing/ipc/raw_port_client.h"
#include "zt/config/trace_config.gen.h"
#include "zt/ext/tracing/core/commit_data_codec.h"
#include "zt/ipc/consumer_port.gen.h"
#include "zt/ipc/producer_port.gen.h"

namespace zt {
namespace {

// A consumer connection whose end the test reads only when it says so:
// frames are written straight into the socket, nothing watches it.
class SilentConsumer {
 public:
  explicit SilentConsumer(Wire* wire) : wire_(wire) {
    int fds[2];
    ZT_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
    wire->host()->consumer_host()->AdoptClient(
        base::UnixSocket::AdoptConnected(base::ScopedFile(fds[1]), nullptr, wire->runner()));
    fd_.reset(fds[0]);
    ipc::Frame bind;
    bind.set_request_id(next_id_++);
    bind.mutable_msg_bind_service()->set_service_name("ConsumerPort");
    Send(ipc::SerializeFrame(bind));
    wire->Pump();
    ReadAvailable();
    for (const auto& f : frames_) {
      if (!f->has_msg_bind_service_reply())
        continue;
      service_id_ = f->msg_bind_service_reply().service_id();
      for (const auto& m : f->msg_bind_service_reply().methods())
        method_ids_[m.name()] = m.id();
    }
    frames_.clear();
  }
  bool bound() const { return service_id_ != 0; }

  uint64_t Call(const std::string& method, const std::string& args = "") {
    ipc::Frame call;
    const uint64_t id = next_id_++;
    call.set_request_id(id);
    call.mutable_msg_invoke_method()->set_service_id(service_id_);
    call.mutable_msg_invoke_method()->set_method_id(method_ids_[method]);
    call.mutable_msg_invoke_method()->set_args_proto(args);
    Send(ipc::SerializeFrame(call));
    return id;
  }
  // Reads what the socket holds now (the service is not run meanwhile).
  void ReadAvailable() {
    for (;;) {
      const ipc::BufferedFrameDeserializer::ReceiveBuffer room = deserializer_.BeginReceive();
      const ssize_t n = recv(fd_.get(), room.data, room.size, MSG_DONTWAIT);
      if (n <= 0)
        return;
      ASSERT_TRUE(deserializer_.EndReceive(static_cast<size_t>(n), base::ScopedFile()));
      while (std::unique_ptr<ipc::Frame> f = deserializer_.PopNextFrame(nullptr))
        frames_.push_back(std::move(f));
    }
  }
  // Reads and runs the service alternately until |done| holds (bounded).
  template <typename Done>
  bool ReadUntil(Done done) {
    for (int i = 0; i < 100000; i++) {
      ReadAvailable();
      if (done())
        return true;
      wire_->Pump();
    }
    return false;
  }
  const std::vector<std::unique_ptr<ipc::Frame>>& frames() const { return frames_; }
  void Close() { fd_.reset(); }

 private:
  void Send(const std::string& bytes) {
    ASSERT_EQ(send(fd_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
  }

  Wire* wire_;
  base::ScopedFile fd_;
  uint64_t next_id_ = 1;
  uint32_t service_id_ = 0;
  std::map<std::string, uint32_t> method_ids_;
  ipc::BufferedFrameDeserializer deserializer_;
  std::vector<std::unique_ptr<ipc::Frame>> frames_;
};

// One commit of every page of |producer|'s SMB, each one chunk of 4
// packets (TracePacket { for_testing { str } }) of ~900 bytes, into the
// session's buffer |buffer|.
void CommitAllPages(Wire* wire, RawProducer* producer, uint32_t buffer) {
  CommitData commit;
  const std::vector<std::string> packets(4, std::string(900, 'p'));
  for (uint32_t page = 0; page < producer->num_pages(); page++)
    commit.chunks_to_move.push_back(producer->WriteChunk(page, packets, buffer));
  producer->Commit(commit);
  wire->Pump();
}

TEST(ConsumerLimitsTest, AReadBuffersSpammerThatNeverReadsIsBoundedAndRefused) {
  Wire wire;
  RawProducer producer(&wire);
  SilentConsumer spammer(&wire);
  ASSERT_TRUE(spammer.bound());
  protos::gen::EnableTracingRequest enable;
  auto* cfg = enable.mutable_trace_config();
  cfg->add_buffers()->set_size_kb(64 * 1024);
  cfg->mutable_buffers()->at(0).set_fill_policy(
      protos::gen::TraceConfig_BufferConfig_FillPolicy_DISCARD);
  cfg->add_data_sources()->mutable_config()->set_name("ds");
  spammer.Call("EnableTracing", enable.SerializeAsString());
  wire.Pump();
  const uint32_t buffer = producer.TargetBuffer();
  ASSERT_NE(buffer, 0u);

  // ~38 MB in the buffer first (one read of it is more than the port may
  // hold), then ~23 MB more while the client asks for a read every round
  // (as every 100 ms), never reading its socket.
  for (int round = 0; round < 160; round++)  // x 64 pages x ~3.6 KB.
    CommitAllPages(&wire, &producer, buffer);
  std::vector<uint64_t> reads;
  for (int round = 0; round < 100; round++) {
    CommitAllPages(&wire, &producer, buffer);
    reads.push_back(spammer.Call("ReadBuffers"));
    wire.Pump();
  }
  // What the service read out of the buffer for it so far, by the stats it
  // answers now (behind everything queued for it).
  const uint64_t stats_id = spammer.Call("GetTraceStats");
  wire.Pump();
  protos::gen::TraceStats stats;
  size_t refused = 0;
  ASSERT_TRUE(spammer.ReadUntil([&] {
    for (const auto& f : spammer.frames()) {
      if (f->request_id() == stats_id && f->has_msg_invoke_method_reply()) {
        protos::gen::GetTraceStatsResponse resp;
        EXPECT_TRUE(resp.ParseFromString(f->msg_invoke_method_reply().reply_proto()));
        stats = resp.trace_stats();
        return true;
      }
    }
    return false;
  })) << "no GetTraceStats reply";
  size_t completed = 0;  // Reads answered to their end (before the congestion).
  for (const auto& f : spammer.frames()) {
    if (!f->has_msg_invoke_method_reply() || f->request_id() == stats_id)
      continue;
    if (!f->msg_invoke_method_reply().success())
      refused++;
    else if (!f->msg_invoke_method_reply().has_more())
      completed++;
  }
  ASSERT_EQ(stats.buffer_stats().size(), 1u);
  const uint64_t written = stats.buffer_stats()[0].bytes_written();
  const uint64_t read = stats.buffer_stats()[0].bytes_read();
  EXPECT_GT(written, 50u << 20) << "the producer wrote too little to test anything";
  // Held by the port (8 MiB) + its socket pacing (4 MiB) + the kernel's
  // socket buffers + batches in flight: well under 24 MiB.
  EXPECT_LT(read, 24u << 20) << "the service read " << read << " of " << written
                             << " bytes for a client that reads nothing";
  // Each ReadBuffers was answered to its end, refused (sent while the
  // previous one was still being answered), or is the one being answered;
  // once the socket was full, all were refused.
  EXPECT_GE(completed + refused + 1, reads.size());
  EXPECT_GT(refused, reads.size() / 2);
  RecordProperty("bytes_written", std::to_string(written));
  RecordProperty("bytes_read_for_the_client", std::to_string(read));
  RecordProperty("reads_refused", std::to_string(refused));
  spammer.Close();
  wire.Pump();
  EXPECT_EQ(wire.host()->consumer_host()->num_clients(), 0u);
}

}  // namespace
}  // namespace zt
