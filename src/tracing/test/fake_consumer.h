// FakeConsumer: a consumer for service and transport tests. Connects
// through what the test gives it, calls its endpoint on the runner, and
// waits (bounded, failing the test with a message) for what comes back.

#ifndef ZT_SRC_TRACING_TEST_FAKE_CONSUMER_H_
#define ZT_SRC_TRACING_TEST_FAKE_CONSUMER_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "src/tracing/test/test_runner.h"
#include "zt/common/trace_stats.gen.h"
#include "zt/ext/tracing/core/tracing_service.h"

namespace zt {
namespace test {

class FakeConsumer : public Consumer {
 public:
  using ConnectFn = std::function<std::unique_ptr<ConsumerEndpoint>(Consumer*)>;

  FakeConsumer(TestRunner* runner, ConnectFn connect);
  ~FakeConsumer() override;

  // Runs |call| on the runner with the endpoint (null once disconnected).
  void Call(std::function<void(ConsumerEndpoint*)> call);
  void EnableTracing(const protos::gen::TraceConfig& config, int fd = -1);
  void StartTracing();
  void DisableTracing();
  void FreeBuffers();
  // Destroys the endpoint (the consumer goes away).
  void Disconnect();

  // |reads| ReadBuffers() calls back to back, until the last batch of the
  // last one: the packets all of them delivered (TracePacket bytes,
  // stamped). A timeout or a malformed batch fails the test.
  std::vector<std::vector<uint8_t>> ReadAll(int reads = 1);
  // How many OnTraceData batches the last ReadAll() received.
  int batches_in_last_read();
  // Flush(|timeout_ms|) (with |flags|, flush_flags) and its outcome; a
  // missing answer fails the test.
  bool Flush(uint32_t timeout_ms = 0, uint64_t flags = 0);
  // CloneSession(|args|) and its result; a missing answer fails the test
  // (and returns a result with that error).
  ConsumerEndpoint::CloneSessionResult CloneSession(
      const ConsumerEndpoint::CloneSessionArgs& args,
      const std::function<void(ConsumerEndpoint*, const ConsumerEndpoint::CloneSessionArgs&,
                               std::function<void(const ConsumerEndpoint::CloneSessionResult&)>)>&
          clone);
  protos::gen::TraceStats GetStats();

  // Waits for OnTracingDisabled and returns its error ("" after a normal
  // stop); a timeout fails the test.
  std::string WaitForDisabled(uint32_t timeout_ms = kDefaultWaitMs);
  bool WaitForAllStarted(uint32_t timeout_ms = kDefaultWaitMs);
  // Every batch OnObservedEvents delivered, in order, and the instance
  // state changes of all of them in one list, each "producer/data source:
  // started|stopped".
  std::vector<ObservedEvents> observed_batches();
  std::vector<std::string> observed_changes();
  // Waits until that many instance state changes were observed in all.
  bool WaitForObservedChanges(size_t n, uint32_t timeout_ms = kDefaultWaitMs);
  bool disabled();
  bool all_started();
  int disabled_count();
  // Every callback this consumer received after it went away would be a
  // bug; counted here.
  int callbacks_after_disconnect();

  // Consumer (runner thread).
  void OnConnect() override;
  void OnDisconnect() override {}
  void OnTracingDisabled(const std::string& error) override;
  void OnAllDataSourcesStarted() override;
  void OnTraceData(std::vector<uint8_t> trace, bool has_more) override;
  void OnTraceStats(bool success, std::vector<uint8_t> encoded) override;
  void OnObservedEvents(const ObservedEvents& events) override;

 private:
  void Notify(const std::function<void()>& change);

  TestRunner* const runner_;
  std::unique_ptr<ConsumerEndpoint> endpoint_;  // Runner thread.

  std::mutex mutex_;
  std::condition_variable cv_;
  bool gone_ = false;
  int after_disconnect_ = 0;
  int disabled_count_ = 0;
  std::string error_;
  bool all_started_ = false;
  std::vector<uint8_t> trace_;  // Batches of the read in progress.
  int reads_done_ = 0;
  int batches_ = 0;
  bool stats_success_ = false;
  protos::gen::TraceStats stats_;
  int stats_count_ = 0;
  std::vector<ObservedEvents> observed_;
  size_t observed_changes_ = 0;
};

// Splits a `Trace` message (a trace file's bytes) into its packets; a
// malformed trace fails the test.
std::vector<std::vector<uint8_t>> SplitTrace(const uint8_t* data, size_t size);

}  // namespace test
}  // namespace zt

#endif  // ZT_SRC_TRACING_TEST_FAKE_CONSUMER_H_
