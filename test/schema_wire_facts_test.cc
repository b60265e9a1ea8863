// The wire facts of docs/wire.md (and a few more checked against upstream
// Perfetto v14 and main), asserted on the descriptors of our own .proto
// files compiled by libprotobuf. A wrong number, type, label, enum value or
// method order in protos/zt breaks this test. A few bytes are checked too,
// and the protozero stubs are checked to agree on field numbers.

#include <gtest/gtest.h>

#include <google/protobuf/descriptor.h>

#include <string>
#include <vector>

#include "zt/common/builtin_clock.pb.h"
#include "zt/common/commit_data_request.pb.h"
#include "zt/common/data_source_descriptor.pb.h"
#include "zt/common/observable_events.pb.h"
#include "zt/common/trace_stats.pb.h"
#include "zt/common/track_event_descriptor.pb.h"
#include "zt/config/data_source_config.pb.h"
#include "zt/config/ftrace/ftrace_config.pb.h"
#include "zt/config/test_config.pb.h"
#include "zt/config/trace_config.pb.h"
#include "zt/config/track_event/track_event_config.pb.h"
#include "zt/ipc/consumer_port.pb.h"
#include "zt/ipc/producer_port.pb.h"
#include "zt/ipc/wire_protocol.pb.h"
#include "zt/trace/clock_snapshot.pb.h"
#include "zt/trace/interned_data/interned_data.pb.h"
#include "zt/trace/profiling/profile_common.pb.h"
#include "zt/trace/test_event.pb.h"
#include "zt/trace/trace.pb.h"
#include "zt/trace/trace_packet.pb.h"
#include "zt/trace/trace_packet_defaults.pb.h"
#include "zt/trace/track_event/debug_annotation.pb.h"
#include "zt/trace/track_event/process_descriptor.pb.h"
#include "zt/trace/track_event/source_location.pb.h"
#include "zt/trace/track_event/thread_descriptor.pb.h"
#include "zt/trace/track_event/track_descriptor.pb.h"
#include "zt/trace/track_event/track_event.pb.h"

#include "zt/ipc/wire_protocol.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/trace/track_event/track_event.pbzero.h"

