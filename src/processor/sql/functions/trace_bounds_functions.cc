// trace_start(), trace_end(), trace_dur(): the trace's bounds
// (FunctionContext::bounds), which the trace_bounds view also reads.

#include <sqlite3.h>

#include "src/processor/sql/functions/functions.h"

namespace zt {
namespace processor {
namespace sql {
namespace {

FunctionContext* Context(sqlite3_context* ctx) {
  return static_cast<FunctionContext*>(sqlite3_user_data(ctx));
}

void TraceStart(sqlite3_context* ctx, int, sqlite3_value**) {
  sqlite3_result_int64(ctx, Context(ctx)->bounds().start);
}

void TraceEnd(sqlite3_context* ctx, int, sqlite3_value**) {
  sqlite3_result_int64(ctx, Context(ctx)->bounds().end);
}

void TraceDur(sqlite3_context* ctx, int, sqlite3_value**) {
  const FunctionContext::Bounds bounds = Context(ctx)->bounds();
  sqlite3_result_int64(ctx, bounds.end - bounds.start);
}

}  // namespace

bool RegisterTraceBoundsFunctions(sqlite3* db, FunctionContext* context, std::string* error) {
  struct Function {
    const char* name;
    void (*fn)(sqlite3_context*, int, sqlite3_value**);
  };
  for (const Function& f : {Function{"trace_start", TraceStart}, Function{"trace_end", TraceEnd},
                            Function{"trace_dur", TraceDur}}) {
    // Deterministic: the storage does not change under a connection.
    if (sqlite3_create_function_v2(db, f.name, 0, SQLITE_UTF8 | SQLITE_DETERMINISTIC, context,
                                   f.fn, nullptr, nullptr, nullptr) != SQLITE_OK) {
      *error = std::string("cannot register ") + f.name + ": " + sqlite3_errmsg(db);
      return false;
    }
  }
  return true;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
