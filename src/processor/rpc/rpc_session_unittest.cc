#include "src/processor/rpc/rpc_session.h"

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <google/protobuf/unknown_field_set.h>
#include <gtest/gtest.h>

#include "zt/trace_processor/trace_processor.pb.h"

namespace zt {
namespace processor {
namespace rpc {
namespace {

using protos::TraceProcessorRpc;

const std::string kTrace = std::string(ZT_TEST_DATA_DIR) + "/perfetto_v14/inprocess_small.pftrace";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A client of the RPC stream, as the UI is: numbered requests, framed.
class RpcClient {
 public:
  explicit RpcClient(RpcSession* session) : session_(session) {}

  // Sends `request` (its seq set here unless `seq` >= 0) and returns every
  // message the session answered with.
  std::vector<TraceProcessorRpc> Call(TraceProcessorRpc request, int64_t seq = -1) {
    request.set_seq(seq >= 0 ? seq : next_seq_++);
    protos::TraceProcessorRpcStream stream;
    *stream.add_msg() = request;
    return SendBytes(stream.SerializeAsString());
  }

  std::vector<TraceProcessorRpc> SendBytes(const std::string& bytes) {
    std::string out;
    alive_ = session_->OnRpcBytes(&channel_, reinterpret_cast<const uint8_t*>(bytes.data()),
                                  bytes.size(), [&out](std::string b) { out += b; });
    protos::TraceProcessorRpcStream stream;
    EXPECT_TRUE(stream.ParseFromString(out));
    return std::vector<TraceProcessorRpc>(stream.msg().begin(), stream.msg().end());
  }

  bool alive() const { return alive_; }