namespace {

namespace pb = ::google::protobuf;
using FD = pb::FieldDescriptor;
namespace zp = ::zt::protos;

constexpr auto kOpt = FD::LABEL_OPTIONAL;
constexpr auto kRep = FD::LABEL_REPEATED;

// Checks name -> (number, type, label) and, for message/enum fields, the
// short name of the field's type.
void ExpectField(const pb::Descriptor* msg, const std::string& name, int number,
                 FD::Type type, FD::Label label = kOpt,
                 const std::string& type_name = "") {
  SCOPED_TRACE(msg->full_name() + "." + name);
  const FD* f = msg->FindFieldByName(name);
  ASSERT_NE(f, nullptr) << "missing field";
  EXPECT_EQ(f->number(), number);
  EXPECT_EQ(f->type(), type) << "is " << f->type_name();
  EXPECT_EQ(f->label(), label);
  if (!type_name.empty()) {
    const std::string actual = f->message_type()  ? f->message_type()->name()
                               : f->enum_type()   ? f->enum_type()->name()
                                                  : std::string("<scalar>");
    EXPECT_EQ(actual, type_name);
  }
  // And the number is not taken by another field.
  EXPECT_EQ(msg->FindFieldByNumber(number), f);
}

void ExpectOneof(const pb::Descriptor* msg, const std::string& field,
                 const std::string& oneof) {
  SCOPED_TRACE(msg->full_name() + "." + field);
  const FD* f = msg->FindFieldByName(field);
  ASSERT_NE(f, nullptr);
  ASSERT_NE(f->containing_oneof(), nullptr);
  EXPECT_EQ(f->containing_oneof()->name(), oneof);
}

void ExpectEnum(const pb::EnumDescriptor* e,
                const std::vector<std::pair<std::string, int>>& values) {
  for (const auto& [name, number] : values) {
    SCOPED_TRACE(e->full_name() + "." + name);
    const pb::EnumValueDescriptor* v = e->FindValueByName(name);
    ASSERT_NE(v, nullptr) << "missing value";
    EXPECT_EQ(v->number(), number);
  }
}

// Method ids on the wire are the 1-based declaration order (v14 hosts), so
// the whole list is checked, in order, with the streaming flag.
void ExpectMethods(const pb::ServiceDescriptor* s,
                   const std::vector<std::pair<std::string, bool>>& methods) {
  ASSERT_EQ(s->method_count(), static_cast<int>(methods.size()));
  for (int i = 0; i < s->method_count(); ++i) {
    SCOPED_TRACE(s->name() + " method #" + std::to_string(i + 1));
    EXPECT_EQ(s->method(i)->name(), methods[i].first);
    EXPECT_EQ(s->method(i)->server_streaming(), methods[i].second);
    EXPECT_FALSE(s->method(i)->client_streaming());
  }
}

TEST(SchemaWireFacts, PackageIsOurs) {
  EXPECT_EQ(zp::TracePacket::descriptor()->full_name(), "zt.protos.TracePacket");
  EXPECT_EQ(zp::TracePacket::descriptor()->file()->syntax(),
            pb::FileDescriptor::SYNTAX_PROTO2);
}

TEST(SchemaWireFacts, IPCFrame) {
  const auto* d = zp::IPCFrame::descriptor();
  ExpectField(d, "data_for_testing", 1, FD::TYPE_BYTES, kRep);
  ExpectField(d, "request_id", 2, FD::TYPE_UINT64);
  ExpectField(d, "msg_bind_service", 3, FD::TYPE_MESSAGE, kOpt, "BindService");
  ExpectField(d, "msg_bind_service_reply", 4, FD::TYPE_MESSAGE, kOpt,
              "BindServiceReply");
  ExpectField(d, "msg_invoke_method", 5, FD::TYPE_MESSAGE, kOpt, "InvokeMethod");
  ExpectField(d, "msg_invoke_method_reply", 6, FD::TYPE_MESSAGE, kOpt,
              "InvokeMethodReply");
  ExpectField(d, "msg_request_error", 7, FD::TYPE_MESSAGE, kOpt, "RequestError");
  ExpectField(d, "set_peer_identity", 8, FD::TYPE_MESSAGE, kOpt,
              "SetPeerIdentity");
  for (const char* f : {"msg_bind_service", "msg_bind_service_reply",
                        "msg_invoke_method", "msg_invoke_method_reply",
                        "msg_request_error", "set_peer_identity"})
    ExpectOneof(d, f, "msg");

  ExpectField(zp::IPCFrame::BindService::descriptor(), "service_name", 1,
              FD::TYPE_STRING);
  const auto* reply = zp::IPCFrame::BindServiceReply::descriptor();
  ExpectField(reply, "success", 1, FD::TYPE_BOOL);
  ExpectField(reply, "service_id", 2, FD::TYPE_UINT32);
  ExpectField(reply, "methods", 3, FD::TYPE_MESSAGE, kRep, "MethodInfo");
  const auto* mi = zp::IPCFrame::BindServiceReply::MethodInfo::descriptor();
  ExpectField(mi, "id", 1, FD::TYPE_UINT32);
  ExpectField(mi, "name", 2, FD::TYPE_STRING);
  const auto* inv = zp::IPCFrame::InvokeMethod::descriptor();
  ExpectField(inv, "service_id", 1, FD::TYPE_UINT32);
  ExpectField(inv, "method_id", 2, FD::TYPE_UINT32);
  ExpectField(inv, "args_proto", 3, FD::TYPE_BYTES);
  ExpectField(inv, "drop_reply", 4, FD::TYPE_BOOL);
  const auto* ir = zp::IPCFrame::InvokeMethodReply::descriptor();
  ExpectField(ir, "success", 1, FD::TYPE_BOOL);
  ExpectField(ir, "has_more", 2, FD::TYPE_BOOL);
  ExpectField(ir, "reply_proto", 3, FD::TYPE_BYTES);
  ExpectField(zp::IPCFrame::RequestError::descriptor(), "error", 1,
              FD::TYPE_STRING);
  // Extra (upstream main): peer identity of relayed connections.
  const auto* spi = zp::IPCFrame::SetPeerIdentity::descriptor();
  ExpectField(spi, "pid", 1, FD::TYPE_INT32);
  ExpectField(spi, "uid", 2, FD::TYPE_INT32);
  ExpectField(spi, "machine_id_hint", 3, FD::TYPE_STRING);
}

// No generic service classes are generated; services are read from the
// files' descriptors.
const pb::ServiceDescriptor* ProducerPort() {
  return zp::InitializeConnectionRequest::descriptor()->file()->FindServiceByName(
      "ProducerPort");
}
const pb::ServiceDescriptor* ConsumerPort() {
  return zp::EnableTracingRequest::descriptor()->file()->FindServiceByName(
      "ConsumerPort");
}

TEST(SchemaWireFacts, ProducerPortMethods) {
  ASSERT_NE(ProducerPort(), nullptr);
  ExpectMethods(ProducerPort(),
                {{"InitializeConnection", false},
                 {"RegisterDataSource", false},
                 {"UnregisterDataSource", false},
                 {"CommitData", false},
                 {"GetAsyncCommand", true},
                 {"RegisterTraceWriter", false},
                 {"UnregisterTraceWriter", false},
                 {"NotifyDataSourceStarted", false},
                 {"NotifyDataSourceStopped", false},
                 {"ActivateTriggers", false},
                 {"Sync", false},
                 {"UpdateDataSource", false},
                 // zerotrace's extension, after every upstream method so
                 // that upstream's method ids stay what they are.
                 {"ZtSetupCommitQueue", false}});
  const auto* m = ProducerPort()->FindMethodByName("CommitData");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->input_type()->name(), "CommitDataRequest");
  EXPECT_EQ(m->output_type()->name(), "CommitDataResponse");
}

TEST(SchemaWireFacts, ConsumerPortMethods) {
  ASSERT_NE(ConsumerPort(), nullptr);
  ExpectMethods(ConsumerPort(),
                {{"EnableTracing", false},
                 {"DisableTracing", false},
                 {"ReadBuffers", true},
                 {"FreeBuffers", false},
                 {"Flush", false},
                 {"StartTracing", false},
                 {"ChangeTraceConfig", false},
                 {"Detach", false},
                 {"Attach", false},
                 {"GetTraceStats", false},
                 {"ObserveEvents", true},
                 {"QueryServiceState", true},
                 {"QueryCapabilities", false},
                 {"SaveTraceForBugreport", false},
                 {"CloneSession", false}});
}

