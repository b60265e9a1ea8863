// The "track_event" data source: its config, the category states it sets
// while an instance runs, and its registration.

#include "src/tracing/sdk/track_event_data_source.h"

#include <mutex>
#include <string>

#include "zt/common/data_source_descriptor.gen.h"
#include "zt/config/data_source_config.gen.h"
#include "zt/config/track_event/track_event_config.pbzero.h"
#include "zt/tracing/track_event_control.h"

namespace zt {

TrackEventSessionObserver::~TrackEventSessionObserver() = default;

namespace internal {
namespace {

// The session observers (track_event_control.h). The mutex is held while
// they are called, so that removing one waits for its running callback;
// recursive, so that a callback may add or remove observers (a removed
// slot is only nulled: the loop calling them goes on safely). Leaked: a
// session may stop while the process exits.
constexpr size_t kMaxSessionObservers = 8;
struct SessionObservers {
  std::recursive_mutex mutex;
  TrackEventSessionObserver* slots[kMaxSessionObservers] = {};
};

SessionObservers& Observers() {
  static SessionObservers* observers = new SessionObservers();
  return *observers;
}

template <typename Call>
void NotifyObservers(Call call) {
  SessionObservers& observers = Observers();
  std::lock_guard<std::recursive_mutex> lock(observers.mutex);
  for (TrackEventSessionObserver*& slot : observers.slots) {
    if (slot)
      call(slot);
  }
}

}  // namespace

void TrackEventDataSource::OnSetup(const SetupArgs& args) {
  const std::string raw = args.config ? args.config->track_event_config_raw() : std::string();
  filter_ = CategoryFilter::FromConfig(raw);
  protos::pbzero::TrackEventConfig_Decoder config(raw);
  if (config.disable_incremental_timestamps())
    timestamp_unit_ = 0;
  else if (config.timestamp_unit_multiplier() > 1)
    timestamp_unit_ = config.timestamp_unit_multiplier();
  NotifyObservers([&](TrackEventSessionObserver* o) { o->OnSetup(args); });
}

void TrackEventDataSource::OnStart(const StartArgs& args) {
  // Categories first: an observer woken by OnStart finds them recording.
  EnableCategoryInstance(args.internal_instance_index, filter_);
  NotifyObservers([&](TrackEventSessionObserver* o) { o->OnStart(args); });
}

void TrackEventDataSource::OnStop(const StopArgs& args) {
  // Observers first: what they write at the stop is still recorded.
  NotifyObservers([&](TrackEventSessionObserver* o) { o->OnStop(args); });
  DisableCategoryInstance(args.internal_instance_index);
}

bool RegisterTrackEventDataSource() {
  protos::gen::DataSourceDescriptor descriptor;
  descriptor.set_name("track_event");
  return TrackEventDataSource::Register(descriptor);
}

}  // namespace internal

bool AddTrackEventSessionObserver(TrackEventSessionObserver* observer) {
  internal::SessionObservers& observers = internal::Observers();
  std::lock_guard<std::recursive_mutex> lock(observers.mutex);
  for (TrackEventSessionObserver*& slot : observers.slots) {
    if (slot == observer)
      return true;
  }
  for (TrackEventSessionObserver*& slot : observers.slots) {
    if (!slot) {
      slot = observer;
      return true;
    }
  }
  return false;
}

void RemoveTrackEventSessionObserver(TrackEventSessionObserver* observer) {
  internal::SessionObservers& observers = internal::Observers();
  std::lock_guard<std::recursive_mutex> lock(observers.mutex);
  for (TrackEventSessionObserver*& slot : observers.slots) {
    if (slot == observer)
      slot = nullptr;
  }
}

bool TrackEventEnabled() {
  // Set before OnStart (and so before the observers hear of a start),
  // cleared after OnStop.
  return internal::TrackEventDataSource::State().valid_instances.load(
             std::memory_order_acquire) != 0;
}

}  // namespace zt
