// One `ztrace serve`'s state and its answers to the TraceProcessorRpc
// protocol (docs/design/serve.md), without sockets: the transport hands it
// request bytes and sends what it returns.
//
// One trace at a time, as upstream's server holds it: pieces sent
// (TPM_APPEND_TRACE_DATA, /parse) go to an anonymous file and are imported
// as they come, on a thread of the receiver's (trace_receiver.h); the end
// of the data (TPM_FINALIZE_TRACE_DATA, /notify_eof) waits for that import
// to finish. New data after the end starts a new trace. Requests are numbered by the client and
// answers by the session, one number per message, never reset (upstream's
// rules, which the UI checks).
//
// Its sessions include the module zt.absent_tables (upstream's tables of
// data zerotrace does not import, empty), which Perfetto UI needs.
//
// Thread-compatible: the transport calls it from one thread (requests are
// executed one at a time, in the order they came).

#ifndef ZT_SRC_PROCESSOR_RPC_RPC_SESSION_H_
#define ZT_SRC_PROCESSOR_RPC_RPC_SESSION_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "src/processor/rpc/query_result_writer.h"
#include "src/processor/rpc/rpc_stream_reader.h"
#include "src/processor/rpc/trace_receiver.h"
#include "src/processor/sql/query_engine.h"
#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {
namespace rpc {

class RpcSession {
 public:
  // Receives bytes for the client: on an RPC channel, whole framed
  // TraceProcessorRpc messages (a stream's field 1); on /query, whole
  // serialized QueryResult messages.
  using SendFn = std::function<void(std::string bytes)>;

  RpcSession();
  ~RpcSession();

  // Imports the trace at `path` before serving (`ztrace serve TRACE`):
  // clients see it as loaded. False with *error if it cannot be imported.
  bool LoadFile(const std::string& path, std::string* error);

  // An RPC channel's bytes (a websocket's messages, an /rpc body). Each
  // channel has its own reader; the request numbers are the session's.
  // Returns false after a fatal error (framing, order), which was sent as
  // a `fatal_error` message: the transport closes the channel.
  bool OnRpcBytes(RpcStreamReader* channel, const uint8_t* data, size_t size,
                  const SendFn& send);

  // The REST endpoints' bodies.
  std::string StatusBytes() const;                              // /status
  std::string AppendTraceData(const uint8_t* data, size_t size);  // /parse
  std::string FinalizeTraceData();                              // /notify_eof
  void Query(std::string_view query_args, const SendFn& send);  // /query
  void RestoreInitialTables();                                  // /restore_initial_tables

  // The body of a REST endpoint whose method this processor lacks
  // (/compute_metric, /trace_summary, /disable_and_read_metatrace: their
  // result message with an error saying so; /enable_metatrace: empty).
  // False for any other path.
  static bool UnsupportedEndpoint(std::string_view path, std::string* body);

  // Asked while a query runs (on the calling thread): true ends it with
  // the error "interrupted". The transport says so when the client that
  // asked has gone. Empty: queries always run to their end.
  void SetInterruptCheck(std::function<bool()> check);

  // Trace data beyond this many bytes (the sum of a trace's pieces) is
  // refused with an error: what clients send is kept in memory (a memfd)
  // until it is imported, and any local user may send it.
  void set_max_trace_bytes(uint64_t bytes) { max_trace_bytes_ = bytes; }

  // Told how far each import has got (ImportOptions::progress): the
  // preloaded trace's and those sent by clients.
  void SetImportProgress(std::function<void(uint64_t done, uint64_t total)> progress) {
    progress_ = std::move(progress);
  }

  // What /status says is loaded ("" before any trace).
  const std::string& loaded_trace_name() const { return trace_name_; }

 private:
  // False on a fatal error (sent).
  bool HandleRequest(std::string_view request, const SendFn& send);
  // A response message: seq, the method, then `fields` (serialized).
  void SendResponse(uint32_t method, const std::string& fields, const SendFn& send);
  void SendFatal(const std::string& error, const SendFn& send);
  std::string Append(const uint8_t* data, size_t size);  // Error or "".
  std::string Finalize();                                 // Error or "".
  bool StartInput(std::string* error);                    // input_, or false.
  void RunQuery(const std::string& sql, const QueryResultWriter::EmitFn& emit);
  void Reset();
  // engine_ over storage_, with the interrupt check. False with *error.
  bool CreateEngine(std::string* error);

  std::unique_ptr<TraceReceiver> input_;
  // The last trace's, once finished: kept until the next trace, as its
  // destruction may wait for its thread to free the bytes.
  std::unique_ptr<TraceReceiver> finished_input_;
  std::unique_ptr<TraceStorage> storage_;
  std::unique_ptr<sql::QueryEngine> engine_;
  bool eof_ = false;
  std::string trace_name_;
  std::function<bool()> interrupt_check_;
  std::function<void(uint64_t, uint64_t)> progress_;
  uint64_t max_trace_bytes_ = UINT64_MAX;
  int64_t last_request_seq_ = 0;
  int64_t next_response_seq_ = 0;
};

}  // namespace rpc
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_RPC_RPC_SESSION_H_
