// PERCENTILE(Y, P), MEDIAN(Y), PERCENTILE_CONT(Y, P): the aggregates of
// SQLite's percentile extension (in SQLite builds from 3.47 with
// SQLITE_ENABLE_PERCENTILE; Debian 12's 3.40 lacks them), which upstream's
// trace processor has and Perfetto UI calls (its distribution panel, its
// data grids' P50-P99). The P-th percentile of the non-NULL values of Y,
// interpolated linearly between the two values around it: P from 0 to 100
// for PERCENTILE, a fraction from 0 to 1 for PERCENTILE_CONT; MEDIAN is
// PERCENTILE(Y, 50). P must be the same for every row of a group. NULL when
// there is no value; numbers only (text is refused, as SQLite's own does).
// Also window functions. Cost: the group's values are kept (8 bytes each)
// and sorted once; as a window, each row then costs a binary search and a
// move of the values after it.

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

// Per function (its user data): its name for errors, and the scale of P
// (100 for PERCENTILE, 1 for PERCENTILE_CONT; 0 for MEDIAN: P is 50).
struct Kind {
  const char* name;
  double scale;
};

// A group's (or a window frame's) values. An aggregate appends and sorts
// once at the end; a window function, asked for a result per row, keeps
// them sorted from its first result on, so that each row costs a binary
// search and a move, not a sort.
struct Group {
  std::vector<double> values;
  bool sorted = false;
  double p = -1;  // Not set yet.
};

const Kind& KindOf(sqlite3_context* ctx) { return *static_cast<const Kind*>(sqlite3_user_data(ctx)); }

Group* GroupOf(sqlite3_context* ctx, bool create) {
  auto** group = static_cast<Group**>(sqlite3_aggregate_context(ctx, create ? sizeof(Group*) : 0));
  if (!group)
    return nullptr;
  if (!*group && create)
    *group = new Group();
  return *group;
}

void Error(sqlite3_context* ctx, const std::string& what) {
  const std::string message = std::string(KindOf(ctx).name) + ": " + what;
  sqlite3_result_error(ctx, message.c_str(), -1);
}

// Numbers only, as SQLite's own: text that looks like one is refused.
bool IsNumber(sqlite3_value* value) {
  const int type = sqlite3_value_type(value);
  return type == SQLITE_INTEGER || type == SQLITE_FLOAT;
}

void Step(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  Group* group = GroupOf(ctx, true);
  if (!group)
    return sqlite3_result_error_nomem(ctx);
  const Kind& kind = KindOf(ctx);
  double p = 0.5;
  if (argc == 2) {
    p = sqlite3_value_double(argv[1]) / kind.scale;
    if (!IsNumber(argv[1]) || !(p >= 0 && p <= 1)) {
      return Error(ctx, std::string("the percentile must be a number from 0 to ") +
                            (kind.scale == 100 ? "100" : "1"));
    }
  }
  // As SQLite's own: the same for every row, give or take 0.001 percent.
  if (group->p >= 0 && std::fabs(group->p - p) * 100 > 0.001)
    return Error(ctx, "the percentile must be the same for every row");
  if (group->p < 0)
    group->p = p;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
    return;
  if (!IsNumber(argv[0]))
    return Error(ctx, "the values must be numbers");
  const double value = sqlite3_value_double(argv[0]);
  if (group->sorted) {
    group->values.insert(std::upper_bound(group->values.begin(), group->values.end(), value),
                         value);
  } else {
    group->values.push_back(value);
  }
}

// As a window function: a row leaves the frame.
void Inverse(sqlite3_context* ctx, int, sqlite3_value** argv) {
  Group* group = GroupOf(ctx, false);
  if (!group || !IsNumber(argv[0]))
    return;
  const double value = sqlite3_value_double(argv[0]);
  std::vector<double>& values = group->values;
  const auto it = group->sorted ? std::lower_bound(values.begin(), values.end(), value)
                                : std::find(values.begin(), values.end(), value);
  if (it != values.end() && *it == value)
    values.erase(it);
}

void Result(sqlite3_context* ctx, Group* group) {
  if (!group || group->values.empty())
    return sqlite3_result_null(ctx);
  std::vector<double>& values = group->values;
  if (!group->sorted) {
    std::sort(values.begin(), values.end());
    group->sorted = true;
  }
  const double at = group->p * static_cast<double>(values.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(at));
  const double fraction = at - static_cast<double>(below);
  // On a value exactly: that value (an infinite one too, where
  // interpolating would make NaN of it).
  if (fraction == 0 || below + 1 >= values.size())
    return sqlite3_result_double(ctx, values[below]);
  sqlite3_result_double(ctx, values[below] + (values[below + 1] - values[below]) * fraction);
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
  static const percentile_functions::Kind kKinds[] = {
      {"PERCENTILE", 100}, {"PERCENTILE_CONT", 1}, {"MEDIAN", 0}};
  static const int kArgs[] = {2, 2, 1};
  for (size_t i = 0; i < 3; i++) {
    using namespace percentile_functions;  // NOLINT: this file's own helpers.
    if (sqlite3_create_window_function(db, kKinds[i].name, kArgs[i],
                                       SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                       const_cast<Kind*>(&kKinds[i]), Step, Final, Value, Inverse,
                                       nullptr) != SQLITE_OK) {
      *error = std::string("cannot register ") + kKinds[i].name + ": " + sqlite3_errmsg(db);
      return false;
    }
  }
  return true;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
