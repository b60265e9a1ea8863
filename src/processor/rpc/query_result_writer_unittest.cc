#include "src/processor/rpc/query_result_writer.h"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/processor/test/sql_values_for_testing.h"
#include "zt/protozero/proto_decoder.h"
#include "zt/trace_processor/trace_processor.pb.h"

namespace zt {
namespace processor {
namespace rpc {
namespace {

using Batch = protos::QueryResult_CellsBatch;

using testing::Blob;
using testing::Int;
using testing::Null;
using testing::Real;
using testing::Text;

struct Written {
  std::vector<std::string> messages;
  std::vector<protos::QueryResult> parsed;
};

// The writer's messages, each parsed on its own as a client would.
Written Write(const std::vector<std::string>& columns,
              const std::vector<std::vector<SqlValue>>& rows, const std::string& error = "",
              QueryResultWriter::Limits limits = {}) {
  Written out;
  QueryResultWriter writer([&out](std::string message) { out.messages.push_back(message); },
                           limits);
  writer.Begin(columns, 2, 1, "SELECT 1");
  for (const auto& row : rows)
    writer.AddRow(row);
  writer.Finish(error);
  for (const std::string& message : out.messages) {
    protos::QueryResult result;
    EXPECT_TRUE(result.ParseFromString(message));
    out.parsed.push_back(result);
  }
  return out;
}

TEST(QueryResultWriterTest, EveryCellTypeInOneBatch) {
  const Written w = Write({"i", "r", "s", "n"}, {{Int(-5), Real(2.5), Text("ab"), Null()},
                                                 {Int(1) , Real(-1), Text(""), Int(300)}});
  ASSERT_EQ(w.parsed.size(), 1u);
  const protos::QueryResult& result = w.parsed[0];
  ASSERT_EQ(result.column_names_size(), 4);
  EXPECT_EQ(result.column_names(2), "s");
  EXPECT_EQ(result.statement_count(), 2u);
  EXPECT_EQ(result.statement_with_output_count(), 1u);
  EXPECT_EQ(result.last_statement_sql(), "SELECT 1");
  EXPECT_FALSE(result.has_error());
  EXPECT_TRUE(result.has_elapsed_time_ms());
  ASSERT_EQ(result.batch_size(), 1);
  const Batch& batch = result.batch(0);
  ASSERT_EQ(batch.cells_size(), 8);
  const std::vector<int> types(batch.cells().begin(), batch.cells().end());
  EXPECT_EQ(types, (std::vector<int>{Batch::CELL_VARINT, Batch::CELL_FLOAT64, Batch::CELL_STRING,
                                     Batch::CELL_NULL, Batch::CELL_VARINT, Batch::CELL_FLOAT64,
                                     Batch::CELL_STRING, Batch::CELL_VARINT}));
  EXPECT_EQ(std::vector<int64_t>(batch.varint_cells().begin(), batch.varint_cells().end()),
            (std::vector<int64_t>{-5, 1, 300}));
  EXPECT_EQ(std::vector<double>(batch.float64_cells().begin(), batch.float64_cells().end()),
            (std::vector<double>{2.5, -1}));
  // Each string NUL-terminated, the last too: clients split on NUL and
  // drop what follows the last one.
  EXPECT_EQ(batch.string_cells(), std::string("ab\0\0", 4));
  EXPECT_TRUE(batch.is_last_batch());
}

TEST(QueryResultWriterTest, BlobsKeepEveryByte) {
  const std::string bytes("\x01\0\xff", 3);
  const Written w = Write({"b", "s"}, {{Blob(bytes), Text("t")}, {Blob(""), Null()}});
  ASSERT_EQ(w.parsed.size(), 1u);
  const Batch& batch = w.parsed[0].batch(0);
  const std::vector<int> types(batch.cells().begin(), batch.cells().end());
  EXPECT_EQ(types, (std::vector<int>{Batch::CELL_BLOB, Batch::CELL_STRING, Batch::CELL_BLOB,
                                     Batch::CELL_NULL}));
  ASSERT_EQ(batch.blob_cells_size(), 2);
  EXPECT_EQ(batch.blob_cells(0), bytes);
  EXPECT_EQ(batch.blob_cells(1), "");
  EXPECT_EQ(batch.string_cells(), std::string("t\0", 2));
}

TEST(QueryResultWriterTest, BatchesHoldWholeRowsUpToTheCellLimit) {
  std::vector<std::vector<SqlValue>> rows;
  for (int i = 0; i < 7; i++)
    rows.push_back({Int(i), Text("row" + std::to_string(i))});
  QueryResultWriter::Limits limits;
  limits.cells_per_batch = 6;  // 3 rows of 2.
  const Written w = Write({"id", "name"}, rows, "", limits);
  ASSERT_EQ(w.parsed.size(), 3u);
  int64_t next = 0;
  for (size_t m = 0; m < w.parsed.size(); m++) {
    const protos::QueryResult& result = w.parsed[m];
    // Names only on the first message.
    EXPECT_EQ(result.column_names_size(), m == 0 ? 2 : 0);
    ASSERT_EQ(result.batch_size(), 1);
    const Batch& batch = result.batch(0);
    EXPECT_EQ(batch.cells_size() % 2, 0);
    EXPECT_GT(batch.cells_size(), 0);
    EXPECT_EQ(batch.is_last_batch(), m + 1 == w.parsed.size());
    for (int64_t v : batch.varint_cells())
      EXPECT_EQ(v, next++);
  }
  EXPECT_EQ(next, 7);
  EXPECT_EQ(w.parsed[0].batch(0).cells_size(), 6);
  EXPECT_EQ(w.parsed[2].batch(0).cells_size(), 2);
}

TEST(QueryResultWriterTest, BatchesEndNearTheByteLimit) {
  std::vector<std::vector<SqlValue>> rows(100, {Text(std::string(1000, 'x'))});
  QueryResultWriter::Limits limits;
  limits.batch_bytes = 10 * 1024;
  const Written w = Write({"s"}, rows, "", limits);
  ASSERT_GT(w.parsed.size(), 5u);
  size_t strings = 0;
  for (const std::string& message : w.messages)
    EXPECT_LT(message.size(), 14u * 1024);  // The limit plus a row.
  for (const protos::QueryResult& result : w.parsed)
    strings += static_cast<size_t>(result.batch(0).cells_size());
  EXPECT_EQ(strings, 100u);
}

// The Python API reads /query's messages as one QueryResult: one list of
// names, the batches in order, the last one marked.
TEST(QueryResultWriterTest, TheMessagesConcatenatedParseAsOneResult) {
  std::vector<std::vector<SqlValue>> rows;
  for (int i = 0; i < 10; i++)
    rows.push_back({Int(i)});
  QueryResultWriter::Limits limits;
  limits.cells_per_batch = 4;
  const Written w = Write({"v"}, rows, "", limits);
  std::string all;
  for (const std::string& message : w.messages)
    all += message;
  protos::QueryResult merged;
  ASSERT_TRUE(merged.ParseFromString(all));
  EXPECT_EQ(merged.column_names_size(), 1);
  ASSERT_EQ(merged.batch_size(), 3);
  EXPECT_FALSE(merged.batch(0).is_last_batch());
  EXPECT_TRUE(merged.batch(2).is_last_batch());
}

TEST(QueryResultWriterTest, NoRowsIsOneLastBatchWithAnEmptyStringField) {
  const Written w = Write({}, {});
  ASSERT_EQ(w.parsed.size(), 1u);
  const Batch& batch = w.parsed[0].batch(0);
  EXPECT_EQ(batch.cells_size(), 0);
  EXPECT_TRUE(batch.has_string_cells());
  EXPECT_EQ(batch.string_cells(), "");
  EXPECT_TRUE(batch.is_last_batch());
}

TEST(QueryResultWriterTest, AnErrorComesOnTheLastMessageAfterTheRows) {
  const Written w = Write({"v"}, {{Int(1)}}, "no such table: nope");
  ASSERT_EQ(w.parsed.size(), 1u);
  EXPECT_EQ(w.parsed[0].error(), "no such table: nope");
  EXPECT_EQ(w.parsed[0].batch(0).varint_cells_size(), 1);
  EXPECT_TRUE(w.parsed[0].batch(0).is_last_batch());
}

TEST(QueryResultWriterTest, AStringEndsAtItsFirstNul) {
  const Written w = Write({"s"}, {{Text(std::string("a\0b", 3))}, {Text("c")}});
  EXPECT_EQ(w.parsed[0].batch(0).string_cells(), std::string("a\0c\0", 4));
}

TEST(QueryResultWriterTest, ARowTooBigForAMessageEndsTheResultWithAnError) {
  QueryResultWriter::Limits limits;
  limits.max_batch_bytes = 1000;
  const Written w = Write({"s"}, {{Text("small")}, {Text(std::string(2000, 'x'))}, {Text("after")}},
                          "", limits);
  ASSERT_EQ(w.parsed.size(), 1u);
  EXPECT_NE(w.parsed[0].error().find("a row is too large"), std::string::npos)
      << w.parsed[0].error();
  EXPECT_TRUE(w.parsed[0].batch(0).is_last_batch());
  EXPECT_EQ(w.parsed[0].batch(0).cells_size(), 0);
}

// The doubles of every message start 8-byte aligned (the UI reads them in
// place), whatever precedes them.
TEST(QueryResultWriterTest, DoublesStartEightByteAligned) {
  for (size_t name_length = 0; name_length < 12; name_length++) {
    for (int strings = 0; strings < 9; strings++) {
      std::vector<SqlValue> row = {Real(1.5)};
      std::vector<std::string> columns = {std::string(name_length + 1, 'c')};
      for (int s = 0; s < strings; s++) {
        row.push_back(Text(std::string(static_cast<size_t>(s), 'z')));
        columns.push_back("s" + std::to_string(s));
      }
      const Written w = Write(columns, {row});
      ASSERT_EQ(w.messages.size(), 1u);
      const std::string& message = w.messages[0];
      const auto* base = reinterpret_cast<const uint8_t*>(message.data());
      protozero::ProtoDecoder decoder(base, message.size());
      bool found = false;
      for (auto f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
        if (f.id() != 3)
          continue;
        protozero::ProtoDecoder batch(f.as_bytes());
        for (auto b = batch.ReadField(); b.valid(); b = batch.ReadField()) {
          if (b.id() == 3) {
            found = true;
            EXPECT_EQ((b.data() - base) % 8, 0) << name_length << " " << strings;
          }
        }
      }
      EXPECT_TRUE(found);
      EXPECT_EQ(w.parsed[0].batch(0).float64_cells(0), 1.5);
    }
  }
}

}  // namespace
}  // namespace rpc
}  // namespace processor
}  // namespace zt
