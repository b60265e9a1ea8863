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

int main() {
  return 0;
}
