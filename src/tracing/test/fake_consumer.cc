#include "src/tracing/test/fake_consumer.h"

#include <utility>

#include <gtest/gtest.h>

#include "zt/trace/trace.pbzero.h"

namespace zt {
namespace test {

FakeConsumer::FakeConsumer(TestRunner* runner, ConnectFn connect) : runner_(runner) {
  runner_->RunAndWait([&] { endpoint_ = connect(this); });
}

FakeConsumer::~FakeConsumer() { Disconnect(); }

void FakeConsumer::Call(std::function<void(ConsumerEndpoint*)> call) {
  runner_->RunAndWait([&] { call(endpoint_.get()); });
}

void FakeConsumer::EnableTracing(const protos::gen::TraceConfig& config, int fd) {
  Call([&](ConsumerEndpoint* e) { e->EnableTracing(config, fd); });
}
void FakeConsumer::StartTracing() {
  Call([](ConsumerEndpoint* e) { e->StartTracing(); });
}
void FakeConsumer::DisableTracing() {
  Call([](ConsumerEndpoint* e) { e->DisableTracing(); });
}
void FakeConsumer::FreeBuffers() {
  Call([](ConsumerEndpoint* e) { e->FreeBuffers(); });
}
void FakeConsumer::Disconnect() {
  runner_->RunAndWait([&] { endpoint_.reset(); });
  std::lock_guard<std::mutex> lock(mutex_);
  gone_ = true;
}

void FakeConsumer::Notify(const std::function<void()>& change) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (gone_) {
    after_disconnect_++;
    return;
  }
  change();
  cv_.notify_all();
}

std::vector<std::vector<uint8_t>> FakeConsumer::ReadAll(int reads) {
  int target;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    trace_.clear();
    batches_ = 0;
    target = reads_done_ + reads;
  }
  Call([reads](ConsumerEndpoint* e) {
    for (int i = 0; i < reads; i++)
      e->ReadBuffers();
  });
  const bool done =
      runner_->WaitFor(mutex_, cv_, [&] { return reads_done_ >= target; });
  if (!done) {
    ADD_FAILURE() << "ReadBuffers() never delivered its last batch";
    return {};
  }
  std::lock_guard<std::mutex> lock(mutex_);
  return SplitTrace(trace_.data(), trace_.size());
}

bool FakeConsumer::Flush(uint32_t timeout_ms, uint64_t flags) {
  struct Outcome {
    std::mutex mutex;
    std::condition_variable cv;
    int result = -1;
  };
  auto outcome = std::make_shared<Outcome>();
  Call([&](ConsumerEndpoint* e) {
    e->FlushWithFlags(timeout_ms, [outcome](bool ok) {
      std::lock_guard<std::mutex> lock(outcome->mutex);
      outcome->result = ok;
      outcome->cv.notify_all();
    }, flags);
  });
  auto has_answer = [&] { return outcome->result != -1; };
  bool answered;
  if (runner_->virtual_time()) {
    // Whatever answers at once, then time moves on (100 ms at a time, up
    // to a minute) until the flush's own timeout, whatever it is, fires.
    answered = runner_->WaitFor(outcome->mutex, outcome->cv, has_answer, 0);
    for (int step = 0; !answered && step < 600; step++) {
      runner_->AdvanceTime(100);
      answered = runner_->WaitFor(outcome->mutex, outcome->cv, has_answer, 0);
    }
  } else {
    answered = runner_->WaitFor(outcome->mutex, outcome->cv, has_answer,
                                timeout_ms + kDefaultWaitMs);
  }
  if (!answered) {
    ADD_FAILURE() << "Flush() was never answered";
    return false;
  }
  return outcome->result == 1;
}

ConsumerEndpoint::CloneSessionResult FakeConsumer::CloneSession(
    const ConsumerEndpoint::CloneSessionArgs& args,
    const std::function<void(ConsumerEndpoint*, const ConsumerEndpoint::CloneSessionArgs&,
                             std::function<void(const ConsumerEndpoint::CloneSessionResult&)>)>&
        clone) {
  struct Outcome {
    std::mutex mutex;
    std::condition_variable cv;
    bool answered = false;
    ConsumerEndpoint::CloneSessionResult result;
  };
  auto outcome = std::make_shared<Outcome>();
  Call([&](ConsumerEndpoint* e) {
    clone(e, args, [outcome](const ConsumerEndpoint::CloneSessionResult& result) {
      std::lock_guard<std::mutex> lock(outcome->mutex);
      outcome->result = result;
      outcome->answered = true;
      outcome->cv.notify_all();
    });
  });
  auto has_answer = [&] { return outcome->answered; };
  bool answered = runner_->WaitFor(outcome->mutex, outcome->cv, has_answer, 0);
  if (runner_->virtual_time()) {
    // The clone waits for a flush, which may wait for its timeout.
    for (int step = 0; !answered && step < 600; step++) {
      runner_->AdvanceTime(100);
      answered = runner_->WaitFor(outcome->mutex, outcome->cv, has_answer, 0);
    }
  } else if (!answered) {
    answered = runner_->WaitFor(outcome->mutex, outcome->cv, has_answer, kDefaultWaitMs);
  }
  if (!answered) {
    ADD_FAILURE() << "CloneSession was never answered";
    ConsumerEndpoint::CloneSessionResult none;
    none.error = "never answered";
    return none;
  }
  std::lock_guard<std::mutex> lock(outcome->mutex);
  return outcome->result;
}

