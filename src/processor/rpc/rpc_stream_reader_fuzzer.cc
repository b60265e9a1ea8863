// libFuzzer target: any bytes as a TraceProcessorRpc stream, read whole
// and in pieces cut where the input says. Beyond "no crash, no
// out-of-bounds read", both readings must find the same messages and the
// same outcome, and the bytes held back stay under one message's bound.

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "src/processor/rpc/rpc_stream_reader.h"

namespace {

using zt::processor::rpc::RpcStreamReader;

void Check(bool cond) {
  if (!cond)
    abort();
}

struct Outcome {
  std::vector<std::string> messages;
  bool ok = true;
};

Outcome ReadInPieces(const uint8_t* data, size_t size, uint8_t seed) {
  RpcStreamReader reader;
  Outcome out;
  std::string error;
  size_t at = 0;
  uint32_t state = seed | 1u;
  while (at < size && out.ok) {
    size_t piece = size - at;
    if (seed != 0) {
      state = state * 1103515245u + 12345u;
      piece = std::min<size_t>(piece, 1 + (state >> 16) % 64);
    }
    out.ok = reader.Append(data + at, piece,
                           [&out](std::string_view m) { out.messages.emplace_back(m); }, &error);
    Check(out.ok || !error.empty());
    Check(reader.buffered() < RpcStreamReader::kMaxMessageBytes + 20);
    at += piece;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0)
    return 0;
  const Outcome whole = ReadInPieces(data + 1, size - 1, 0);
  const Outcome pieces = ReadInPieces(data + 1, size - 1, data[0]);
  Check(whole.ok == pieces.ok);
  Check(whole.messages == pieces.messages);
  return 0;
}
