// TracingMuxerImpl::ProducerImpl: the process's producer on one backend
// (tracing_muxer_impl.h). It owns the endpoint (muxer thread) and, per
// connection, an SMB and its arbiter. Those are never freed while the
// muxer lives: threads may hold writers into them for ever. A system
// backend's connection can end (the daemon exits); the producer then
// retires that connection and connects again, backing off. The service's
// requests are handed to the muxer, which owns the data source instances.
// Private to the muxer (tracing_muxer_impl.cc, tracing_muxer_producer.cc).

#ifndef ZT_SRC_TRACING_SDK_TRACING_MUXER_PRODUCER_H_
#define ZT_SRC_TRACING_SDK_TRACING_MUXER_PRODUCER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "src/tracing/sdk/tracing_muxer_impl.h"

namespace zt {
namespace internal {

class TracingMuxerImpl::ProducerImpl : public Producer {
 public:
  // |args| gives the SMB's size and page size hints.
  ProducerImpl(TracingMuxerImpl* muxer, uint32_t backend_id, const TracingInitArgs& args);
  ~ProducerImpl() override;  // Only with the muxer (never, in practice).

  // Muxer thread. Connects with a fresh SMB (ours: shared with an
  // in-process service, or a memfd a daemon maps), so that it outlives the
  // connection for writers other threads still hold.
  void Connect(TracingBackend* backend);

  // Muxer thread: after this, commits and calls go nowhere.
  void Disconnect();

  // Muxer thread: null while not connected.
  ProducerEndpoint* endpoint() const { return connected_ ? endpoint_.get() : nullptr; }

  // Muxer thread: see TracingMuxerImpl::WhenRegistrationsDelivered().
  void WhenRegistrationsDelivered(std::function<void()> then);

  // The arbiter writers of this backend take chunks from (any thread): the
  // current connection's, over our SMB or one the service sent.
  SharedMemoryArbiter* arbiter() const { return arbiter_.load(std::memory_order_acquire); }

  // Posts |call| on the endpoint, behind everything posted before (commits
  // included), if still connected then (dropped once the muxer retired).
  // Any thread.
  void PostToEndpoint(std::function<void(ProducerEndpoint*)> call);

  // Producer (muxer thread).
  void OnConnect() override;
  void OnDisconnect() override;
  void OnTracingSetup() override;
  void SetupDataSource(DataSourceInstanceId id,
                       const protos::gen::DataSourceConfig& config) override;
  void StartDataSource(DataSourceInstanceId id,
                       const protos::gen::DataSourceConfig& config) override;
  void StopDataSource(DataSourceInstanceId id) override;
  void Flush(FlushRequestId request, const std::vector<DataSourceInstanceId>& ids) override;
  void ClearIncrementalState(const std::vector<DataSourceInstanceId>& ids) override;

 private:
  struct Connection;

  // A request the service answers after every one sent before.
  void SendSync(std::function<void()> done);
  // Runs (or, once connected, syncs then runs) what waited for the
  // connection being made.
  void RunWaitingForConnection(bool connected);
  void SetArbiter(base::SharedMemory* shm, size_t page_size);
  // The endpoint goes, unless the SMB writers may still touch is its own.
  void RetireEndpoint();

  TracingMuxerImpl* const muxer_;
  const uint32_t backend_id_;
  TracingBackend* backend_ = nullptr;
  TracingService::ProducerOptions options_;
  std::unique_ptr<ProducerEndpoint> endpoint_;  // Muxer thread.
  bool connected_ = false;
  bool endpoint_owns_smb_ = false;
  // Sessions waiting for the connection being made (muxer thread).
  std::vector<std::function<void()>> waiting_for_connection_;
  std::unique_ptr<Connection> connection_;  // The current one (muxer thread).
  std::atomic<SharedMemoryArbiter*> arbiter_{nullptr};  // Any thread.
};

}  // namespace internal
}  // namespace zt

#endif  // ZT_SRC_TRACING_SDK_TRACING_MUXER_PRODUCER_H_
