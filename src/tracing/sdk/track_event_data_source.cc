// The "track_event" data source: its config, the category states it sets
// while an instance runs, and its registration.

#include "src/tracing/sdk/track_event_data_source.h"

#include <string>

#include "zt/common/data_source_descriptor.gen.h"
#include "zt/config/data_source_config.gen.h"
#include "zt/config/track_event/track_event_config.pbzero.h"

namespace zt {
namespace internal {

void TrackEventDataSource::OnSetup(const SetupArgs& args) {
  const std::string raw = args.config ? args.config->track_event_config_raw() : std::string();
  filter_ = CategoryFilter::FromConfig(raw);
  protos::pbzero::TrackEventConfig_Decoder config(raw);
  if (config.disable_incremental_timestamps())
    timestamp_unit_ = 0;
  else if (config.timestamp_unit_multiplier() > 1)
    timestamp_unit_ = config.timestamp_unit_multiplier();
}

void TrackEventDataSource::OnStart(const StartArgs& args) {
  EnableCategoryInstance(args.internal_instance_index, filter_);
}

void TrackEventDataSource::OnStop(const StopArgs& args) {
  DisableCategoryInstance(args.internal_instance_index);
}

bool RegisterTrackEventDataSource() {
  protos::gen::DataSourceDescriptor descriptor;
  descriptor.set_name("track_event");
  return TrackEventDataSource::Register(descriptor);
}

}  // namespace internal
}  // namespace zt