TEST(SchemaWireFacts, ProducerPortMessages) {
  const auto* cmd = zp::GetAsyncCommandResponse::descriptor();
  ExpectField(cmd, "start_data_source", 1, FD::TYPE_MESSAGE, kOpt,
              "StartDataSource");
  ExpectField(cmd, "stop_data_source", 2, FD::TYPE_MESSAGE, kOpt,
              "StopDataSource");
  ExpectField(cmd, "setup_tracing", 3, FD::TYPE_MESSAGE, kOpt, "SetupTracing");
  ExpectField(cmd, "flush", 5, FD::TYPE_MESSAGE, kOpt, "Flush");
  ExpectField(cmd, "setup_data_source", 6, FD::TYPE_MESSAGE, kOpt,
              "SetupDataSource");
  ExpectField(cmd, "clear_incremental_state", 7, FD::TYPE_MESSAGE, kOpt,
              "ClearIncrementalState");
  for (const char* f : {"start_data_source", "stop_data_source",
                        "setup_tracing", "flush", "setup_data_source",
                        "clear_incremental_state"})
    ExpectOneof(cmd, f, "cmd");
  EXPECT_EQ(cmd->FindFieldByNumber(4), nullptr);  // never used upstream

  // Extra facts, checked against v14 (transcripts) and main.
  const auto* ic = zp::InitializeConnectionRequest::descriptor();
  ExpectField(ic, "shared_memory_page_size_hint_bytes", 1, FD::TYPE_UINT32);
  ExpectField(ic, "shared_memory_size_hint_bytes", 2, FD::TYPE_UINT32);
  ExpectField(ic, "producer_name", 3, FD::TYPE_STRING);
  ExpectField(ic, "smb_scraping_mode", 4, FD::TYPE_ENUM, kOpt,
              "ProducerSMBScrapingMode");
  ExpectField(ic, "build_flags", 5, FD::TYPE_ENUM, kOpt, "ProducerBuildFlags");
  ExpectField(ic, "producer_provided_shmem", 6, FD::TYPE_BOOL);
  ExpectEnum(zp::InitializeConnectionRequest::ProducerSMBScrapingMode_descriptor(),
             {{"SMB_SCRAPING_UNSPECIFIED", 0},
              {"SMB_SCRAPING_ENABLED", 1},
              {"SMB_SCRAPING_DISABLED", 2}});
  ExpectEnum(zp::InitializeConnectionRequest::ProducerBuildFlags_descriptor(),
             {{"BUILD_FLAGS_DCHECKS_ON", 1}, {"BUILD_FLAGS_DCHECKS_OFF", 2}});
  const auto* icr = zp::InitializeConnectionResponse::descriptor();
  ExpectField(icr, "using_shmem_provided_by_producer", 1, FD::TYPE_BOOL);
  ExpectField(icr, "direct_smb_patching_supported", 2, FD::TYPE_BOOL);

  ExpectField(zp::GetAsyncCommandResponse::SetupTracing::descriptor(),
              "shared_buffer_page_size_kb", 1, FD::TYPE_UINT32);
  const auto* sds = zp::GetAsyncCommandResponse::SetupDataSource::descriptor();
  ExpectField(sds, "new_instance_id", 1, FD::TYPE_UINT64);
  ExpectField(sds, "config", 2, FD::TYPE_MESSAGE, kOpt, "DataSourceConfig");
  ExpectField(zp::GetAsyncCommandResponse::StopDataSource::descriptor(),
              "instance_id", 1, FD::TYPE_UINT64);
  const auto* fl = zp::GetAsyncCommandResponse::Flush::descriptor();
  ExpectField(fl, "data_source_ids", 1, FD::TYPE_UINT64, kRep);
  ExpectField(fl, "request_id", 2, FD::TYPE_UINT64);
  const auto* rtw = zp::RegisterTraceWriterRequest::descriptor();
  ExpectField(rtw, "trace_writer_id", 1, FD::TYPE_UINT32);
  ExpectField(rtw, "target_buffer", 2, FD::TYPE_UINT32);
  ExpectField(zp::NotifyDataSourceStartedRequest::descriptor(), "data_source_id",
              1, FD::TYPE_UINT64);
  ExpectField(zp::RegisterDataSourceRequest::descriptor(),
              "data_source_descriptor", 1, FD::TYPE_MESSAGE, kOpt,
              "DataSourceDescriptor");

  const auto* dsd = zp::DataSourceDescriptor::descriptor();
  ExpectField(dsd, "name", 1, FD::TYPE_STRING);
  ExpectField(dsd, "will_notify_on_stop", 2, FD::TYPE_BOOL);
  ExpectField(dsd, "will_notify_on_start", 3, FD::TYPE_BOOL);
  ExpectField(dsd, "handles_incremental_state_clear", 4, FD::TYPE_BOOL);
  ExpectField(dsd, "track_event_descriptor", 6, FD::TYPE_MESSAGE, kOpt,
              "TrackEventDescriptor");
  ExpectField(zp::TrackEventDescriptor::descriptor(), "available_categories", 1,
              FD::TYPE_MESSAGE, kRep, "TrackEventCategory");
  const auto* cat = zp::TrackEventCategory::descriptor();
  ExpectField(cat, "name", 1, FD::TYPE_STRING);
  ExpectField(cat, "description", 2, FD::TYPE_STRING);
  ExpectField(cat, "tags", 3, FD::TYPE_STRING, kRep);
}

