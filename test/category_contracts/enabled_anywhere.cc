// TRACE_EVENT_CATEGORY_ENABLED is an expression wherever one may be (it
// once took its id from a lambda, which C++17 allows in none of these).
#define LIB_ONE_SLOT 5
#include <lib_one_categories.h>

#include "zt/tracing/track_event.h"

bool g_one_on_at_start = TRACE_EVENT_CATEGORY_ENABLED("one");

void WithDefault(bool on = TRACE_EVENT_CATEGORY_ENABLED("shared")) {
  (void)on;
}

struct Holder {
  static inline bool on = TRACE_EVENT_CATEGORY_ENABLED("one");
};

template <typename T>
bool kOnFor = TRACE_EVENT_CATEGORY_ENABLED("one");

static_assert(sizeof(TRACE_EVENT_CATEGORY_ENABLED("one")) == sizeof(bool),
              "an unevaluated operand");

bool Work(const zt::DynamicCategory& dynamic) {
  WithDefault();
  return Holder::on || kOnFor<int> || TRACE_EVENT_CATEGORY_ENABLED(dynamic);
}
