// CategoryFilter against upstream Perfetto's rules, and the registry's
// state bytes as instances start and stop and slots register late.

#include "src/tracing/sdk/track_event_category_registry.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "zt/tracing/category.h"

namespace zt {
namespace internal {
namespace {

CategoryFilter Filter(std::vector<std::string> enabled,
                      std::vector<std::string> disabled,
                      std::vector<std::string> enabled_tags = {},
                      std::vector<std::string> disabled_tags = {}) {
  CategoryFilter filter;
  filter.enabled_categories = std::move(enabled);
  filter.disabled_categories = std::move(disabled);
  filter.enabled_tags = std::move(enabled_tags);
  filter.disabled_tags = std::move(disabled_tags);
  return filter;
}

constexpr Category kPlain{"foo"};
constexpr Category kFooBar{"foo.bar"};
constexpr Category kSlow = Category{"heavy"}.SetTags("slow");
constexpr Category kDebug = Category{"verbose"}.SetTags("debug", "extra");
constexpr Category kTagged = Category{"gpu"}.SetTags("rendering");

TEST(CategoryFilterTest, EmptyConfigEnablesAllButSlowAndDebug) {
  CategoryFilter filter;
  EXPECT_TRUE(filter.IsEnabled(kPlain));
  EXPECT_TRUE(filter.IsEnabled(kTagged));
  EXPECT_FALSE(filter.IsEnabled(kSlow));
  EXPECT_FALSE(filter.IsEnabled(kDebug));
  EXPECT_TRUE(filter.IsEnabled("dynamic"));
  EXPECT_FALSE(filter.IsEnabled("disabled-by-default-memory"));  // Counts as slow.
}

TEST(CategoryFilterTest, ExactBeatsPatternBeatsWildcard) {
  // Disable everything, enable one name: only it.
  CategoryFilter only_foo = Filter({"foo"}, {"*"});
  EXPECT_TRUE(only_foo.IsEnabled(kPlain));
  EXPECT_FALSE(only_foo.IsEnabled(kFooBar));
  // A prefix pattern beats the lone wildcard, an exact name the pattern.
  CategoryFilter prefix = Filter({"foo*"}, {"*", "foo.bar"});
  EXPECT_TRUE(prefix.IsEnabled(kPlain));
  EXPECT_FALSE(prefix.IsEnabled(kFooBar));
  EXPECT_FALSE(prefix.IsEnabled(kTagged));
  // Enabled wins over disabled within one pass.
  EXPECT_TRUE(Filter({"foo"}, {"foo"}).IsEnabled(kPlain));
  // "*" enables all but the default disabled tags, which are checked in
  // the exact pass, before the wildcard.
  CategoryFilter all = Filter({"*"}, {});
  EXPECT_TRUE(all.IsEnabled(kPlain));
  EXPECT_FALSE(all.IsEnabled(kSlow));
  EXPECT_TRUE(Filter({"heavy"}, {}).IsEnabled(kSlow));  // Named exactly.
  EXPECT_FALSE(Filter({"hea*"}, {}).IsEnabled(kSlow));  // Patterns do not.
}

TEST(CategoryFilterTest, Tags) {
  // Enabled tags lift the default slow/debug block entirely.
  CategoryFilter by_tag = Filter({}, {"*"}, {"rendering"});
  EXPECT_TRUE(by_tag.IsEnabled(kTagged));
  EXPECT_FALSE(by_tag.IsEnabled(kPlain));
  EXPECT_FALSE(by_tag.IsEnabled(kSlow));  // Disabled by "*" in the last pass.
  EXPECT_TRUE(Filter({}, {}, {"rendering"}).IsEnabled(kSlow));
  // Disabled tags beat enabled tags, and replace the default list.
  EXPECT_FALSE(Filter({}, {}, {"rendering"}, {"rendering"}).IsEnabled(kTagged));
  EXPECT_TRUE(Filter({}, {}, {}, {"rendering"}).IsEnabled(kDebug));
  EXPECT_FALSE(Filter({}, {}, {}, {"ext*"}).IsEnabled(kDebug));  // Tag patterns.
  // A disabled tag does not beat an enabled category name.
  EXPECT_TRUE(Filter({"gpu"}, {}, {}, {"rendering"}).IsEnabled(kTagged));
}

TEST(CategoryFilterTest, FromConfigReadsAllFourLists) {
  // TrackEventConfig {disabled_categories: "a" enabled_categories: "b"
  //                   disabled_tags: "c" enabled_tags: "d"}
  const std::string bytes("\x0a\x01" "a" "\x12\x01" "b" "\x1a\x01" "c" "\x22\x01" "d", 12);
  CategoryFilter filter = CategoryFilter::FromConfig(bytes);
  EXPECT_EQ(filter.disabled_categories, std::vector<std::string>{"a"});
  EXPECT_EQ(filter.enabled_categories, std::vector<std::string>{"b"});
  EXPECT_EQ(filter.disabled_tags, std::vector<std::string>{"c"});
  EXPECT_EQ(filter.enabled_tags, std::vector<std::string>{"d"});
}

// Slot 9 is not used by any declaration linked into this test.
constexpr Category kLateCategories[] = {Category{"late.a"}, Category{"late.b"}.SetTags("debug")};

TEST(CategoryRegistryTest, StatesFollowInstancesAndLateSlots) {
  const uint32_t late_a = (0 << 4) | 9, late_b = (1 << 4) | 9;
  EnableCategoryInstance(3, Filter({"late.*"}, {}));
  // A slot registered while instance 3 runs (a library loaded by dlopen)
  // is enabled for it at once.
  RegisterCategorySlot(9, kLateCategories, 2, "late.cc");
  EXPECT_EQ(LoadCategoryState(late_a), 1u << 3);
  EXPECT_EQ(LoadCategoryState(late_b), 0u);  // Tagged "debug".
  EXPECT_STREQ(RegisteredCategoryName(late_b), "late.b");
  EnableCategoryInstance(5, Filter({"late.b"}, {}));
  EXPECT_EQ(LoadCategoryState(late_a), (1u << 3) | (1u << 5));
  EXPECT_EQ(LoadCategoryState(late_b), 1u << 5);
  DisableCategoryInstance(3);
  EXPECT_EQ(LoadCategoryState(late_a), 1u << 5);
  DisableCategoryInstance(5);
  EXPECT_EQ(LoadCategoryState(late_a), 0u);
  // Registering the same definition again is harmless.
  RegisterCategorySlot(9, kLateCategories, 2, "late.cc");
}

TEST(CategoryRegistryDeathTest, TwoDefinitionsOfASlotAbortNamingBoth) {
  static constexpr Category kOther[] = {Category{"other"}};
  RegisterCategorySlot(10, kLateCategories, 2, "first.cc");
  EXPECT_DEATH(RegisterCategorySlot(10, kOther, 1, "second.cc"),
               "slot 10 is defined twice: by first.cc \\(late.a, late.b\\) and "
               "by second.cc \\(other\\)");
}

}  // namespace
}  // namespace internal
}  // namespace zt
