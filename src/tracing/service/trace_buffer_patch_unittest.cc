// TraceBuffer: patches applied to stored chunks (a fragment's size written
// after its chunk was committed), and every way a patch is refused.

#include <algorithm>

#include <gtest/gtest.h>

#include "src/tracing/service/trace_buffer.h"
#include "src/tracing/service/trace_buffer_test_util.h"
#include "zt/ext/tracing/core/shared_memory_abi.h"

namespace zt {
namespace {

using ABI = SharedMemoryABI;
using test::Bytes;
using test::KiBChunk;
using test::Pattern;
using test::ReadAll;
using test::TestChunk;

constexpr uint8_t kFirstCont = ABI::kFirstPacketContinuesFromPrevChunk;
constexpr uint8_t kLastCont = ABI::kLastPacketContinuesOnNextChunk;
constexpr uint8_t kPatch = ABI::kChunkNeedsPatching;

std::unique_ptr<TraceBuffer> Make(size_t size) {
  return test::MakeTraceBuffer(size);
}

TEST(TraceBufferPatchTest, PatchThenRead) {
  auto tb = Make(4096);
  TestChunk c(1);
  c.Frag(Pattern(5, 1)).Frag({0, 0, 0, 0}).Flags(kPatch);
  c.AddTo(tb.get());
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 1u);  // The last fragment waits for its patch.
  EXPECT_EQ(pk[0].data, Pattern(5, 1));
  const uint32_t off = 4 + 5 + 4;  // Data of the second fragment.
  CommitData::Patch p1{off, {1, 2, 3, 4}};
  EXPECT_TRUE(tb->TryPatchChunkContents(1, 1, 1, {p1}, true));
  EXPECT_TRUE(ReadAll(tb.get()).empty());  // More patches pending.
  EXPECT_TRUE(tb->TryPatchChunkContents(1, 1, 1, {}, false));
  pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 1u);
  EXPECT_EQ(pk[0].data, Bytes({1, 2, 3, 4}));
  EXPECT_EQ(tb->stats().patches_succeeded, 2u);
  EXPECT_EQ(tb->stats().patches_failed, 0u);
}

TEST(TraceBufferPatchTest, PatchedSizeOfFragmentAcrossChunks) {
  auto tb = Make(4096);
  TestChunk c1(1);
  c1.Frag(Pattern(10, 1)).Flags(kLastCont | kPatch);
  test::PutSize4(&c1.payload[0], 0);  // Size not known at the switch.
  c1.AddTo(tb.get());
  TestChunk(2).Frag(Pattern(6, 2)).Flags(kFirstCont).AddTo(tb.get());
  EXPECT_TRUE(ReadAll(tb.get()).empty());
  CommitData::Patch p{0, {}};
  test::PutSize4(p.data.data(), 10);
  EXPECT_TRUE(tb->TryPatchChunkContents(1, 1, 1, {p}, false));
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 1u);
  Bytes want = Pattern(10, 1);
  const Bytes tail = Pattern(6, 2);
  want.insert(want.end(), tail.begin(), tail.end());
  EXPECT_EQ(pk[0].data, want);
  EXPECT_EQ(pk[0].previous_packet_dropped, 0u);
}

TEST(TraceBufferPatchTest, PatchFailures) {
  auto tb = Make(4096);
  TestChunk c(1);
  c.Frag(Pattern(8, 1)).Flags(kPatch);
  c.AddTo(tb.get());
  const uint32_t size = static_cast<uint32_t>(c.payload.size());
  // Another producer's chunk with the same writer and chunk id.
  EXPECT_FALSE(tb->TryPatchChunkContents(2, 1, 1, {{4, {9, 9, 9, 9}}}, false));
  EXPECT_FALSE(tb->TryPatchChunkContents(1, 2, 1, {{4, {9, 9, 9, 9}}}, false));
  EXPECT_FALSE(tb->TryPatchChunkContents(1, 1, 5, {{4, {9, 9, 9, 9}}}, false));
  EXPECT_FALSE(
      tb->TryPatchChunkContents(1, 1, 1, {{size - 3, {9, 9, 9, 9}}}, false));
  EXPECT_FALSE(
      tb->TryPatchChunkContents(1, 1, 1, {{0xFFFFFFFFu, {9, 9, 9, 9}}}, false));
  // All or nothing: the good patch is not applied either.
  EXPECT_FALSE(tb->TryPatchChunkContents(
      1, 1, 1, {{4, {9, 9, 9, 9}}, {size, {1, 1, 1, 1}}}, false));
  EXPECT_EQ(tb->stats().patches_failed, 6u);
  EXPECT_TRUE(ReadAll(tb.get()).empty());  // Still waiting.
  EXPECT_TRUE(
      tb->TryPatchChunkContents(1, 1, 1, {{size - 4, {7, 7, 7, 7}}}, false));
  auto pk = ReadAll(tb.get());
  ASSERT_EQ(pk.size(), 1u);
  Bytes want = Pattern(8, 1);
  std::fill(want.end() - 4, want.end(), 7);
  EXPECT_EQ(pk[0].data, want);
  EXPECT_EQ(tb->stats().patches_succeeded, 1u);
}

TEST(TraceBufferPatchTest, PatchAfterOverwriteFails) {
  auto tb = Make(4096);
  TestChunk c = KiBChunk(1);
  c.Flags(kPatch);
  c.AddTo(tb.get());
  for (uint32_t id = 2; id <= 5; id++)
    KiBChunk(id).AddTo(tb.get());
  EXPECT_FALSE(tb->TryPatchChunkContents(1, 1, 1, {{4, {1, 2, 3, 4}}}, false));
  EXPECT_EQ(tb->stats().patches_failed, 1u);
  EXPECT_EQ(tb->stats().chunks_overwritten, 1u);
}

}  // namespace
}  // namespace zt
