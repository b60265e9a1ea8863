#include "zt/protozero/static_buffer.h"

#include <cstdint>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "zt/protozero/message.h"
#include "zt/protozero/scattered_heap_buffer.h"

namespace zt {
namespace protozero {
namespace {

using Bytes = std::vector<uint8_t>;

class Msg : public Message {
 public:
  void set_id(int32_t v) { AppendVarInt(1, v); }
  void set_name(std::string_view s) { AppendString(2, s); }
  Msg* add_child() { return BeginNestedMessage<Msg>(3); }
  void set_fixed(uint64_t v) { AppendFixed(4, v); }
};

void Small(Msg* m) {
  m->set_id(150);
  m->set_name("hi");
}

// Nested messages, long strings and fixed fields: every write path.
void Workload(Msg* m) {
  m->set_id(-1);
  for (int i = 0; i < 4; ++i) {
    Msg* c = m->add_child();
    c->set_name(std::string(static_cast<size_t>(i * 90), 'a'));
    Msg* g = c->add_child();
    g->set_fixed(0x0102030405060708u);
    g->add_child();
    c->set_id(i);
  }
  m->set_name(std::string(400, 'z'));  // Longer than the scratch space.
  m->add_child()->add_child()->set_id(7);
}

Bytes Reference(void (*fn)(Msg*)) {
  HeapBuffered<Msg> msg;
  fn(msg.get());
  return msg.SerializeAsArray();
}

// Writes |fn| into a buffer of |size| bytes surrounded by guard bytes, checks
// the guards, and returns {overflowed, size(), the buffer's bytes}.
struct Result {
  bool overflowed;
  size_t size;
  Bytes bytes;
};
Result WriteInto(void (*fn)(Msg*), size_t size) {
  constexpr size_t kGuard = 32;
  Bytes storage(size + 2 * kGuard, 0xab);
  StaticBuffered<Msg> msg(storage.data() + kGuard, size);
  EXPECT_EQ(msg.data(), storage.data() + kGuard);
  fn(msg.get());
  const size_t finalized = msg.Finalize();
  EXPECT_EQ(finalized, msg.size());
  for (size_t i = 0; i < kGuard; ++i) {
    EXPECT_EQ(storage[i], 0xab) << "before the buffer, size " << size;
    EXPECT_EQ(storage[kGuard + size + i], 0xab)
        << "after the buffer, size " << size;
  }
  return {msg.overflowed(), msg.size(),
          Bytes(storage.begin() + kGuard, storage.begin() + kGuard + size)};
}

TEST(StaticBufferTest, SmallMessageExactBytes) {
  uint8_t buf[64];
  StaticBuffered<Msg> msg(buf, sizeof(buf));
  Small(msg.get());
  EXPECT_EQ(msg.Finalize(), 7u);
  EXPECT_FALSE(msg.overflowed());
  EXPECT_EQ(Bytes(buf, buf + 7),
            (Bytes{0x08, 0x96, 0x01, 0x12, 0x02, 'h', 'i'}));
}

TEST(StaticBufferTest, FitsExactly) {
  for (auto fn : {&Small, &Workload}) {
    const Bytes expected = Reference(fn);
    const Result r = WriteInto(fn, expected.size());
    EXPECT_FALSE(r.overflowed);
    EXPECT_EQ(r.size, expected.size());
    EXPECT_EQ(r.bytes, expected);
  }
}

TEST(StaticBufferTest, OverflowReportsTheNeededSizeThenRetrySucceeds) {
  for (auto fn : {&Small, &Workload}) {
    const Bytes expected = Reference(fn);
    for (size_t size = 0; size < expected.size(); ++size) {
      const Result r = WriteInto(fn, size);
      ASSERT_TRUE(r.overflowed) << size;
      ASSERT_EQ(r.size, expected.size()) << size;
      // Retry with exactly the size it asked for.
      const Result retry = WriteInto(fn, r.size);
      ASSERT_FALSE(retry.overflowed) << size;
      ASSERT_EQ(retry.bytes, expected) << size;
    }
  }
}

TEST(StaticBufferTest, LargerBufferLeavesTheRestUntouched) {
  const Bytes expected = Reference(&Workload);
  const Result r = WriteInto(&Workload, expected.size() + 50);
  EXPECT_FALSE(r.overflowed);
  EXPECT_EQ(r.size, expected.size());
  EXPECT_EQ(Bytes(r.bytes.begin(), r.bytes.begin() + expected.size()),
            expected);
  EXPECT_EQ(Bytes(r.bytes.begin() + expected.size(), r.bytes.end()),
            Bytes(50, 0xab));
}

TEST(StaticBufferTest, NullEmptyBuffer) {
  StaticBuffered<Msg> empty(nullptr, 0);
  EXPECT_EQ(empty.Finalize(), 0u);
  EXPECT_FALSE(empty.overflowed());
  StaticBuffered<Msg> msg(nullptr, 0);
  msg->set_id(1);
  EXPECT_EQ(msg.Finalize(), 2u);
  EXPECT_TRUE(msg.overflowed());
}

TEST(StaticBufferTest, DelegateOverflowFlag) {
  StaticBufferDelegate delegate;
  EXPECT_FALSE(delegate.overflowed());
  const ContiguousMemoryRange r = delegate.GetNewBuffer();
  EXPECT_TRUE(delegate.overflowed());
  EXPECT_GE(r.size(), ScatteredStreamWriter::kMaxReserveSize);
  delegate.ClearOverflow();
  EXPECT_FALSE(delegate.overflowed());
}

}  // namespace
}  // namespace protozero
}  // namespace zt
