// A use sees the slots declared above it, not those declared further down:
// a file may include a library's category header after using another's.
// A use inside a template sees what was declared above the template's
// definition, wherever it is instantiated (g++ once bound it where the
// template was first instantiated, clang++ where it was defined).
#define LIB_ONE_SLOT 5
#define LIB_TWO_SLOT 2
#include <lib_one_categories.h>

#include "zt/tracing/track_event.h"

// Only slot 5 is visible: "shared" is its index 1 (id 21).
static_assert(ZT_INTERNAL_CATEGORY_ID("shared") == ((1 << 4) | 5),
              "before slot 2's header: \"shared\" is slot 5's");

template <typename T>
constexpr uint32_t SharedIdInTemplate() {
  return ZT_INTERNAL_CATEGORY_ID("shared");
}

void WorkBefore() {
  TRACE_EVENT("shared", "WorkBefore");
}

#include <lib_two_categories.h>

// Slot 2 is visible now, and the lower slot wins: index 2 of slot 2 (34).
static_assert(ZT_INTERNAL_CATEGORY_ID("shared") == ((2 << 4) | 2),
              "after slot 2's header: \"shared\" is slot 2's");
static_assert(ZT_INTERNAL_CATEGORY_ID("two.detail") == ((1 << 4) | 2),
              "slot 2's own names resolve after its header");
static_assert(SharedIdInTemplate<int>() == ((1 << 4) | 5),
              "a template defined above slot 2's header sees slot 5 only");

void WorkAfter() {
  TRACE_EVENT("shared", "WorkAfter");
  TRACE_EVENT("two.detail", "WorkAfter");
}
