// libA: a header with inline instrumented code, as libraries have.
#ifndef EXAMPLES_CATEGORIES_LIBA_LIBA_H_
#define EXAMPLES_CATEGORIES_LIBA_LIBA_H_

#include "liba/liba_categories.h"
#include "zt/tracing/track_event.h"

namespace liba {

// Event names say which category they must be recorded under.
inline int Double(int x) {
  TRACE_EVENT("liba", "liba:Double");
  return 2 * x;
}

int Read(int block);  // liba.cc, under "liba.io".

}  // namespace liba

#endif  // EXAMPLES_CATEGORIES_LIBA_LIBA_H_
