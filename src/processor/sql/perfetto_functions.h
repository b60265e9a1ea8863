// The functions `CREATE PERFETTO FUNCTION` defines (scalar ones: RETURNS a
// type): each is an SQLite function whose body, a SELECT using `$arg`s, is
// run with the arguments bound; its value is the first column of the first
// row (NULL if there is none). Owned by the QueryEngine; thread-compatible,
// as the connection.

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

  // Registers the function `statement` (kFunction, RETURNS a type)
  // declares, its body's macros already expanded. False with *error: a
  // body SQLite cannot prepare, a function of that name that exists and no
  // OR REPLACE, an argument the body never uses.
  bool Define(const PerfettoStatement& statement, std::string* error);

  // One function: its body and the arguments it binds.
  struct Function {
    std::string name;
    std::string body;
    std::vector<std::string> args;  // "$name", as bound.
    sqlite3* db = nullptr;
    // The prepared body, reused while no call of the same function is
    // running (a recursive call prepares its own).
    sqlite3_stmt* statement = nullptr;
    ~Function();
  };

 private:
  sqlite3* const db_;
  std::map<std::string, std::unique_ptr<Function>> functions_;  // By lower-cased name.
};

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_PERFETTO_FUNCTIONS_H_
