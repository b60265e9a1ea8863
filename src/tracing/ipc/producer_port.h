// The service side of the "ProducerPort": each client that binds it is a
// producer of |service|, its requests calls on its ProducerEndpoint, and
// the service's calls to it commands streamed back through its
// GetAsyncCommand request (docs/wire.md, docs/design/ipc.md).
//
// Threading: the returned Service's handlers run on the host's runner,
// which must be |service|'s. |service| must outlive the returned Service.
#ifndef ZT_SRC_TRACING_IPC_PRODUCER_PORT_H_
#define ZT_SRC_TRACING_IPC_PRODUCER_PORT_H_

#include <memory>

#include "src/ipc/service.h"
#include "zt/ext/tracing/core/tracing_service.h"

namespace zt {

std::unique_ptr<ipc::Service> CreateProducerPort(TracingService* service);

}  // namespace zt

#endif  // ZT_SRC_TRACING_IPC_PRODUCER_PORT_H_
