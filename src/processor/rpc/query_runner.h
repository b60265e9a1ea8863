// Runs a client's SQL as upstream's server does for /query and
// TPM_QUERY_STREAMING: every statement in turn; only the last statement's
// columns and rows are sent (the earlier ones' rows are read and dropped);
// the first message counts the statements and those that return columns,
// and names the last one. An error stops at its statement and ends the
// result with it (after any rows already sent).

#ifndef ZT_SRC_PROCESSOR_RPC_QUERY_RUNNER_H_
#define ZT_SRC_PROCESSOR_RPC_QUERY_RUNNER_H_

#include <string>

#include "src/processor/rpc/query_result_writer.h"
#include "src/processor/sql/query_engine.h"

namespace zt {
namespace processor {
namespace rpc {

// Returns false if the query failed (the writer's last message says why).
bool RunQuery(sql::QueryEngine* engine, const std::string& sql, QueryResultWriter* writer);

}  // namespace rpc
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_RPC_QUERY_RUNNER_H_
