// The "track_event" data source behind the TRACE_EVENT macros. Registered
// by Tracing::Initialize(); each session instance enables the categories
// its TrackEventConfig selects while it runs (track_event_category_registry.h).

#ifndef ZT_SRC_TRACING_SDK_TRACK_EVENT_DATA_SOURCE_H_
#define ZT_SRC_TRACING_SDK_TRACK_EVENT_DATA_SOURCE_H_

#include "src/tracing/sdk/track_event_category_registry.h"
#include "zt/tracing/data_source.h"

namespace zt {
namespace internal {

struct TrackEventSequence;          // Per thread and instance (writer.cc).
struct TrackEventIncrementalState;  // Its part cleared with incremental state.

struct TrackEventTraits : DefaultDataSourceTraits {
  using IncrementalStateType = TrackEventIncrementalState;
  using TlsStateType = TrackEventSequence;
};

class TrackEventDataSource
    : public DataSource<TrackEventDataSource, TrackEventTraits> {
 public:
  // A full shared memory buffer makes the writing thread wait for the
  // service to free a chunk (it drains at GB/s, so briefly), up to 1 s,
  // then drop (counted and marked): events are not lost to a burst.
  static constexpr BufferExhaustedPolicy kBufferExhaustedPolicy =
      BufferExhaustedPolicy::kStallThenDrop;

  // For the writer's own per-thread fast path (track_event_writer.cc).
  static const DataSourceStaticState& State() { return static_state(); }

  void OnSetup(const SetupArgs& args) override;
  void OnStart(const StartArgs& args) override;
  void OnStop(const StopArgs& args) override;

  // TrackEventConfig's timestamp settings: ns per unit of the sequence's
  // incremental clock (timestamp_unit_multiplier, default 1), or 0 when
  // disable_incremental_timestamps asks for absolute BOOTTIME times.
  uint64_t timestamp_unit() const { return timestamp_unit_; }

 private:
  CategoryFilter filter_;
  uint64_t timestamp_unit_ = 1;
};

// Registers the data source with the SDK. Tracing::Initialize() calls it.
bool RegisterTrackEventDataSource();

}  // namespace internal
}  // namespace zt

#endif  // ZT_SRC_TRACING_SDK_TRACK_EVENT_DATA_SOURCE_H_
