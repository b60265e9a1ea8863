// ConsumerIpcClient: a ConsumerEndpoint in a process other than the
// service's, speaking the "ConsumerPort" protocol over a UNIX socket as
// Perfetto's clients do (docs/wire.md), so it works with ztraced and with
// upstream's traced.
//
// Connect() returns at once; OnConnect() follows once the port is bound,
// OnDisconnect() if connecting fails or the connection ends later (then
// every pending call is answered as failed: a pending Flush with false,
// GetTraceStats with OnTraceStats(false), a running session with
// OnTracingDisabled(error)).
//
// Threading: create, use and destroy on |runner|'s thread; the Consumer is
// called back there, never from inside one of its own calls.
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
