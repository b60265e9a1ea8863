#include "src/tracing/test/fake_producer.h"

#include <utility>

namespace zt {
namespace test {

FakeProducer::FakeProducer(TestRunner* runner, ConnectFn connect)
    : FakeProducer(runner, std::move(connect), Options()) {}

FakeProducer::FakeProducer(TestRunner* runner, ConnectFn connect, Options options)
    : runner_(runner), options_(options) {
  runner_->RunAndWait([&] { endpoint_ = connect(this); });
}

FakeProducer::~FakeProducer() {
  writers_.clear();  // Their last chunks go out first (posted).
  runner_->RunAndWait([&] { endpoint_.reset(); });
}

void FakeProducer::RegisterDataSource(const std::string& name,
                                      bool will_notify_on_start,
                                      bool will_notify_on_stop) {
  protos::gen::DataSourceDescriptor d;
  d.set_name(name);
  d.set_will_notify_on_start(will_notify_on_start);
  d.set_will_notify_on_stop(will_notify_on_stop);
  Call([&](ProducerEndpoint* e) { e->RegisterDataSource(d); });
}

void FakeProducer::UnregisterDataSource(const std::string& name) {
  Call([&](ProducerEndpoint* e) { e->UnregisterDataSource(name); });
}

void FakeProducer::Call(std::function<void(ProducerEndpoint*)> call) {
  runner_->RunAndWait([&] {
    if (endpoint_)
      call(endpoint_.get());
  });
}

TraceWriter* FakeProducer::Writer(DataSourceInstanceId id,
                                  BufferExhaustedPolicy policy) {
  std::unique_ptr<TraceWriter>& w = writers_[id];
  if (!w) {
    const uint32_t buffer = config(id).target_buffer();
    w = arbiter_->CreateTraceWriter(buffer, policy);
    const uint32_t writer_id = w->writer_id();
    Call([&](ProducerEndpoint* e) { e->RegisterTraceWriter(writer_id, buffer); });
  }
  return w.get();
}

void FakeProducer::ResetWriters() { writers_.clear(); }

bool FakeProducer::WaitForCount(const size_t* count, size_t n) {
  return runner_->WaitFor(mutex_, cv_, [count, n] { return *count >= n; });
}
bool FakeProducer::WaitForSetups(size_t n) { return WaitForCount(&setup_count_, n); }
bool FakeProducer::WaitForStarts(size_t n) { return WaitForCount(&start_count_, n); }
bool FakeProducer::WaitForStops(size_t n) { return WaitForCount(&stop_count_, n); }
bool FakeProducer::WaitForFlushes(size_t n) { return WaitForCount(&flush_count_, n); }
bool FakeProducer::WaitForClears(size_t n) { return WaitForCount(&clear_count_, n); }

size_t FakeProducer::flush_count() {
  std::lock_guard<std::mutex> lock(mutex_);
  return flush_count_;
}
size_t FakeProducer::clear_count() {
  std::lock_guard<std::mutex> lock(mutex_);
  return clear_count_;
}

std::vector<DataSourceInstanceId> FakeProducer::setups() {
  std::lock_guard<std::mutex> lock(mutex_);
  return setups_;
}
std::vector<DataSourceInstanceId> FakeProducer::starts() {
  std::lock_guard<std::mutex> lock(mutex_);
  return starts_;
}
std::vector<DataSourceInstanceId> FakeProducer::stops() {
  std::lock_guard<std::mutex> lock(mutex_);
  return stops_;
}
protos::gen::DataSourceConfig FakeProducer::config(DataSourceInstanceId id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = configs_.find(id);
  return it == configs_.end() ? protos::gen::DataSourceConfig() : it->second;
}
bool FakeProducer::disconnected() {
  std::lock_guard<std::mutex> lock(mutex_);
  return disconnected_;
}

void FakeProducer::OnConnect() {}

void FakeProducer::OnDisconnect() {
  std::lock_guard<std::mutex> lock(mutex_);
  disconnected_ = true;
  cv_.notify_all();
}

void FakeProducer::SetupDataSource(DataSourceInstanceId id,
                                   const protos::gen::DataSourceConfig& config) {
  if (!arbiter_) {
    arbiter_.reset(new SharedMemoryArbiter(
        endpoint_->shared_memory()->start(), endpoint_->shared_memory()->size(),
        endpoint_->shared_memory_page_size(), this));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  configs_[id] = config;
  setups_.push_back(id);
  setup_count_++;
  cv_.notify_all();
}

void FakeProducer::StartDataSource(DataSourceInstanceId id,
                                   const protos::gen::DataSourceConfig&) {
  if (options_.answer_starts)
    endpoint_->NotifyDataSourceStarted(id);
  std::lock_guard<std::mutex> lock(mutex_);
  starts_.push_back(id);
  start_count_++;
  cv_.notify_all();
}

void FakeProducer::StopDataSource(DataSourceInstanceId id) {
  std::lock_guard<std::mutex> lock(mutex_);
  stops_.push_back(id);
  stop_count_++;
  cv_.notify_all();
}

void FakeProducer::Flush(FlushRequestId request,
                         const std::vector<DataSourceInstanceId>&) {
  if (options_.answer_flush && arbiter_ && options_.commit_on_flush)
    arbiter_->FlushPendingCommitData(request);
  else if (options_.answer_flush)
    endpoint_->NotifyFlushComplete(request);
  std::lock_guard<std::mutex> lock(mutex_);
  flush_count_++;
  cv_.notify_all();
}

void FakeProducer::FlushWithFlags(FlushRequestId request,
                                  const std::vector<DataSourceInstanceId>& ids, uint64_t flags) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    flush_requests_.emplace_back(flags, ids);
  }
  Flush(request, ids);
}

std::vector<std::pair<uint64_t, std::vector<DataSourceInstanceId>>>
FakeProducer::flush_requests() {
  std::lock_guard<std::mutex> lock(mutex_);
  return flush_requests_;
}

void FakeProducer::ClearIncrementalState(const std::vector<DataSourceInstanceId>&) {
  std::lock_guard<std::mutex> lock(mutex_);
  clear_count_++;
  cv_.notify_all();
}

void FakeProducer::OnCommit(CommitData data) {
  runner_->task_runner()->PostTask([this, data = std::move(data)] {
    if (endpoint_)
      endpoint_->CommitData(data);
  });
}

}  // namespace test
}  // namespace zt
