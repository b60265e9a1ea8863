// Stands in for the SDK at link time (ZT_DEFINE_CATEGORIES registers its
// slot through this function), so that the only link errors possible are
// the slot definitions' own.
#include "zt/tracing/category.h"

namespace zt {
namespace internal {

bool RegisterCategorySlot(uint32_t, const Category*, uint32_t, const char*) {
  return true;
}

}  // namespace internal
}  // namespace zt

#ifdef CHECK_RUNTIME_IDS
#include <stdio.h>
#include <stdlib.h>

namespace zt {
namespace internal {
// Reached only by a lookup run at run time, which the headers never leave.
uint32_t category_not_declared(const char* name) {
  fprintf(stderr, "category_not_declared(\"%s\") at run time\n", name);
  abort();
}
}  // namespace internal
}  // namespace zt

uint32_t SharedIdSeenByBoth();
uint32_t SharedIdSeenByOne();

// Slot 5 for library one, 2 for library two (run.sh's case g).
int main() {
  const uint32_t both = SharedIdSeenByBoth(), one = SharedIdSeenByOne();
  printf("\"shared\" seen by both slots: %u (want 34), by slot 5 alone: %u (want 21)\n",
         both, one);
  return both == 34 && one == 21 ? 0 : 1;
}
#else
int main() {
  return 0;
}
#endif
