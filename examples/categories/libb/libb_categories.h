// libB's track event categories, in slot LIBB_TRACE_SLOT.
#ifndef EXAMPLES_CATEGORIES_LIBB_LIBB_CATEGORIES_H_
#define EXAMPLES_CATEGORIES_LIBB_LIBB_CATEGORIES_H_

#include "zt/tracing/category.h"

ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(LIBB_TRACE_SLOT),
                      zt::Category{"libb"},
                      zt::Category{"libb.compute"},
                      zt::Category{"libb.debug"}.SetTags("debug"));

#endif  // EXAMPLES_CATEGORIES_LIBB_LIBB_CATEGORIES_H_
