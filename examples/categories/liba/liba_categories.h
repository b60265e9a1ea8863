// libA's track event categories. The program that links libA picks its
// slot (LIBA_TRACE_SLOT, set by the build); every library in one program
// needs a slot of its own.
#ifndef EXAMPLES_CATEGORIES_LIBA_LIBA_CATEGORIES_H_
#define EXAMPLES_CATEGORIES_LIBA_LIBA_CATEGORIES_H_

#include "zt/tracing/category.h"

ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(LIBA_TRACE_SLOT),
                      zt::Category{"liba"},
                      zt::Category{"liba.io"}.SetDescription("libA's reads"),
                      zt::Category{"common"});

#endif  // EXAMPLES_CATEGORIES_LIBA_LIBA_CATEGORIES_H_
