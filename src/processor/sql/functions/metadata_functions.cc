// EXTRACT_METADATA(name), EXTRACT_METADATA_FOR_TRACE(trace_id, name),
// EXTRACT_METADATA_FOR_MACHINE(machine_id, name): a metadata entry's value
// (its integer, else its string; NULL when the trace has none), as
// upstream's builtins of those names return it. zerotrace reads one trace
// of one machine per session: trace 0, machine NULL (the host), which the
// metadata table's columns of those names say too; another id finds
// nothing. Perfetto UI calls them as it opens a trace.

#include <sqlite3.h>

#include <string_view>

#include "src/processor/sql/functions/functions.h"

namespace zt {
namespace processor {
namespace sql {
namespace metadata_functions {

FunctionContext* Context(sqlite3_context* ctx) {
  return static_cast<FunctionContext*>(sqlite3_user_data(ctx));
}

// The value of the entry named by argv[0] (the last one, if repeated).
void ResultEntry(sqlite3_context* ctx, sqlite3_value* name_value) {
  const unsigned char* name_text = sqlite3_value_text(name_value);
  if (!name_text)
    return sqlite3_result_null(ctx);
  const std::string_view name(reinterpret_cast<const char*>(name_text),
                              static_cast<size_t>(sqlite3_value_bytes(name_value)));
  const TraceStorage& storage = Context(ctx)->storage();
  const MetadataTable& metadata = storage.metadata;
  for (size_t i = metadata.size(); i-- > 0;) {
    if (storage.strings.Get(metadata.name[i]) != name)
      continue;
    if (metadata.int_value[i] != kNullInt)
      return sqlite3_result_int64(ctx, metadata.int_value[i]);
    if (metadata.str_value[i] == kNullStringId)
      return sqlite3_result_null(ctx);
    const std::string_view value = storage.strings.Get(metadata.str_value[i]);
    return sqlite3_result_text(ctx, value.data(), static_cast<int>(value.size()),
                               SQLITE_TRANSIENT);
  }
  sqlite3_result_null(ctx);
}

void ExtractMetadata(sqlite3_context* ctx, int, sqlite3_value** argv) {
  ResultEntry(ctx, argv[0]);
}

void ExtractMetadataForTrace(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER || sqlite3_value_int64(argv[0]) != 0)
    return sqlite3_result_null(ctx);
  ResultEntry(ctx, argv[1]);
}

void ExtractMetadataForMachine(sqlite3_context* ctx, int, sqlite3_value** argv) {
  // The host: NULL, or 0 as upstream numbers it in its machine table.
  const int type = sqlite3_value_type(argv[0]);
  if (type != SQLITE_NULL && (type != SQLITE_INTEGER || sqlite3_value_int64(argv[0]) != 0))
    return sqlite3_result_null(ctx);
  ResultEntry(ctx, argv[1]);
}

}  // namespace metadata_functions

bool RegisterMetadataFunctions(sqlite3* db, FunctionContext* context, std::string* error) {
  struct Function {
    const char* name;
    int args;
    void (*fn)(sqlite3_context*, int, sqlite3_value**);
  };
  using namespace metadata_functions;  // NOLINT: this file's own helpers.
  for (const Function& f : {Function{"extract_metadata", 1, ExtractMetadata},
                            Function{"extract_metadata_for_trace", 2, ExtractMetadataForTrace},
                            Function{"extract_metadata_for_machine", 2,
                                     ExtractMetadataForMachine}}) {
    if (sqlite3_create_function_v2(db, f.name, f.args, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                   context, f.fn, nullptr, nullptr, nullptr) != SQLITE_OK) {
      *error = std::string("cannot register ") + f.name + ": " + sqlite3_errmsg(db);
      return false;
    }
  }
  return true;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
