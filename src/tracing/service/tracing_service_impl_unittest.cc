// The service driven on its own task runner by fake producers (which write
// real packets through SharedMemoryArbiter + TraceWriter into the SMB the
// service gave them) and a fake consumer.

#include "src/tracing/service/tracing_service_impl.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/thread_task_runner.h"
#include "zt/ext/tracing/core/shared_memory_arbiter.h"
#include "zt/ext/tracing/core/trace_writer.h"
#include "zt/protozero/scattered_heap_buffer.h"
#include "zt/trace/trace.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace zt {
namespace {

using protos::pbzero::TracePacket;
using protos::pbzero::TracePacket_Decoder;

// Waits on a predicate over state guarded by one mutex.
class Waiter {
 public:
  template <typename F>
  void Update(F f) {
    std::lock_guard<std::mutex> lock(mutex_);
    f();
    cv_.notify_all();
  }
  template <typename P>
  void WaitFor(P p) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, p);
  }
  std::mutex& mutex() { return mutex_; }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
};

class FakeProducer : public Producer, public CommitSink {
 public:
  FakeProducer(base::ThreadTaskRunner* runner, TracingService* service,
               const std::string& name, bool answer_flush = true)
      : runner_(runner), answer_flush_(answer_flush) {
    TracingService::ProducerOptions opt;
    opt.name = name;
    opt.uid = 1234;
    opt.pid = 5678;
    opt.shm_size_hint_bytes = 64 * 1024;
    runner_->PostTaskAndWait([&] { endpoint_ = service->ConnectProducer(this, opt); });
  }
  ~FakeProducer() override {
    writers_.clear();
    runner_->PostTaskAndWait([&] { endpoint_.reset(); });
  }

  void Register(const std::string& ds, bool notify_on_stop = false) {
    protos::gen::DataSourceDescriptor d;
    d.set_name(ds);
    d.set_will_notify_on_stop(notify_on_stop);
    runner_->PostTaskAndWait([&] { endpoint_->RegisterDataSource(d); });
  }

  // Called on the test thread: writes |n| packets into the instance's buffer.
  TraceWriter* Writer(DataSourceInstanceId id) {
    auto& w = writers_[id];
    if (!w) {
      w = arbiter_->CreateTraceWriter(configs_.at(id).target_buffer(),
                                      BufferExhaustedPolicy::kStallThenDrop);
      const uint32_t wid = w->writer_id(), buf = configs_.at(id).target_buffer();
      runner_->PostTaskAndWait([&] { endpoint_->RegisterTraceWriter(wid, buf); });
    }
    return w.get();
  }

  // Producer (service thread).
  void OnConnect() override {}
  void OnDisconnect() override {}
  void OnTracingSetup() override {}
  void SetupDataSource(DataSourceInstanceId id,
                       const protos::gen::DataSourceConfig& cfg) override {
    if (!arbiter_) {
      arbiter_.reset(new SharedMemoryArbiter(
          endpoint_->shared_memory(), endpoint_->shared_memory_size(),
          endpoint_->shared_memory_page_size(), this));
    }
    state_.Update([&] {
      configs_[id] = cfg;
      setups_.push_back(id);
    });
  }
  void StartDataSource(DataSourceInstanceId id,
                       const protos::gen::DataSourceConfig&) override {
    state_.Update([&] { started_.push_back(id); });
  }
  void StopDataSource(DataSourceInstanceId id) override {
    state_.Update([&] { stopped_.push_back(id); });
  }
  void Flush(FlushRequestId request,
             const std::vector<DataSourceInstanceId>&) override {
    state_.Update([&] { flushes_++; });
    if (!answer_flush_)
      return;
    arbiter_->FlushPendingCommitData(request);
  }
  void ClearIncrementalState(const std::vector<DataSourceInstanceId>&) override {
    state_.Update([&] { clears_++; });
  }
  // Waits until the service asked for |n| flushes and |m| clears.
  void WaitForPeriodic(int n, int m) {
    state_.WaitFor([&] { return flushes_ >= n && clears_ >= m; });
  }

  // CommitSink (any thread): goes to the service through its task runner.
  void OnCommit(CommitData data) override {
    runner_->PostTask([this, data] {
      if (endpoint_)
        endpoint_->CommitData(data);
    });
  }

