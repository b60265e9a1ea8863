// Which of a config's data sources no connected producer provides, from the
// service's state: `ztrace record` names them when the session starts
// ("no connected producer provides linux.ftrace: it will record nothing")
// and again in its summary, instead of leaving the user with an empty
// trace and a guess.

#ifndef ZT_SRC_CMD_ZTRACE_RECORD_DATA_SOURCES_H_
#define ZT_SRC_CMD_ZTRACE_RECORD_DATA_SOURCES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "zt/config/trace_config.gen.h"

namespace zt {
namespace ztrace {

// The names of |config|'s data sources that no producer in |service_state|
// (an encoded TracingServiceState) registered, once each, in the config's
// order. A data source with a producer_name_filter counts as provided only
// by a producer the filter names (with a regex filter too, by any
// producer of the name: the regex is not evaluated). False if |service_state| does not
// decode.
bool FindDataSourcesWithoutProducer(const protos::gen::TraceConfig& config,
                                    const std::vector<uint8_t>& service_state,
                                    std::vector<std::string>* missing);

// "a, b and c".
std::string JoinNames(const std::vector<std::string>& names);

}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_RECORD_DATA_SOURCES_H_
