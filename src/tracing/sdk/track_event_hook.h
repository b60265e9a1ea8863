// How Tracing::Initialize() registers the track event data source without
// linking the track event code into programs that never trace an event.
// That code (the writer, its clock, the category registry) is an object of
// its own, which a static link pulls in only when the program references
// it (TRACE_EVENT, ZT_DEFINE_CATEGORIES). Its static initializer installs
// this hook (and registers at once if tracing is already initialized).

#ifndef ZT_SRC_TRACING_SDK_TRACK_EVENT_HOOK_H_
#define ZT_SRC_TRACING_SDK_TRACK_EVENT_HOOK_H_

namespace zt {
namespace internal {

// Null unless the track event code is linked; constant-initialized.
extern void (*g_track_event_initializer)();

}  // namespace internal
}  // namespace zt

#endif  // ZT_SRC_TRACING_SDK_TRACK_EVENT_HOOK_H_