  std::vector<DataSourceInstanceId> setups() {
    std::lock_guard<std::mutex> l(state_.mutex());
    return setups_;
  }
  std::vector<DataSourceInstanceId> started() {
    std::lock_guard<std::mutex> l(state_.mutex());
    return started_;
  }
  std::vector<DataSourceInstanceId> stopped() {
    std::lock_guard<std::mutex> l(state_.mutex());
    return stopped_;
  }
  const protos::gen::DataSourceConfig& config(DataSourceInstanceId id) {
    return configs_.at(id);
  }
  ProducerEndpoint* endpoint() { return endpoint_.get(); }
  void ResetWriters() { writers_.clear(); }

 private:
  base::ThreadTaskRunner* runner_;
  bool answer_flush_;
  std::unique_ptr<ProducerEndpoint> endpoint_;
  std::unique_ptr<SharedMemoryArbiter> arbiter_;
  std::map<DataSourceInstanceId, std::unique_ptr<TraceWriter>> writers_;
  Waiter state_;
  std::map<DataSourceInstanceId, protos::gen::DataSourceConfig> configs_;
  std::vector<DataSourceInstanceId> setups_, started_, stopped_;
  int flushes_ = 0;
  int clears_ = 0;
};

class FakeConsumer : public Consumer {
 public:
  FakeConsumer(base::ThreadTaskRunner* runner, TracingService* service)
      : runner_(runner) {
    runner_->PostTaskAndWait([&] { endpoint_ = service->ConnectConsumer(this, 0); });
  }
  ~FakeConsumer() override {
    runner_->PostTaskAndWait([&] { endpoint_.reset(); });
  }
  void Call(std::function<void(ConsumerEndpoint*)> f) {
    runner_->PostTaskAndWait([&] { f(endpoint_.get()); });
  }
  std::vector<std::vector<uint8_t>> ReadAll() {
    {
      std::lock_guard<std::mutex> l(w_.mutex());
      read_done_ = false;
      packets_.clear();
    }
    Call([](ConsumerEndpoint* e) { e->ReadBuffers(); });
    w_.WaitFor([&] { return read_done_; });
    return packets_;
  }
  std::string WaitForDisabled() {
    w_.WaitFor([&] { return disabled_; });
    return error_;
  }
  bool disabled() {
    std::lock_guard<std::mutex> l(w_.mutex());
    return disabled_;
  }

  void OnConnect() override {}
  void OnDisconnect() override {}
  void OnTracingDisabled(const std::string& error) override {
    w_.Update([&] {
      disabled_ = true;
      error_ = error;
    });
  }
  void OnTraceData(std::vector<ConsumerPacket> packets, bool has_more) override {
    w_.Update([&] {
      for (auto& p : packets)
        packets_.push_back(std::move(p.data));
      read_done_ = !has_more;
    });
  }
  void OnTraceStats(bool, const protos::gen::TraceStats&) override {}

 private:
  base::ThreadTaskRunner* runner_;
  std::unique_ptr<ConsumerEndpoint> endpoint_;
  Waiter w_;
  bool disabled_ = false;
  std::string error_;
  bool read_done_ = false;
  std::vector<std::vector<uint8_t>> packets_;
};

class TracingServiceTest : public testing::Test {
 protected:
  TracingServiceTest() : runner_("zt.svc.test") {
    runner_.PostTaskAndWait([&] { service_ = TracingService::Create(&runner_); });
  }
  ~TracingServiceTest() override {
    runner_.PostTaskAndWait([&] { service_.reset(); });
  }

  static protos::gen::TraceConfig Config(const std::string& ds,
                                         uint32_t size_kb = 256) {
    protos::gen::TraceConfig cfg;
    auto* buf = cfg.add_buffers();
    buf->set_size_kb(size_kb);
    buf->set_fill_policy(protos::gen::TraceConfig_BufferConfig_FillPolicy_DISCARD);
    cfg.add_data_sources()->mutable_config()->set_name(ds);
    return cfg;
  }

  base::ThreadTaskRunner runner_;
  std::unique_ptr<TracingService> service_;
};

// Packets written with timestamp = i; returns the timestamps of producer
// packets (those carrying for_testing-free timestamps on a producer sequence).
std::vector<uint64_t> ProducerTimestamps(const std::vector<std::vector<uint8_t>>& packets) {
  std::vector<uint64_t> out;
  for (const auto& p : packets) {
    TracePacket_Decoder d(p.data(), p.size());
    if (d.trusted_packet_sequence_id() != kServicePacketSequenceId)
      out.push_back(d.timestamp());
  }
  return out;
}

