// The endpoints TracingServiceImpl hands its clients: forwarders that
// remember who the client is (a producer's id, a consumer's session), and
// the one way the service calls a client: Post(), a task on the service's
// runner that is dropped if the endpoint is destroyed before it runs.

#ifndef ZT_SRC_TRACING_SERVICE_TRACING_SERVICE_ENDPOINTS_H_
#define ZT_SRC_TRACING_SERVICE_TRACING_SERVICE_ENDPOINTS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "src/tracing/service/tracing_service_impl.h"
#include "zt/ext/base/weak_ptr.h"

namespace zt {

class TracingServiceImpl::ProducerEndpointImpl : public ProducerEndpoint {
 public:
  ProducerEndpointImpl(TracingServiceImpl* service, Producer* producer,
                       uint32_t id)
      : service_(service), producer_(producer), id_(id) {}
  ~ProducerEndpointImpl() override { service_->DisconnectProducer(id_); }

  void RegisterDataSource(
      const protos::gen::DataSourceDescriptor& descriptor) override {
    service_->RegisterDataSource(id_, descriptor);
  }
  void UnregisterDataSource(const std::string& name) override {
    service_->UnregisterDataSource(id_, name);
  }
  void CommitData(const zt::CommitData& data) override {
    service_->CommitData(id_, data);
  }
  void NotifyDataSourceStarted(DataSourceInstanceId id) override {
    service_->NotifyDataSourceStarted(id_, id);
  }
  void NotifyDataSourceStopped(DataSourceInstanceId id) override {
    service_->NotifyDataSourceStopped(id_, id);
  }
  void NotifyFlushComplete(FlushRequestId id) override {
    service_->NotifyFlushComplete(id_, id);
  }
  void RegisterTraceWriter(uint32_t writer_id, uint32_t target_buffer) override {
    service_->RegisterTraceWriter(id_, writer_id, target_buffer);
  }
  void UnregisterTraceWriter(uint32_t writer_id) override {
    service_->UnregisterTraceWriter(id_, writer_id);
  }
  base::SharedMemory* shared_memory() const override { return state()->smb.get(); }
  size_t shared_memory_page_size() const override { return state()->page_size; }
  uint32_t producer_id() const override { return id_; }

  // Runs |call| on the producer in a task of its own, unless this endpoint
  // is destroyed first.
  void Post(std::function<void(Producer*)> call) {
    service_->task_runner_->PostTask(
        [weak = weak_factory_.GetWeakPtr(), call = std::move(call)] {
          if (weak)
            call(weak->producer_);
        });
  }

 private:
  ProducerState* state() const { return service_->producers_.at(id_).get(); }

  TracingServiceImpl* const service_;
  Producer* const producer_;
  const uint32_t id_;
  base::WeakPtrFactory<ProducerEndpointImpl> weak_factory_{this};  // Last.
};

class TracingServiceImpl::ConsumerEndpointImpl : public ConsumerEndpoint {
 public:
  ConsumerEndpointImpl(TracingServiceImpl* service, Consumer* consumer,
                       int32_t uid)
      : service_(service), consumer_(consumer), uid_(uid) {}
  ~ConsumerEndpointImpl() override { service_->DisconnectConsumer(this); }

  void EnableTracing(const protos::gen::TraceConfig& config, int fd) override {
    service_->EnableTracing(this, config, fd);
  }
  void StartTracing() override { service_->StartTracing(this); }
  void DisableTracing() override { service_->DisableTracing(this); }
  void Flush(uint32_t timeout_ms, std::function<void(bool)> done) override {
    service_->Flush(this, timeout_ms, std::move(done), 0);
  }
  void FlushWithFlags(uint32_t timeout_ms, std::function<void(bool)> done,
                      uint64_t flags) override {
    service_->Flush(this, timeout_ms, std::move(done), flags);
  }
  void ReadBuffers() override { service_->ReadBuffers(this); }
  void SetReadPaused(bool paused) override { service_->SetReadPaused(this, paused); }
  void FreeBuffers() override { service_->FreeBuffers(this); }
  void GetTraceStats() override { service_->GetTraceStats(this); }

  // Runs |call| on the consumer in a task of its own, unless this endpoint
  // is destroyed first.
  void Post(std::function<void(Consumer*)> call) {
    service_->task_runner_->PostTask(
        [weak = weak_factory_.GetWeakPtr(), call = std::move(call)] {
          if (weak)
            call(weak->consumer_);
        });
  }

  // The batch of observed events on its way to the consumer, to add to:
  // the first event after a delivery starts one and posts its delivery,
  // so that whatever happens until that task runs joins the same batch.
  ObservedEvents* observed_events_batch() {
    if (!observed_batch_) {
      observed_batch_.reset(new ObservedEvents());
      // |this| is alive whenever the call runs (Post's guard).
      Post([this](Consumer* c) {
        // Taken first: what the consumer causes from its callback starts
        // the next batch.
        std::unique_ptr<ObservedEvents> batch = std::move(observed_batch_);
        c->OnObservedEvents(*batch);
      });
    }
    return observed_batch_.get();
  }

  int32_t uid() const { return uid_; }
  base::WeakPtr<ConsumerEndpointImpl> GetWeakPtr() { return weak_factory_.GetWeakPtr(); }
  uint64_t session_id = 0;  // 0: none (or detached from the one it had).
  uint32_t observed_events = 0;  // ObservedEvents::Type bits asked for.
  // The session whose all_data_sources_started this consumer observed.
  uint64_t observed_all_started_of = 0;

 private:
  TracingServiceImpl* const service_;
  Consumer* const consumer_;
  const int32_t uid_;
  std::unique_ptr<ObservedEvents> observed_batch_;
  base::WeakPtrFactory<ConsumerEndpointImpl> weak_factory_{this};  // Last.
};

}  // namespace zt

#endif  // ZT_SRC_TRACING_SERVICE_TRACING_SERVICE_ENDPOINTS_H_
