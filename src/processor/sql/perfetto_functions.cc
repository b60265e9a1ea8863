#include "src/processor/sql/perfetto_functions.h"

#include <sqlite3.h>

#include <cctype>

namespace zt {
namespace processor {
namespace sql {

PerfettoFunctions::Function::~Function() {
  sqlite3_finalize(statement);
}

namespace {

using Function = PerfettoFunctions::Function;

std::string Lower(const std::string& text) {
  std::string out = text;
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

bool PerfettoFunctions::PrepareBody(Function* f, sqlite3_stmt** out, std::string* error) {
  const char* tail = nullptr;
  if (sqlite3_prepare_v2(f->db, f->body.c_str(), static_cast<int>(f->body.size()), out, &tail) !=
      SQLITE_OK) {
    *error = f->name + ": " + sqlite3_errmsg(f->db);
    return false;
  }
  if (!*out) {
    *error = f->name + ": the body is empty";
    return false;
  }
  for (; tail && *tail; tail++) {
    if (!std::isspace(static_cast<unsigned char>(*tail)) && *tail != ';') {
      sqlite3_finalize(*out);
      *out = nullptr;
      *error = f->name + ": the body must be one SELECT";
      return false;
    }
  }
  return true;
}

namespace {

void Call(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  auto* f = static_cast<Function*>(sqlite3_user_data(ctx));
  sqlite3_stmt* stmt = f->statement;
  sqlite3_stmt* own = nullptr;
  if (sqlite3_stmt_busy(stmt)) {  // Called from within itself.
    std::string error;
    if (!PerfettoFunctions::PrepareBody(f, &own, &error)) {
      sqlite3_result_error(ctx, error.c_str(), -1);
      return;
    }
    stmt = own;
  }
  for (int i = 0; i < argc; i++) {
    const int index = sqlite3_bind_parameter_index(stmt, f->args[static_cast<size_t>(i)].c_str());
    if (index > 0)
      sqlite3_bind_value(stmt, index, argv[i]);
  }
  const int rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW) {
    sqlite3_result_value(ctx, sqlite3_column_value(stmt, 0));
  } else if (rc != SQLITE_DONE) {
    const std::string error = f->name + ": " + sqlite3_errmsg(f->db);
    sqlite3_result_error(ctx, error.c_str(), -1);
  }
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
  sqlite3_finalize(own);
}

}  // namespace

PerfettoFunctions::~PerfettoFunctions() = default;

bool PerfettoFunctions::DefineTable(std::unique_ptr<Function> f,
                                    const PerfettoStatement& statement, const std::string& key,
                                    std::string* error) {
  const std::string context = "CREATE PERFETTO FUNCTION " + statement.name + ": ";
  if (statement.args.size() > 30) {
    *error = context + "a table function takes at most 30 arguments";
    return false;
  }
  for (const PerfettoStatement::Arg& column : statement.columns)
    f->columns.push_back(column.name);
  // Registered first, so that the body may name it.
  if (!RegisterTableFunction(f.get(), error)) {
    *error = context + *error;
    return false;
  }
  sqlite3_stmt* stmt = nullptr;
  std::string prepare_error;
  bool ok = PrepareBody(f.get(), &stmt, &prepare_error);
  if (!ok) {
    *error = "CREATE PERFETTO FUNCTION " + prepare_error;
  } else {
    std::vector<std::string> made;
    for (int i = 0; i < sqlite3_column_count(stmt); i++)
      made.emplace_back(sqlite3_column_name(stmt, i));
    if (made != f->columns) {
      auto join = [](const std::vector<std::string>& names) {
        std::string out;
        for (const std::string& n : names)
          out += (out.empty() ? "" : ", ") + n;
        return out;
      };
      *error = context + "the body makes the columns (" + join(made) +
               ") but RETURNS TABLE declares (" + join(f->columns) + ")";
      ok = false;
    }
  }
  sqlite3_finalize(stmt);
  if (!ok) {
    const auto old = functions_.find(key);
    if (old != functions_.end() && !old->second->columns.empty()) {
      std::string ignored;
      RegisterTableFunction(old->second.get(), &ignored);
    } else {
      sqlite3_create_module_v2(db_, f->name.c_str(), nullptr, nullptr, nullptr);
    }
    return false;
  }
  functions_[key] = std::move(f);
  return true;
}

bool PerfettoFunctions::Define(const PerfettoStatement& statement, std::string* error) {
  const std::string key = Lower(statement.name);
  if (functions_.count(key) && !statement.replace) {
    *error = "CREATE PERFETTO FUNCTION " + statement.name +
             ": a function of that name exists (CREATE OR REPLACE PERFETTO FUNCTION replaces it)";
    return false;
  }
  auto f = std::make_unique<Function>();
  f->name = statement.name;
  f->body = statement.body;
  f->db = db_;
  for (const PerfettoStatement::Arg& arg : statement.args)
    f->args.push_back("$" + arg.name);
  if (statement.returns == "TABLE")
    return DefineTable(std::move(f), statement, key, error);
  // Registered before its body is prepared, so that the body may call it.
  auto register_function = [this](Function* function) {
    return sqlite3_create_function_v2(db_, function->name.c_str(),
                                      static_cast<int>(function->args.size()), SQLITE_UTF8,
                                      function, Call, nullptr, nullptr, nullptr);
  };
  if (register_function(f.get()) != SQLITE_OK) {
    *error = "CREATE PERFETTO FUNCTION " + statement.name + ": " + sqlite3_errmsg(db_);
    return false;
  }
  std::string prepare_error;
  const bool prepared = PrepareBody(f.get(), &f->statement, &prepare_error);
  if (!prepared || sqlite3_column_count(f->statement) < 1) {
    *error = "CREATE PERFETTO FUNCTION " +
             (prepared ? statement.name + ": the body returns no column" : prepare_error);
    // Back to what was there: the definition replaced, or none.
    const auto old = functions_.find(key);
    if (old != functions_.end() && old->second->args.size() == f->args.size()) {
      register_function(old->second.get());
    } else {
      sqlite3_create_function_v2(db_, f->name.c_str(), static_cast<int>(f->args.size()),
                                 SQLITE_UTF8, nullptr, nullptr, nullptr, nullptr, nullptr);
    }
    return false;
  }
  // The old definition (if replaced) stays alive until here: SQLite no
  // longer calls it.
  functions_[key] = std::move(f);
  return true;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
