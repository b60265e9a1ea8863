// The wire codec of CommitData: a zt.protos.CommitDataRequest
// (protos/zt/common/commit_data_request.proto) to and from plain values.
// In process the service takes CommitData as it is; only a transport that
// carries commits as bytes (and tests, fuzzers) needs this, so it is its own
// library: zt_tracing_commit_codec (zerotrace::tracing_commit_codec).
//
// Thread-safety: pure functions. Cost: one pass over the message; Serialize
// allocates the returned string, Parse the vectors of |out|.

#ifndef ZT_EXT_TRACING_CORE_COMMIT_DATA_CODEC_H_
#define ZT_EXT_TRACING_CORE_COMMIT_DATA_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "zt/ext/tracing/core/commit_data.h"

namespace zt {

// Encodes |commit| as a zt.protos.CommitDataRequest.
std::string SerializeCommitData(const CommitData& commit);

// Decodes a CommitDataRequest from an untrusted peer. False on malformed
// input, out-of-range values (writer id > 65535) or patches whose data is
// not exactly 4 bytes; |out| is then unspecified. Inline chunk data
// (chunks_to_move.data, used by producers without shared memory) is not
// supported yet and rejected.
bool ParseCommitData(const uint8_t* data, size_t size, CommitData* out);

}  // namespace zt

#endif  // ZT_EXT_TRACING_CORE_COMMIT_DATA_CODEC_H_
