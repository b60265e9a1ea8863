// The muxer's registration of data sources with a service whose connection
// completes while the program registers: each data source must reach the
// service exactly once. Registering twice made upstream's services run two
// instances of it, and every event appeared twice in the trace.
//
// This binary stands in for the system backend: it defines the factory the
// muxer looks up (zt_create_system_tracing_backend, weak in the SDK), so
// that kSystemBackendBit gets a fake whose producer endpoint counts the
// RegisterDataSource calls per name and connects when the test says.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "src/tracing/sdk/tracing_backend.h"
#include "src/base/heap_shared_memory.h"
#include "zt/common/data_source_descriptor.gen.h"
#include "zt/tracing/data_source.h"
#include "zt/tracing/tracing.h"

namespace zt {
namespace {

// What the fake service saw, across connections of one Initialize().
struct Seen {
  std::mutex mutex;
  std::map<std::string, int> registrations;
  bool connected = false;
};
Seen* g_seen = nullptr;
// Set by the test just before it registers: the connection then completes
// after a short random spin, racing with the registration.
std::atomic<bool> g_go{false};
std::atomic<uint32_t> g_spin_ns{0};

class FakeProducerEndpoint : public ProducerEndpoint {
 public:
  explicit FakeProducerEndpoint(std::shared_ptr<base::SharedMemory> smb) : smb_(std::move(smb)) {}
  void RegisterDataSource(const protos::gen::DataSourceDescriptor& descriptor) override {
    std::lock_guard<std::mutex> lock(g_seen->mutex);
    g_seen->registrations[descriptor.name()]++;
  }
  void UnregisterDataSource(const std::string&) override {}
  void CommitData(const zt::CommitData&) override {}
  void NotifyDataSourceStarted(DataSourceInstanceId) override {}
  void NotifyDataSourceStopped(DataSourceInstanceId) override {}
  void NotifyFlushComplete(FlushRequestId) override {}
  void RegisterTraceWriter(uint32_t, uint32_t) override {}
  void UnregisterTraceWriter(uint32_t) override {}
  base::SharedMemory* shared_memory() const override { return smb_.get(); }
  size_t shared_memory_page_size() const override { return 4096; }
  uint32_t producer_id() const override { return 1; }

 private:
  std::shared_ptr<base::SharedMemory> smb_;
};

class FakeBackend : public internal::TracingBackend {
 public:
  std::unique_ptr<ProducerEndpoint> ConnectProducer(const ConnectProducerArgs& args) override {
    Producer* producer = args.producer;
    // Connects on the muxer's thread once the test is about to register,
    // as a socket's connection completes whenever it does.
    args.task_runner->PostTask([producer] {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!g_go.load() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::yield();
      const auto spin_until =
          std::chrono::steady_clock::now() + std::chrono::nanoseconds(g_spin_ns.load());
      while (std::chrono::steady_clock::now() < spin_until) {
      }
      producer->OnConnect();
      std::lock_guard<std::mutex> lock(g_seen->mutex);
      g_seen->connected = true;
    });
    return std::unique_ptr<ProducerEndpoint>(new FakeProducerEndpoint(args.options.provided_shm));
  }
  std::unique_ptr<ConsumerEndpoint> ConnectConsumer(const ConnectConsumerArgs&) override {
    return nullptr;
  }
  std::shared_ptr<base::SharedMemory> CreateSharedMemory(size_t size) override {
    return base::HeapSharedMemory::Create(size);
  }
};

class RacingSource : public DataSource<RacingSource> {};

TEST(MuxerRegistrationTest, EachDataSourceIsRegisteredOnceWhileTheConnectionCompletes) {
  std::mt19937 rng(27);
  constexpr int kRuns = 200;
  int duplicated = 0;
  for (int run = 0; run < kRuns; run++) {
    Seen seen;
    g_seen = &seen;
    g_go = false;
    g_spin_ns = rng() % 200000;  // 0-200 us.
    TracingInitArgs args;
    args.backends = internal::kSystemBackendBit;
    args.enable_system_consumer = false;
    ASSERT_TRUE(Tracing::Initialize(args));
    protos::gen::DataSourceDescriptor desc;
    desc.set_name("zt.test.racing");
    g_go = true;
    ASSERT_TRUE(RacingSource::Register(desc));
    // Bounded wait for the connection (the fake's task has run).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(seen.mutex);
        if (seen.connected)
          break;
      }
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the fake never connected";
      std::this_thread::yield();
    }
    Tracing::Shutdown();  // Runs every task posted before it.
    std::lock_guard<std::mutex> lock(seen.mutex);
    const int count = seen.registrations["zt.test.racing"];
    EXPECT_EQ(count, 1) << "run " << run << ", connection after " << g_spin_ns.load() << " ns";
    duplicated += count > 1;
    if (count != 1)
      break;
  }
  EXPECT_EQ(duplicated, 0);
}

}  // namespace
}  // namespace zt

// The muxer's system backend, in this binary: the fake above.
extern "C" zt::internal::TracingBackend* zt_create_system_tracing_backend() {
  return new zt::FakeBackend();
}
