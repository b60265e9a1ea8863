// The wire codec of CommitData: a zt.protos.CommitDataRequest
// (protos/zt/common/commit_data_request.proto) to and from plain values.
// In process the service takes CommitData as it is; only a transport that
// carries commits as bytes (and tests, fuzzers) needs this, so it is its own
// library: zt_tracing_commit_codec (zerotrace::tracing_commit_codec).
//
// Thread-safety: pure functions. Cost: one pass over the message each way.
// With a reused output (a string to encode
// into, a CommitData to parse into) neither direction allocates once the
// output has grown to the batches it sees.

#ifndef ZT_EXT_TRACING_CORE_COMMIT_DATA_CODEC_H_
#define ZT_EXT_TRACING_CORE_COMMIT_DATA_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "zt/ext/tracing/core/commit_data.h"

namespace zt {

// Encodes |commit| as a zt.protos.CommitDataRequest: the bytes protozero's
// generic message writer gives (nested lengths as 4-byte redundant varints).
std::string SerializeCommitData(const CommitData& commit);
// The same into |out|, replacing its contents; its capacity is reused.
void SerializeCommitData(const CommitData& commit, std::string* out);

// Decodes a CommitDataRequest from an untrusted peer. False on malformed
// input, out-of-range values (writer id > 65535) or patches whose data is
// not exactly 4 bytes; |out| is then unspecified (but valid). Inline chunk
// data (chunks_to_move.data, used by producers without shared memory) is
// not supported yet and rejected. |out| may be reused from call to call:
// its vectors (and its patched chunks' patch vectors) keep their capacity.
bool ParseCommitData(const uint8_t* data, size_t size, CommitData* out);

}  // namespace zt

#endif  // ZT_EXT_TRACING_CORE_COMMIT_DATA_CODEC_H_
