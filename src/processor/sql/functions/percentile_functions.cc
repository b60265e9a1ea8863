// PERCENTILE(Y, P), MEDIAN(Y), PERCENTILE_CONT(Y, P): the aggregates of
// SQLite's percentile extension (in SQLite builds from 3.47 with
// SQLITE_ENABLE_PERCENTILE; Debian 12's 3.40 lacks them), which upstream's
// trace processor has and Perfetto UI calls (its distribution panel, its
// data grids' P50-P99). The P-th percentile of the non-NULL values of Y,
// interpolated linearly between the two values around it: P from 0 to 100
// for PERCENTILE, a fraction from 0 to 1 for PERCENTILE_CONT; MEDIAN is
// PERCENTILE(Y, 50). P must be the same for every row of a group. NULL when
// there is no value. Also window functions. Cost: the group's values are
// kept (8 bytes each) and sorted once per result.

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "src/processor/sql/functions/functions.h"

namespace zt {
namespace processor {
namespace sql {
// Named, not anonymous: the unity build puts other functions in this unit.
namespace percentile_functions {

struct Group {
  std::vector<double> values;
  double p = -1;  // Not set yet.
};

// The scale of P per function (user data): 100 for PERCENTILE, 1 for
// PERCENTILE_CONT; 0 for MEDIAN (P is 50, no argument).
double ScaleOf(sqlite3_context* ctx) {
  return *static_cast<const double*>(sqlite3_user_data(ctx));
}

Group* GroupOf(sqlite3_context* ctx, bool create) {
  auto** group = static_cast<Group**>(sqlite3_aggregate_context(ctx, create ? sizeof(Group*) : 0));
  if (!group)
    return nullptr;
  if (!*group && create)
    *group = new Group();
  return *group;
}

void Step(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  Group* group = GroupOf(ctx, true);
  if (!group)
    return sqlite3_result_error_nomem(ctx);
  const double scale = ScaleOf(ctx);
  double p = 0.5;
  if (argc == 2) {
    const int type = sqlite3_value_numeric_type(argv[1]);
    p = sqlite3_value_double(argv[1]) / scale;
    if ((type != SQLITE_INTEGER && type != SQLITE_FLOAT) || !(p >= 0 && p <= 1)) {
      const std::string message = std::string(scale == 100 ? "PERCENTILE" : "PERCENTILE_CONT") +
                                  ": the percentile must be a number from 0 to " +
                                  (scale == 100 ? "100" : "1");
      return sqlite3_result_error(ctx, message.c_str(), -1);
    }
  }
  if (group->p >= 0 && group->p != p)
    return sqlite3_result_error(ctx, "PERCENTILE: the percentile must be the same for every row",
                                -1);
  group->p = p;
  const int type = sqlite3_value_numeric_type(argv[0]);
  if (type == SQLITE_NULL)
    return;
  if (type != SQLITE_INTEGER && type != SQLITE_FLOAT)
    return sqlite3_result_error(ctx, "PERCENTILE: the values must be numbers", -1);
  group->values.push_back(sqlite3_value_double(argv[0]));
}

// As a window function: a row leaves the frame.
void Inverse(sqlite3_context* ctx, int, sqlite3_value** argv) {
  Group* group = GroupOf(ctx, false);
  const int type = sqlite3_value_numeric_type(argv[0]);
  if (!group || (type != SQLITE_INTEGER && type != SQLITE_FLOAT))
    return;
  const auto it = std::find(group->values.begin(), group->values.end(),
                            sqlite3_value_double(argv[0]));
  if (it != group->values.end())
    group->values.erase(it);
}

void Result(sqlite3_context* ctx, Group* group) {
  if (!group || group->values.empty())
    return sqlite3_result_null(ctx);
  std::vector<double> sorted = group->values;
  std::sort(sorted.begin(), sorted.end());
  const double at = group->p * static_cast<double>(sorted.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(at));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = at - static_cast<double>(below);
  sqlite3_result_double(ctx, sorted[below] + (sorted[above] - sorted[below]) * fraction);
}

void Value(sqlite3_context* ctx) { Result(ctx, GroupOf(ctx, false)); }

void Final(sqlite3_context* ctx) {
  Group* group = GroupOf(ctx, false);
  Result(ctx, group);
  delete group;
}

}  // namespace percentile_functions

bool RegisterPercentileFunctions(sqlite3* db, std::string* error) {
  // A SQLite that has them keeps its own.
  if (sqlite3_libversion_number() >= 3047000 && sqlite3_compileoption_used("ENABLE_PERCENTILE"))
    return true;
  static const double kPercent = 100, kFraction = 1, kMedian = 0;
  struct Entry {
    const char* name;
    int args;
    const double* scale;
  };
  for (const Entry& e : {Entry{"percentile", 2, &kPercent}, Entry{"percentile_cont", 2, &kFraction},
                         Entry{"median", 1, &kMedian}}) {
    using namespace percentile_functions;  // NOLINT: this file's own helpers.
    if (sqlite3_create_window_function(db, e.name, e.args, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                       const_cast<double*>(e.scale), Step, Final, Value, Inverse,
                                       nullptr) != SQLITE_OK) {
      *error = std::string("cannot register ") + e.name + ": " + sqlite3_errmsg(db);
      return false;
    }
  }
  return true;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