// Decodes the TraceStats packet that ends a stopped session's read; false
// (with a test failure) when the last packet is not one.
bool LastPacketStats(const std::vector<std::vector<uint8_t>>& packets,
                     protos::gen::TraceStats* stats) {
  if (packets.empty()) {
    ADD_FAILURE() << "no packets";
    return false;
  }
  TracePacket_Decoder last(packets.back().data(), packets.back().size());
  if (!last.has_trace_stats()) {
    ADD_FAILURE() << "the last packet carries no TraceStats";
    return false;
  }
  auto bytes = last.trace_stats();
  const bool ok = stats->ParseFromArray(bytes.data, bytes.size);
  EXPECT_TRUE(ok);
  return ok;
}

TEST_F(TracingServiceTest, InstancesFollowNamesAndProducerFilters) {
  FakeProducer a(&runner_, service_.get(), "proc.a");
  FakeProducer b(&runner_, service_.get(), "proc.b");
  a.Register("ds1");
  b.Register("ds1");
  b.Register("ds2");
  FakeConsumer c1(&runner_, service_.get());
  auto cfg = Config("ds1");
  cfg.mutable_data_sources()->at(0).add_producer_name_filter("proc.b");
  c1.Call([&](ConsumerEndpoint* e) { e->EnableTracing(cfg); });
  EXPECT_TRUE(a.setups().empty());
  ASSERT_EQ(b.setups().size(), 1u);
  EXPECT_EQ(b.started(), b.setups());  // Not deferred: started at once.
  EXPECT_EQ(b.config(b.setups()[0]).name(), "ds1");

  // A second session on the same data source gets its own instance and its
  // own buffer.
  FakeConsumer c2(&runner_, service_.get());
  c2.Call([&](ConsumerEndpoint* e) { e->EnableTracing(Config("ds1")); });
  EXPECT_EQ(a.setups().size(), 1u);
  ASSERT_EQ(b.setups().size(), 2u);
  EXPECT_NE(b.config(b.setups()[0]).target_buffer(),
            b.config(b.setups()[1]).target_buffer());

  // A data source registered later joins the running sessions it matches:
  // both for a producer named proc.b, only the unfiltered one otherwise.
  FakeProducer late_b(&runner_, service_.get(), "proc.b");
  late_b.Register("ds1");
  EXPECT_EQ(late_b.setups().size(), 2u);
  EXPECT_EQ(late_b.started().size(), 2u);
  FakeProducer late_c(&runner_, service_.get(), "proc.c");
  late_c.Register("ds1");
  ASSERT_EQ(late_c.setups().size(), 1u);
  EXPECT_EQ(late_c.config(late_c.setups()[0]).target_buffer(),
            b.config(b.setups()[1]).target_buffer());
}

TEST_F(TracingServiceTest, PacketsComeBackStampedBetweenServicePackets) {
  FakeProducer p(&runner_, service_.get(), "prod");
  p.Register("ds");
  FakeConsumer c(&runner_, service_.get());
  c.Call([&](ConsumerEndpoint* e) { e->EnableTracing(Config("ds")); });
  ASSERT_EQ(p.setups().size(), 1u);
  TraceWriter* w = p.Writer(p.setups()[0]);
  for (uint64_t i = 0; i < 2000; i++) {
    auto packet = w->NewTracePacket();
    packet->set_timestamp(i);
    packet->set_trusted_uid(0);  // Forged: must not survive.
  }
  w->Flush();
  bool flushed = false;
  Waiter fw;
  c.Call([&](ConsumerEndpoint* e) {
    e->Flush(5000, [&](bool ok) { fw.Update([&] { flushed = ok; }); });
  });
  fw.WaitFor([&] { return flushed; });
  auto packets = c.ReadAll();
  ASSERT_GE(packets.size(), 2u + 2000u);
  // Config, then clock snapshot, on the service's sequence.
  TracePacket_Decoder first(packets[0].data(), packets[0].size());
  EXPECT_TRUE(first.has_trace_config());
  TracePacket_Decoder second(packets[1].data(), packets[1].size());
  EXPECT_TRUE(second.has_clock_snapshot());
  EXPECT_EQ(second.trusted_packet_sequence_id(), kServicePacketSequenceId);
  std::vector<uint64_t> ts = ProducerTimestamps(packets);
  ASSERT_EQ(ts.size(), 2000u);
  for (uint64_t i = 0; i < 2000; i++)
    ASSERT_EQ(ts[i], i);
  uint32_t seq = 0;
  for (size_t i = 2; i < packets.size(); i++) {
    TracePacket_Decoder d(packets[i].data(), packets[i].size());
    EXPECT_EQ(d.trusted_uid(), 1234);
    EXPECT_EQ(d.trusted_pid(), 5678);
    if (seq == 0)
      seq = d.trusted_packet_sequence_id();
    EXPECT_EQ(d.trusted_packet_sequence_id(), seq);
  }
  EXPECT_GT(seq, kServicePacketSequenceId);

  // Stop: the stats come last, once.
  c.Call([](ConsumerEndpoint* e) { e->DisableTracing(); });
  EXPECT_EQ(c.WaitForDisabled(), "");
  auto rest = c.ReadAll();
  ASSERT_EQ(rest.size(), 1u);
  protos::gen::TraceStats decoded;
  ASSERT_TRUE(LastPacketStats(rest, &decoded));
  EXPECT_EQ(decoded.flushes_requested(), 1u);
  EXPECT_EQ(decoded.flushes_succeeded(), 1u);
  EXPECT_TRUE(c.ReadAll().empty());
}

