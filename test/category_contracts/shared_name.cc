// A name two visible slots declare resolves to the lower slot. The higher
// slot's header comes first, so the answer is not the include order.
#define LIB_ONE_SLOT 5
#define LIB_TWO_SLOT 2
#include <lib_one_categories.h>
#include <lib_two_categories.h>

#include "zt/tracing/track_event.h"

// "shared" is index 2 of slot 2 (id 34); slot 5 would give index 1 (id 21).
static_assert(ZT_INTERNAL_CATEGORY_ID("shared") == ((2 << 4) | 2),
              "\"shared\" resolves to the lower slot, 2");
// Names only one slot declares keep their own slot's id.
static_assert(ZT_INTERNAL_CATEGORY_ID("one") == 5, "\"one\": slot 5, index 0");
static_assert(ZT_INTERNAL_CATEGORY_ID("two.detail") == ((1 << 4) | 2),
              "\"two.detail\": slot 2, index 1");

// The macros take the ambiguous name too.
void Work() {
  TRACE_EVENT("shared", "Work");
}
