// The service side of the "ProducerPort": each client that binds it is a
// producer of |service|, its requests calls on its ProducerEndpoint, and
// the service's calls to it commands streamed back through its
// GetAsyncCommand request (docs/wire.md, docs/design/ipc.md).
//
// A zerotrace producer may also commit through a ring in shared memory
// (docs/design/commit_queue.md), whose doorbell is watched on |runner|.
//
// Threading: the returned Service's handlers run on the host's runner,
// which must be |runner|, |service|'s. Both must outlive the returned
// Service.
#ifndef ZT_SRC_TRACING_IPC_PRODUCER_PORT_H_
#define ZT_SRC_TRACING_IPC_PRODUCER_PORT_H_

#include <memory>

#include "src/ipc/service.h"
#include "src/tracing/service/service_limits.h"
#include "zt/ext/tracing/core/tracing_service.h"

namespace zt {

// How the port's producers commit, for tests and the daemon's log.
struct ProducerPortStats {
  uint64_t commits_by_message = 0;  // CommitData requests.
  uint64_t commits_by_queue = 0;    // Ring records applied.
  uint64_t queue_wakeups = 0;       // Doorbells the service was woken by.
  uint64_t queue_polls_started = 0;  // Queues that went polling (busy, timer-read).
  uint64_t queue_poll_wakeups = 0;   // Wake-ups by a polling queue's timer.
  uint64_t queues_set_up = 0;
  uint64_t queues_closed = 0;      // For corruption.
  uint64_t queue_bytes_lost = 0;   // Published in a queue closed before they were read.
  // Refused by the limits (ServiceLimits): data sources over a producer's,
  // producers over a uid's.
  uint64_t data_sources_refused = 0;
  uint64_t producers_refused = 0;
  // Commands (data source configs) too large for the producer's connection
  // (an upstream producer takes 128 KiB frames): not sent.
  uint64_t commands_too_large = 0;
};

// |stats|, if not null, is kept up to date while the port lives. |limits|:
// the per-producer and per-uid producer limits the port enforces (a
// RegisterDataSource over them is answered with an error naming the limit;
// an InitializeConnection over them is refused, which ends the connection).
std::unique_ptr<ipc::Service> CreateProducerPort(
    TracingService* service, base::TaskRunner* runner,
    std::shared_ptr<ProducerPortStats> stats = nullptr,
    const ServiceLimits& limits = ServiceLimits());

}  // namespace zt

#endif  // ZT_SRC_TRACING_IPC_PRODUCER_PORT_H_