protos::gen::TraceStats FakeConsumer::GetStats() {
  int target;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    target = stats_count_ + 1;
  }
  Call([](ConsumerEndpoint* e) { e->GetTraceStats(); });
  if (!runner_->WaitFor(mutex_, cv_, [&] { return stats_count_ >= target; })) {
    ADD_FAILURE() << "GetTraceStats() was never answered";
    return {};
  }
  std::lock_guard<std::mutex> lock(mutex_);
  EXPECT_TRUE(stats_success_);
  return stats_;
}

std::string FakeConsumer::WaitForDisabled(uint32_t timeout_ms) {
  if (!runner_->WaitFor(mutex_, cv_, [&] { return disabled_count_ > 0; }, timeout_ms)) {
    ADD_FAILURE() << "the session never ended (no OnTracingDisabled)";
    return "<never disabled>";
  }
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

bool FakeConsumer::WaitForAllStarted(uint32_t timeout_ms) {
  return runner_->WaitFor(mutex_, cv_, [&] { return all_started_; }, timeout_ms);
}

std::vector<ObservedEvents> FakeConsumer::observed_batches() {
  std::lock_guard<std::mutex> lock(mutex_);
  return observed_;
}

std::vector<std::string> FakeConsumer::observed_changes() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  for (const ObservedEvents& batch : observed_) {
    for (const auto& change : batch.instance_state_changes) {
      const bool started = change.state == ObservedEvents::InstanceStateChange::State::kStarted;
      out.push_back(change.producer_name + "/" + change.data_source_name +
                    (started ? ": started" : ": stopped"));
    }
  }
  return out;
}

bool FakeConsumer::WaitForObservedChanges(size_t n, uint32_t timeout_ms) {
  return runner_->WaitFor(mutex_, cv_, [&] { return observed_changes_ >= n; }, timeout_ms);
}

int FakeConsumer::batches_in_last_read() {
  std::lock_guard<std::mutex> lock(mutex_);
  return batches_;
}

bool FakeConsumer::disabled() {
  std::lock_guard<std::mutex> lock(mutex_);
  return disabled_count_ > 0;
}
bool FakeConsumer::all_started() {
  std::lock_guard<std::mutex> lock(mutex_);
  return all_started_;
}
int FakeConsumer::disabled_count() {
  std::lock_guard<std::mutex> lock(mutex_);
  return disabled_count_;
}
int FakeConsumer::callbacks_after_disconnect() {
  std::lock_guard<std::mutex> lock(mutex_);
  return after_disconnect_;
}

void FakeConsumer::OnConnect() {}

void FakeConsumer::OnTracingDisabled(const std::string& error) {
  Notify([&] {
    disabled_count_++;
    error_ = error;
  });
}

void FakeConsumer::OnAllDataSourcesStarted() {
  Notify([&] { all_started_ = true; });
}

void FakeConsumer::OnTraceData(std::vector<uint8_t> trace, bool has_more) {
  Notify([&] {
    trace_.insert(trace_.end(), trace.begin(), trace.end());
    batches_++;
    if (!has_more)
      reads_done_++;
  });
}

void FakeConsumer::OnTraceStats(bool success, std::vector<uint8_t> encoded) {
  protos::gen::TraceStats stats;
  const bool parsed = stats.ParseFromArray(encoded.data(), encoded.size());
  EXPECT_TRUE(parsed) << "the service sent TraceStats that do not parse";
  Notify([&] {
    stats_success_ = success;
    stats_ = stats;
    stats_count_++;
  });
}

void FakeConsumer::OnObservedEvents(const ObservedEvents& events) {
  Notify([&] {
    observed_.push_back(events);
    observed_changes_ += events.instance_state_changes.size();
  });
}

std::vector<std::vector<uint8_t>> SplitTrace(const uint8_t* data, size_t size) {
  std::vector<std::vector<uint8_t>> packets;
  protos::pbzero::Trace_Decoder trace(data, size);
  for (auto it = trace.packet(); it; ++it) {
    const protozero::ConstBytes packet = *it;
    packets.emplace_back(packet.data, packet.data + packet.size);
  }
  EXPECT_FALSE(trace.parse_error()) << "the trace is malformed";
  return packets;
}

}  // namespace test
}  // namespace zt
