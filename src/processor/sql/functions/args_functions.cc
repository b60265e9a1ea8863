// EXTRACT_ARG(arg_set_id, key): one arg's value, typed by its value type.

#include <string_view>

#include <sqlite3.h>

#include "src/processor/sql/functions/functions.h"

namespace zt {
namespace processor {
namespace sql {
namespace {

void ExtractArg(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
    return;  // No arg set: NULL, as a slice without args asks.
  if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER) {
    sqlite3_result_error(ctx, "EXTRACT_ARG: the arg set id (1st argument) must be an integer",
                         -1);
    return;
  }
  if (sqlite3_value_type(argv[1]) != SQLITE_TEXT) {
    sqlite3_result_error(ctx, "EXTRACT_ARG: the key (2nd argument) must be text", -1);
    return;
  }
  const sqlite3_int64 set = sqlite3_value_int64(argv[0]);
  if (set < 0 || set >= kNullId)
    return;
  const std::string_view key(reinterpret_cast<const char*>(sqlite3_value_text(argv[1])),
                             static_cast<size_t>(sqlite3_value_bytes(argv[1])));
  auto* context = static_cast<FunctionContext*>(sqlite3_user_data(ctx));
  const TraceStorage& storage = context->storage();
  const ArgTable& args = storage.args;
  for (uint32_t row : context->arg_index().Get(static_cast<uint32_t>(set))) {
    if (storage.strings.Get(args.key[row]) != key)
      continue;
    switch (args.value_type[row]) {
      case ArgType::kInt:
      case ArgType::kUint:
      case ArgType::kPointer:
      case ArgType::kBool:
        sqlite3_result_int64(ctx, args.int_value[row]);
        return;
      case ArgType::kString:
      case ArgType::kJson: {
        if (args.string_value[row] == kNullStringId)
          return;
        // The pool outlives every statement of the connection.
        const std::string_view text = storage.strings.Get(args.string_value[row]);
        sqlite3_result_text(ctx, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
        return;
      }
      case ArgType::kReal:
        sqlite3_result_double(ctx, args.real_value[row]);
        return;
      case ArgType::kNull:
        return;
    }
    return;
  }
}

}  // namespace

bool RegisterArgFunctions(sqlite3* db, FunctionContext* context, std::string* error) {
  const int rc = sqlite3_create_function_v2(db, "EXTRACT_ARG", 2,
                                            SQLITE_UTF8 | SQLITE_DETERMINISTIC, context,
                                            ExtractArg, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) {
    *error = std::string("cannot register EXTRACT_ARG: ") + sqlite3_errmsg(db);
    return false;
  }
  return true;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