TEST(SchemaWireFacts, ConsumerPortMessages) {
  ExpectField(zp::EnableTracingRequest::descriptor(), "trace_config", 1,
              FD::TYPE_MESSAGE, kOpt, "TraceConfig");
  ExpectField(zp::EnableTracingResponse::descriptor(), "disabled", 1,
              FD::TYPE_BOOL);
  ExpectField(zp::EnableTracingResponse::descriptor(), "error", 3,
              FD::TYPE_STRING);
  ExpectField(zp::ReadBuffersResponse::descriptor(), "slices", 2,
              FD::TYPE_MESSAGE, kRep, "Slice");
  const auto* slice = zp::ReadBuffersResponse::Slice::descriptor();
  ExpectField(slice, "data", 1, FD::TYPE_BYTES);
  ExpectField(slice, "last_slice_for_packet", 2, FD::TYPE_BOOL);
  ExpectField(zp::FreeBuffersRequest::descriptor(), "buffer_ids", 1,
              FD::TYPE_UINT32, kRep);
  ExpectField(zp::FlushRequest::descriptor(), "timeout_ms", 1, FD::TYPE_UINT32);
  ExpectField(zp::GetTraceStatsResponse::descriptor(), "trace_stats", 1,
              FD::TYPE_MESSAGE, kOpt, "TraceStats");
  ExpectField(zp::ObserveEventsRequest::descriptor(), "events_to_observe", 1,
              FD::TYPE_ENUM, kRep, "Type");
  ExpectEnum(zp::ObservableEvents::Type_descriptor(),
             {{"TYPE_UNSPECIFIED", 0},
              {"TYPE_DATA_SOURCES_INSTANCES", 1},
              {"TYPE_ALL_DATA_SOURCES_STARTED", 2}});
  ExpectField(zp::ObservableEvents::descriptor(), "all_data_sources_started", 2,
              FD::TYPE_BOOL);
  ExpectField(zp::TraceStats::descriptor(), "buffer_stats", 1, FD::TYPE_MESSAGE,
              kRep, "BufferStats");
  const auto* bs = zp::TraceStats::BufferStats::descriptor();
  ExpectField(bs, "buffer_size", 12, FD::TYPE_UINT64);
  ExpectField(bs, "bytes_written", 1, FD::TYPE_UINT64);
  ExpectField(bs, "chunks_written", 2, FD::TYPE_UINT64);
}

TEST(SchemaWireFacts, CommitDataRequest) {
  const auto* d = zp::CommitDataRequest::descriptor();
  ExpectField(d, "chunks_to_move", 1, FD::TYPE_MESSAGE, kRep, "ChunksToMove");
  ExpectField(d, "chunks_to_patch", 2, FD::TYPE_MESSAGE, kRep, "ChunkToPatch");
  ExpectField(d, "flush_request_id", 3, FD::TYPE_UINT64);
  const auto* m = zp::CommitDataRequest::ChunksToMove::descriptor();
  ExpectField(m, "page", 1, FD::TYPE_UINT32);
  ExpectField(m, "chunk", 2, FD::TYPE_UINT32);
  ExpectField(m, "target_buffer", 3, FD::TYPE_UINT32);
  ExpectField(m, "data", 4, FD::TYPE_BYTES);
  ExpectField(m, "chunk_incomplete", 5, FD::TYPE_BOOL);
  const auto* p = zp::CommitDataRequest::ChunkToPatch::descriptor();
  ExpectField(p, "target_buffer", 1, FD::TYPE_UINT32);
  ExpectField(p, "writer_id", 2, FD::TYPE_UINT32);
  ExpectField(p, "chunk_id", 3, FD::TYPE_UINT32);
  ExpectField(p, "patches", 4, FD::TYPE_MESSAGE, kRep, "Patch");
  ExpectField(p, "has_more_patches", 5, FD::TYPE_BOOL);
  const auto* patch = zp::CommitDataRequest::ChunkToPatch::Patch::descriptor();
  ExpectField(patch, "offset", 1, FD::TYPE_UINT32);
  ExpectField(patch, "data", 2, FD::TYPE_BYTES);
}

