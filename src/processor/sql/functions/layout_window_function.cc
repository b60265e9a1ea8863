// INTERNAL_LAYOUT(ts, dur) OVER (ORDER BY ts ROWS BETWEEN UNBOUNDED
// PRECEDING AND CURRENT ROW): a depth for each of a set of spans that may
// overlap, as Perfetto UI asks upstream's processor for one to draw spans
// without depths of their own: each span takes the lowest depth free at
// its start; a depth frees when its span ends (dur -1: never); an instant
// (dur 0) takes a depth without holding it. With PARTITION BY, each
// partition is laid out on its own.

#include <sqlite3.h>

#include <cstdint>
#include <limits>
#include <queue>
#include <string>
#include <vector>

#include "src/processor/sql/functions/functions.h"

namespace zt {
namespace processor {
namespace sql {
namespace layout_window_function {

class Packer {
 public:
  // False with *error if the rows are out of order.
  bool Add(int64_t ts, int64_t dur, std::string* error) {
    if (ts < last_ts_) {
      *error = "internal_layout: the rows must come in ts order (ORDER BY ts in its window)";
      return false;
    }
    last_ts_ = ts;
    while (!ends_.empty() && ends_.top().first <= ts) {
      busy_[ends_.top().second] = false;
      ends_.pop();
    }
    size_t depth = 0;
    while (depth < busy_.size() && busy_[depth])
      depth++;
    if (depth == busy_.size())
      busy_.push_back(false);
    if (dur != 0) {
      busy_[depth] = true;
      ends_.emplace(dur < 0 ? std::numeric_limits<int64_t>::max() : ts + dur, depth);
    }
    last_depth_ = static_cast<int64_t>(depth);
    return true;
  }
  int64_t last_depth() const { return last_depth_; }

 private:
  using End = std::pair<int64_t, size_t>;  // When, which depth.
  std::vector<bool> busy_;
  std::priority_queue<End, std::vector<End>, std::greater<End>> ends_;
  int64_t last_ts_ = std::numeric_limits<int64_t>::min();
  int64_t last_depth_ = 0;
};

Packer** Context(sqlite3_context* ctx, bool create) {
  return static_cast<Packer**>(sqlite3_aggregate_context(ctx, create ? sizeof(Packer*) : 0));
}

void Step(sqlite3_context* ctx, int, sqlite3_value** argv) {
  Packer** packer = Context(ctx, true);
  if (!packer)
    return sqlite3_result_error_nomem(ctx);
  if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER ||
      sqlite3_value_type(argv[1]) != SQLITE_INTEGER)
    return sqlite3_result_error(ctx, "internal_layout: ts and dur must be integers", -1);
  const int64_t ts = sqlite3_value_int64(argv[0]);
  const int64_t dur = sqlite3_value_int64(argv[1]);
  if (ts < 0)
    return sqlite3_result_error(ctx, "internal_layout: ts cannot be negative", -1);
  if (dur < -1)
    return sqlite3_result_error(ctx, "internal_layout: dur cannot be less than -1", -1);
  if (!*packer)
    *packer = new Packer();
  std::string error;
  if (!(*packer)->Add(ts, dur, &error))
    sqlite3_result_error(ctx, error.c_str(), -1);
}

void Inverse(sqlite3_context* ctx, int, sqlite3_value**) {
  sqlite3_result_error(ctx,
                       "internal_layout: its window must be ROWS BETWEEN UNBOUNDED PRECEDING "
                       "AND CURRENT ROW",
                       -1);
}

void Value(sqlite3_context* ctx) {
  Packer** packer = Context(ctx, false);
  if (!packer || !*packer)
    return sqlite3_result_null(ctx);
  sqlite3_result_int64(ctx, (*packer)->last_depth());
}

void Final(sqlite3_context* ctx) {
  Packer** packer = Context(ctx, false);
  if (!packer || !*packer)
    return sqlite3_result_null(ctx);
  sqlite3_result_int64(ctx, (*packer)->last_depth());
  delete *packer;
  *packer = nullptr;
}

}  // namespace layout_window_function

bool RegisterLayoutWindowFunction(sqlite3* db, std::string* error) {
  using namespace layout_window_function;  // NOLINT: this file's own helpers.
  if (sqlite3_create_window_function(db, "internal_layout", 2, SQLITE_UTF8, nullptr, Step, Final,
                                     Value, Inverse, nullptr) != SQLITE_OK) {
    *error = std::string("cannot register internal_layout: ") + sqlite3_errmsg(db);
    return false;
  }
  return true;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
