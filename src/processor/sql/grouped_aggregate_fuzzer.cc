// libFuzzer target: any text through the grouped-aggregate fast path
// (grouped_aggregate.h), differentially. When the recogniser takes a
// statement, SQLite must run the same statement (the engine's fast path
// turned off) and give the same columns and rows in the same order. Beyond that: no crash,
// no out-of-bounds read, no endless loop on any text.

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <strings.h>

#include "src/processor/sql/grouped_aggregate.h"
#include "src/processor/sql/query_engine.h"
#include "src/processor/sql/sample_storage_for_testing.h"
#include "src/processor/sql/find_table_for_testing.h"
#include "src/processor/sql/storage_tables.h"

namespace {

using namespace zt::processor;
using namespace zt::processor::sql;

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


}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static World* world = new World();
  const std::string text(reinterpret_cast<const char*>(data), size);
  GroupedAggregateResult fast;
  if (!TryGroupedAggregate(text, &FindStorageTableForTesting, world->tables.get(), &fast))
    return 0;
  Check(!fast.columns.empty());
  for (const auto& row : fast.rows)
    Check(row.size() == fast.columns.size());
  if (text.find('\0') != std::string::npos)
    return 0;  // The engine's statements are C strings.
  GroupedAggregateResult slow;
  std::string error;
  world->engine->set_grouped_aggregate_fast_path(false);
  const bool ok = world->engine->Execute(
      text,
      [&slow](const std::vector<std::string>& columns) { slow.columns = columns; },
      [&slow](const std::vector<SqlValue>& row) {
        slow.rows.push_back(row);
        return true;
      },
      &error);
  world->engine->set_grouped_aggregate_fast_path(true);
  // A shape the fast path takes may still be one SQLite refuses (more
  // result columns than it allows); the engine prepares every statement
  // in SQLite first, so the fast path never answers one.
  if (!ok)
    return 0;
  Check(slow.columns == fast.columns);
  Check(slow.rows.size() == fast.rows.size());
  for (size_t r = 0; r < fast.rows.size(); r++) {
    for (size_t c = 0; c < fast.columns.size(); c++) {
      const SqlValue& a = fast.rows[r][c];
      const SqlValue& b = slow.rows[r][c];
      Check(a.type == b.type && a.ToString() == b.ToString());
    }
  }
  return 0;
}