TEST(SchemaWireFacts, TraceAndTracePacket) {
  ExpectField(zp::Trace::descriptor(), "packet", 1, FD::TYPE_MESSAGE, kRep,
              "TracePacket");
  const auto* d = zp::TracePacket::descriptor();
  ExpectField(d, "trusted_uid", 3, FD::TYPE_INT32);
  ExpectField(d, "clock_snapshot", 6, FD::TYPE_MESSAGE, kOpt, "ClockSnapshot");
  ExpectField(d, "timestamp", 8, FD::TYPE_UINT64);
  ExpectField(d, "trusted_packet_sequence_id", 10, FD::TYPE_UINT32);
  ExpectField(d, "track_event", 11, FD::TYPE_MESSAGE, kOpt, "TrackEvent");
  ExpectField(d, "interned_data", 12, FD::TYPE_MESSAGE, kOpt, "InternedData");
  ExpectField(d, "sequence_flags", 13, FD::TYPE_UINT32);
  ExpectField(d, "trace_config", 33, FD::TYPE_MESSAGE, kOpt, "TraceConfig");
  ExpectField(d, "trace_stats", 35, FD::TYPE_MESSAGE, kOpt, "TraceStats");
  ExpectField(d, "synchronization_marker", 36, FD::TYPE_BYTES);
  ExpectField(d, "incremental_state_cleared", 41, FD::TYPE_BOOL);
  // bool in v14, uint32 in main: both are varints, 1 = "dropped".
  ExpectField(d, "previous_packet_dropped", 42, FD::TYPE_UINT32);
  ExpectField(d, "timestamp_clock_id", 58, FD::TYPE_UINT32);
  ExpectField(d, "trace_packet_defaults", 59, FD::TYPE_MESSAGE, kOpt,
              "TracePacketDefaults");
  ExpectField(d, "track_descriptor", 60, FD::TYPE_MESSAGE, kOpt,
              "TrackDescriptor");
  ExpectField(d, "trusted_pid", 79, FD::TYPE_INT32);
  ExpectField(d, "first_packet_on_sequence", 87, FD::TYPE_BOOL);
  ExpectField(d, "for_testing", 900, FD::TYPE_MESSAGE, kOpt, "TestEvent");
  // Extra payloads checked against upstream.
  ExpectField(d, "process_descriptor", 43, FD::TYPE_MESSAGE, kOpt,
              "ProcessDescriptor");
  ExpectField(d, "thread_descriptor", 44, FD::TYPE_MESSAGE, kOpt,
              "ThreadDescriptor");
  ExpectField(d, "system_info", 45, FD::TYPE_MESSAGE, kOpt, "SystemInfo");
  ExpectField(d, "trigger", 46, FD::TYPE_MESSAGE, kOpt, "Trigger");
  ExpectField(d, "compressed_packets", 50, FD::TYPE_BYTES);
  ExpectField(d, "service_event", 69, FD::TYPE_MESSAGE, kOpt,
              "TracingServiceEvent");
  ExpectField(d, "machine_id", 98, FD::TYPE_UINT32);
  for (const char* f : {"track_event", "clock_snapshot", "trace_config",
                        "trace_stats", "synchronization_marker",
                        "track_descriptor", "for_testing"})
    ExpectOneof(d, f, "data");
  ExpectOneof(d, "trusted_uid", "optional_trusted_uid");
  ExpectOneof(d, "trusted_packet_sequence_id",
              "optional_trusted_packet_sequence_id");
  ExpectEnum(zp::TracePacket::SequenceFlags_descriptor(),
             {{"SEQ_UNSPECIFIED", 0},
              {"SEQ_INCREMENTAL_STATE_CLEARED", 1},
              {"SEQ_NEEDS_INCREMENTAL_STATE", 2}});

  ExpectField(zp::TracePacketDefaults::descriptor(), "timestamp_clock_id", 58,
              FD::TYPE_UINT32);
  ExpectField(zp::TracePacketDefaults::descriptor(), "track_event_defaults", 11,
              FD::TYPE_MESSAGE, kOpt, "TrackEventDefaults");
  ExpectField(zp::TrackEventDefaults::descriptor(), "track_uuid", 11,
              FD::TYPE_UINT64);

  const auto* te = zp::TestEvent::descriptor();
  ExpectField(te, "str", 1, FD::TYPE_STRING);
  ExpectField(te, "seq_value", 2, FD::TYPE_UINT32);
  ExpectField(te, "counter", 3, FD::TYPE_UINT64);
  ExpectField(te, "is_last", 4, FD::TYPE_BOOL);
  ExpectField(te, "payload", 5, FD::TYPE_MESSAGE, kOpt, "TestPayload");
}

TEST(SchemaWireFacts, TrackEvent) {
  const auto* d = zp::TrackEvent::descriptor();
  ExpectField(d, "category_iids", 3, FD::TYPE_UINT64, kRep);
  ExpectField(d, "debug_annotations", 4, FD::TYPE_MESSAGE, kRep,
              "DebugAnnotation");
  ExpectField(d, "type", 9, FD::TYPE_ENUM, kOpt, "Type");
  ExpectField(d, "name_iid", 10, FD::TYPE_UINT64);
  ExpectField(d, "track_uuid", 11, FD::TYPE_UINT64);
  ExpectField(d, "extra_counter_values", 12, FD::TYPE_INT64, kRep);
  ExpectField(d, "categories", 22, FD::TYPE_STRING, kRep);
  ExpectField(d, "name", 23, FD::TYPE_STRING);
  ExpectField(d, "counter_value", 30, FD::TYPE_INT64);
  ExpectField(d, "double_counter_value", 44, FD::TYPE_DOUBLE);
  ExpectField(d, "flow_ids", 47, FD::TYPE_FIXED64, kRep);
  ExpectField(d, "terminating_flow_ids", 48, FD::TYPE_FIXED64, kRep);
  // What v14 wrote, kept under upstream main's names.
  ExpectField(d, "flow_ids_old", 36, FD::TYPE_UINT64, kRep);
  ExpectField(d, "terminating_flow_ids_old", 42, FD::TYPE_UINT64, kRep);
  EXPECT_FALSE(d->FindFieldByName("flow_ids")->is_packed());
  ExpectOneof(d, "name_iid", "name_field");
  ExpectOneof(d, "name", "name_field");
  ExpectOneof(d, "counter_value", "counter_value_field");
  ExpectOneof(d, "double_counter_value", "counter_value_field");
  // Extra, from upstream.
  ExpectField(d, "extra_counter_track_uuids", 31, FD::TYPE_UINT64, kRep);
  ExpectField(d, "extra_double_counter_track_uuids", 45, FD::TYPE_UINT64, kRep);
  ExpectField(d, "extra_double_counter_values", 46, FD::TYPE_DOUBLE, kRep);
  ExpectField(d, "source_location_iid", 34, FD::TYPE_UINT64);
  ExpectField(d, "log_message", 21, FD::TYPE_MESSAGE, kOpt, "LogMessage");
  ExpectEnum(zp::TrackEvent::Type_descriptor(), {{"TYPE_UNSPECIFIED", 0},
                                                 {"TYPE_SLICE_BEGIN", 1},
                                                 {"TYPE_SLICE_END", 2},
                                                 {"TYPE_INSTANT", 3},
                                                 {"TYPE_COUNTER", 4}});
}

