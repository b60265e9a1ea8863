// ProducerIpcClient: a ProducerEndpoint in a process other than the
// service's, speaking the "ProducerPort" protocol over a UNIX socket as
// Perfetto's SDK does (docs/wire.md, docs/design/ipc.md), so it works with
// ztraced and with upstream's traced.
//
// Connect() returns at once; OnConnect() follows once the port is bound and
// InitializeConnection answered, OnDisconnect() if connecting fails or the
// connection ends later (the endpoint is then inert: calls are dropped).
// The shared memory buffer: with |provide_smb| the client creates a memfd
// of the geometry the hints give and sends it with InitializeConnection, so
// shared_memory() is valid from OnConnect() on; if the service declines it
// (an older one), or without |provide_smb|, the service's memfd arrives
// with SetupTracing and OnTracingSetup() says so. Before that,
// shared_memory() is null.
//
// Threading: create, use and destroy on |runner|'s thread; the Producer is
// called back there, never from inside one of its own calls.
#ifndef ZT_SRC_TRACING_IPC_PRODUCER_IPC_CLIENT_H_
#define ZT_SRC_TRACING_IPC_PRODUCER_IPC_CLIENT_H_

#include <memory>
#include <string>

#include "zt/base/task_runner.h"
#include "zt/ext/tracing/core/tracing_service.h"

namespace zt {

class ProducerIpcClient {
 public:
  // |options|: name, SMB size and page-size hints (uid/pid are the
  // kernel's business on a socket and ignored; provided_shm is ignored).
  static std::unique_ptr<ProducerEndpoint> Connect(
      const std::string& address, Producer* producer, base::TaskRunner* runner,
      const TracingService::ProducerOptions& options, bool provide_smb = true);
};

}  // namespace zt

#endif  // ZT_SRC_TRACING_IPC_PRODUCER_IPC_CLIENT_H_