TEST_F(TracingServiceTest, StopWaitsForAcksThenTimesOut) {
  FakeProducer p(&runner_, service_.get(), "prod");
  p.Register("ds", /*notify_on_stop=*/true);
  FakeConsumer c(&runner_, service_.get());
  auto cfg = Config("ds");
  cfg.set_data_source_stop_timeout_ms(100);
  c.Call([&](ConsumerEndpoint* e) {
    e->EnableTracing(cfg);
    e->DisableTracing();
  });
  EXPECT_EQ(p.stopped().size(), 1u);
  EXPECT_FALSE(c.disabled());  // Not before the ack or the timeout.
  EXPECT_EQ(c.WaitForDisabled(), "");

  // With the ack, at once.
  FakeConsumer c2(&runner_, service_.get());
  cfg.set_data_source_stop_timeout_ms(60 * 1000);
  c2.Call([&](ConsumerEndpoint* e) {
    e->EnableTracing(cfg);
    e->DisableTracing();
  });
  ASSERT_EQ(p.stopped().size(), 2u);
  EXPECT_FALSE(c2.disabled());
  const DataSourceInstanceId id = p.stopped()[1];
  runner_.PostTaskAndWait([&] { p.endpoint()->NotifyDataSourceStopped(id); });
  EXPECT_TRUE(c2.disabled());
}

TEST_F(TracingServiceTest, FlushWithASilentProducerTimesOut) {
  FakeProducer p(&runner_, service_.get(), "prod", /*answer_flush=*/false);
  p.Register("ds");
  FakeConsumer c(&runner_, service_.get());
  c.Call([&](ConsumerEndpoint* e) { e->EnableTracing(Config("ds")); });
  Waiter fw;
  int result = -1;
  c.Call([&](ConsumerEndpoint* e) {
    e->Flush(50, [&](bool ok) { fw.Update([&] { result = ok; }); });
  });
  fw.WaitFor([&] { return result != -1; });
  EXPECT_EQ(result, 0);
  // The outcome is in the stats.
  c.Call([](ConsumerEndpoint* e) { e->DisableTracing(); });
  c.WaitForDisabled();
  protos::gen::TraceStats stats;
  ASSERT_TRUE(LastPacketStats(c.ReadAll(), &stats));
  EXPECT_EQ(stats.flushes_requested(), 1u);
  EXPECT_EQ(stats.flushes_succeeded(), 0u);
  EXPECT_EQ(stats.flushes_failed(), 1u);
}

TEST_F(TracingServiceTest, HostileCommitsAreDroppedAndCounted) {
  FakeProducer p(&runner_, service_.get(), "prod");
  p.Register("ds");
  FakeConsumer c(&runner_, service_.get());
  c.Call([&](ConsumerEndpoint* e) { e->EnableTracing(Config("ds")); });
  CommitData bad;
  bad.chunks_to_move.push_back({9999, 0, 1});  // No such page.
  bad.chunks_to_move.push_back({0, 200, 1});   // No such chunk.
  CommitData::ChunkToPatch patch;
  patch.target_buffer = 777;  // Not this producer's buffer.
  patch.writer_id = 1;
  patch.patches.push_back(CommitData::Patch());
  bad.chunks_to_patch.push_back(patch);
  runner_.PostTaskAndWait([&] { p.endpoint()->CommitData(bad); });
  protos::gen::TraceStats stats;
  c.Call([](ConsumerEndpoint* e) { e->DisableTracing(); });
  c.WaitForDisabled();
  ASSERT_TRUE(LastPacketStats(c.ReadAll(), &stats));
  EXPECT_EQ(stats.chunks_discarded(), 2u);
  EXPECT_EQ(stats.patches_discarded(), 1u);
}

