// `ztrace trigger NAME...`: activates triggers in the tracing service, as
// upstream's `trigger_perfetto` does. A session whose trigger_config lists
// one of the names starts (START_TRACING) or stops after the trigger's
// delay (STOP_TRACING); the trace records which trigger came from where.
// The command connects as a producer named "ztrace" (triggers come from
// producers in the protocol), sends the names, and exits once the service
// has taken them: 0, or 1 with a message if the service is not running,
// refuses, or does not answer within the timeout.

#ifndef ZT_SRC_CMD_ZTRACE_TRIGGER_COMMAND_H_
#define ZT_SRC_CMD_ZTRACE_TRIGGER_COMMAND_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "zt/base/task_runner.h"
#include "zt/ext/tracing/core/tracing_service.h"

namespace zt {
namespace ztrace {

// Makes the producer's endpoint on the runner's thread (the program passes
// ProducerIpcClient::Connect); null means "could not connect".
using ConnectProducerFn = std::function<std::unique_ptr<ProducerEndpoint>(
    Producer*, base::TaskRunner*, const TracingService::ProducerOptions&)>;

// The whole command: |args| after "trigger"; |address| is for messages.
int RunTrigger(const std::vector<std::string>& args, const ConnectProducerFn& connect,
               const std::string& address);

std::string TriggerUsage();

}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_TRIGGER_COMMAND_H_
