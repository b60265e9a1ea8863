#include "src/c_abi/content_intern_map.h"

#include <string>

#include <gtest/gtest.h>

namespace zt {
namespace c_abi {
namespace {

TEST(ContentInternMapTest, IdsByContentPerType) {
  ContentInternMap map;
  bool is_new = false;
  std::string name = "draw";
  EXPECT_EQ(map.FindOrAssign(2, name.data(), name.size(), &is_new), 1u);
  EXPECT_TRUE(is_new);
  // The same bytes at another address: the same id.
  const std::string copy = name;
  EXPECT_EQ(map.FindOrAssign(2, copy.data(), copy.size(), &is_new), 1u);
  EXPECT_FALSE(is_new);
  // The buffer rewritten: new content, a new id.
  name[0] = 'D';
  EXPECT_EQ(map.FindOrAssign(2, name.data(), name.size(), &is_new), 2u);
  EXPECT_TRUE(is_new);
  // A prefix, an empty string and another type are other entries.
  EXPECT_EQ(map.FindOrAssign(2, "dra", 3, &is_new), 3u);
  EXPECT_EQ(map.FindOrAssign(2, "", 0, &is_new), 4u);
  EXPECT_TRUE(is_new);
  EXPECT_EQ(map.FindOrAssign(2, "", 0, &is_new), 4u);
  EXPECT_FALSE(is_new);
  EXPECT_EQ(map.FindOrAssign(3, "draw", 4, &is_new), 1u) << "ids are per type";
  EXPECT_EQ(map.FindOrAssign(-5, "draw", 4, &is_new), 1u) << "odd types get ids too";
  EXPECT_EQ(map.size(), 6u);
}

TEST(ContentInternMapTest, GrowsKeepingIdsAndClearsToOne) {
  ContentInternMap map;
  bool is_new;
  // Names of every length around the 8-byte words the hash reads.
  for (int i = 0; i < 5000; i++) {
    const std::string s = std::string(static_cast<size_t>(i % 19), 'x') + std::to_string(i);
    ASSERT_EQ(map.FindOrAssign(1, s.data(), s.size(), &is_new), static_cast<uint64_t>(i + 1));
    ASSERT_TRUE(is_new);
  }
  for (int i = 0; i < 5000; i++) {
    const std::string s = std::string(static_cast<size_t>(i % 19), 'x') + std::to_string(i);
    ASSERT_EQ(map.FindOrAssign(1, s.data(), s.size(), &is_new), static_cast<uint64_t>(i + 1));
    ASSERT_FALSE(is_new);
  }
  const size_t memory = map.MemoryBytes();
  EXPECT_GT(memory, 5000u * 8);
  map.Clear();
  EXPECT_EQ(map.size(), 0u);
  EXPECT_EQ(map.FindOrAssign(1, "x9", 2, &is_new), 1u);
  EXPECT_TRUE(is_new);
  EXPECT_EQ(map.MemoryBytes(), memory) << "a clear keeps the allocations";
}

}  // namespace
}  // namespace c_abi
}  // namespace zt
