// A library that track_event_dlopen_test loads with dlopen: it brings a
// category slot of its own (7) into a process whose SDK already runs. It is
// not linked with the SDK: its SDK references resolve against the
// executable's, so the process keeps one category registry.

#include "zt/tracing/track_event.h"

ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(7), zt::Category{"late"});
ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(7));

extern "C" __attribute__((visibility("default"))) void ZtLateLibraryWork() {
  TRACE_EVENT("late", "LateWork");
  TRACE_EVENT_INSTANT("late", "LateInstant");
}
