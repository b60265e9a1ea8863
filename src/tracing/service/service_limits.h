// ServiceLimits: what one local user may make the daemon hold, so that no
// user (the producer socket is open to all) can grow its memory without
// bound or starve the others (docs/design/tracing_service.md, "Limits").
//
// Each limit is enforced where the request arrives, with an error that
// names it (to the client, and a log line) and a count (ServiceLimitStats).
// The IPC hosts enforce the connection limits, the producer port the
// per-producer and per-uid producer limits, the service the per-uid session
// limits. 0 means no limit.
//
// A plain struct: read on the service's thread only.

#ifndef ZT_SRC_TRACING_SERVICE_SERVICE_LIMITS_H_
#define ZT_SRC_TRACING_SERVICE_SERVICE_LIMITS_H_

#include <cstddef>
#include <cstdint>

namespace zt {

struct ServiceLimits {
  // Per producer connection. A producer registers a handful of data
  // sources (upstream's SDK: one per type), with names of a few dozen bytes
  // and descriptors of at most a few KB (track_event's lists categories).
  size_t max_data_sources_per_producer = 1024;
  size_t max_data_source_name_bytes = 1024;
  size_t max_data_source_descriptor_bytes = 256 * 1024;
  // What all of a producer's descriptors hold, together.
  size_t max_descriptor_bytes_per_producer = 1024 * 1024;

  // Per uid, over all its connections. A desktop user may run a few dozen
  // traced programs at once; each SMB is at most 32 MiB.
  size_t max_producers_per_uid = 256;
  // Connections to each socket (the IPC host refuses more), and what their
  // partial large frames hold together (over 128 KiB each: a connection
  // that would take the uid past it is closed).
  size_t max_connections_per_uid = 512;
  size_t max_large_frame_bytes_per_uid = 64 * 1024 * 1024;
  uint64_t max_shm_bytes_per_uid = uint64_t{1} << 30;
  // Sessions a uid's consumers have at once (upstream's traced: 5), and the
  // trace buffers they hold together.
  size_t max_sessions_per_uid = 16;
  uint64_t max_buffer_bytes_per_uid = uint64_t{4} << 30;

  // Every limit off: a service in the process that traces (the SDK's
  // in-process backend) has one user, who can only exhaust itself. The
  // defaults above are the daemon's (ServiceIpcHost).
  static ServiceLimits Unlimited() {
    ServiceLimits none;
    none.max_data_sources_per_producer = 0;
    none.max_data_source_name_bytes = 0;
    none.max_data_source_descriptor_bytes = 0;
    none.max_descriptor_bytes_per_producer = 0;
    none.max_producers_per_uid = 0;
    none.max_connections_per_uid = 0;
    none.max_large_frame_bytes_per_uid = 0;
    none.max_shm_bytes_per_uid = 0;
    none.max_sessions_per_uid = 0;
    none.max_buffer_bytes_per_uid = 0;
    return none;
  }
};

// What the limits refused, for the daemon's log and tests.
struct ServiceLimitStats {
  uint64_t data_sources_refused = 0;  // Over a per-producer limit.
  uint64_t producers_refused = 0;     // Over a per-uid producer limit.
  uint64_t sessions_refused = 0;      // Over a per-uid session limit.
  uint64_t connections_refused = 0;   // Over a per-uid connection limit, both sockets.
};

}  // namespace zt

#endif  // ZT_SRC_TRACING_SERVICE_SERVICE_LIMITS_H_
