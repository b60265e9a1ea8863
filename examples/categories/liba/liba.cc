#include "liba/liba.h"

ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(LIBA_TRACE_SLOT));

namespace liba {

int Read(int block) {
  TRACE_EVENT("liba.io", "liba.io:Read", "block", block);
  TRACE_EVENT_INSTANT("common", "liba.common:Note");
  return Double(block);
}

}  // namespace liba
