// The category header of a library "one", standing for a third-party
// library's: included as <lib_one_categories.h> from its own include root
// (run.sh's -I). Its slot comes from the build (-DLIB_ONE_SLOT=n), as a
// program linking several libraries picks them.
#ifndef ZT_TEST_CATEGORY_CONTRACTS_LIB_ONE_CATEGORIES_H_
#define ZT_TEST_CATEGORY_CONTRACTS_LIB_ONE_CATEGORIES_H_

#include "zt/tracing/category.h"

ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(LIB_ONE_SLOT), zt::Category{"one"},
                      zt::Category{"shared"});

#endif  // ZT_TEST_CATEGORY_CONTRACTS_LIB_ONE_CATEGORIES_H_
