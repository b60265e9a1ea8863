// For the SQL tests: a query's rows as text lines ("a|b", NULL as "NULL"),
// or one line "error: <message>" if it fails.

#ifndef ZT_SRC_PROCESSOR_SQL_QUERY_ROWS_FOR_TESTING_H_
#define ZT_SRC_PROCESSOR_SQL_QUERY_ROWS_FOR_TESTING_H_

#include <string>
#include <vector>

#include "src/processor/sql/query_engine.h"

namespace zt {
namespace processor {
namespace sql {

inline std::vector<std::string> QueryRows(QueryEngine* engine, const std::string& sql) {
  std::vector<std::string> rows;
  std::string error;
  const bool ok = engine->Execute(
      sql, nullptr,
      [&rows](const std::vector<SqlValue>& row) {
        std::string line;
        for (size_t i = 0; i < row.size(); i++)
          line += (i ? "|" : "") + (row[i].is_null() ? "NULL" : row[i].ToString());
        rows.push_back(line);
        return true;
      },
      &error);
  if (!ok)
    rows.push_back("error: " + error);
  return rows;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_QUERY_ROWS_FOR_TESTING_H_
