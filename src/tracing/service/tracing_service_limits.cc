// The per-uid session limits (ztraced --max-sessions-per-uid and
// --max-buffer-bytes-per-uid), checked by every request that makes a
// session: EnableTracing and both ways of cloning one.

#include <algorithm>
#include <string>

#include "src/tracing/service/tracing_service_impl.h"

namespace zt {

namespace {

// The bytes of the buffers |config| asks for, as EnableTracing sizes them.
uint64_t BufferBytes(const protos::gen::TraceConfig& config) {
  uint64_t total = 0;
  for (const auto& buffer_cfg : config.buffers())
    total += uint64_t{std::max<uint32_t>(buffer_cfg.size_kb(), 4)} * 1024;
  return total;
}

}  // namespace

std::string TracingServiceImpl::OverSessionLimits(int32_t uid,
                                                  const protos::gen::TraceConfig& config) const {
  size_t sessions = 0;
  uint64_t bytes = BufferBytes(config);
  for (const auto& entry : sessions_) {
    if (entry.second->consumer_uid != uid)
      continue;
    sessions++;
    bytes += BufferBytes(entry.second->config);
  }
  if (limits_.max_sessions_per_uid && sessions >= limits_.max_sessions_per_uid) {
    return "uid " + std::to_string(uid) + " has " + std::to_string(sessions) +
           " sessions, the limit (ztraced --max-sessions-per-uid); end one first";
  }
  if (limits_.max_buffer_bytes_per_uid && bytes > limits_.max_buffer_bytes_per_uid) {
    return "the buffers of uid " + std::to_string(uid) + "'s sessions would take " +
           std::to_string(bytes) + " bytes, over the limit of " +
           std::to_string(limits_.max_buffer_bytes_per_uid) +
           " (ztraced --max-buffer-bytes-per-uid); ask for smaller buffers";
  }
  return std::string();
}

}  // namespace zt
