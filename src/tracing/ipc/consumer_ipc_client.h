// ConsumerIpcClient: a ConsumerEndpoint in a process other than the
// service's, speaking the "ConsumerPort" protocol over a UNIX socket as
// Perfetto's clients do (docs/wire.md), so it works with ztraced and with
// upstream's traced.
//
// Connect() returns at once; OnConnect() follows once the port is bound,
// OnDisconnect() if connecting fails or the connection ends later. Calls
// made before the bind are queued and sent, in order, once bound. After a
// disconnection (and for calls made after it) every pending call is
// answered as failed, after OnDisconnect() and each in a task of its own:
// a pending Flush with false, GetTraceStats with OnTraceStats(false), a
// ReadBuffers with a last, empty OnTraceData, a running session with
// OnTracingDisabled(error). Destroying the endpoint drops them.
// As in process, once FreeBuffers() is called nothing more of the session
// it freed reaches the consumer (the service may still end its request).
// OnAllDataSourcesStarted() comes from an ObserveEvents stream the client
// opens when bound; a service without it never sends it.
//
// Threading: create, use and destroy on |runner|'s thread; the Consumer is
// called back there, never from inside one of its own calls. The Consumer
// may destroy the endpoint from any callback.
#ifndef ZT_SRC_TRACING_IPC_CONSUMER_IPC_CLIENT_H_
#define ZT_SRC_TRACING_IPC_CONSUMER_IPC_CLIENT_H_

#include <memory>
#include <string>

#include "zt/base/task_runner.h"
#include "zt/ext/tracing/core/tracing_service.h"

namespace zt {

class ConsumerIpcClient {
 public:
  static std::unique_ptr<ConsumerEndpoint> Connect(const std::string& address,
                                                   Consumer* consumer,
                                                   base::TaskRunner* runner);
};

}  // namespace zt

#endif  // ZT_SRC_TRACING_IPC_CONSUMER_IPC_CLIENT_H_
