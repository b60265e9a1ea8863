#include "zt/protozero/scattered_heap_buffer.h"

#include <cstdint>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "zt/protozero/message.h"
#include "zt/protozero/proto_utils.h"

namespace zt {
namespace protozero {
namespace {

using ::testing::ElementsAre;

class Msg : public Message {
 public:
  void set_id(uint64_t v) { AppendVarInt(1, v); }
  void set_name(std::string_view s) { AppendString(2, s); }
  Msg* add_child() { return BeginNestedMessage<Msg>(3); }
  void set_value(double v) { AppendFixed(4, v); }
};

void Fill(Msg* m, int seed) {
  m->set_id(static_cast<uint64_t>(seed) * 1000003u);
  m->set_name(std::string(static_cast<size_t>(seed % 37), 'n'));
  for (int i = 0; i < 5; ++i) {
    Msg* c = m->add_child();
    c->set_id(static_cast<uint64_t>(i));
    c->set_name("child");
    Msg* g = c->add_child();
    g->set_value(i + 0.25);
    g->add_child()->set_name(std::string(static_cast<size_t>(i * 40), 'g'));
  }
  m->set_value(-1.5);
}

std::string Reference(int seed) {
  HeapBuffered<Msg> msg(1 << 20, 1 << 20);
  Fill(msg.get(), seed);
  return msg.SerializeAsString();
}

TEST(ScatteredHeapBufferTest, ExactBytesOfASmallMessage) {
  HeapBuffered<Msg> msg(8, 8);
  msg->set_id(1);
  msg->add_child()->set_name("ab");
  msg->set_id(300);
  EXPECT_EQ(msg.SerializeAsString(),
            std::string("\x08\x01\x1a\x84\x80\x80\x00\x12\x02"
                        "ab\x08\xac\x02",
                        14));
}

TEST(ScatteredHeapBufferTest, TinySlicesEqualContiguous) {
  for (int seed : {0, 1, 36, 77}) {
    const std::string expected = Reference(seed);
    ASSERT_GT(expected.size(), 300u);
    for (size_t initial : {size_t{1}, size_t{8}, size_t{9}, size_t{13},
                           size_t{64}}) {
      for (size_t max : {initial, size_t{32}, size_t{4096}}) {
        HeapBuffered<Msg> msg(initial, max);
        Fill(msg.get(), seed);
        ASSERT_EQ(msg.SerializeAsString(), expected)
            << initial << " " << max;
        const std::vector<uint8_t> array = msg.SerializeAsArray();
        ASSERT_EQ(std::string(array.begin(), array.end()), expected);
      }
    }
  }
}

TEST(ScatteredHeapBufferTest, SlicesDoubleUpToTheMaximum) {
  HeapBuffered<Msg> msg(8, 64);
  const std::string name(300, 'x');
  msg->set_name(name);
  const std::vector<ContiguousMemoryRange> ranges = msg.GetRanges();
  // 8 + 16 + 32 + 64 + 64 + 64 + 64 >= 303 bytes.
  ASSERT_EQ(ranges.size(), 7u);
  const size_t expected_used[] = {8, 16, 32, 64, 64, 64, 55};
  std::string joined;
  for (size_t i = 0; i < ranges.size(); ++i) {
    EXPECT_EQ(ranges[i].size(), expected_used[i]) << i;
    joined.append(reinterpret_cast<const char*>(ranges[i].begin),
                  ranges[i].size());
  }
  EXPECT_EQ(joined, std::string("\x12\xac\x02", 3) + name);
}

TEST(ScatteredHeapBufferTest, GetRangesExcludesTailsAbandonedByReservations) {
  HeapBuffered<Msg> msg(8, 8);
  msg->set_name("abcd");  // 6 bytes: 2 left in the first slice.
  msg->add_child();       // Tag fits, the size field does not: 1 byte lost.
  msg->set_id(5);
  const std::vector<ContiguousMemoryRange> ranges = msg.GetRanges();
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].size(), 7u);
  EXPECT_EQ(ranges[1].size(), 6u);
  EXPECT_EQ(msg.SerializeAsString(),
            std::string("\x12\x04"
                        "abcd\x1a\x80\x80\x80\x00\x08\x05",
                        13));
}

TEST(ScatteredHeapBufferTest, ResetReusesTheObject) {
  HeapBuffered<Msg> msg(16, 64);
  Fill(msg.get(), 5);
  EXPECT_EQ(msg.SerializeAsString(), Reference(5));
  msg.Reset();
  EXPECT_EQ(msg.SerializeAsString(), "");
  msg.Reset();
  Fill(msg.get(), 77);
  EXPECT_EQ(msg.SerializeAsString(), Reference(77));
  // Serializing twice yields the same bytes.
  EXPECT_EQ(msg.SerializeAsString(), Reference(77));
  msg.Reset();
  // Slices start again at the initial size.
  msg->set_name(std::string(20, 'r'));
  const std::vector<ContiguousMemoryRange> ranges = msg.GetRanges();
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].size(), 16u);
  EXPECT_EQ(ranges[1].size(), 6u);
}

