#include "src/processor/sql/column_table.h"

#include <vector>

#include <gtest/gtest.h>
#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {
namespace sql {
namespace {

TEST(ColumnTableTest, CellsAndNulls) {
  StringPool pool;
  const std::vector<int64_t> ts = {5, kNullInt};
  const std::vector<uint32_t> ids = {kNullId, 7};
  const std::vector<StringId> names = {pool.Intern("a"), kNullStringId};
  const std::vector<uint8_t> flags = {1, 2};
  ColumnTable table("t", 2);
  table.AddRowId("id");
  table.AddInt64("ts", ts.data());
  table.AddUint32Id("ref", ids.data());
  table.AddStringId("name", names.data(), &pool);
  table.AddBool("flag", flags.data());
  table.AddNull("nothing", "TEXT");
  EXPECT_EQ(table.Schema(),
            "CREATE TABLE x(id INTEGER, ts INTEGER, ref INTEGER, name TEXT, flag INTEGER, "
            "nothing TEXT)");
  EXPECT_EQ(table.column(0).Get(1).i, 1);
  EXPECT_EQ(table.column(1).Get(0).i, 5);
  EXPECT_EQ(table.column(1).Get(1).type, Cell::kNull);
  EXPECT_EQ(table.column(2).Get(0).type, Cell::kNull);
  EXPECT_EQ(table.column(2).Get(1).i, 7);
  EXPECT_EQ(table.column(3).Get(0).text, "a");
  EXPECT_EQ(table.column(3).Get(1).type, Cell::kNull);
  EXPECT_EQ(table.column(4).Get(0).i, 1);
  EXPECT_EQ(table.column(4).Get(1).type, Cell::kNull);
  EXPECT_EQ(table.column(5).Get(0).type, Cell::kNull);
}

TEST(ColumnTableTest, RowsByValueOrdersAsSqlite) {
  StringPool pool;
  // Interned in an order unlike the strings' order.
  const StringId b = pool.Intern("b");
  const StringId a = pool.Intern("a");
  const StringId upper = pool.Intern("Z");  // Bytes: 'Z' < 'a'.
  const std::vector<StringId> names = {b, a, kNullStringId, upper, a, b};
  ColumnTable table("t", names.size());
  table.AddStringId("name", names.data(), &pool);
  ASSERT_TRUE(table.HasKeyIndex(0));
  const uint32_t* by_value = table.RowsByValue(0);
  EXPECT_EQ(std::vector<uint32_t>(by_value, by_value + table.rows()),
            (std::vector<uint32_t>{2, 3, 1, 4, 0, 5}));
  size_t count = 0;
  const uint32_t* rows = table.RowsWithText(0, "b", &count);
  ASSERT_EQ(count, 2u);
  EXPECT_EQ(rows[0], 0u);
  EXPECT_EQ(rows[1], 5u);
  EXPECT_EQ(table.RowsWithText(0, "c", &count), nullptr);
  EXPECT_EQ(count, 0u);
  table.RowsWithKey(0, a, &count);
  EXPECT_EQ(count, 2u);
  // NULL equals nothing.
  table.RowsWithKey(0, kNullStringId, &count);
  EXPECT_EQ(count, 0u);
}

TEST(ColumnTableTest, IdKeysNullFirst) {
  const std::vector<uint32_t> ids = {3, kNullId, 0, 3, 1};
  ColumnTable table("t", ids.size());
  table.AddUint32Id("track_id", ids.data());
  const uint32_t* by_value = table.RowsByValue(0);
  EXPECT_EQ(std::vector<uint32_t>(by_value, by_value + table.rows()),
            (std::vector<uint32_t>{1, 2, 4, 0, 3}));
  size_t count = 0;
  const uint32_t* rows = table.RowsWithKey(0, 3, &count);
  ASSERT_EQ(count, 2u);
  EXPECT_EQ(rows[0], 0u);
  EXPECT_EQ(rows[1], 3u);
  table.RowsWithKey(0, 2, &count);
  EXPECT_EQ(count, 0u);
  table.RowsWithKey(0, 1000, &count);
  EXPECT_EQ(count, 0u);
  table.RowsWithKey(0, kNullId, &count);
  EXPECT_EQ(count, 0u);
}

TEST(ColumnTableTest, SortedBounds) {
  const std::vector<int64_t> ts = {1, 3, 3, 7};
  ColumnTable table("t", ts.size());
  table.AddInt64("ts", ts.data(), ColumnTable::kSorted);
  EXPECT_EQ(table.LowerBound(0, 3), 1u);
  EXPECT_EQ(table.UpperBound(0, 3), 3u);
  EXPECT_EQ(table.LowerBound(0, 8), 4u);
  EXPECT_EQ(table.UpperBound(0, 0), 0u);
}

TEST(ColumnTableTest, EmptyTable) {
  const std::vector<uint32_t> ids;
  ColumnTable table("t", 0);
  table.AddUint32Id("k", ids.data());
  table.RowsByValue(0);  // Builds an empty index.
  size_t count = 1;
  table.RowsWithKey(0, 0, &count);
  EXPECT_EQ(count, 0u);
}

}  // namespace
}  // namespace sql
}  // namespace processor
}  // namespace zt
