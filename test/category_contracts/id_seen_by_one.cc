// See id_seen_by_both.cc.
#include <lib_one_categories.h>

// "shared": index 1 of slot LIB_ONE_SLOT, the only one this file sees.
uint32_t SharedIdSeenByOne() {
  return ZT_INTERNAL_CATEGORY_ID("shared");
}