TEST(ScatteredHeapBufferTest, ResetInTheMiddleOfANestedMessage) {
  HeapBuffered<Msg> msg(8, 8);
  msg->add_child()->add_child()->set_id(1);
  msg.Reset();
  EXPECT_EQ(msg->arena()->depth(), 0u);
  msg->add_child()->set_id(2);
  EXPECT_EQ(msg.SerializeAsString(),
            std::string("\x1a\x82\x80\x80\x00\x08\x02", 7));
}

TEST(ScatteredHeapBufferTest, EmptyMessage) {
  HeapBuffered<Msg> msg;
  EXPECT_EQ(msg.SerializeAsString(), "");
  EXPECT_TRUE(msg.SerializeAsArray().empty());
  EXPECT_TRUE(msg.GetRanges().empty());
  EXPECT_EQ(msg->Finalize(), 0u);
}

TEST(ScatteredHeapBufferTest, StandaloneDelegate) {
  ScatteredHeapBuffer shb(8, 1024);
  ScatteredStreamWriter writer(&shb);
  shb.set_writer(&writer);
  std::vector<uint8_t> data(100);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<uint8_t>(i);
  writer.WriteBytes(data.data(), data.size());
  EXPECT_EQ(shb.GetTotalSize(), 100u);
  EXPECT_EQ(shb.StitchSlices(), data);
  const auto& slices = shb.GetSlices();
  ASSERT_EQ(slices.size(), 4u);  // 8 + 16 + 32 + 64.
  EXPECT_EQ(slices[0].size(), 8u);
  EXPECT_EQ(slices[3].size(), 64u);
  EXPECT_EQ(slices[0].unused_bytes(), 0u);
  EXPECT_EQ(slices[3].unused_bytes(), 20u);
  EXPECT_EQ(slices[3].GetTotalRange().size(), 64u);
  EXPECT_EQ(slices[3].GetUsedRange().size(), 44u);
  // Writing more updates the last slice's used size.
  writer.WriteByte(0xff);
  EXPECT_EQ(shb.GetTotalSize(), 101u);
  EXPECT_EQ(shb.StitchSlicesAsString().back(), '\xff');
}

TEST(ScatteredHeapBufferTest, LargeMessage) {
  HeapBuffered<Msg> msg;  // 128 B slices doubling up to 128 KiB.
  std::string big(3 << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i)
    big[i] = static_cast<char>(i * 31);
  Msg* c = msg->add_child();
  c->set_name(big);
  c->set_id(9);
  const std::string out = msg.SerializeAsString();
  ASSERT_EQ(out.size(), 5 + 1 + 4 + big.size() + 2);
  uint64_t size = 0;
  const uint8_t* p = reinterpret_cast<const uint8_t*>(out.data());
  EXPECT_EQ(proto_utils::ParseVarInt(p + 1, p + 5, &size), p + 5);
  EXPECT_EQ(size, out.size() - 5);
  EXPECT_EQ(out.compare(10, big.size(), big), 0);
  EXPECT_EQ(out.substr(out.size() - 2), "\x08\x09");
}

}  // namespace
}  // namespace protozero
}  // namespace zt
