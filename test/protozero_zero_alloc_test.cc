// Proves that writing messages through protozero allocates nothing: global
// operator new is replaced by a counting one for this binary, and the count
// must not move while Simple and Nested messages are written into a fixed
// buffer, nor while a warm root message is reused with deep nesting.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "zt/protozero/message.h"
#include "zt/protozero/proto_decoder.h"
#include "zt/protozero/static_buffer.h"
#include "zt/test/bench.pbzero.h"

namespace {
std::atomic<size_t> g_allocations{0};
}  // namespace

void* operator new(size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size ? size : 1))
    return p;
  throw std::bad_alloc();
}
void* operator new[](size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }

namespace {

using zt::protozero::StaticBuffered;
using zt::test::pbzero::BenchMessage;

void FillSimple(BenchMessage* msg, int i) {
  msg->set_field_int32(0x12345678 + i);
  msg->set_field_uint32(0x90ABCDEFu);
  msg->set_field_int64(0x11111111);
  msg->set_field_uint64(0xFFFFFFFFu);
  msg->set_field_string("ffffffffffffffffffffffffffffffff");
}

TEST(ProtozeroZeroAlloc, CountingAllocatorSeesAllocations) {
  // Guards the test itself: if the replacement were not in effect, the
  // assertions below could not fail.
  const size_t before = g_allocations.load();
  std::unique_ptr<int> p(new int(1));
  EXPECT_EQ(g_allocations.load(), before + 1);
}

TEST(ProtozeroZeroAlloc, SimpleAndNestedIntoFixedBuffer) {
  alignas(8) uint8_t buf[512];
  const size_t before = g_allocations.load();
  size_t total = 0;
  for (int i = 0; i < 10000; i++) {
    StaticBuffered<BenchMessage> msg(buf, sizeof(buf));
    FillSimple(msg.get(), i);
    BenchMessage* level = msg.get();
    for (int depth = 0; depth < 3; depth++) {
      level = level->set_field_nested();
      FillSimple(level, i);
    }
    total += msg.Finalize();
    ASSERT_FALSE(msg.overflowed());
  }
  EXPECT_EQ(g_allocations.load(), before);
  EXPECT_GT(total, 0u);

  // And the bytes are a valid 4-level message.
  BenchMessage::Decoder top(buf, total / 10000);
  EXPECT_FALSE(top.parse_error());
  EXPECT_TRUE(top.has_field_nested());
}

TEST(ProtozeroZeroAlloc, WarmArenaDeepNestingAllocatesOnlyOnce) {
  static uint8_t buf[64 * 1024];
  zt::protozero::StaticBufferDelegate delegate;
  zt::protozero::ScatteredStreamWriter writer(&delegate);
  zt::protozero::RootMessage<BenchMessage> root;
  auto write_deep = [&] {
    writer.Reset({buf, buf + sizeof(buf)});
    root.Reset(&writer);
    BenchMessage* level = &root;
    for (int depth = 0; depth < 100; depth++)
      level = level->set_field_nested();
    level->set_field_int32(1);
    root.Finalize();
  };
  write_deep();  // Grows the arena beyond its inline depth once.
  const size_t before = g_allocations.load();
  for (int i = 0; i < 1000; i++)
    write_deep();
  EXPECT_EQ(g_allocations.load(), before);
  EXPECT_FALSE(delegate.overflowed());
}

}  // namespace
