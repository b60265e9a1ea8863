#include "src/processor/rpc/rpc_session.h"

#include <sys/stat.h>

#include <algorithm>
#include <utility>

#include "src/processor/importers/trace_importer.h"
#include "src/processor/rpc/query_runner.h"
#include "src/processor/rpc/wire_writer.h"
#include "zt/protozero/proto_decoder.h"

namespace zt {
namespace processor {
namespace rpc {

namespace {

using protozero::Field;
using protozero::ProtoDecoder;
using wire::AppendBytesField;
using wire::AppendVarintField;

// TraceProcessorRpc (protos/zt/trace_processor/trace_processor.proto).
constexpr uint32_t kSeq = 1;
constexpr uint32_t kRequest = 2;
constexpr uint32_t kResponse = 3;
constexpr uint32_t kInvalidRequest = 4;
constexpr uint32_t kFatalError = 5;
constexpr uint32_t kAppendTraceData = 101;
constexpr uint32_t kQueryArgs = 103;
constexpr uint32_t kAppendResult = 201;
constexpr uint32_t kQueryResult = 203;
constexpr uint32_t kMetricResult = 205;
constexpr uint32_t kMetricDescriptors = 206;
constexpr uint32_t kMetatrace = 209;
constexpr uint32_t kStatus = 210;
constexpr uint32_t kRegisterSqlPackageResult = 211;
constexpr uint32_t kFinalizeDataResult = 212;
constexpr uint32_t kTraceSummaryResult = 214;
constexpr uint32_t kCreateSummarizerResult = 215;
constexpr uint32_t kUpdateSummarizerSpecResult = 216;
constexpr uint32_t kQuerySummarizerResult = 217;
constexpr uint32_t kDestroySummarizerResult = 218;
constexpr uint32_t kStatementResult = 219;
constexpr uint32_t kExportResult = 220;

// TraceProcessorRpc.TraceProcessorMethod.
enum Method : uint32_t {
  kAppend = 1,
  kFinalize = 2,
  kQueryStreaming = 3,
  kComputeMetric = 5,
  kGetMetricDescriptors = 6,
  kRestoreInitialTables = 7,
  kEnableMetatrace = 8,
  kDisableAndReadMetatrace = 9,
  kGetStatus = 10,
  kResetTraceProcessor = 11,
  kRegisterSqlPackage = 13,
  kSummarizeTrace = 15,
  kCreateSummarizer = 16,
  kUpdateSummarizerSpec = 17,
  kQuerySummarizer = 18,
  kDestroySummarizer = 19,
  kStatementStreaming = 20,
  kExport = 21,
};

constexpr int32_t kApiVersion = 14;

// An error-only result message: `field` holds {error_field: error}.
std::string ErrorResult(uint32_t field, uint32_t error_field, const std::string& error) {
  std::string inner;
  AppendBytesField(error_field, error, &inner);
  std::string out;
  AppendBytesField(field, inner, &out);
  return out;
}

std::string Unsupported(const char* what) {
  return std::string(what) +
         " is not supported by zerotrace's processor (docs/design/serve.md lists what is)";
}

// The stream framing of one message: field 1 of TraceProcessorRpcStream.
std::string Framed(const std::string& message) {
  std::string out;
  AppendBytesField(1, message, &out);
  return out;
}

}  // namespace

RpcSession::RpcSession() = default;
RpcSession::~RpcSession() {
  engine_.reset();  // Before the storage its tables view.
}

void RpcSession::Reset() {
  engine_.reset();
  storage_.reset();
  input_.reset();
  finished_input_.reset();
  eof_ = false;
  trace_name_.clear();
}

bool RpcSession::LoadFile(const std::string& path, std::string* error) {
  Reset();
  ImportResult result;
  ImportOptions options;
  options.progress = progress_;
  storage_ = ImportTraceFile(path, options, &result, error);
  if (!storage_)
    return false;
  if (!CreateEngine(error))
    return false;
  eof_ = true;
  struct stat st;
  const uint64_t bytes = stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  trace_name_ = path + " (" + std::to_string(bytes / (1024 * 1024)) + " MB)";
  return true;
}

std::string RpcSession::Append(const uint8_t* data, size_t size) {
  // Data after the end of a trace starts a new one; an empty piece (a
  // page's body-less request) changes nothing.
  if (eof_ && size == 0)
    return "";
  if (eof_)
    Reset();
  std::string error;
  if (!input_ && !StartInput(&error))
    return error;
  if (!input_->Append(data, size, &error))
    return error;
  return "";
}

bool RpcSession::StartInput(std::string* error) {
  ImportOptions options;
  options.progress = progress_;
  input_ = TraceReceiver::Create(options, max_trace_bytes_, error);
  return input_ != nullptr;
}

std::string RpcSession::Finalize() {
  if (eof_)
    return "the trace's end was already notified: send new data to load another trace";
  std::string error;
  if (!input_ && !StartInput(&error))
    return error;
  eof_ = true;
  ImportResult result;
  storage_ = input_->Finish(&result, &error);
  const uint64_t bytes = input_->size();
  finished_input_ = std::move(input_);  // It frees its bytes on its own thread.
  if (!storage_)
    return error;
  if (!CreateEngine(&error)) {
    storage_.reset();
    return error;
  }
  trace_name_ = "Unnamed trace (" + std::to_string(bytes / (1024 * 1024)) + " MB)";
  return "";
}

std::string RpcSession::StatusBytes() const {
  std::string out;
  AppendBytesField(1, trace_name_, &out);
  AppendBytesField(2, "zerotrace ztrace serve", &out);
  AppendVarintField(3, static_cast<uint64_t>(kApiVersion), &out);
  return out;
}

std::string RpcSession::AppendTraceData(const uint8_t* data, size_t size) {
  const std::string error = Append(data, size);
  std::string out;
  // Bytes received of this trace so far (imported at its end).
  if (input_)
    AppendVarintField(1, input_->size(), &out);
  if (!error.empty())
    AppendBytesField(2, error, &out);
  return out;
}

std::string RpcSession::FinalizeTraceData() {
  const std::string error = Finalize();
  std::string out;
  if (!error.empty())
    AppendBytesField(1, error, &out);
  return out;
}

void RpcSession::RestoreInitialTables() {
  if (!storage_)
    return;
  std::string error;
  engine_.reset();
  CreateEngine(&error);
}

bool RpcSession::CreateEngine(std::string* error) {
  engine_ = sql::QueryEngine::Create(storage_.get(), error);
  if (!engine_)
    return false;
  // Clients may be any local user or page: SQL reads the trace only.
  engine_->DenyOtherFiles();
  // Upstream's tables of data we do not import, empty: Perfetto UI reads
  // them as it opens any trace, and stops at the first that is missing.
  if (!engine_->Execute("INCLUDE PERFETTO MODULE zt.absent_tables", nullptr, nullptr, error)) {
    engine_.reset();
    return false;
  }
  if (interrupt_check_)
    engine_->SetInterruptCheck(interrupt_check_);
  return true;
}

bool RpcSession::UnsupportedEndpoint(std::string_view path, std::string* body) {
  body->clear();
  if (path == "/compute_metric") {
    AppendBytesField(2, Unsupported("Computing metrics"), body);  // ComputeMetricResult.error
  } else if (path == "/trace_summary") {
    AppendBytesField(3, Unsupported("Trace summaries"), body);  // TraceSummaryResult.error
  } else if (path == "/disable_and_read_metatrace") {
    AppendBytesField(2, Unsupported("Metatracing"), body);  // DisableAndReadMetatraceResult.error
  } else if (path != "/enable_metatrace") {
    return false;
  }
  return true;
}

void RpcSession::SetInterruptCheck(std::function<bool()> check) {
  interrupt_check_ = std::move(check);
  if (engine_)
    engine_->SetInterruptCheck(interrupt_check_);
}

void RpcSession::RunQuery(const std::string& sql, const QueryResultWriter::EmitFn& emit) {
  QueryResultWriter writer(emit);
  if (!engine_) {
    writer.Begin({}, 0, 0, "");
    writer.Finish(eof_ ? "the trace failed to load: nothing to query"
                       : "no trace is loaded: send its data (and its end) first");
    return;
  }
  rpc::RunQuery(engine_.get(), sql, &writer);
}

void RpcSession::Query(std::string_view query_args, const SendFn& send) {
  std::string sql;
  ProtoDecoder decoder(query_args);
  for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
    if (f.id() == 1)
      sql = std::string(f.as_string());
  }
  RunQuery(sql, [&send](std::string message) { send(std::move(message)); });
}

void RpcSession::SendResponse(uint32_t method, const std::string& fields, const SendFn& send) {
  std::string message;
  AppendVarintField(kSeq, static_cast<uint64_t>(next_response_seq_++), &message);
  AppendVarintField(kResponse, method, &message);
  message += fields;
  send(Framed(message));
}

void RpcSession::SendFatal(const std::string& error, const SendFn& send) {
  std::string message;
  AppendBytesField(kFatalError, error, &message);
  send(Framed(message));
}

bool RpcSession::OnRpcBytes(RpcStreamReader* channel, const uint8_t* data, size_t size,
                            const SendFn& send) {
  if (channel->failed())
    return false;  // Ended earlier, and said why then.
  bool alive = true;
  std::string error;
  const bool framed = channel->Append(
      data, size,
      [&](std::string_view request) {
        if (alive)
          alive = HandleRequest(request, send);
      },
      &error);
  if (!framed) {
    SendFatal(error, send);
    return false;
  }
  if (!alive)
    channel->Fail();
  return alive;
}

bool RpcSession::HandleRequest(std::string_view request, const SendFn& send) {
  int64_t seq = 0;
  uint32_t method = 0;
  protozero::ConstBytes append_data{nullptr, 0};
  bool has_append_data = false;
  std::string_view query_args;
  bool has_query_args = false;
  ProtoDecoder decoder(request);
  for (Field f = decoder.ReadField(); f.valid(); f = decoder.ReadField()) {
    switch (f.id()) {
      case kSeq:
        seq = f.as_int64();
        break;
      case kRequest:
        method = f.as_uint32();
        break;
      case kAppendTraceData:
        append_data = f.as_bytes();
        has_append_data = true;
        break;
      case kQueryArgs:
        query_args = std::string_view(reinterpret_cast<const char*>(f.data()), f.size());
        has_query_args = true;
        break;
      default:
        break;
    }
  }
  if (decoder.parse_error()) {
    SendFatal("RPC error: a request that is not a TraceProcessorRpc message", send);
    return false;
  }
  // Upstream's ordering rule: from 0, then each one more than the last.
  if (seq != 0 && last_request_seq_ != 0 && seq != last_request_seq_ + 1) {
    SendFatal("RPC request out of order. Expected " + std::to_string(last_request_seq_ + 1) +
                  ", got " + std::to_string(seq) + " (ERR:rpc_seq)",
              send);
    return false;
  }
  last_request_seq_ = seq;

  switch (method) {
    case kAppend: {
      std::string result;
      if (!has_append_data) {
        AppendBytesField(2, "RPC error: request field not set", &result);
      } else {
        result = AppendTraceData(append_data.data, append_data.size);
      }
      std::string fields;
      AppendBytesField(kAppendResult, result, &fields);
      SendResponse(method, fields, send);
      return true;
    }
    case kFinalize: {
      std::string fields;
      AppendBytesField(kFinalizeDataResult, FinalizeTraceData(), &fields);
      SendResponse(method, fields, send);
      return true;
    }
    case kQueryStreaming: {
      auto emit = [&](std::string result) {
        std::string fields;
        AppendBytesField(kQueryResult, result, &fields);
        SendResponse(method, fields, send);
      };
      if (!has_query_args) {
        QueryResultWriter writer(emit);
        writer.Begin({}, 0, 0, "");
        writer.Finish("RPC error: request field not set");
      } else {
        Query(query_args, emit);
      }
      return true;
    }
    case kComputeMetric:
      SendResponse(method, ErrorResult(kMetricResult, 2, Unsupported("Computing metrics")),
                   send);
      return true;
    case kGetMetricDescriptors: {
      std::string fields;
      AppendBytesField(kMetricDescriptors, "", &fields);  // No metrics.
      SendResponse(method, fields, send);
      return true;
    }
    case kRestoreInitialTables:
      RestoreInitialTables();
      SendResponse(method, "", send);
      return true;
    case kEnableMetatrace:
      SendResponse(method, "", send);
      return true;
    case kDisableAndReadMetatrace:
      SendResponse(method, ErrorResult(kMetatrace, 2, Unsupported("Metatracing")), send);
      return true;
    case kGetStatus: {
      std::string fields;
      AppendBytesField(kStatus, StatusBytes(), &fields);
      SendResponse(method, fields, send);
      return true;
    }
    case kResetTraceProcessor:
      Reset();
      SendResponse(method, "", send);
      return true;
    case kRegisterSqlPackage:
      SendResponse(method,
                   ErrorResult(kRegisterSqlPackageResult, 1, Unsupported("Registering SQL packages")),
                   send);
      return true;
    case kSummarizeTrace:
      SendResponse(method, ErrorResult(kTraceSummaryResult, 3, Unsupported("Trace summaries")),
                   send);
      return true;
    case kCreateSummarizer:
      SendResponse(method, ErrorResult(kCreateSummarizerResult, 2, Unsupported("Summarizers")),
                   send);
      return true;
    case kUpdateSummarizerSpec:
      SendResponse(method,
                   ErrorResult(kUpdateSummarizerSpecResult, 2, Unsupported("Summarizers")), send);
      return true;
    case kQuerySummarizer:
      SendResponse(method, ErrorResult(kQuerySummarizerResult, 6, Unsupported("Summarizers")),
                   send);
      return true;
    case kDestroySummarizer:
      SendResponse(method, ErrorResult(kDestroySummarizerResult, 1, Unsupported("Summarizers")),
                   send);
      return true;
    case kStatementStreaming: {
      // StatementResult{result: a last QueryResult with the error}.
      std::string query_result;
      QueryResultWriter writer([&query_result](std::string m) { query_result = std::move(m); });
      writer.Begin({}, 0, 0, "");
      writer.Finish(Unsupported("Statement streaming"));
      std::string statement_result;
      AppendBytesField(1, query_result, &statement_result);
      std::string fields;
      AppendBytesField(kStatementResult, statement_result, &fields);
      SendResponse(method, fields, send);
      return true;
    }
    case kExport: {
      std::string result;
      AppendBytesField(2, Unsupported("Exporting through the RPC"), &result);
      AppendVarintField(3, 0, &result);
      std::string fields;
      AppendBytesField(kExportResult, result, &fields);
      SendResponse(method, fields, send);
      return true;
    }
    default: {
      // Unknown: answered with the method echoed as invalid_request.
      std::string fields;
      AppendVarintField(kInvalidRequest, method, &fields);
      SendResponse(method, fields, send);
      return true;
    }
  }
}

}  // namespace rpc
}  // namespace processor
}  // namespace zt
