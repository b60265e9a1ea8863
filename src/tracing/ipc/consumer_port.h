// The service side of the "ConsumerPort": each client that binds it is a
// consumer of |service|; EnableTracing's reply is held until the session
// ends, ReadBuffers streams the trace in slices, ObserveEvents streams the
// events asked for (data source instance states, all data sources started;
// bounded for a client that does not read, docs/design/system_mode.md);
// Detach and Attach move a session between consumers by
// key (docs/wire.md, docs/design/ipc.md). Methods not
// supported yet answer success = false at once.
//
// Threading: the returned Service's handlers run on the host's runner,
// which must be |runner|, |service|'s. |service| must outlive the returned
// Service.
#ifndef ZT_SRC_TRACING_IPC_CONSUMER_PORT_H_
#define ZT_SRC_TRACING_IPC_CONSUMER_PORT_H_

#include <memory>

#include "src/ipc/service.h"
#include "zt/base/task_runner.h"
#include "zt/ext/tracing/core/tracing_service.h"

namespace zt {

std::unique_ptr<ipc::Service> CreateConsumerPort(TracingService* service,
                                                 base::TaskRunner* runner);

}  // namespace zt

#endif  // ZT_SRC_TRACING_IPC_CONSUMER_PORT_H_
