// TRACE_EVENT (or, with -DASK_ENABLED, TRACE_EVENT_CATEGORY_ENABLED) with a
// category no visible slot declares: a compile error. -DDECLARE_THE_CATEGORY
// is the control, the same file with it declared.
#include "zt/tracing/track_event.h"

#ifdef DECLARE_THE_CATEGORY
ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(1), zt::Category{"declared"},
                      zt::Category{"never.declared"});
#else
ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(1), zt::Category{"declared"});
#endif

void Work() {
  TRACE_EVENT("declared", "Fine");
#ifdef ASK_ENABLED
  if (TRACE_EVENT_CATEGORY_ENABLED("never.declared"))
    TRACE_EVENT("declared", "Enabled");
#else
  TRACE_EVENT("never.declared", "Work");
#endif
}
