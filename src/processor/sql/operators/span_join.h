// SPAN_JOIN, SPAN_LEFT_JOIN and SPAN_OUTER_JOIN: upstream Perfetto's
// operator tables that intersect the spans (ts, dur) of two tables or
// views, optionally partition by partition:
//
//   CREATE VIRTUAL TABLE both USING SPAN_JOIN(a PARTITIONED cpu, b PARTITIONED cpu);
//   SELECT ts, dur, cpu, a_col, b_col FROM both;
//
// Columns: ts, dur, the partition column (when either side names one),
// then each side's other columns. A row is a maximal interval over which
// the pair (span of a, span of b) is the same: both present for SPAN_JOIN;
// also a's spans where b has none (b's columns NULL) for SPAN_LEFT_JOIN;
// either side alone too for SPAN_OUTER_JOIN. Spans of zero duration are
// kept as rows of zero duration, paired with the other side's span around
// them; a span of dur -1 (a slice that never ended) runs to the end of
// time, its rows get dur -1; other negative durations are ignored. A side
// without a partition applies to every partition of the other. Rows come
// partition by partition, in time order.
//
// As upstream requires, the spans of one side within a partition must not
// overlap; overlapping spans give rows for one of them only (upstream's
// give wrong rows silently too). Partitions are integers.
//
// Cost: each scan reads both sides once (an SQL query each), sorts them
// (O(n log n)) and sweeps; the result is held in memory for the scan.
// docs/design/perfetto_sql.md.

#ifndef ZT_SRC_PROCESSOR_SQL_OPERATORS_SPAN_JOIN_H_
#define ZT_SRC_PROCESSOR_SQL_OPERATORS_SPAN_JOIN_H_

#include <sqlite3.h>

#include <string>

namespace zt {
namespace processor {
namespace sql {

// Registers the three modules on `db`. False with *error on failure.
bool RegisterSpanJoin(sqlite3* db, std::string* error);

}  // namespace sql
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SQL_OPERATORS_SPAN_JOIN_H_
