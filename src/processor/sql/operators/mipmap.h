// __intrinsic_slice_mipmap and __intrinsic_counter_mipmap: the operator
// tables Perfetto UI draws its tracks from, as upstream's processor
// provides them. Each is made over a subquery, whose rows it keeps, and
// queried with a window and a bucket width:
//
//   CREATE VIRTUAL TABLE m USING __intrinsic_slice_mipmap((
//     SELECT id, ts, dur, depth FROM slice WHERE track_id = 3));
//   SELECT ts, id, count, dur, depth FROM m(0, 1000000, 1000);
//
// The window [start, end) is cut into buckets of `step` from `start` (the
// last one may reach past `end`). Slices (the subquery's first four
// columns, by position: id, ts, dur, depth; in ts order within a depth):
// per depth and per bucket holding any slice start, one row: the longest
// slice starting there (the earliest of equal ones), and how many start
// there; the slice before the window that is still running at its start
// joins the first bucket. Counters (columns named ts and value, in ts
// order): per bucket holding any sample, the minimum and maximum value,
// and the last sample's ts and value; the sample in effect at the
// window's start joins the first bucket. Rows come depth by depth, buckets
// in time order.
//
// The subquery is read once, when the table is made. An empty subquery
// gives no rows (upstream's gives one made-up row at ts 0). Cost: O(rows)
// memory; a query is O(log rows) per bucket plus the slices in the window.

#ifndef ZT_SRC_PROCESSOR_SQL_OPERATORS_MIPMAP_H_
#define ZT_SRC_PROCESSOR_SQL_OPERATORS_MIPMAP_H_

#include <sqlite3.h>

#include <string>

namespace zt {
namespace processor {
namespace sql {

// Registers both modules on `db`. False with *error on failure.
bool RegisterMipmaps(sqlite3* db, std::string* error);

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_OPERATORS_MIPMAP_H_
