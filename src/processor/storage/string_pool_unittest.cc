#include "src/processor/storage/string_pool.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace zt {
namespace processor {
namespace {

TEST(StringPoolTest, ASmallPoolHoldsAFewKiBNotAFullBlock) {
  // Most imports (tests, fuzzer inputs, short traces) intern a few names:
  // the arena starts at 4 KiB and grows, rather than taking 256 KiB at the
  // first string (what made each fuzzed import map and unmap a block).
  StringPool pool;
  const size_t empty = pool.memory_bytes();
  pool.Intern("Outer");
  pool.Intern("cat");
  EXPECT_LT(pool.memory_bytes() - empty, size_t{8} << 10);
}

TEST(StringPoolTest, ViewsStayValidAndDistinctAcrossGrowingBlocks) {
  // Enough bytes for every block size from 4 KiB to 256 KiB and several
  // full blocks, in strings of varied lengths (some over a quarter block,
  // which get blocks of their own).
  StringPool pool;
  std::vector<std::string> texts;
  std::vector<StringId> ids;
  std::vector<std::string_view> views;
  for (size_t i = 0; i < 20000; i++) {
    const size_t length = i % 997 == 0 ? (70 << 10) + i : 1 + (i * 37) % 300;
    texts.push_back(std::to_string(i) + std::string(length, static_cast<char>('a' + i % 26)));
    ids.push_back(pool.Intern(texts.back()));
    views.push_back(pool.Get(ids.back()));
  }
  EXPECT_GT(pool.memory_bytes(), size_t{4} << 20);
  for (size_t i = 0; i < texts.size(); i++) {
    ASSERT_EQ(pool.Get(ids[i]), texts[i]) << "string " << i;
    ASSERT_EQ(views[i].data(), pool.Get(ids[i]).data()) << "string " << i << " moved";
    ASSERT_EQ(pool.Intern(texts[i]), ids[i]) << "string " << i << " interned twice";
  }
  EXPECT_EQ(pool.size(), texts.size() + 1);
}

TEST(StringPoolTest, AHashGivenWithTheTextFindsWhatInternMade) {
  StringPool pool;
  const std::string held = "std::vector<int, std::allocator<int> >";
  const StringId copied = pool.Intern(held);
  // A view of other bytes with the same text, hashed by its owner.
  const std::string other = held;
  EXPECT_EQ(pool.InternStable(other, OpenIndex::HashText(other)), copied);
  const std::string fresh = "std::map<int, int>";
  const StringId viewed = pool.InternStable(fresh, OpenIndex::HashText(fresh));
  EXPECT_EQ(pool.Get(viewed).data(), fresh.data()) << "viewed, not copied";
  EXPECT_EQ(pool.Intern("std::map<int, int>"), viewed);
}

TEST(OpenIndexTest, TextHashSeesEveryByteAndNoAddress) {
  // Every length up to three 16-byte rounds and a tail: a change of any
  // one byte changes the hash (no byte is left out of the mix), and the
  // same bytes elsewhere hash the same.
  for (size_t length = 0; length <= 56; length++) {
    std::string text(length, 'x');
    for (size_t i = 0; i < length; i++)
      text[i] = static_cast<char>('a' + (i * 7) % 26);
    const uint32_t hash = OpenIndex::HashText(text);
    const std::string copy = " " + text;
    EXPECT_EQ(OpenIndex::HashText(std::string_view(copy).substr(1)), hash) << length;
    for (size_t i = 0; i < length; i++) {
      std::string changed = text;
      changed[i] ^= 1;
      EXPECT_NE(OpenIndex::HashText(changed), hash) << "length " << length << ", byte " << i;
    }
    EXPECT_NE(OpenIndex::HashText(text + '\0'), hash) << "length " << length;
  }
}

}  // namespace
}  // namespace processor
}  // namespace zt
