// NullProducer: a Producer that does nothing with what the service asks of
// it, for tests and benchmarks that only need a connected producer (its
// SMB, its endpoint). Derive and override what a test wants to see.

#ifndef ZT_SRC_TRACING_TEST_NULL_PRODUCER_H_
#define ZT_SRC_TRACING_TEST_NULL_PRODUCER_H_

#include <vector>

#include "zt/ext/tracing/core/tracing_service.h"

namespace zt {

class NullProducer : public Producer {
 public:
  void OnConnect() override {}
  void OnDisconnect() override {}
  void OnTracingSetup() override {}
  void SetupDataSource(DataSourceInstanceId, const protos::gen::DataSourceConfig&) override {}
  void StartDataSource(DataSourceInstanceId, const protos::gen::DataSourceConfig&) override {}
  void StopDataSource(DataSourceInstanceId) override {}
  void Flush(FlushRequestId, const std::vector<DataSourceInstanceId>&) override {}
  void ClearIncrementalState(const std::vector<DataSourceInstanceId>&) override {}
};

}  // namespace zt

#endif  // ZT_SRC_TRACING_TEST_NULL_PRODUCER_H_
