// A file of the program using both libraries' categories (resolved at
// compile time, as TRACE_EVENT resolves them).
#include <lib_one_categories.h>
#include <lib_two_categories.h>

constexpr uint32_t kOneId = ZT_INTERNAL_CATEGORY_ID("one");
constexpr uint32_t kTwoDetailId = ZT_INTERNAL_CATEGORY_ID("two.detail");
static_assert(kOneId == LIB_ONE_SLOT, "index 0 of library one's slot");
static_assert(kTwoDetailId == ((1 << 4) | LIB_TWO_SLOT),
              "index 1 of library two's slot");
