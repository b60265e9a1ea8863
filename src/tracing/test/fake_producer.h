// FakeProducer: a producer for service and transport tests. It connects
// through whatever the test gives it (the service itself, or an IPC client),
// records what the service asks of it, and writes real packets from the
// test thread through a SharedMemoryArbiter and TraceWriters over the SMB
// the service gave it. Waits are bounded (TestRunner): a test asserts on
// their result.

#ifndef ZT_SRC_TRACING_TEST_FAKE_PRODUCER_H_
#define ZT_SRC_TRACING_TEST_FAKE_PRODUCER_H_

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "src/tracing/test/test_runner.h"
#include "zt/ext/tracing/core/shared_memory_arbiter.h"
#include "zt/ext/tracing/core/trace_writer.h"
#include "zt/ext/tracing/core/tracing_service.h"

namespace zt {
namespace test {

class FakeProducer : public Producer, public CommitSink {
 public:
  using ConnectFn = std::function<std::unique_ptr<ProducerEndpoint>(Producer*)>;
  struct Options {
    bool answer_flush = true;    // Commit and answer every flush request.
    // false: answer flushes without committing, leaving complete chunks in
    // the SMB uncommitted (as chunks a writer completes after its producer
    // answered).
    bool commit_on_flush = true;
    bool answer_starts = true;   // Acknowledge starts (will_notify_on_start).
  };

  // |connect| runs on the runner.
  FakeProducer(TestRunner* runner, ConnectFn connect);
  FakeProducer(TestRunner* runner, ConnectFn connect, Options options);
  ~FakeProducer() override;

  // On the runner, waiting for it.
  void RegisterDataSource(const std::string& name, bool will_notify_on_start = false,
                          bool will_notify_on_stop = false);
  void UnregisterDataSource(const std::string& name);
  void Call(std::function<void(ProducerEndpoint*)> call);

  // A writer (test thread) into the buffer of instance |id|, registered
  // with the service; one per instance, kept until ResetWriters().
  TraceWriter* Writer(DataSourceInstanceId id,
                      BufferExhaustedPolicy policy = BufferExhaustedPolicy::kStallThenDrop);
  void ResetWriters();

  // Bounded waits until the service asked that many times.
  bool WaitForSetups(size_t n);
  bool WaitForStarts(size_t n);
  bool WaitForStops(size_t n);
  bool WaitForFlushes(size_t n);
  bool WaitForClears(size_t n);

  size_t flush_count();
  size_t clear_count();
  std::vector<DataSourceInstanceId> setups();
  std::vector<DataSourceInstanceId> starts();
  std::vector<DataSourceInstanceId> stops();
  protos::gen::DataSourceConfig config(DataSourceInstanceId id);
  bool disconnected();

  // Producer (runner thread).
  void OnConnect() override;
  void OnDisconnect() override;
  void OnTracingSetup() override {}
  void SetupDataSource(DataSourceInstanceId id,
                       const protos::gen::DataSourceConfig& config) override;
  void StartDataSource(DataSourceInstanceId id,
                       const protos::gen::DataSourceConfig& config) override;
  void StopDataSource(DataSourceInstanceId id) override;
  void Flush(FlushRequestId request,
             const std::vector<DataSourceInstanceId>& ids) override;
  // Records the flags and the instances asked, then Flush().
  void FlushWithFlags(FlushRequestId request, const std::vector<DataSourceInstanceId>& ids,
                      uint64_t flags) override;
  // Each flush request's flags and instances, in order.
  std::vector<std::pair<uint64_t, std::vector<DataSourceInstanceId>>> flush_requests();
  void ClearIncrementalState(const std::vector<DataSourceInstanceId>& ids) override;

  // CommitSink (any thread): posted to the service through the runner.
  void OnCommit(CommitData data) override;

 private:
  bool WaitForCount(const size_t* count, size_t n);

  TestRunner* const runner_;
  const Options options_;
  std::unique_ptr<ProducerEndpoint> endpoint_;    // Runner thread.
  std::unique_ptr<SharedMemoryArbiter> arbiter_;  // Made at the first setup.
  std::map<DataSourceInstanceId, std::unique_ptr<TraceWriter>> writers_;  // Test thread.

  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<DataSourceInstanceId, protos::gen::DataSourceConfig> configs_;
  std::vector<DataSourceInstanceId> setups_, starts_, stops_;
  size_t setup_count_ = 0, start_count_ = 0, stop_count_ = 0;
  size_t flush_count_ = 0, clear_count_ = 0;
  std::vector<std::pair<uint64_t, std::vector<DataSourceInstanceId>>> flush_requests_;
  bool disconnected_ = false;
};

}  // namespace test
}  // namespace zt

#endif  // ZT_SRC_TRACING_TEST_FAKE_PRODUCER_H_
