// PerfettoSQL's standard library as zerotrace ships it: the modules
// embedded at build time from src/processor/sql/stdlib/ (the file a/b.sql
// is module a.b), which `INCLUDE PERFETTO MODULE a.b` runs. Written anew
// from what upstream documents its modules of the same names to do.

#ifndef ZT_SRC_PROCESSOR_SQL_STDLIB_MODULES_H_
#define ZT_SRC_PROCESSOR_SQL_STDLIB_MODULES_H_

#include <cstddef>

namespace zt {
namespace processor {
namespace sql {

struct StdlibModule {
  const char* name;  // "slices.with_context"
  const char* sql;
};

// Every module, sorted by name (generated: stdlib_modules.cc in the build
// folder).
const StdlibModule* StdlibModules(size_t* count);

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_STDLIB_MODULES_H_