TEST_F(TracingServiceTest, ChunksStillBeingWrittenAreScrapedAtStop) {
  FakeProducer p(&runner_, service_.get(), "prod");
  p.Register("ds");
  FakeConsumer c(&runner_, service_.get());
  c.Call([&](ConsumerEndpoint* e) { e->EnableTracing(Config("ds")); });
  TraceWriter* w = p.Writer(p.setups()[0]);
  for (uint64_t i = 0; i < 10; i++)
    w->NewTracePacket()->set_timestamp(i);
  // No Flush(): the chunk is BeingWritten. Packets 0..8 are complete; the
  // last one may still grow, so it is not taken.
  c.Call([](ConsumerEndpoint* e) { e->DisableTracing(); });
  c.WaitForDisabled();
  std::vector<uint64_t> ts = ProducerTimestamps(c.ReadAll());
  ASSERT_EQ(ts.size(), 9u);
  for (uint64_t i = 0; i < 9; i++)
    EXPECT_EQ(ts[i], i);
  p.ResetWriters();  // Now the chunk is committed: nothing comes twice.
  runner_.PostTaskAndWait([] {});
  EXPECT_EQ(ProducerTimestamps(c.ReadAll()).size(), 1u);
}

TEST_F(TracingServiceTest, WriteIntoFileProducesADecodableTrace) {
  char path[] = "/tmp/zt_service_test_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  const int read_fd = open(path, O_RDONLY);
  unlink(path);
  FakeProducer p(&runner_, service_.get(), "prod");
  p.Register("ds");
  FakeConsumer c(&runner_, service_.get());
  auto cfg = Config("ds");
  cfg.set_write_into_file(true);
  cfg.set_file_write_period_ms(100);
  c.Call([&](ConsumerEndpoint* e) { e->EnableTracing(cfg, fd); });
  TraceWriter* w = p.Writer(p.setups()[0]);
  for (uint64_t i = 0; i < 500; i++)
    w->NewTracePacket()->set_timestamp(i);
  w->Flush();
  c.Call([](ConsumerEndpoint* e) { e->DisableTracing(); });
  c.WaitForDisabled();
  std::string bytes;
  char buf[4096];
  for (ssize_t n; (n = read(read_fd, buf, sizeof(buf))) > 0;)
    bytes.append(buf, static_cast<size_t>(n));
  close(read_fd);
  protos::pbzero::Trace_Decoder trace(bytes);
  size_t config = 0, clock = 0, stats = 0, producer = 0;
  uint64_t next_ts = 0;
  for (auto it = trace.packet(); it; ++it) {
    const protozero::ConstBytes packet = *it;
    TracePacket_Decoder d(packet.data, packet.size);
    config += d.has_trace_config();
    clock += d.has_clock_snapshot();
    stats += d.has_trace_stats();
    if (d.trusted_packet_sequence_id() != kServicePacketSequenceId) {
      EXPECT_EQ(d.timestamp(), next_ts++);
      producer++;
    }
  }
  EXPECT_FALSE(trace.parse_error());
  EXPECT_EQ(config, 1u);
  EXPECT_EQ(clock, 1u);
  EXPECT_EQ(stats, 1u);
  EXPECT_EQ(producer, 500u);
}

TEST_F(TracingServiceTest, WriterLossMarksAreCountedInTheStats) {
  FakeProducer p(&runner_, service_.get(), "prod");
  p.Register("ds");
  FakeConsumer c(&runner_, service_.get());
  c.Call([&](ConsumerEndpoint* e) { e->EnableTracing(Config("ds")); });
  TraceWriter* w = p.Writer(p.setups()[0]);
  for (uint64_t i = 0; i < 5; i++) {
    auto packet = w->NewTracePacket();
    // What a writer writes after it had to drop packets (SMB full).
    if (i == 2 || i == 4)
      packet->set_previous_packet_dropped(1);
    packet->set_timestamp(i);
  }
  w->Flush();
  c.Call([](ConsumerEndpoint* e) { e->DisableTracing(); });
  c.WaitForDisabled();
  protos::gen::TraceStats stats;
  ASSERT_TRUE(LastPacketStats(c.ReadAll(), &stats));
  ASSERT_EQ(stats.buffer_stats().size(), 1u);
  EXPECT_EQ(stats.buffer_stats()[0].trace_writer_packet_loss(), 2u);
}

