#include "libb/libb.h"

ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(LIBB_TRACE_SLOT));

namespace libb {

int Transform(int x) {
  TRACE_EVENT("libb", "libb:Transform");
  TRACE_EVENT_INSTANT("libb.debug", "libb.debug:Detail");  // Off by default.
  return Square(liba::Double(x));
}

}  // namespace libb
