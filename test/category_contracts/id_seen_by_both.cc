// With id_seen_by_one.cc: the same first use (the same __COUNTER__ value)
// in two files that see different slots. The id is a constant in each
// file; nothing of the lookup is left for the linker to pick one of.
#include <lib_one_categories.h>
#include <lib_two_categories.h>

// "shared": index 2 of slot LIB_TWO_SLOT, the lower one.
uint32_t SharedIdSeenByBoth() {
  return ZT_INTERNAL_CATEGORY_ID("shared");
}
