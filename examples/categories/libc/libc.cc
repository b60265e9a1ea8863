#include "libc/libc.h"

ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(LIBC_TRACE_SLOT));

namespace libc_example {

int Run(int n) {
  TRACE_EVENT("libc.compute", "libc.compute:Run");
  int sum = 0;
  for (int i = 0; i < n; i++)
    sum += Pipeline(i);
  return sum;
}

}  // namespace libc_example