 private:
  RpcSession* session_;
  RpcStreamReader channel_;
  int64_t next_seq_ = 0;
  bool alive_ = true;
};

TraceProcessorRpc Request(TraceProcessorRpc::TraceProcessorMethod method) {
  TraceProcessorRpc rpc;
  rpc.set_request(method);
  return rpc;
}

TraceProcessorRpc QueryRequest(const std::string& sql) {
  TraceProcessorRpc rpc = Request(TraceProcessorRpc::TPM_QUERY_STREAMING);
  rpc.mutable_query_args()->set_sql_query(sql);
  return rpc;
}

// The UI's way in: the trace in pieces, its end, then its first query.
TEST(RpcSessionTest, TheUisLoadAndFirstQueryOverTheStream) {
  RpcSession session;
  RpcClient client(&session);
  const std::string bytes = ReadFile(kTrace);
  ASSERT_FALSE(bytes.empty());
  const size_t half = bytes.size() / 2;
  for (const std::string& piece : {bytes.substr(0, half), bytes.substr(half)}) {
    TraceProcessorRpc append = Request(TraceProcessorRpc::TPM_APPEND_TRACE_DATA);
    append.set_append_trace_data(piece);
    const auto replies = client.Call(append);
    ASSERT_EQ(replies.size(), 1u);
    EXPECT_EQ(replies[0].response(), TraceProcessorRpc::TPM_APPEND_TRACE_DATA);
    EXPECT_FALSE(replies[0].append_result().has_error());
  }
  const auto finalized = client.Call(Request(TraceProcessorRpc::TPM_FINALIZE_TRACE_DATA));
  ASSERT_EQ(finalized.size(), 1u);
  EXPECT_FALSE(finalized[0].finalize_data_result().has_error())
      << finalized[0].finalize_data_result().error();
  EXPECT_EQ(session.loaded_trace_name(), "Unnamed trace (0 MB)");

  const auto replies =
      client.Call(QueryRequest("select start_ts as startTs, end_ts as endTs from trace_bounds"));
  ASSERT_EQ(replies.size(), 1u);
  // Answers are numbered by the session: one per message, from 0.
  EXPECT_EQ(replies[0].seq(), 3);
  EXPECT_EQ(replies[0].response(), TraceProcessorRpc::TPM_QUERY_STREAMING);
  const protos::QueryResult& result = replies[0].query_result();
  EXPECT_FALSE(result.has_error()) << result.error();
  ASSERT_EQ(result.column_names_size(), 2);
  EXPECT_EQ(result.column_names(0), "startTs");
  ASSERT_EQ(result.batch_size(), 1);
  // Integers, as the UI reads a LONG.
  ASSERT_EQ(result.batch(0).varint_cells_size(), 2);
  EXPECT_LT(result.batch(0).varint_cells(0), result.batch(0).varint_cells(1));
  EXPECT_TRUE(result.batch(0).is_last_batch());
}

TEST(RpcSessionTest, StatusBeforeAndAfterALoad) {
  RpcSession session;
  protos::StatusResult status;
  ASSERT_TRUE(status.ParseFromString(session.StatusBytes()));
  EXPECT_EQ(status.api_version(), 14);
  EXPECT_EQ(status.loaded_trace_name(), "");
  EXPECT_FALSE(status.has_version_code());  // Keeps the UI's mismatch dialog away.
  std::string error;
  ASSERT_TRUE(session.LoadFile(kTrace, &error)) << error;
  ASSERT_TRUE(status.ParseFromString(session.StatusBytes()));
  EXPECT_EQ(status.loaded_trace_name(), kTrace + " (0 MB)");
}

TEST(RpcSessionTest, RequestsOutOfOrderEndTheChannel) {
  RpcSession session;
  RpcClient client(&session);
  client.Call(Request(TraceProcessorRpc::TPM_GET_STATUS), 0);
  client.Call(Request(TraceProcessorRpc::TPM_GET_STATUS), 1);
  const auto replies = client.Call(Request(TraceProcessorRpc::TPM_GET_STATUS), 5);
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].fatal_error(), "RPC request out of order. Expected 2, got 5 (ERR:rpc_seq)");
  EXPECT_FALSE(client.alive());
  // Found by the fuzzer: the channel stays ended, whatever comes after.
  EXPECT_TRUE(client.Call(Request(TraceProcessorRpc::TPM_GET_STATUS), 2).empty());
  EXPECT_FALSE(client.alive());
}

TEST(RpcSessionTest, AFramingErrorEndsTheChannel) {
  RpcSession session;
  RpcClient client(&session);
  const auto replies = client.SendBytes(std::string("\x08\x01", 2));
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_NE(replies[0].fatal_error().find("RPC framing error"), std::string::npos);
  EXPECT_FALSE(client.alive());
}

TEST(RpcSessionTest, UnknownAndUnsupportedMethodsAreAnswered) {
  RpcSession session;
  RpcClient client(&session);
  TraceProcessorRpc unknown;
  unknown.set_request(static_cast<TraceProcessorRpc::TraceProcessorMethod>(12));
  auto replies = client.Call(unknown);
  ASSERT_EQ(replies.size(), 1u);
  // invalid_request = 12: a value the (closed) enum lacks, so libprotobuf
  // keeps it among the unknown fields.
  const google::protobuf::UnknownFieldSet& unknown_fields =
      replies[0].GetReflection()->GetUnknownFields(replies[0]);
  ASSERT_GE(unknown_fields.field_count(), 1);
  const google::protobuf::UnknownField& last = unknown_fields.field(unknown_fields.field_count() - 1);
  EXPECT_EQ(last.number(), 4);
  EXPECT_EQ(last.varint(), 12u);
  replies = client.Call(Request(TraceProcessorRpc::TPM_COMPUTE_METRIC));
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_NE(replies[0].metric_result().error().find("not supported by zerotrace"),
            std::string::npos);
  EXPECT_TRUE(client.alive());
}

TEST(RpcSessionTest, AQueryBeforeATraceSaysSo) {
  RpcSession session;
  RpcClient client(&session);
  const auto replies = client.Call(QueryRequest("select 1"));
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_NE(replies[0].query_result().error().find("no trace is loaded"), std::string::npos);
  EXPECT_TRUE(replies[0].query_result().batch(0).is_last_batch());
}

// The Python API's way: /parse pieces, /notify_eof, /query.
TEST(RpcSessionTest, ThePythonApisLoadAndQueryOverRest) {
  RpcSession session;
  const std::string bytes = ReadFile(kTrace);
  for (size_t at = 0; at < bytes.size(); at += 4096) {
    const std::string piece = bytes.substr(at, 4096);
    protos::AppendTraceDataResult result;
    ASSERT_TRUE(result.ParseFromString(session.AppendTraceData(
        reinterpret_cast<const uint8_t*>(piece.data()), piece.size())));
    ASSERT_FALSE(result.has_error()) << result.error();
  }
  protos::FinalizeDataResult finalized;
  ASSERT_TRUE(finalized.ParseFromString(session.FinalizeTraceData()));
  EXPECT_FALSE(finalized.has_error()) << finalized.error();
  protos::QueryArgs args;
  args.set_sql_query("select count(*) as n from slice");
  std::string all;
  session.Query(args.SerializeAsString(), [&all](std::string m) { all += m; });
  protos::QueryResult result;
  ASSERT_TRUE(result.ParseFromString(all));
  ASSERT_EQ(result.batch_size(), 1);
  EXPECT_GT(result.batch(0).varint_cells(0), 0);
}

TEST(RpcSessionTest, DataAfterTheEndStartsANewTrace) {
  RpcSession session;
  std::string error;
  ASSERT_TRUE(session.LoadFile(kTrace, &error)) << error;
  // An empty piece (what a page's body-less request to /parse is) leaves
  // the trace loaded.
  protos::AppendTraceDataResult appended;
  ASSERT_TRUE(appended.ParseFromString(session.AppendTraceData(nullptr, 0)));
  EXPECT_NE(session.loaded_trace_name(), "");
  const uint8_t byte = 0;
  ASSERT_TRUE(appended.ParseFromString(session.AppendTraceData(&byte, 0)));
  EXPECT_NE(session.loaded_trace_name(), "");
  // Bytes start a new trace.
  const std::string bytes = ReadFile(kTrace).substr(0, 64);
  ASSERT_TRUE(appended.ParseFromString(
      session.AppendTraceData(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size())));
  EXPECT_EQ(session.loaded_trace_name(), "");
  EXPECT_EQ(appended.total_bytes_parsed(), 64);
  protos::FinalizeDataResult finalized;
  ASSERT_TRUE(finalized.ParseFromString(session.FinalizeTraceData()));
  // A cut trace: imported (what is whole), or refused with a reason.
  protos::FinalizeDataResult again;
  ASSERT_TRUE(again.ParseFromString(session.FinalizeTraceData()));
  EXPECT_NE(again.error().find("already notified"), std::string::npos);
}

TEST(RpcSessionTest, RestoringTheInitialTablesDropsWhatQueriesMade) {
  RpcSession session;
  std::string error;
  ASSERT_TRUE(session.LoadFile(kTrace, &error)) << error;
  RpcClient client(&session);
  client.Call(QueryRequest("create table mine as select 1 as x"));
  EXPECT_FALSE(client.Call(QueryRequest("select * from mine"))[0].query_result().has_error());
  const auto restored = client.Call(Request(TraceProcessorRpc::TPM_RESTORE_INITIAL_TABLES));
  ASSERT_EQ(restored.size(), 1u);
  EXPECT_EQ(restored[0].response(), TraceProcessorRpc::TPM_RESTORE_INITIAL_TABLES);
  EXPECT_NE(client.Call(QueryRequest("select * from mine"))[0].query_result().error().find(
                "no such table: mine"),
            std::string::npos);
  EXPECT_FALSE(client.Call(QueryRequest("select count(*) from slice"))[0]
                   .query_result()
                   .has_error());
}

TEST(RpcSessionTest, TraceDataPastTheLimitIsRefused) {
  RpcSession session;
  session.set_max_trace_bytes(100);
  const std::string bytes = ReadFile(kTrace).substr(0, 64);
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  protos::AppendTraceDataResult first, second;
  ASSERT_TRUE(first.ParseFromString(session.AppendTraceData(data, bytes.size())));
  EXPECT_FALSE(first.has_error());
  ASSERT_TRUE(second.ParseFromString(session.AppendTraceData(data, bytes.size())));
  EXPECT_NE(second.error().find("--max-trace-mb"), std::string::npos) << second.error();
  EXPECT_EQ(second.total_bytes_parsed(), 64);  // What was kept.
}

}  // namespace
}  // namespace rpc
}  // namespace processor
}  // namespace zt
