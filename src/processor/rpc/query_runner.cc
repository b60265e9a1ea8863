#include "src/processor/rpc/query_runner.h"

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "src/processor/sql/perfetto_sql_parser.h"

namespace zt {
namespace processor {
namespace rpc {

bool RunQuery(sql::QueryEngine* engine, const std::string& sql, QueryResultWriter* writer) {
  // The statements first: which one is last decides whose rows are sent.
  std::vector<std::pair<size_t, size_t>> statements;
  std::string error;
  for (size_t pos = 0; pos < sql.size();) {
    size_t begin = 0, end = 0;
    if (!sql::NextStatement(sql, pos, &begin, &end, &error))
      break;
    if (begin >= sql.size())
      break;
    statements.emplace_back(begin, end);
    pos = end;
  }
  if (error.empty() && statements.empty())
    error = "empty query";
  if (!error.empty()) {
    writer->Begin({}, 0, 0, "");
    writer->Finish(error);
    return false;
  }

  const uint32_t count = static_cast<uint32_t>(statements.size());
  uint32_t with_output = 0;
  bool begun = false;
  size_t columns = 0;
  for (size_t i = 0; i < statements.size(); i++) {
    const std::string statement =
        sql.substr(statements[i].first, statements[i].second - statements[i].first);
    const bool last = i + 1 == statements.size();
    bool had_columns = false;
    // Rows go out while the statement's first column list holds (a macro
    // may expand to several statements: the first one's rows are sent).
    bool sending = false;
    const bool ok = engine->Execute(
        statement,
        [&](const std::vector<std::string>& names) {
          if (!had_columns)
            with_output++;
          sending = last && !begun;
          had_columns = true;
          if (sending) {
            writer->Begin(names, count, with_output, statement);
            begun = true;
            columns = names.size();
          }
        },
        [&](const std::vector<SqlValue>& row) {
          if (sending && row.size() == columns)
            writer->AddRow(row);
          return true;
        },
        &error);
    if (!ok || (last && !begun)) {
      if (!begun)
        writer->Begin({}, count, with_output, statement);
      begun = true;
      if (!ok) {
        writer->Finish(error.empty() ? "query failed" : error);
        return false;
      }
    }
  }
  writer->Finish("");
  return true;
}

}  // namespace rpc
}  // namespace processor
}  // namespace zt
