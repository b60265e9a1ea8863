// The operator behind the standard library's intervals.intersect module:
// the intersection of 1 to 15 tables of intervals (id, ts, dur),
// optionally within partitions (rows of equal partition values, up to 4
// columns). A row of the result is one interval of each table that all
// overlap, with the span they share:
//
//   SELECT * FROM _interval_intersect!((a, b), (utid));
//   -- ts, dur, id_0 (a's id), id_1 (b's id), utid
//
// Overlap is upstream Perfetto's (v58): intervals are half-open [ts,
// ts + dur); two intervals of positive duration overlap if they share
// time; an interval of zero duration (an instant) overlaps another if it
// lies within it (an instant at another's end does not), and another
// instant if they are at the same ts; the shared span of an instant is the
// instant. A negative or NULL dur, or a NULL ts, is an error naming the
// interval's id; ids must be integers. Rows come partition by partition (in the order the
// partitions first appear), then in order of ts and of the ids.
//
// Pieces: the native macros `__zt_interval_intersect!(tables, partitions)`
// and `__zt_interval_intersect_named!(t1, id1, ts1, dur1, t2, id2, ts2,
// dur2, partitions)` (which the module's macros call) expand into the
// table function __zt_interval_intersect over each table's rows packed by
// __zt_pack_rows (packed_rows.h). Cost: each table is read once and
// sorted; each partial result is looked up in the next table (smallest
// first) through a max-end tree over its intervals sorted by ts:
// O(n log n + k log n) for k overlaps.

#ifndef ZT_SRC_PROCESSOR_SQL_OPERATORS_INTERVAL_INTERSECT_H_
#define ZT_SRC_PROCESSOR_SQL_OPERATORS_INTERVAL_INTERSECT_H_

#include <string>
#include <vector>

struct sqlite3;

namespace zt {
namespace processor {
namespace sql {

// Registers the table function __zt_interval_intersect.
bool RegisterIntervalIntersect(sqlite3* db, std::string* error);

// The native macros (Macro::native, perfetto_sql_parser.h): `args` are the
// call's arguments as text; *body gets the SQL they expand into.
bool ExpandIntervalIntersect(const std::vector<std::string>& args, std::string* body,
                             std::string* error);
bool ExpandIntervalIntersectNamed(const std::vector<std::string>& args, std::string* body,
                                  std::string* error);

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_OPERATORS_INTERVAL_INTERSECT_H_
