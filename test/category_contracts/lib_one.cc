// Library one's single definition of its slot.
#include <lib_one_categories.h>

ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(LIB_ONE_SLOT));
