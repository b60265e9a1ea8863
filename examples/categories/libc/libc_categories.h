// libC's track event categories, in slot LIBC_TRACE_SLOT.
#ifndef EXAMPLES_CATEGORIES_LIBC_LIBC_CATEGORIES_H_
#define EXAMPLES_CATEGORIES_LIBC_LIBC_CATEGORIES_H_

#include "zt/tracing/category.h"

ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(LIBC_TRACE_SLOT),
                      zt::Category{"libc"},
                      zt::Category{"libc.compute"},
                      zt::Category{"libc.debug"}.SetTags("debug"),
                      zt::Category{"common"});

#endif  // EXAMPLES_CATEGORIES_LIBC_LIBC_CATEGORIES_H_
