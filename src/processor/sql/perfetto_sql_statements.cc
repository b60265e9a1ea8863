// QueryEngine's side of PerfettoSQL's own statements (perfetto_sql_parser.h):
// tables and views made with SQLite's CREATE, functions (perfetto_functions.h),
// macros kept here and expanded before SQLite sees a statement, modules.

#include <sqlite3.h>

#include <algorithm>

#include "src/processor/sql/query_engine.h"
#include "src/processor/sql/stdlib_modules.h"

namespace zt {
namespace processor {
namespace sql {
namespace {

std::string Quoted(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    out += c;
    if (c == '"')
      out += '"';
  }
  return out + "\"";
}

}  // namespace

bool QueryEngine::Exec(const std::string& sql, std::string* error) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    *error = message ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    return false;
  }
  return true;
}

const Macro* QueryEngine::FindMacro(const void* engine, std::string_view name) {
  const auto& macros = static_cast<const QueryEngine*>(engine)->macros_;
  const auto it = macros.find(name);
  return it == macros.end() ? nullptr : &it->second;
}

bool QueryEngine::Expand(std::string_view text, std::string* out, std::string* error) {
  if (macros_.empty() || text.find("!(") == std::string_view::npos) {
    out->assign(text);
    return true;
  }
  return ExpandMacros(text, &QueryEngine::FindMacro, this, out, error);
}

bool QueryEngine::CreateTableOrView(const PerfettoStatement& s, std::string* error) {
  const bool table = s.kind == PerfettoStatement::kTable;
  const std::string what = table ? "TABLE" : "VIEW";
  const std::string context = "CREATE PERFETTO " + what + " " + s.name + ": ";
  std::string body;
  if (!Expand(s.body, &body, error))
    return false;
  std::string sql;
  if (s.replace)
    sql = "DROP " + what + " IF EXISTS " + Quoted(s.name) + "; ";
  sql += "CREATE " + what + " " + Quoted(s.name) + " AS " + body;
  if (!Exec(sql, error)) {
    *error = context + *error;
    return false;
  }
  std::vector<std::string> made;
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, ("SELECT name FROM pragma_table_info(" + Quoted(s.name) + ")").c_str(),
                         -1, &stmt, nullptr) == SQLITE_OK) {
    while (sqlite3_step(stmt) == SQLITE_ROW)
      made.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)));
  }
  sqlite3_finalize(stmt);
  // A table's `id` column is looked up by (upstream's tables find rows by
  // id at once, and the standard library and the UI join on it): an index
  // on it, or every such join scans the whole table per row (Perfetto UI's
  // flamegraph of 165 k slices ran for minutes without). Only a speed-up:
  // should its name be taken, the table goes without.
  if (table && std::find(made.begin(), made.end(), "id") != made.end()) {
    std::string ignored;
    Exec("CREATE INDEX IF NOT EXISTS " + Quoted("__zt_id_of_" + s.name) + " ON " +
             Quoted(s.name) + "(id)",
         &ignored);
  }
  if (s.columns.empty())
    return true;
  // The declared schema must name the columns the select makes, in order.
  std::vector<std::string> declared;
  for (const PerfettoStatement::Arg& column : s.columns)
    declared.push_back(column.name);
  if (made != declared) {
    auto join = [](const std::vector<std::string>& names) {
      std::string out;
      for (const std::string& n : names)
        out += (out.empty() ? "" : ", ") + n;
      return out;
    };
    std::string ignored;
    Exec("DROP " + what + " " + Quoted(s.name), &ignored);
    *error = context + "the select makes the columns (" + join(made) +
             ") but the schema declares (" + join(declared) + ")";
    return false;
  }
  return true;
}

// Runs the module (or, for "a.*", every module under a.) once per
// connection: including it again does nothing, as upstream's.
bool QueryEngine::Include(const std::string& name, std::string* error) {
  size_t count = 0;
  const StdlibModule* modules = StdlibModules(&count);
  const bool wildcard = name.size() >= 2 && name.compare(name.size() - 2, 2, ".*") == 0;
  const std::string prefix = wildcard ? name.substr(0, name.size() - 1) : std::string();
  bool found = false;
  for (size_t i = 0; i < count; i++) {
    const std::string module = modules[i].name;
    if (wildcard ? module.compare(0, prefix.size(), prefix) != 0 : module != name)
      continue;
    found = true;
    if (std::find(included_.begin(), included_.end(), module) != included_.end())
      continue;
    included_.push_back(module);  // First: a module that includes itself ends.
    if (!Execute(modules[i].sql, nullptr, nullptr, error)) {
      *error = "INCLUDE PERFETTO MODULE " + module + ": " + *error;
      return false;
    }
  }
  if (!found) {
    std::string known;
    for (size_t i = 0; i < count; i++)
      known += (known.empty() ? "" : ", ") + std::string(modules[i].name);
    *error = "INCLUDE PERFETTO MODULE " + name + ": no such module (zerotrace has " +
             (known.empty() ? "none" : known) + "; docs/sql.md lists upstream's and which are here)";
    return false;
  }
  return true;
}

bool QueryEngine::RunPerfettoStatement(const PerfettoStatement& s, std::string* error) {
  switch (s.kind) {
    case PerfettoStatement::kNotPerfetto:
      return true;
    case PerfettoStatement::kTable:
    case PerfettoStatement::kView:
      return CreateTableOrView(s, error);
    case PerfettoStatement::kIndex: {
      std::string sql;
      if (s.replace)
        sql = "DROP INDEX IF EXISTS " + Quoted(s.name) + "; ";
      if (!Exec(sql + "CREATE INDEX " + Quoted(s.name) + " ON " + s.body, error)) {
        *error = "CREATE PERFETTO INDEX " + s.name + ": " + *error;
        return false;
      }
      return true;
    }
    case PerfettoStatement::kMacro: {
      if (macros_.count(s.name) && !s.replace) {
        *error = "CREATE PERFETTO MACRO " + s.name +
                 ": a macro of that name exists (CREATE OR REPLACE PERFETTO MACRO replaces it)";
        return false;
      }
      Macro macro;
      for (const PerfettoStatement::Arg& arg : s.args)
        macro.args.push_back(arg.name);
      macro.body = s.body;
      macros_[s.name] = std::move(macro);
      return true;
    }
    case PerfettoStatement::kFunction: {
      PerfettoStatement expanded = s;
      if (!Expand(s.body, &expanded.body, error))
        return false;
      return perfetto_functions_->Define(expanded, error);
    }
    case PerfettoStatement::kInclude:
      return Include(s.name, error);
  }
  return false;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
