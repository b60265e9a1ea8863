// A use sees the slots declared above it, not those declared further down:
// a file may include a library's category header after using another's.
// A name that depends on a template's parameters is looked up where the
// template is first instantiated for that name's type (later instantiations
// reuse the answer). Where a template's use with a literal name is bound
// differs: g++ where the template is first instantiated, clang++ where it
// is defined. Not checked here.
#define LIB_ONE_SLOT 5
#define LIB_TWO_SLOT 2
#include <lib_one_categories.h>

#include "zt/tracing/track_event.h"

// Only slot 5 is visible: "shared" is its index 1 (id 21).
static_assert(ZT_INTERNAL_CATEGORY_ID("shared") == ((1 << 4) | 5),
              "before slot 2's header: \"shared\" is slot 5's");

// A generic helper defined before slot 2's header, naming its category
// through a template parameter.
template <typename Traits>
constexpr uint32_t CategoryIdOf() {
  return ZT_INTERNAL_CATEGORY_ID(Traits::kCategory);
}
template <typename Traits>
bool EnabledOf() {
  return TRACE_EVENT_CATEGORY_ENABLED(Traits::kCategory);
}
struct TwoDetail {
  static constexpr const char* kCategory = "two.detail";
};

void WorkBefore() {
  TRACE_EVENT("shared", "WorkBefore");
}

#include <lib_two_categories.h>

// Slot 2 is visible now, and the lower slot wins: index 2 of slot 2 (34).
static_assert(ZT_INTERNAL_CATEGORY_ID("shared") == ((2 << 4) | 2),
              "after slot 2's header: \"shared\" is slot 2's");
static_assert(ZT_INTERNAL_CATEGORY_ID("two.detail") == ((1 << 4) | 2),
              "slot 2's own names resolve after its header");
static_assert(CategoryIdOf<TwoDetail>() == ((1 << 4) | 2),
              "a name from a template parameter: looked up where instantiated");

void WorkAfter() {
  TRACE_EVENT("shared", "WorkAfter");
  TRACE_EVENT("two.detail", "WorkAfter");
  (void)EnabledOf<TwoDetail>();
}
