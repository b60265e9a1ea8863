// Size fields that a TraceWriter could not fill in before handing their
// chunk to the service: each lives in a slot here until its message is
// finalized, then travels in CommitDataRequest.chunks_to_patch.

#ifndef ZT_EXT_TRACING_CORE_PATCH_LIST_H_
#define ZT_EXT_TRACING_CORE_PATCH_LIST_H_

#include <cstdint>
#include <deque>

namespace zt {

struct PendingPatch {
  uint32_t chunk_id = 0;
  uint16_t offset = 0;  // From the start of the chunk payload.
  // Written by Message::Finalize() as a 4-byte redundant varint, whose first
  // byte always has its top bit set: a zero first byte means "not yet".
  uint8_t data[4] = {0, 0, 0, 0};

  bool is_filled() const { return data[0] != 0; }
};

// A deque: slots keep their address while others are added and removed.
// A class, not an alias, so that TraceWriter's header can name it without
// <deque> (which every file writing packets would otherwise parse).
class PatchList : public std::deque<PendingPatch> {};

}  // namespace zt

#endif  // ZT_EXT_TRACING_CORE_PATCH_LIST_H_
