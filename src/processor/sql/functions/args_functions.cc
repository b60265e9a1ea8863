// EXTRACT_ARG(arg_set_id, key): one arg's value, typed by its value type.
// PRINT_ARGS(arg_set_id): the whole set as a JSON object, keys split at
// '.' and "[i]" into nested objects and arrays (upstream's rendering:
// pointers as "0x..." strings, booleans as true/false, JSON args as
// strings; a non-finite real as null, which JSON has no number for).

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string_view>

#include <sqlite3.h>

#include "src/processor/exporters/arg_tree.h"
#include "src/processor/exporters/json_writer.h"
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

void AppendArgValue(const TraceStorage& storage, uint32_t row, std::string* out) {
  const ArgTable& args = storage.args;
  switch (args.value_type[row]) {
    case ArgType::kInt:
      AppendJsonInt(args.int_value[row], out);
      return;
    case ArgType::kUint:
      AppendJsonInt(static_cast<uint64_t>(args.int_value[row]), out);
      return;
    case ArgType::kPointer: {
      char text[24];
      snprintf(text, sizeof(text), "\"0x%" PRIx64 "\"", static_cast<uint64_t>(args.int_value[row]));
      *out += text;
      return;
    }
    case ArgType::kBool:
      *out += args.int_value[row] ? "true" : "false";
      return;
    case ArgType::kString:
    case ArgType::kJson:
      if (args.string_value[row] == kNullStringId)
        *out += "null";
      else
        AppendJsonString(storage.strings.Get(args.string_value[row]), out);
      return;
    case ArgType::kReal:
      if (!AppendJsonDouble(args.real_value[row], out))
        *out += "null";
      return;
    case ArgType::kNull:
      *out += "null";
      return;
  }
}

void PrintArgs(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
    return;
  if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER) {
    sqlite3_result_error(ctx, "PRINT_ARGS: the arg set id must be an integer", -1);
    return;
  }
  const sqlite3_int64 set = sqlite3_value_int64(argv[0]);
  auto* context = static_cast<FunctionContext*>(sqlite3_user_data(ctx));
  const TraceStorage& storage = context->storage();
  using Node = ArgTreeNode<uint32_t>;
  Node root;
  auto json_literal = [](std::string_view name) {
    std::string text;
    AppendJsonString(name, &text);
    return text;
  };
  if (set >= 0 && set < kNullId) {
    for (uint32_t row : context->arg_index().Get(static_cast<uint32_t>(set))) {
      const std::string_view key = storage.strings.Get(storage.args.key[row]);
      if (!AddToArgTree(&root, key, row, /*root_may_be_array=*/false, json_literal)) {
        const std::string message = "PRINT_ARGS: the arg " + std::string(key) + " of set " +
                                    std::to_string(set) +
                                    " clashes with another (a value where an object is)";
        sqlite3_result_error(ctx, message.c_str(), -1);
        return;
      }
    }
  }
  std::string out;
  auto write = [&](const Node& node, auto&& self) -> void {
    if (node.is_leaf) {
      AppendArgValue(storage, node.leaf, &out);
      return;
    }
    if (node.is_array) {
      std::vector<const Node*> order;
      for (const Node& child : node.children)
        order.push_back(&child);
      std::sort(order.begin(), order.end(),
                [](const Node* a, const Node* b) { return a->index < b->index; });
      out += '[';
      for (size_t i = 0; i < order.size(); i++) {
        if (i)
          out += ',';
        self(*order[i], self);
      }
      out += ']';
      return;
    }
    out += '{';
    for (size_t i = 0; i < node.children.size(); i++) {
      if (i)
        out += ',';
      out += node.children[i].name;
      out += ':';
      self(node.children[i], self);
    }
    out += '}';
  };
  write(root, write);
  sqlite3_result_text(ctx, out.data(), static_cast<int>(out.size()), SQLITE_TRANSIENT);
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
  // __intrinsic_arg_set_to_json is upstream's internal name for the same
  // JSON of an arg set: Perfetto UI calls it.
  for (const char* name : {"PRINT_ARGS", "__intrinsic_arg_set_to_json"}) {
    if (sqlite3_create_function_v2(db, name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, context,
                                   PrintArgs, nullptr, nullptr, nullptr) != SQLITE_OK) {
      *error = std::string("cannot register ") + name + ": " + sqlite3_errmsg(db);
      return false;
    }
  }
  return true;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
