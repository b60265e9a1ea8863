// ProducerIpcClient: a ProducerEndpoint in a process other than the
// service's, speaking the "ProducerPort" protocol over a UNIX socket as
// Perfetto's SDK does (docs/wire.md, docs/design/ipc.md), so it works with
// ztraced and with upstream's traced.
//
// Connect() returns at once; OnConnect() follows once the port is bound and
// InitializeConnection answered, OnDisconnect() (once) if connecting fails,
// the service refuses the producer or breaks the protocol, or the
// connection ends later. The endpoint is then inert: calls are dropped.
// Calls made before the port is bound are queued and sent, in order, right
// after InitializeConnection.
// The shared memory buffer: with |provide_smb| the client sends one with
// InitializeConnection: |options.provided_shm| (ownership shared) if it is
// a file (fd() valid) of the size ComputeShmGeometry() gives for the hints,
// else a sealed memfd it creates of that geometry. If the service takes
// it, shared_memory() is it from OnConnect() on and OnTracingSetup()
// follows OnConnect() at once. If the service declines it (an older one),
// or without |provide_smb|, the service's memfd arrives with its
// SetupTracing command (mapped then, its geometry checked) and
// OnTracingSetup() says so; before that, shared_memory() is null. After a
// disconnection the SMB stays mapped until the endpoint is destroyed: the
// producer's writers may still be writing into it.
// producer_id() is 0: the service never tells a remote producer its id.
//
// Threading: create, use and destroy on |runner|'s thread; the Producer is
// called back there, never from inside one of its own calls. The Producer
// may destroy the endpoint from any callback.
#ifndef ZT_SRC_TRACING_IPC_PRODUCER_IPC_CLIENT_H_
#define ZT_SRC_TRACING_IPC_PRODUCER_IPC_CLIENT_H_

#include <memory>
#include <string>

#include "zt/base/task_runner.h"
#include "zt/ext/tracing/core/tracing_service.h"

namespace zt {

class ProducerIpcClient {
 public:
  // |options|: name, SMB size and page-size hints, the SMB to offer (uid
  // and pid are the kernel's business on a socket and ignored).
  static std::unique_ptr<ProducerEndpoint> Connect(
      const std::string& address, Producer* producer, base::TaskRunner* runner,
      const TracingService::ProducerOptions& options, bool provide_smb = true);
};

}  // namespace zt

#endif  // ZT_SRC_TRACING_IPC_PRODUCER_IPC_CLIENT_H_