TEST(SchemaWireFacts, InternedData) {
  const auto* d = zp::InternedData::descriptor();
  ExpectField(d, "event_categories", 1, FD::TYPE_MESSAGE, kRep, "EventCategory");
  ExpectField(d, "event_names", 2, FD::TYPE_MESSAGE, kRep, "EventName");
  ExpectField(d, "debug_annotation_names", 3, FD::TYPE_MESSAGE, kRep,
              "DebugAnnotationName");
  ExpectField(d, "source_locations", 4, FD::TYPE_MESSAGE, kRep,
              "SourceLocation");
  ExpectField(d, "debug_annotation_string_values", 29, FD::TYPE_MESSAGE, kRep,
              "InternedString");
  // Every entry: iid = 1, then its value = 2.
  const std::vector<std::pair<const pb::Descriptor*, std::string>> entries = {
      {zp::EventCategory::descriptor(), "name"},
      {zp::EventName::descriptor(), "name"},
      {zp::DebugAnnotationName::descriptor(), "name"},
      {zp::SourceLocation::descriptor(), "file_name"},
      {zp::InternedString::descriptor(), "str"},
  };
  for (const auto& [msg, value] : entries) {
    ExpectField(msg, "iid", 1, FD::TYPE_UINT64);
    ExpectField(msg, value, 2,
                value == "str" ? FD::TYPE_BYTES : FD::TYPE_STRING);
  }
  ExpectField(zp::SourceLocation::descriptor(), "function_name", 3,
              FD::TYPE_STRING);
  ExpectField(zp::SourceLocation::descriptor(), "line_number", 4,
              FD::TYPE_UINT32);
}

TEST(SchemaWireFacts, DebugAnnotation) {
  const auto* d = zp::DebugAnnotation::descriptor();
  ExpectField(d, "name_iid", 1, FD::TYPE_UINT64);
  ExpectField(d, "name", 10, FD::TYPE_STRING);
  ExpectField(d, "bool_value", 2, FD::TYPE_BOOL);
  ExpectField(d, "uint_value", 3, FD::TYPE_UINT64);
  ExpectField(d, "int_value", 4, FD::TYPE_INT64);
  ExpectField(d, "double_value", 5, FD::TYPE_DOUBLE);
  ExpectField(d, "string_value", 6, FD::TYPE_STRING);
  ExpectField(d, "pointer_value", 7, FD::TYPE_UINT64);
  ExpectField(d, "nested_value", 8, FD::TYPE_MESSAGE, kOpt, "NestedValue");
  ExpectField(d, "legacy_json_value", 9, FD::TYPE_STRING);
  ExpectField(d, "dict_entries", 11, FD::TYPE_MESSAGE, kRep, "DebugAnnotation");
  ExpectField(d, "array_values", 12, FD::TYPE_MESSAGE, kRep, "DebugAnnotation");
  ExpectField(d, "string_value_iid", 17, FD::TYPE_UINT64);
  ExpectOneof(d, "name_iid", "name_field");
  ExpectOneof(d, "name", "name_field");
  for (const char* f : {"bool_value", "uint_value", "int_value", "double_value",
                        "string_value", "pointer_value", "nested_value",
                        "legacy_json_value", "string_value_iid"})
    ExpectOneof(d, f, "value");
}

TEST(SchemaWireFacts, TrackDescriptor) {
  const auto* d = zp::TrackDescriptor::descriptor();
  ExpectField(d, "uuid", 1, FD::TYPE_UINT64);
  ExpectField(d, "name", 2, FD::TYPE_STRING);
  ExpectField(d, "process", 3, FD::TYPE_MESSAGE, kOpt, "ProcessDescriptor");
  ExpectField(d, "thread", 4, FD::TYPE_MESSAGE, kOpt, "ThreadDescriptor");
  ExpectField(d, "parent_uuid", 5, FD::TYPE_UINT64);
  ExpectField(d, "counter", 8, FD::TYPE_MESSAGE, kOpt, "CounterDescriptor");
  const auto* p = zp::ProcessDescriptor::descriptor();
  ExpectField(p, "pid", 1, FD::TYPE_INT32);
  ExpectField(p, "cmdline", 2, FD::TYPE_STRING, kRep);
  ExpectField(p, "process_name", 6, FD::TYPE_STRING);
  const auto* t = zp::ThreadDescriptor::descriptor();
  ExpectField(t, "pid", 1, FD::TYPE_INT32);
  // int32 in v14, int64 in main: the same varint for every int32 value.
  ExpectField(t, "tid", 2, FD::TYPE_INT64);
  ExpectField(t, "thread_name", 5, FD::TYPE_STRING);
}

TEST(SchemaWireFacts, ClockSnapshotAndBuiltinClocks) {
  const auto* d = zp::ClockSnapshot::descriptor();
  ExpectField(d, "clocks", 1, FD::TYPE_MESSAGE, kRep, "Clock");
  ExpectField(d, "primary_trace_clock", 2, FD::TYPE_ENUM, kOpt, "BuiltinClock");
  const auto* c = zp::ClockSnapshot::Clock::descriptor();
  ExpectField(c, "clock_id", 1, FD::TYPE_UINT32);
  ExpectField(c, "timestamp", 2, FD::TYPE_UINT64);
  ExpectField(c, "is_incremental", 3, FD::TYPE_BOOL);
  ExpectField(c, "unit_multiplier_ns", 4, FD::TYPE_UINT64);
  ExpectEnum(zp::BuiltinClock_descriptor(),
             {{"BUILTIN_CLOCK_REALTIME", 1},
              {"BUILTIN_CLOCK_MONOTONIC", 3},
              {"BUILTIN_CLOCK_MONOTONIC_RAW", 5},
              {"BUILTIN_CLOCK_BOOTTIME", 6},
              {"BUILTIN_CLOCK_MAX_ID", 63}});
  ExpectEnum(zp::ClockSnapshot::Clock::BuiltinClocks_descriptor(),
             {{"REALTIME", 1}, {"MONOTONIC", 3}, {"MONOTONIC_RAW", 5},
              {"BOOTTIME", 6}});
}

