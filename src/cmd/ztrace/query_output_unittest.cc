#include "src/cmd/ztrace/query_output.h"

#include <stdio.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/processor/test/sql_values_for_testing.h"

namespace zt {
namespace ztrace {
namespace {

using processor::SqlValue;

using processor::testing::Int;
using processor::testing::Real;
using processor::testing::Text;

std::string Print(QueryFormat format, const std::vector<std::string>& columns,
                  const std::vector<std::vector<SqlValue>>& rows) {
  char* buffer = nullptr;
  size_t size = 0;
  FILE* out = open_memstream(&buffer, &size);
  QueryPrinter printer(format, out);
  printer.Begin(columns);
  for (const auto& row : rows)
    printer.Row(row);
  printer.End();
  fclose(out);
  std::string text(buffer, size);
  free(buffer);
  return text;
}

const std::vector<std::vector<SqlValue>> kRows = {
    {Text("Outer"), Int(100), Real(0.5)},
    {Text("a, \"quoted\"\nname"), SqlValue(), Real(2)},
};

TEST(QueryOutputTest, TableAlignsColumnsNumbersRight) {
  EXPECT_EQ(Print(QueryFormat::kTable, {"name", "dur", "ratio"},
                  {{Text("Outer"), Int(100), Real(0.5)}, {Text("In"), SqlValue(), Real(2)}}),
            "name   dur     ratio\n"
            "-----  ------  -----\n"
            "Outer     100    0.5\n"
            "In     [NULL]    2.0\n");
}

TEST(QueryOutputTest, TableOfNoRowsShowsTheColumns) {
  EXPECT_EQ(Print(QueryFormat::kTable, {"id", "name"}, {}), "id  name\n--  ----\n");
}

TEST(QueryOutputTest, Csv) {
  EXPECT_EQ(Print(QueryFormat::kCsv, {"name", "dur", "ratio"}, kRows),
            "name,dur,ratio\n"
            "Outer,100,0.5\n"
            "\"a, \"\"quoted\"\"\nname\",,2.0\n");
}

TEST(QueryOutputTest, Json) {
  EXPECT_EQ(Print(QueryFormat::kJson, {"name", "dur", "ratio"}, kRows),
            "[\n"
            "  {\"name\": \"Outer\", \"dur\": 100, \"ratio\": 0.5},\n"
            "  {\"name\": \"a, \\\"quoted\\\"\\nname\", \"dur\": null, \"ratio\": 2.0}\n"
            "]\n");
  EXPECT_EQ(Print(QueryFormat::kJson, {"x"}, {}), "[]\n");
  EXPECT_EQ(JsonString(std::string("\x01\t\\", 3)), "\"\\u0001\\t\\\\\"");
}

}  // namespace
}  // namespace ztrace
}  // namespace zt
