// zt::BufferExhaustedPolicy: what a data source's writer does when the
// shared memory buffer between the process and the tracing service has no
// free chunk (the service has not drained it yet).
//
// A data source picks one by declaring
//   static constexpr zt::BufferExhaustedPolicy kBufferExhaustedPolicy = ...;
// in its class (zt/tracing/data_source.h); the default is kDrop.

#ifndef ZT_TRACING_BUFFER_EXHAUSTED_POLICY_H_
#define ZT_TRACING_BUFFER_EXHAUSTED_POLICY_H_

namespace zt {

enum class BufferExhaustedPolicy {
  // Give up at once: the packet is dropped, counted in the session's
  // TraceStats and marked (previous_packet_dropped) on the next packet of
  // the same sequence that makes it. The writing thread never waits.
  kDrop,
  // Hand what is complete to the service, wait for a free chunk (bounded:
  // 1 s in the SDK), then drop as above. For data that must not be lost and
  // threads that may block briefly.
  kStallThenDrop,
};

}  // namespace zt

#endif  // ZT_TRACING_BUFFER_EXHAUSTED_POLICY_H_