TEST(SchemaWireFacts, TraceConfig) {
  const auto* d = zp::TraceConfig::descriptor();
  ExpectField(d, "buffers", 1, FD::TYPE_MESSAGE, kRep, "BufferConfig");
  ExpectField(d, "data_sources", 2, FD::TYPE_MESSAGE, kRep, "DataSource");
  ExpectField(d, "duration_ms", 3, FD::TYPE_UINT32);
  ExpectField(d, "write_into_file", 8, FD::TYPE_BOOL);
  ExpectField(d, "file_write_period_ms", 9, FD::TYPE_UINT32);
  ExpectField(d, "max_file_size_bytes", 10, FD::TYPE_UINT64);
  ExpectField(d, "flush_period_ms", 13, FD::TYPE_UINT32);
  ExpectField(d, "flush_timeout_ms", 14, FD::TYPE_UINT32);
  ExpectField(d, "unique_session_name", 22, FD::TYPE_STRING);
  ExpectField(d, "output_path", 29, FD::TYPE_STRING);
  const auto* b = zp::TraceConfig::BufferConfig::descriptor();
  ExpectField(b, "size_kb", 1, FD::TYPE_UINT32);
  ExpectField(b, "fill_policy", 4, FD::TYPE_ENUM, kOpt, "FillPolicy");
  ExpectEnum(zp::TraceConfig::BufferConfig::FillPolicy_descriptor(),
             {{"UNSPECIFIED", 0}, {"RING_BUFFER", 1}, {"DISCARD", 2}});
  const auto* ds = zp::TraceConfig::DataSource::descriptor();
  ExpectField(ds, "config", 1, FD::TYPE_MESSAGE, kOpt, "DataSourceConfig");
  ExpectField(ds, "producer_name_filter", 2, FD::TYPE_STRING, kRep);

  // Extra facts from upstream beyond docs/wire.md.
  ExpectField(d, "enable_extra_guardrails", 4, FD::TYPE_BOOL);
  ExpectField(d, "lockdown_mode", 5, FD::TYPE_ENUM, kOpt,
              "LockdownModeOperation");
  ExpectField(d, "producers", 6, FD::TYPE_MESSAGE, kRep, "ProducerConfig");
  ExpectField(d, "deferred_start", 12, FD::TYPE_BOOL);
  ExpectField(d, "trigger_config", 17, FD::TYPE_MESSAGE, kOpt, "TriggerConfig");
  ExpectField(d, "activate_triggers", 18, FD::TYPE_STRING, kRep);
  ExpectField(d, "builtin_data_sources", 20, FD::TYPE_MESSAGE, kOpt,
              "BuiltinDataSource");
  ExpectField(d, "incremental_state_config", 21, FD::TYPE_MESSAGE, kOpt,
              "IncrementalStateConfig");
  ExpectField(d, "data_source_stop_timeout_ms", 23, FD::TYPE_UINT32);
  ExpectField(d, "trace_filter", 33, FD::TYPE_MESSAGE, kOpt, "TraceFilter");
  ExpectField(d, "cmd_trace_start_delay", 35, FD::TYPE_MESSAGE, kOpt,
              "CmdTraceStartDelay");
  ExpectField(d, "session_semaphores", 39, FD::TYPE_MESSAGE, kRep,
              "SessionSemaphore");
  ExpectField(ds, "producer_name_regex_filter", 3, FD::TYPE_STRING, kRep);
  ExpectField(zp::TraceConfig::IncrementalStateConfig::descriptor(),
              "clear_period_ms", 1, FD::TYPE_UINT32);
  const auto* tc = zp::TraceConfig::TriggerConfig::descriptor();
  ExpectField(tc, "trigger_mode", 1, FD::TYPE_ENUM, kOpt, "TriggerMode");
  ExpectField(tc, "triggers", 2, FD::TYPE_MESSAGE, kRep, "Trigger");
  ExpectField(tc, "trigger_timeout_ms", 3, FD::TYPE_UINT32);
  ExpectEnum(zp::TraceConfig::TriggerConfig::TriggerMode_descriptor(),
             {{"START_TRACING", 1}, {"STOP_TRACING", 2}, {"CLONE_SNAPSHOT", 4}});
  const auto* trig = zp::TraceConfig::TriggerConfig::Trigger::descriptor();
  ExpectField(trig, "name", 1, FD::TYPE_STRING);
  ExpectField(trig, "producer_name_regex", 2, FD::TYPE_STRING);
  ExpectField(trig, "stop_delay_ms", 3, FD::TYPE_UINT32);
  const auto* bds = zp::TraceConfig::BuiltinDataSource::descriptor();
  ExpectField(bds, "disable_clock_snapshotting", 1, FD::TYPE_BOOL);
  ExpectField(bds, "primary_trace_clock", 5, FD::TYPE_ENUM, kOpt,
              "BuiltinClock");
  ExpectField(zp::TraceConfig::ProducerConfig::descriptor(), "shm_size_kb", 2,
              FD::TYPE_UINT32);
  ExpectField(zp::TraceConfig::ProducerConfig::descriptor(), "page_size_kb", 3,
              FD::TYPE_UINT32);
}

