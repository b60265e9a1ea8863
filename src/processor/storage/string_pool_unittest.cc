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

}  // namespace
}  // namespace processor
}  // namespace zt
