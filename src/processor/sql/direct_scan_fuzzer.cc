// libFuzzer target: any text through the direct-scan fast path
// (direct_scan.h), differentially. When the recogniser takes a statement,
// the engine runs it with the fast path and with SQLite alone, and the
// column names, the cells' types and values and the row order must be
// the same. Beyond that: no crash, no out-of-bounds read, no endless loop.

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <strings.h>

#include "src/processor/sql/direct_scan.h"
#include "src/processor/sql/query_engine.h"
#include "src/processor/sql/sample_storage_for_testing.h"
#include "src/processor/sql/find_table_for_testing.h"
#include "src/processor/sql/storage_tables.h"

namespace {

using zt::processor::sql::MakeSampleStorage;
using zt::processor::SqlValue;
using zt::processor::TraceStorage;
using zt::processor::sql::ColumnTable;
using zt::processor::sql::DirectScan;
using zt::processor::sql::FindStorageTableForTesting;
using zt::processor::sql::QueryEngine;
using zt::processor::sql::StorageTables;

void Check(bool cond) {
  if (!cond)
    abort();
}

struct World {
  std::unique_ptr<TraceStorage> storage = MakeSampleStorage();
  std::unique_ptr<StorageTables> tables = std::make_unique<StorageTables>(*storage);
  std::unique_ptr<QueryEngine> engine;
  World() {
    std::string error;
    engine = QueryEngine::Create(storage.get(), &error);
    Check(engine != nullptr);
  }
};


struct Result {
  bool ok = false;
  std::vector<std::string> columns;
  std::vector<std::vector<SqlValue>> rows;
};

Result Run(QueryEngine* engine, const std::string& text, bool fast) {
  Result result;
  std::string error;
  engine->set_direct_scan_fast_path(fast);
  result.ok = engine->Execute(
      text, [&result](const std::vector<std::string>& columns) { result.columns = columns; },
      [&result](const std::vector<SqlValue>& row) {
        result.rows.push_back(row);
        return true;
      },
      &error);
  engine->set_direct_scan_fast_path(true);
  return result;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static World* world = new World();
  const std::string text(reinterpret_cast<const char*>(data), size);
  DirectScan scan;
  if (!zt::processor::sql::ParseDirectScan(text, &FindStorageTableForTesting, world->tables.get(), &scan))
    return 0;
  Check(!scan.columns.empty() && scan.columns.size() == scan.names.size());
  Check(scan.begin_row() <= scan.end_row() && scan.end_row() <= scan.table->rows());
  if (text.find('\0') != std::string::npos)
    return 0;  // The engine's statements are C strings.
  const Result fast = Run(world->engine.get(), text, true);
  const Result slow = Run(world->engine.get(), text, false);
  // A shape the fast path takes may still be one SQLite refuses (more
  // result columns than it allows): then both fail alike.
  Check(fast.ok == slow.ok);
  if (!fast.ok)
    return 0;
  Check(fast.columns == slow.columns);
  Check(fast.rows.size() == slow.rows.size());
  for (size_t r = 0; r < fast.rows.size(); r++) {
    for (size_t c = 0; c < fast.columns.size(); c++) {
      const SqlValue& a = fast.rows[r][c];
      const SqlValue& b = slow.rows[r][c];
      Check(a.type == b.type && a.int_value == b.int_value && a.text == b.text &&
            (a.real_value == b.real_value || (a.real_value != a.real_value &&
                                              b.real_value != b.real_value)));
    }
  }
  return 0;
}
