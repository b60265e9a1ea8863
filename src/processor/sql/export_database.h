// Writes tables of a connection (virtual tables and views included) as
// real SQLite tables into a new database file, for `ztrace export-db`: the
// file opens in the `sqlite3` shell and any SQLite library without
// zerotrace.
//
// Each table keeps its columns and declared types; a first column named
// id, utid or upid becomes the INTEGER PRIMARY KEY (lookups by id stay
// fast), and slice and counter get indexes on ts and track_id, args on
// arg_set_id. Cost: one pass over every table in a single transaction,
// journal off, into `path`.partial-PID, renamed over `path` once complete:
// an existing file at `path` is replaced only by a whole database, and a
// failed export (a full disk) leaves `path` as it was and no partial file.

#ifndef ZT_SRC_PROCESSOR_SQL_EXPORT_DATABASE_H_
#define ZT_SRC_PROCESSOR_SQL_EXPORT_DATABASE_H_

#include <string>
#include <vector>

struct sqlite3;

namespace zt {
namespace processor {
namespace sql {

bool ExportDatabase(sqlite3* db, const std::vector<std::string>& tables,
                    const std::string& path, std::string* error);

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_EXPORT_DATABASE_H_
