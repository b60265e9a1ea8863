// Trace time to the realtime and monotonic clocks, from the trace's clock
// snapshots (the clock_snapshot table), as upstream converts them:
//   TO_REALTIME(ts), TO_MONOTONIC(ts)  the clock's value at ts (ns)
//   ABS_TIME_STR(ts)                   realtime as ISO 8601 UTC,
//                                      "2024-05-01T12:00:00.000000123"
// Between two snapshots the earlier one's offset is applied, but never past
// the later one's value (a clock is not assumed to run at the trace clock's
// rate); before the first snapshot its value; after the last, its offset.
// NULL when the trace has no snapshot of that clock (a JSON trace), for
// NULL, and where the value would not fit in int64; a non-integer is an
// error.

#include <sqlite3.h>

#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <map>

#include "src/processor/sql/functions/functions.h"

namespace zt {
namespace processor {
namespace sql {
namespace clock_functions {

constexpr int64_t kRealtime = 1;
constexpr int64_t kMonotonic = 3;

template <int64_t kClock>
bool Convert(sqlite3_context* ctx, sqlite3_value* arg, const char* function, int64_t* out) {
  if (sqlite3_value_type(arg) == SQLITE_NULL)
    return false;
  if (sqlite3_value_type(arg) != SQLITE_INTEGER) {
    const std::string message = std::string(function) + ": the timestamp must be an integer";
    sqlite3_result_error(ctx, message.c_str(), -1);
    return false;
  }
  auto* context = static_cast<FunctionContext*>(sqlite3_user_data(ctx));
  const std::map<int64_t, int64_t>& timeline = context->clock_timeline(kClock);
  if (timeline.empty())
    return false;
  const int64_t ts = sqlite3_value_int64(arg);
  // value + (ts - snapshot ts); NULL where that leaves int64.
  auto offset_from = [ts](const std::pair<const int64_t, int64_t>& snapshot, int64_t* value) {
    int64_t delta;
    return !__builtin_sub_overflow(ts, snapshot.first, &delta) &&
           !__builtin_add_overflow(snapshot.second, delta, value);
  };
  auto next = timeline.lower_bound(ts);
  if (next == timeline.end())
    return offset_from(*std::prev(next), out);
  if (next == timeline.begin() || next->first == ts) {
    *out = next->second;
    return true;
  }
  int64_t value;
  if (!offset_from(*std::prev(next), &value))
    return false;
  *out = std::min(value, next->second);
  return true;
}

void ToRealtime(sqlite3_context* ctx, int, sqlite3_value** argv) {
  int64_t value = 0;
  if (Convert<kRealtime>(ctx, argv[0], "to_realtime", &value))
    sqlite3_result_int64(ctx, value);
}

void ToMonotonic(sqlite3_context* ctx, int, sqlite3_value** argv) {
  int64_t value = 0;
  if (Convert<kMonotonic>(ctx, argv[0], "to_monotonic", &value))
    sqlite3_result_int64(ctx, value);
}

void AbsTimeStr(sqlite3_context* ctx, int, sqlite3_value** argv) {
  int64_t ns = 0;
  if (!Convert<kRealtime>(ctx, argv[0], "abs_time_str", &ns))
    return;
  // Floor division, so that instants before 1970 print as dates too.
  int64_t seconds = ns / 1000000000;
  int64_t fraction = ns % 1000000000;
  if (fraction < 0) {
    fraction += 1000000000;
    seconds--;
  }
  const time_t t = static_cast<time_t>(seconds);
  struct tm utc;
  if (!gmtime_r(&t, &utc))
    return;
  char text[64];
  snprintf(text, sizeof(text), "%04d-%02d-%02dT%02d:%02d:%02d.%09" PRId64, utc.tm_year + 1900,
           utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, fraction);
  sqlite3_result_text(ctx, text, -1, SQLITE_TRANSIENT);
}

}  // namespace clock_functions

bool RegisterClockFunctions(sqlite3* db, FunctionContext* context, std::string* error) {
  struct Entry {
    const char* name;
    void (*fn)(sqlite3_context*, int, sqlite3_value**);
  };
  const Entry entries[] = {{"to_realtime", clock_functions::ToRealtime},
                           {"to_monotonic", clock_functions::ToMonotonic},
                           {"abs_time_str", clock_functions::AbsTimeStr}};
  for (const Entry& e : entries) {
    if (sqlite3_create_function_v2(db, e.name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, context, e.fn,
                                   nullptr, nullptr, nullptr) != SQLITE_OK) {
      *error = std::string("cannot register ") + e.name + ": " + sqlite3_errmsg(db);
      return false;
    }
  }
  return true;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
