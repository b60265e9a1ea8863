// libFuzzer target: any bytes on an RPC channel of a fresh session (as a
// hostile local page or program could send them). Beyond "no crash, no
// out-of-bounds read, no endless loop", every answer must be a well-framed
// stream of messages, and a channel the session ended stays ended.
// Trace data it appends and finalizes goes through the importers (fuzzed
// on their own too), on inputs small enough to keep runs fast.

#include <cstdint>
#include <cstdlib>
#include <string>

#include "src/processor/rpc/rpc_session.h"
#include "src/processor/rpc/rpc_stream_reader.h"

namespace {

using zt::processor::rpc::RpcSession;
using zt::processor::rpc::RpcStreamReader;

void Check(bool cond) {
  if (!cond)
    abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  RpcSession session;
  RpcStreamReader channel;
  std::string out;
  // Two pieces, cut where the first byte says: a channel's bytes arrive
  // in any cut.
  const size_t cut = size == 0 ? 0 : 1 + data[0] % size;
  const bool alive = session.OnRpcBytes(&channel, data, cut, [&out](std::string b) { out += b; });
  bool alive_after = alive;
  if (alive && cut < size)
    alive_after = session.OnRpcBytes(&channel, data + cut, size - cut,
                                     [&out](std::string b) { out += b; });
  else if (!alive && cut < size)
    Check(!session.OnRpcBytes(&channel, data + cut, size - cut, [&out](std::string b) {
      out += b;
    }));
  (void)alive_after;
  // What the session sent reads back as whole messages.
  RpcStreamReader answers;
  std::string error;
  size_t messages = 0;
  Check(answers.Append(reinterpret_cast<const uint8_t*>(out.data()), out.size(),
                       [&messages](std::string_view) { messages++; }, &error));
  Check(answers.buffered() == 0);
  return 0;
}