TEST(SchemaWireFacts, DataSourceConfig) {
  const auto* d = zp::DataSourceConfig::descriptor();
  ExpectField(d, "name", 1, FD::TYPE_STRING);
  ExpectField(d, "target_buffer", 2, FD::TYPE_UINT32);
  ExpectField(d, "trace_duration_ms", 3, FD::TYPE_UINT32);
  ExpectField(d, "tracing_session_id", 4, FD::TYPE_UINT64);
  ExpectField(d, "stop_timeout_ms", 7, FD::TYPE_UINT32);
  ExpectField(d, "buffer_exhausted_policy", 9, FD::TYPE_ENUM, kOpt,
              "BufferExhaustedPolicy");
  ExpectField(d, "track_event_config", 113, FD::TYPE_MESSAGE, kOpt,
              "TrackEventConfig");
  ExpectField(d, "for_testing", 1001, FD::TYPE_MESSAGE, kOpt, "TestConfig");
  ExpectEnum(zp::DataSourceConfig::BufferExhaustedPolicy_descriptor(),
             {{"BUFFER_EXHAUSTED_UNSPECIFIED", 0},
              {"BUFFER_EXHAUSTED_DROP", 1},
              {"BUFFER_EXHAUSTED_STALL_THEN_ABORT", 2},
              {"BUFFER_EXHAUSTED_STALL_THEN_DROP", 3}});
  const auto* t = zp::TrackEventConfig::descriptor();
  ExpectField(t, "disabled_categories", 1, FD::TYPE_STRING, kRep);
  ExpectField(t, "enabled_categories", 2, FD::TYPE_STRING, kRep);
  ExpectField(t, "disabled_tags", 3, FD::TYPE_STRING, kRep);
  ExpectField(t, "enabled_tags", 4, FD::TYPE_STRING, kRep);
  // Extra: the configs most .pbtxt files use.
  ExpectField(d, "ftrace_config", 100, FD::TYPE_MESSAGE, kOpt, "FtraceConfig");
  ExpectField(d, "chrome_config", 101, FD::TYPE_MESSAGE, kOpt, "ChromeConfig");
  ExpectField(d, "process_stats_config", 103, FD::TYPE_MESSAGE, kOpt,
              "ProcessStatsConfig");
  ExpectField(d, "sys_stats_config", 104, FD::TYPE_MESSAGE, kOpt,
              "SysStatsConfig");
  ExpectField(d, "heapprofd_config", 105, FD::TYPE_MESSAGE, kOpt,
              "HeapprofdConfig");
  ExpectField(d, "android_log_config", 107, FD::TYPE_MESSAGE, kOpt,
              "AndroidLogConfig");
  ExpectField(d, "java_hprof_config", 110, FD::TYPE_MESSAGE, kOpt,
              "JavaHprofConfig");
  ExpectField(d, "perf_event_config", 111, FD::TYPE_MESSAGE, kOpt,
              "PerfEventConfig");
  ExpectField(d, "interceptor_config", 115, FD::TYPE_MESSAGE, kOpt,
              "InterceptorConfig");
  ExpectField(d, "legacy_config", 1000, FD::TYPE_STRING);
  const auto* f = zp::FtraceConfig::descriptor();
  ExpectField(f, "ftrace_events", 1, FD::TYPE_STRING, kRep);
  ExpectField(f, "atrace_categories", 2, FD::TYPE_STRING, kRep);
  ExpectField(f, "atrace_apps", 3, FD::TYPE_STRING, kRep);
  ExpectField(f, "buffer_size_kb", 10, FD::TYPE_UINT32);
  ExpectField(f, "drain_period_ms", 11, FD::TYPE_UINT32);
  const auto* tcfg = zp::TestConfig::descriptor();
  ExpectField(tcfg, "message_count", 1, FD::TYPE_UINT32);
  ExpectField(tcfg, "message_size", 4, FD::TYPE_UINT32);
}

// Bytes, not just descriptors: a trace file is 0x0A-prefixed packets, and
// TrackEvent.flow_ids (47, fixed64) is an unpacked 64-bit field.
TEST(SchemaWireFacts, EncodedBytes) {
  zp::Trace trace;
  trace.add_packet()->mutable_for_testing()->set_str("x");
  const std::string bytes = trace.SerializeAsString();
  // 0x0A len | tag(900, LEN) = varint 0x2022 = a2 38 | len | 0x0A 01 'x'
  const std::string want("\x0a\x06\xa2\x38\x03\x0a\x01x", 8);
  EXPECT_EQ(bytes, want);

  zp::TrackEvent ev;
  ev.add_flow_ids(1);
  const std::string te = ev.SerializeAsString();
  ASSERT_EQ(te.size(), 2u + 8u);
  EXPECT_EQ(static_cast<uint8_t>(te[0]), 0xF9);  // (47 << 3) | 1, low 7 bits
  EXPECT_EQ(static_cast<uint8_t>(te[1]), 0x02);
}

// The protozero stubs come from the same files: their numbers agree.
static_assert(zt::protos::pbzero::TracePacket::kForTestingFieldNumber == 900);
static_assert(zt::protos::pbzero::TracePacket::kTrackEventFieldNumber == 11);
static_assert(
    zt::protos::pbzero::TracePacket::kPreviousPacketDroppedFieldNumber == 42);
static_assert(zt::protos::pbzero::TrackEvent::kFlowIdsFieldNumber == 47);
static_assert(zt::protos::pbzero::IPCFrame::kSetPeerIdentityFieldNumber == 8);

}  // namespace
