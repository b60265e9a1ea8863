#include "zt/c/abi/pb_decoder.h"

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "zt/protozero/message.h"
#include "zt/protozero/scattered_heap_buffer.h"

namespace {

using Bytes = std::vector<uint8_t>;

PerfettoPbDecoder DecoderOf(const Bytes& bytes) {
  return PerfettoPbDecoder{bytes.data(), bytes.data() + bytes.size()};
}

TEST(PbDecoderTest, ReadsEveryWireTypeOurWriterWrites) {
  zt::protozero::HeapBuffered<zt::protozero::Message> msg;
  msg->AppendVarInt(1, uint64_t{300});
  msg->AppendFixed(2, uint64_t{0x1122334455667788});
  msg->AppendString(3, "hello");
  msg->AppendFixed(4, uint32_t{0xdeadbeef});
  msg->AppendFixed(536870911, 1.5);  // The largest field id, as a double.
  const Bytes bytes = msg.SerializeAsArray();

  PerfettoPbDecoder d = DecoderOf(bytes);
  PerfettoPbDecoderField f = PerfettoPbDecoderParseField(&d);
  ASSERT_EQ(f.status, PERFETTO_PB_DECODER_OK);
  EXPECT_EQ(f.id, 1u);
  EXPECT_EQ(f.wire_type, 0u);
  EXPECT_EQ(f.value.integer64, 300u);
  f = PerfettoPbDecoderParseField(&d);
  EXPECT_EQ(f.wire_type, 1u);
  EXPECT_EQ(f.value.integer64, 0x1122334455667788u);
  f = PerfettoPbDecoderParseField(&d);
  EXPECT_EQ(f.wire_type, 2u);
  ASSERT_EQ(f.value.delimited.len, 5u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(f.value.delimited.start), 5), "hello");
  f = PerfettoPbDecoderParseField(&d);
  EXPECT_EQ(f.wire_type, 5u);
  EXPECT_EQ(f.value.integer32, 0xdeadbeefu);
  f = PerfettoPbDecoderParseField(&d);
  EXPECT_EQ(f.id, 536870911u);
  EXPECT_EQ(f.value.double_val, 1.5);
  f = PerfettoPbDecoderParseField(&d);
  EXPECT_EQ(f.status, PERFETTO_PB_DECODER_DONE);
}

TEST(PbDecoderTest, SkipMovesAsParseDoes) {
  zt::protozero::HeapBuffered<zt::protozero::Message> msg;
  msg->AppendVarInt(1, uint64_t{1} << 63);
  msg->AppendString(2, std::string(300, 'x'));
  msg->AppendFixed(3, uint32_t{7});
  const Bytes bytes = msg.SerializeAsArray();
  PerfettoPbDecoder skip = DecoderOf(bytes);
  PerfettoPbDecoder parse = DecoderOf(bytes);
  for (int i = 0; i < 3; i++) {
    EXPECT_EQ(PerfettoPbDecoderSkipField(&skip), static_cast<uint32_t>(PERFETTO_PB_DECODER_OK));
    EXPECT_EQ(PerfettoPbDecoderParseField(&parse).status,
              static_cast<uint32_t>(PERFETTO_PB_DECODER_OK));
    EXPECT_EQ(skip.read_ptr, parse.read_ptr);
  }
  EXPECT_EQ(PerfettoPbDecoderSkipField(&skip), static_cast<uint32_t>(PERFETTO_PB_DECODER_DONE));
}

// Each is an ERROR, and the decoder stays where it was.
TEST(PbDecoderTest, BadInputIsAnErrorThatDoesNotMove) {
  const std::vector<Bytes> bad = {
      {0x08},                                  // A varint field without its value.
      {0x08, 0x80},                            // A value cut short.
      {0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01},  // 11 bytes.
      {0x09, 1, 2, 3, 4, 5, 6, 7},             // fixed64 with 7 bytes.
      {0x0d, 1, 2, 3},                         // fixed32 with 3 bytes.
      {0x12, 0x05, 'a', 'b'},                  // A length past the end.
      {0x12, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},  // 2^64 - 1.
      {0x0b},                                  // Wire type 3 (start group).
      {0x0c},                                  // Wire type 4 (end group).
      {0x0e, 0},                               // Wire type 6.
      {0x0f, 0},                               // Wire type 7.
      {0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0},  // A field id over 32 bits.
      {0x80},                                  // A tag cut short.
  };
  for (size_t i = 0; i < bad.size(); i++) {
    PerfettoPbDecoder d = DecoderOf(bad[i]);
    EXPECT_EQ(PerfettoPbDecoderParseField(&d).status,
              static_cast<uint32_t>(PERFETTO_PB_DECODER_ERROR))
        << "input " << i;
    EXPECT_EQ(d.read_ptr, bad[i].data()) << "input " << i;
    EXPECT_EQ(PerfettoPbDecoderSkipField(&d), static_cast<uint32_t>(PERFETTO_PB_DECODER_ERROR))
        << "input " << i;
    EXPECT_EQ(d.read_ptr, bad[i].data()) << "input " << i;
  }
}

TEST(PbDecoderTest, AnEmptyBufferIsDone) {
  PerfettoPbDecoder d = {nullptr, nullptr};
  EXPECT_EQ(PerfettoPbDecoderParseField(&d).status,
            static_cast<uint32_t>(PERFETTO_PB_DECODER_DONE));
  EXPECT_EQ(PerfettoPbDecoderSkipField(&d), static_cast<uint32_t>(PERFETTO_PB_DECODER_DONE));
}

}  // namespace
