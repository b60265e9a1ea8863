// Library two's single definition of its slot.
#include <lib_two_categories.h>

ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(LIB_TWO_SLOT));
