#include "src/cmd/ztrace/record_data_sources.h"

#include <algorithm>
#include <map>
#include <set>

#include "zt/common/tracing_service_state.gen.h"

namespace zt {
namespace ztrace {

bool FindDataSourcesWithoutProducer(const protos::gen::TraceConfig& config,
                                    const std::vector<uint8_t>& service_state,
                                    std::vector<std::string>* missing) {
  missing->clear();
  protos::gen::TracingServiceState state;
  if (!state.ParseFromArray(service_state.data(), service_state.size()))
    return false;
  std::map<int32_t, std::string> producer_names;
  for (const auto& producer : state.producers())
    producer_names[producer.id()] = producer.name();
  // Data source name -> the names of the producers that registered it.
  std::map<std::string, std::set<std::string>> providers;
  for (const auto& source : state.data_sources()) {
    auto producer = producer_names.find(source.producer_id());
    providers[source.ds_descriptor().name()].insert(
        producer == producer_names.end() ? std::string() : producer->second);
  }
  for (const auto& source : config.data_sources()) {
    const std::string& name = source.config().name();
    if (std::find(missing->begin(), missing->end(), name) != missing->end())
      continue;
    auto it = providers.find(name);
    bool provided = it != providers.end();
    // A regex filter is not evaluated here (no regex engine in the
    // command): any producer of the name counts, so nothing is named
    // missing that might not be.
    if (provided && !source.producer_name_filter().empty() &&
        source.producer_name_regex_filter().empty()) {
      provided = false;
      for (const std::string& wanted : source.producer_name_filter())
        provided = provided || it->second.count(wanted) != 0;
    }
    if (!provided)
      missing->push_back(name);
  }
  return true;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0)
      out += i + 1 == names.size() ? " and " : ", ";
    out += names[i];
  }
  return out;
}

}  // namespace ztrace
}  // namespace zt
