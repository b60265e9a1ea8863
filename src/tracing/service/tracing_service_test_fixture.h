// The fixture and helpers the service's tests share
// (tracing_service_impl_unittest.cc: producers, sessions, flushes;
// tracing_service_output_unittest.cc: what comes out, read or written into
// a file): a TracingService on a TestRunner, fake producers and consumers
// (src/tracing/test) connected to it.

#ifndef ZT_SRC_TRACING_SERVICE_TRACING_SERVICE_TEST_FIXTURE_H_
#define ZT_SRC_TRACING_SERVICE_TRACING_SERVICE_TEST_FIXTURE_H_

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/tracing/test/fake_consumer.h"
#include "src/tracing/test/fake_producer.h"
#include "src/tracing/test/test_runner.h"
#include "src/tracing/test/trace_checks.h"
#include "zt/common/trace_stats.gen.h"
#include "zt/config/trace_config.gen.h"
#include "zt/ext/tracing/core/tracing_service.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace zt {
namespace test {

using protos::pbzero::TracePacket_Decoder;

// Every test runs twice: on a real thread (with TSan in CI) and on virtual
// time (timers exactly when the test advances time). Tests that need time to
// pass say how much with runner_->AdvanceTime(); on the real thread their
// bounded waits let it pass.
class TracingServiceTest : public testing::TestWithParam<bool> {
 protected:
  TracingServiceTest() {
    if (GetParam())
      runner_.reset(new test::VirtualTimeTestRunner());
    else
      runner_.reset(new test::ThreadTestRunner());
    runner_->RunAndWait([&] { service_ = TracingService::Create(runner_->task_runner()); });
  }
  ~TracingServiceTest() override {
    runner_->RunAndWait([&] { service_.reset(); });
  }

  std::unique_ptr<FakeProducer> NewProducer(const std::string& name,
                                            FakeProducer::Options options = {}) {
    return std::make_unique<FakeProducer>(
        runner_.get(),
        [this, name](Producer* p) {
          TracingService::ProducerOptions opt;
          opt.name = name;
          opt.uid = 1234;
          opt.pid = 5678;
          opt.shm_size_hint_bytes = 64 * 1024;
          return service_->ConnectProducer(p, opt);
        },
        options);
  }
  std::unique_ptr<FakeConsumer> NewConsumer() {
    return std::make_unique<FakeConsumer>(
        runner_.get(), [this](Consumer* c) { return service_->ConnectConsumer(c, 0); });
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
  // Config(ds) with write_into_file, written every |period_ms|.
  static protos::gen::TraceConfig FileConfig(const std::string& ds,
                                             uint32_t period_ms) {
    protos::gen::TraceConfig cfg = Config(ds);
    cfg.set_write_into_file(true);
    cfg.set_file_write_period_ms(period_ms);
    return cfg;
  }

  std::unique_ptr<test::TestRunner> runner_;
  std::unique_ptr<TracingService> service_;
};



// Timestamps of the producer packets (not on the service's sequence).
inline std::vector<uint64_t> ProducerTimestamps(const Packets& packets) {
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
inline bool LastPacketStats(const Packets& packets, protos::gen::TraceStats* stats) {
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

// A file the service writes into, read back by the test.
class TempFile {
 public:
  TempFile() {
    char path[] = "/tmp/zt_service_test_XXXXXX";
    write_fd_ = mkstemp(path);
    read_fd_ = open(path, O_RDONLY);
    unlink(path);
  }
  ~TempFile() {
    if (write_fd_ >= 0)
      close(write_fd_);
    close(read_fd_);
  }
  // The write end, for EnableTracing (which takes it over).
  int release_write_fd() {
    const int fd = write_fd_;
    write_fd_ = -1;
    return fd;
  }
  std::string Contents() {
    std::string bytes;
    char buf[4096];
    lseek(read_fd_, 0, SEEK_SET);
    for (ssize_t n; (n = read(read_fd_, buf, sizeof(buf))) > 0;)
      bytes.append(buf, static_cast<size_t>(n));
    return bytes;
  }
  Packets ReadPackets() {
    const std::string bytes = Contents();
    return test::SplitTrace(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }

 private:
  int write_fd_ = -1;
  int read_fd_ = -1;
};

}  // namespace test
}  // namespace zt

#endif  // ZT_SRC_TRACING_SERVICE_TRACING_SERVICE_TEST_FIXTURE_H_