TEST_F(TracingServiceTest, PeriodicFlushAndIncrementalStateClears) {
  FakeProducer p(&runner_, service_.get(), "prod");
  p.Register("ds");
  FakeConsumer c(&runner_, service_.get());
  auto cfg = Config("ds");
  cfg.set_flush_period_ms(20);
  cfg.mutable_incremental_state_config()->set_clear_period_ms(20);
  c.Call([&](ConsumerEndpoint* e) { e->EnableTracing(cfg); });
  p.WaitForPeriodic(3, 3);  // Hangs (test timeout) if the periods never run.
  c.Call([](ConsumerEndpoint* e) { e->DisableTracing(); });
  c.WaitForDisabled();
}

TEST_F(TracingServiceTest, UnregisteringEndsTheWaitForItsStop) {
  FakeProducer p(&runner_, service_.get(), "prod");
  p.Register("ds", /*notify_on_stop=*/true);
  FakeConsumer c(&runner_, service_.get());
  auto cfg = Config("ds");
  cfg.set_data_source_stop_timeout_ms(60 * 60 * 1000);
  c.Call([&](ConsumerEndpoint* e) {
    e->EnableTracing(cfg);
    e->DisableTracing();
  });
  EXPECT_FALSE(c.disabled());
  runner_.PostTaskAndWait([&] { p.endpoint()->UnregisterDataSource("ds"); });
  EXPECT_TRUE(c.disabled());
}

TEST_F(TracingServiceTest, ImpossibleBufferSizesAreRefused) {
  FakeConsumer c(&runner_, service_.get());
  auto cfg = Config("ds", /*size_kb=*/0xFFFFFFFFu);  // ~4 TiB.
  c.Call([&](ConsumerEndpoint* e) { e->EnableTracing(cfg); });
  EXPECT_NE(c.WaitForDisabled().find("cannot allocate"), std::string::npos);
}

TEST_F(TracingServiceTest, DurationStopsTheSessionByItself) {
  FakeProducer p(&runner_, service_.get(), "prod");
  p.Register("ds");
  FakeConsumer c(&runner_, service_.get());
  auto cfg = Config("ds");
  cfg.set_duration_ms(30);
  c.Call([&](ConsumerEndpoint* e) { e->EnableTracing(cfg); });
  EXPECT_EQ(c.WaitForDisabled(), "");  // No DisableTracing() call.
  EXPECT_EQ(p.stopped().size(), 1u);
}

TEST_F(TracingServiceTest, MaxFileSizeEndsTheSessionAtTheLimit) {
  char path[] = "/tmp/zt_service_limit_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  FakeProducer p(&runner_, service_.get(), "prod");
  p.Register("ds");
  FakeConsumer c(&runner_, service_.get());
  auto cfg = Config("ds");
  cfg.set_write_into_file(true);
  cfg.set_file_write_period_ms(100);
  cfg.set_max_file_size_bytes(20000);
  c.Call([&](ConsumerEndpoint* e) { e->EnableTracing(cfg, fd); });
  TraceWriter* w = p.Writer(p.setups()[0]);
  for (uint64_t i = 0; i < 5000; i++)
    w->NewTracePacket()->set_timestamp(i);
  w->Flush();
  // The periodic write reaches the limit and stops the session.
  EXPECT_EQ(c.WaitForDisabled(), "");
  struct stat st;
  ASSERT_EQ(stat(path, &st), 0);
  unlink(path);
  EXPECT_LE(st.st_size, 20000);
  EXPECT_GT(st.st_size, 10000);  // Filled up to near the limit, not empty.
}

TEST_F(TracingServiceTest, BadConfigsAreRefusedWithAReason) {
  FakeConsumer c(&runner_, service_.get());
  protos::gen::TraceConfig cfg;  // No buffers.
  c.Call([&](ConsumerEndpoint* e) { e->EnableTracing(cfg); });
  EXPECT_NE(c.WaitForDisabled().find("no buffers"), std::string::npos);
  FakeConsumer c2(&runner_, service_.get());
  cfg = Config("ds");
  cfg.mutable_data_sources()->at(0).mutable_config()->set_target_buffer(3);
  c2.Call([&](ConsumerEndpoint* e) { e->EnableTracing(cfg); });
  EXPECT_NE(c2.WaitForDisabled().find("targets buffer 3"), std::string::npos);
}

}  // namespace
}  // namespace zt
