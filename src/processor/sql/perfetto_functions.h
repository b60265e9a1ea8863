// The functions `CREATE PERFETTO FUNCTION` defines. A scalar one (RETURNS
// a type) is an SQLite function whose body, a SELECT using `$arg`s, is run
// with the arguments bound; its value is the first column of the first row
// (NULL if there is none). One that RETURNS TABLE(...) is a table-valued
// function (perfetto_table_functions.cc): the body's rows, with the
// declared columns. Owned by the QueryEngine; thread-compatible, as the
// connection.

#ifndef ZT_SRC_PROCESSOR_SQL_PERFETTO_FUNCTIONS_H_
#define ZT_SRC_PROCESSOR_SQL_PERFETTO_FUNCTIONS_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "src/processor/sql/perfetto_sql_parser.h"

struct sqlite3;
struct sqlite3_stmt;

namespace zt {
namespace processor {
namespace sql {

class PerfettoFunctions {
 public:
  explicit PerfettoFunctions(sqlite3* db) : db_(db) {}
  ~PerfettoFunctions();
  PerfettoFunctions(const PerfettoFunctions&) = delete;
  PerfettoFunctions& operator=(const PerfettoFunctions&) = delete;

  // Registers the function `statement` (kFunction) declares, its body's
  // macros already expanded. False with *error: a body SQLite cannot
  // prepare, a function of that name that exists and no OR REPLACE, a
  // table function whose body makes other columns than it declares.
  bool Define(const PerfettoStatement& statement, std::string* error);

  // One function: its body and the arguments it binds.
  struct Function {
    std::string name;
    std::string body;
    std::vector<std::string> args;     // "$name", as bound.
    std::vector<std::string> columns;  // RETURNS TABLE(...): the columns; else empty.
    sqlite3* db = nullptr;
    // The prepared body, reused while no call of the same function is
    // running (a recursive call prepares its own).
    sqlite3_stmt* statement = nullptr;
    ~Function();
  };

  // Prepares `function`'s body; false with *error (naming the function) if
  // SQLite refuses it or it is not one statement.
  static bool PrepareBody(Function* function, sqlite3_stmt** out, std::string* error);

 private:
  bool DefineTable(std::unique_ptr<Function> function, const PerfettoStatement& statement,
                   const std::string& key, std::string* error);
  bool RegisterTableFunction(Function* function, std::string* error);

  sqlite3* const db_;
  std::map<std::string, std::unique_ptr<Function>> functions_;  // By lower-cased name.
};

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_PERFETTO_FUNCTIONS_H_
