#include "src/processor/sql/export_database.h"

#include <errno.h>
#include <sqlite3.h>
#include <string.h>
#include <unistd.h>

namespace zt {
namespace processor {
namespace sql {
namespace {

constexpr char kSchema[] = "zt_export";

// SQL's quoting of an identifier or a string.
std::string Quote(const std::string& text, char quote) {
  std::string quoted(1, quote);
  for (char c : text) {
    quoted += c;
    if (c == quote)
      quoted += c;
  }
  quoted += quote;
  return quoted;
}

bool Exec(sqlite3* db, const std::string& sql, std::string* error) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    *error = message ? message : sqlite3_errmsg(db);
    sqlite3_free(message);
    return false;
  }
  return true;
}

// "CREATE TABLE zt_export.t (c TYPE, ...)" from what `SELECT * FROM t`
// returns.
bool CreateStatement(sqlite3* db, const std::string& table, std::string* create,
                     std::string* error) {
  sqlite3_stmt* stmt = nullptr;
  const std::string select = "SELECT * FROM main." + Quote(table, '"');
  if (sqlite3_prepare_v2(db, select.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    *error = sqlite3_errmsg(db);
    return false;
  }
  *create = std::string("CREATE TABLE ") + kSchema + "." + Quote(table, '"') + " (";
  const int count = sqlite3_column_count(stmt);
  for (int i = 0; i < count; i++) {
    const std::string name = sqlite3_column_name(stmt, i);
    const char* type = sqlite3_column_decltype(stmt, i);
    if (i)
      *create += ", ";
    *create += Quote(name, '"');
    if (type && *type)
      *create += std::string(" ") + type;
    if (i == 0 && (name == "id" || name == "utid" || name == "upid") && type &&
        strcmp(type, "INTEGER") == 0) {
      *create += " PRIMARY KEY";
    }
  }
  *create += ")";
  sqlite3_finalize(stmt);
  return true;
}

bool ExportTables(sqlite3* db, const std::vector<std::string>& tables, std::string* error) {
  for (const std::string& table : tables) {
    std::string create;
    if (!CreateStatement(db, table, &create, error) || !Exec(db, create, error))
      return false;
    const std::string quoted = Quote(table, '"');
    if (!Exec(db,
              std::string("INSERT INTO ") + kSchema + "." + quoted + " SELECT * FROM main." +
                  quoted,
              error))
      return false;
  }
  struct Index {
    const char* table;
    const char* column;
  };
  static const Index kIndexes[] = {{"slice", "ts"},
                                   {"slice", "track_id"},
                                   {"counter", "ts"},
                                   {"counter", "track_id"},
                                   {"args", "arg_set_id"}};
  for (const Index& index : kIndexes) {
    bool listed = false;
    for (const std::string& table : tables)
      listed = listed || table == index.table;
    if (!listed)
      continue;
    if (!Exec(db,
              std::string("CREATE INDEX ") + kSchema + "." + index.table + "_" + index.column +
                  " ON " + index.table + "(" + index.column + ")",
              error))
      return false;
  }
  return true;
}

}  // namespace

bool ExportDatabase(sqlite3* db, const std::vector<std::string>& tables,
                    const std::string& path, std::string* error) {
  // Written beside |path| under another name and renamed over it once
  // complete: a full disk or a crash midway leaves |path| as it was (and
  // no half database that SQLite would open without complaint).
  const std::string partial = path + ".partial-" + std::to_string(getpid());
  if (unlink(partial.c_str()) != 0 && errno != ENOENT) {
    *error = "cannot replace " + partial + ": " + strerror(errno);
    return false;
  }
  if (!Exec(db, "ATTACH DATABASE " + Quote(partial, '\'') + " AS " + kSchema, error)) {
    *error = "cannot create " + path + ": " + *error;
    return false;
  }
  bool ok = Exec(db, std::string("PRAGMA ") + kSchema + ".journal_mode = OFF", error) &&
            Exec(db, std::string("PRAGMA ") + kSchema + ".synchronous = OFF", error) &&
            Exec(db, "BEGIN", error);
  if (ok) {
    ok = ExportTables(db, tables, error);
    std::string ignored;
    ok = Exec(db, ok ? "COMMIT" : "ROLLBACK", ok ? error : &ignored) && ok;
  }
  std::string detach_error;
  const bool detached = Exec(db, std::string("DETACH DATABASE ") + kSchema, &detach_error);
  if (ok && !detached) {
    *error = detach_error;
    ok = false;
  }
  if (ok && rename(partial.c_str(), path.c_str()) != 0) {
    *error = std::string("rename from ") + partial + ": " + strerror(errno);
    ok = false;
  }
  if (!ok) {
    unlink(partial.c_str());
    *error = "cannot write " + path + ": " + *error;
  }
  return ok;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
