// What a saved upstream query meets when it names something zerotrace
// lacks: SQLite says "no such table: sched"; this adds what `sched` is
// upstream and why it is not here, or the name it has now when upstream
// renamed it. Only names of upstream's schema are explained; any other
// message is returned as it is. Thread-safe (constant tables).

#ifndef ZT_SRC_PROCESSOR_SQL_MISSING_NAME_HINTS_H_
#define ZT_SRC_PROCESSOR_SQL_MISSING_NAME_HINTS_H_

#include <string>

namespace zt {
namespace processor {
namespace sql {

std::string ExplainMissingName(const std::string& sqlite_message);

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_MISSING_NAME_HINTS_H_
