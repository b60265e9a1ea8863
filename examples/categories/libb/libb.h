// libB uses libA: its inline code mixes both libraries' categories.
#ifndef EXAMPLES_CATEGORIES_LIBB_LIBB_H_
#define EXAMPLES_CATEGORIES_LIBB_LIBB_H_

#include "liba/liba.h"
#include "libb/libb_categories.h"
#include "zt/tracing/track_event.h"

namespace libb {

inline int Square(int x) {
  TRACE_EVENT("libb.compute", "libb.compute:Square");
  TRACE_EVENT_INSTANT("liba", "liba:CalledFromLibB");
  return x * x;
}

int Transform(int x);  // libb.cc

}  // namespace libb

#endif  // EXAMPLES_CATEGORIES_LIBB_LIBB_H_
