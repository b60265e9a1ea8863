// The fast paths' table lookup (FindTableFn) over a StorageTables, as the
// tests and fuzzers of grouped_aggregate.h and direct_scan.h give it: any
// of the trace's tables by name, case-insensitively (the engine's own also
// skips names a table or view of the session hides).

#ifndef ZT_SRC_PROCESSOR_SQL_FIND_TABLE_FOR_TESTING_H_
#define ZT_SRC_PROCESSOR_SQL_FIND_TABLE_FOR_TESTING_H_

#include <strings.h>

#include <string_view>

#include "src/processor/sql/column_table.h"
#include "src/processor/sql/storage_tables.h"

namespace zt {
namespace processor {
namespace sql {

// `tables` is a StorageTables*.
inline ColumnTable* FindStorageTableForTesting(void* tables, std::string_view name) {
  for (const auto& table : static_cast<StorageTables*>(tables)->tables()) {
    if (table->name().size() == name.size() &&
        strncasecmp(table->name().data(), name.data(), name.size()) == 0)
      return table.get();
  }
  return nullptr;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_FIND_TABLE_FOR_TESTING_H_
