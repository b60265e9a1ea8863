// TracingSession::Flush says why it flushes, as upstream's SDK does: the
// producers are asked with kReasonExplicit | kInitiatorConsumerSdk (0x34),
// which upstream's data sources read from FlushArgs::flush_flags. A live
// upstream v53 producer saw 0 from zerotrace's SDK (and 0x34 from v53's).
// A daemon (ServiceIpcHost) on a thread, the SDK on the system backend, and
// a producer of the test's own on the service's producer socket that
// records the flags it is asked with. Process-wide state (Initialize), so
// its own binary; run under TSan too.

#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/test/wait.h"
#include "src/base/thread_task_runner.h"
#include "src/tracing/ipc/producer_ipc_client.h"
#include "src/tracing/ipc/service_ipc_host.h"
#include "zt/common/data_source_descriptor.gen.h"
#include "zt/config/trace_config.gen.h"
#include "zt/ext/tracing/core/tracing_service.h"
#include "zt/tracing/tracing.h"

namespace zt {
namespace {

constexpr char kDataSource[] = "zt.test.flush_flags";

// Runs on |runner|; the test reads what it saw through atomics.
class FlagsProducer : public Producer {
 public:
  std::unique_ptr<ProducerEndpoint> endpoint;
  std::atomic<bool> registered{false};
  std::atomic<bool> started{false};
  std::atomic<int> flushes{0};
  std::atomic<uint64_t> last_flags{~uint64_t{0}};

  void OnConnect() override {
    protos::gen::DataSourceDescriptor descriptor;
    descriptor.set_name(kDataSource);
    endpoint->RegisterDataSource(descriptor);
    registered = true;
  }
  void OnDisconnect() override {}
  void OnTracingSetup() override {}
  void SetupDataSource(DataSourceInstanceId,
                       const protos::gen::DataSourceConfig&) override {}
  void StartDataSource(DataSourceInstanceId,
                       const protos::gen::DataSourceConfig&) override {
    started = true;
  }
  void StopDataSource(DataSourceInstanceId) override {}
  void Flush(FlushRequestId request,
             const std::vector<DataSourceInstanceId>& ids) override {
    FlushWithFlags(request, ids, 0);
  }
  void FlushWithFlags(FlushRequestId request,
                      const std::vector<DataSourceInstanceId>&,
                      uint64_t flags) override {
    last_flags = flags;
    flushes++;
    endpoint->NotifyFlushComplete(request);
  }
  void ClearIncrementalState(
      const std::vector<DataSourceInstanceId>&) override {}
};

TEST(SessionFlushFlagsTest, AFlushOfTheSdkSaysItIsAnExplicitOneFromTheSdk) {
  char dir[] = "/tmp/zt_flush_flags_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string producer_sock = std::string(dir) + "/producer.sock";
  const std::string consumer_sock = std::string(dir) + "/consumer.sock";
  setenv("PERFETTO_PRODUCER_SOCK_NAME", producer_sock.c_str(), 1);
  setenv("PERFETTO_CONSUMER_SOCK_NAME", consumer_sock.c_str(), 1);

  base::ThreadTaskRunner daemon_runner("test.daemon");
  std::unique_ptr<ServiceIpcHost> host;
  daemon_runner.PostTaskAndWait([&] {
    host = ServiceIpcHost::Listen(producer_sock, consumer_sock, &daemon_runner);
  });
  ASSERT_TRUE(host) << "cannot listen in " << dir;

  base::ThreadTaskRunner producer_runner("test.producer");
  FlagsProducer producer;
  producer_runner.PostTaskAndWait([&] {
    TracingService::ProducerOptions options;
    options.name = "flags.producer";
    producer.endpoint = ProducerIpcClient::Connect(producer_sock, &producer,
                                                   &producer_runner, options);
  });
  ASSERT_TRUE(base::WaitFor([&] { return producer.registered.load(); }))
      << "the test's producer never connected";

  TracingInitArgs args;
  args.backends = kSystemBackend;
  Tracing::Initialize(args);
  std::unique_ptr<TracingSession> session = Tracing::NewTrace(kSystemBackend);
  ASSERT_TRUE(session);
  protos::gen::TraceConfig config;
  config.add_buffers()->set_size_kb(256);
  config.add_data_sources()->mutable_config()->set_name(kDataSource);
  session->Setup(config);
  session->StartBlocking();
  ASSERT_TRUE(base::WaitFor([&] { return producer.started.load(); }))
      << "the data source was never started";

  EXPECT_TRUE(session->FlushBlocking(5000));
  EXPECT_EQ(producer.flushes.load(), 1);
  EXPECT_EQ(producer.last_flags.load(),
            flush_flags::kReasonExplicit | flush_flags::kInitiatorConsumerSdk)
      << "0x34, as upstream's SDK sends";

  session->StopBlocking();
  session.reset();
  Tracing::Shutdown();
  producer_runner.PostTaskAndWait([&] { producer.endpoint.reset(); });
  daemon_runner.PostTaskAndWait([&] { host.reset(); });
  unlink(producer_sock.c_str());
  unlink(consumer_sock.c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace zt
