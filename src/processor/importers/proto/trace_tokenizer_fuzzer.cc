// libFuzzer target: any bytes as a trace file through TraceTokenizer.
//
// Beyond "no crash, no out-of-bounds read, no endless loop" (ASan/UBSan and
// libFuzzer's timeout), it checks that the tokenizer accounts for every
// byte (what it consumed plus what it reports skipped is the input), that
// its packets lie inside the input in order, that it agrees packet for
// packet with protozero's decoder (an independent reading of the same wire
// rules; inputs here are far below the 4 GiB field limit where the two
// differ), and that TokenizeTrace() returns what the Next() loop does.

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "zt/processor/trace_tokenizer.h"
#include "zt/protozero/proto_decoder.h"

namespace {

void Check(bool cond) {
  if (!cond)
    abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using zt::processor::PacketView;
  using zt::processor::TraceDamage;

  zt::processor::TraceTokenizer tokenizer(data, size);
  std::vector<PacketView> packets;
  PacketView packet;
  uint64_t previous_end = 0;
  while (tokenizer.Next(&packet)) {
    Check(packet.offset >= previous_end);
    Check(packet.offset + packet.size <= size);
    Check(packet.data == data + packet.offset);
    previous_end = packet.offset + packet.size;
    packets.push_back(packet);
  }
  Check(!tokenizer.Next(&packet));
  const zt::processor::TokenizerStats& stats = tokenizer.stats();
  Check(stats.packets == packets.size());
  Check(tokenizer.position() + stats.bytes_skipped == size);
  if (stats.damage == TraceDamage::kNone)
    Check(tokenizer.position() == size);
  else
    Check(stats.damage_offset == tokenizer.position() &&
          stats.bytes_skipped > 0);

  zt::protozero::ProtoDecoder decoder(data, size);
  size_t index = 0;
  for (zt::protozero::Field f = decoder.ReadField(); f.valid();
       f = decoder.ReadField()) {
    if (f.id() != 1 ||
        f.type() != zt::protozero::proto_utils::ProtoWireType::kLengthDelimited)
      continue;
    Check(index < packets.size());
    Check(packets[index].data == f.data() && packets[index].size == f.size());
    index++;
  }
  Check(index == packets.size());
  Check(decoder.parse_error() == (stats.damage != TraceDamage::kNone));

  size_t callback_packets = 0;
  const zt::processor::TokenizerStats again =
      zt::processor::TokenizeTrace(data, size, [&](const PacketView& p) {
        Check(callback_packets < packets.size() &&
              p.data == packets[callback_packets].data);
        callback_packets++;
      });
  Check(callback_packets == packets.size());
  Check(again.damage == stats.damage &&
        again.damage_offset == stats.damage_offset &&
        again.unknown_fields == stats.unknown_fields);
  return 0;
}
