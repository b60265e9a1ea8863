// libC uses libA and libB, and declares a category named like one of
// libA's ("common"): in a file that sees both, the name resolves to the
// lower slot, and a config naming "common" records both alike.
#ifndef EXAMPLES_CATEGORIES_LIBC_LIBC_H_
#define EXAMPLES_CATEGORIES_LIBC_LIBC_H_

#include "libb/libb.h"
#include "libc/libc_categories.h"
#include "zt/tracing/track_event.h"

namespace libc_example {

inline int Pipeline(int x) {
  TRACE_EVENT("libc", "libc:Pipeline");
  TRACE_COUNTER("libc.compute", zt::CounterTrack("libc.compute:input"), x);
  return libb::Transform(liba::Read(x));
}

int Run(int n);  // libc.cc

}  // namespace libc_example

#endif  // EXAMPLES_CATEGORIES_LIBC_LIBC_H_
