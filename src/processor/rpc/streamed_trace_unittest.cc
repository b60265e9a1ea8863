#include "src/processor/rpc/streamed_trace.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "src/processor/importers/trace_importer.h"

namespace zt {
namespace processor {
namespace rpc {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(StreamedTraceTest, PiecesReadBackInOrderThroughThePath) {
  std::string error;
  std::unique_ptr<StreamedTrace> trace = StreamedTrace::Create(&error);
  ASSERT_TRUE(trace) << error;
  EXPECT_EQ(trace->size(), 0u);
  ASSERT_TRUE(trace->Append("abc", 3, &error)) << error;
  ASSERT_TRUE(trace->Append("", 0, &error)) << error;
  const std::string big(3 << 20, 'q');
  ASSERT_TRUE(trace->Append(big.data(), big.size(), &error)) << error;
  EXPECT_EQ(trace->size(), 3u + big.size());
  EXPECT_EQ(ReadFile(trace->path()), "abc" + big);
}

// A trace sent in the Python API's 1 MiB pieces imports as the file does.
TEST(StreamedTraceTest, ImportsLikeTheFileItCameFrom) {
  const std::string file = std::string(ZT_TEST_DATA_DIR) + "/perfetto_v14/inprocess_small.pftrace";
  const std::string bytes = ReadFile(file);
  ASSERT_GT(bytes.size(), 1000u);
  std::string error;
  std::unique_ptr<StreamedTrace> trace = StreamedTrace::Create(&error);
  ASSERT_TRUE(trace) << error;
  for (size_t at = 0; at < bytes.size(); at += 777)
    ASSERT_TRUE(trace->Append(bytes.data() + at, std::min<size_t>(777, bytes.size() - at), &error));
  ImportResult from_file, from_stream;
  std::unique_ptr<TraceStorage> expected =
      ImportTraceFile(file, ImportOptions(), &from_file, &error);
  ASSERT_TRUE(expected) << error;
  std::unique_ptr<TraceStorage> got =
      ImportTraceFile(trace->path(), ImportOptions(), &from_stream, &error);
  ASSERT_TRUE(got) << error;
  EXPECT_EQ(got->slice.size(), expected->slice.size());
  EXPECT_GT(got->slice.size(), 0u);
  EXPECT_EQ(got->slice.ts, expected->slice.ts);
  EXPECT_EQ(from_stream.packets_parsed, from_file.packets_parsed);
}

}  // namespace
}  // namespace rpc
}  // namespace processor
}  // namespace zt
