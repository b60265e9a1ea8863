// Track events beyond the macros: being told when sessions that record
// them are set up, start and stop; asking whether any records now;
// committing the calling thread's events at once; and replacing what the
// trace says about a track (a process's or a thread's name, a track's).
// zt/perfetto_compat.h builds Perfetto's TrackEvent:: functions on these.
//
//   class Waiter : public zt::TrackEventSessionObserver {
//     void OnStart(const zt::DataSourceBase::StartArgs&) override { ... }
//   };
//   zt::AddTrackEventSessionObserver(&waiter);
//
// Cost of including: <string> and zt/tracing/data_source.h (the callbacks'
// argument types).

#ifndef ZT_TRACING_TRACK_EVENT_CONTROL_H_
#define ZT_TRACING_TRACK_EVENT_CONTROL_H_

#include <string>

#include "zt/tracing/data_source.h"
#include "zt/tracing/track.h"

namespace zt {

// Told about every session instance of the "track_event" data source, on
// the SDK's thread, with that instance's lock held (keep callbacks short;
// never wait in them for another thread's track events):
//   * OnSetup: the session's config was read;
//   * OnStart: its categories record, and TrackEventEnabled() is true,
//     before the call (events the callback, or threads it wakes, write are
//     recorded);
//   * OnStop: before its categories stop (events written from it are still
//     recorded).
class TrackEventSessionObserver {
 public:
  virtual ~TrackEventSessionObserver();
  virtual void OnSetup(const DataSourceBase::SetupArgs&) {}
  virtual void OnStart(const DataSourceBase::StartArgs&) {}
  virtual void OnStop(const DataSourceBase::StopArgs&) {}
};

// Up to 8 observers at once (false, and nothing registered, beyond that).
// Sessions already running are not replayed to a new observer: check
// TrackEventEnabled() after adding one. Thread-safe, also from a callback.
bool AddTrackEventSessionObserver(TrackEventSessionObserver* observer);
// When this returns, |observer| is not being called and will not be again
// (a callback running on the SDK's thread finishes first, so do not call
// this while holding a lock that callback takes), unless called from one
// of |observer|'s own callbacks. Thread-safe.
void RemoveTrackEventSessionObserver(TrackEventSessionObserver* observer);

// Whether any session records track events now (any category). One atomic
// load.
bool TrackEventEnabled();

// Hands the calling thread's finished track events to the service now, in
// every session. Without it they go when the thread's chunk fills, when
// the thread exits, or when the service scrapes them at a flush or stop,
// or when a daemon sees the process go: enough unless a process ends in a
// way none of these catches. Does nothing from inside an event's callback.
void FlushTrackEvents();

// Replaces the TrackDescriptor written for |track| with |serialized| (the
// encoding of a protos TrackDescriptor, whose uuid should be
// track.uuid()): from now on, on every sequence that describes the track
// (the process's track and a thread's own track whenever a sequence
// starts or resets, other tracks when a sequence first uses them), and at
// once on the calling thread's sequences of the sessions running now. The
// bytes are written as they are: every field given is kept. Empty bytes
// go back to the SDK's own descriptor. Thread-safe.
void SetTrackDescriptor(const Track& track, std::string serialized);

// The encoding of the descriptor the SDK writes for |track| when none was
// set (for a ThreadTrack: the calling thread's): a base to change and give
// to SetTrackDescriptor.
std::string DefaultTrackDescriptor(const Track& track);

}  // namespace zt

#endif  // ZT_TRACING_TRACK_EVENT_CONTROL_H_
