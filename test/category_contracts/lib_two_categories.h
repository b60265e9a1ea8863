// The category header of a library "two", like lib_one_categories.h
// (slot: -DLIB_TWO_SLOT=n). It also declares "shared", at another index
// than library one does, so that the id tells which slot a name resolved to.
#ifndef ZT_TEST_CATEGORY_CONTRACTS_LIB_TWO_CATEGORIES_H_
#define ZT_TEST_CATEGORY_CONTRACTS_LIB_TWO_CATEGORIES_H_

#include "zt/tracing/category.h"

ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(LIB_TWO_SLOT), zt::Category{"two"},
                      zt::Category{"two.detail"}, zt::Category{"shared"});

#endif  // ZT_TEST_CATEGORY_CONTRACTS_LIB_TWO_CATEGORIES_H_
