// ChangeTraceConfig: a running session's data sources reach producers their
// new producer_name_filter names. Only the daemon's consumer port asks for
// it, so it is an object of its own (in-process programs do not link it).

#include <algorithm>
#include <string>

#include "src/tracing/service/tracing_service_endpoints.h"
#include "src/tracing/service/tracing_service_impl.h"
#include "zt/base/logging.h"

namespace zt {
namespace {

// |config| without what ChangeTraceConfig may change, serialized: two
// configs that differ only in their filters give the same bytes. The
// duration too: the service rewrites it in a trigger session's config.
std::string WithoutFilters(protos::gen::TraceConfig config) {
  for (auto& ds : *config.mutable_data_sources())
    ds.clear_producer_name_filter();
  config.clear_duration_ms();
  return config.SerializeAsString();
}

}  // namespace

bool TracingService::ChangeTraceConfig(ConsumerEndpoint* consumer,
                                       const protos::gen::TraceConfig& config,
                                       std::string* error) {
  return static_cast<TracingServiceImpl*>(this)->ChangeConfig(consumer, config, error);
}

bool TracingServiceImpl::ChangeConfig(ConsumerEndpoint* endpoint,
                                      const protos::gen::TraceConfig& config,
                                      std::string* error) {
  Session* s = SessionOf(static_cast<ConsumerEndpointImpl*>(endpoint));
  if (!s) {
    *error = "ChangeTraceConfig: this consumer has no session";
    return false;
  }
  if (s->stopping_or_stopped()) {
    *error = "ChangeTraceConfig: the session is no longer running";
    return false;
  }
  for (const auto& ds : config.data_sources()) {
    if (!ds.producer_name_regex_filter().empty()) {
      *error = "ChangeTraceConfig: data source \"" + ds.config().name() +
               "\" has a producer_name_regex_filter, which this service does not support";
      return false;
    }
  }
  if (WithoutFilters(config) != WithoutFilters(s->config)) {
    ZT_WLOG("ChangeTraceConfig: only the data sources' producer_name_filter can change; "
           "the config's other differences are ignored");
  }
  for (auto& cfg_ds : *s->config.mutable_data_sources()) {
    const std::string& name = cfg_ds.config().name();
    auto updated = std::find_if(
        config.data_sources().begin(), config.data_sources().end(),
        [&name](const protos::gen::TraceConfig_DataSource& d) { return d.config().name() == name; });
    if (updated == config.data_sources().end()) {
      ZT_WLOG("ChangeTraceConfig: data source \"%s\" is not in the new config; its filter "
             "stays as it was", name.c_str());
      continue;
    }
    *cfg_ds.mutable_producer_name_filter() = updated->producer_name_filter();
    for (auto& entry : producers_) {
      ProducerState* producer = entry.second.get();
      const bool has_instance =
          std::any_of(s->instances.begin(), s->instances.end(),
                      [producer, &name](const DataSourceInstance& inst) {
                        return inst.producer_id == producer->id && inst.name == name;
                      });
      if (has_instance)
        continue;
      // Matches the filter and has registered the data source, or nothing.
      DataSourceInstance* inst = SetUpInstance(s, producer, cfg_ds);
      if (inst && s->state == SessionState::kStarted)
        StartInstance(s, inst);
    }
  }
  return true;
}

}  // namespace zt
