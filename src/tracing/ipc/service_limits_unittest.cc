// What one local user can make the daemon hold through its ports
// (ServiceLimits, issue 27 item 6): requests over a limit are refused with
// an error naming it and counted, what the service holds stays bounded,
// and QueryServiceState always fits one reply frame. Hand-built frames
// over socketpairs (raw_port_client.h), as a hostile client sends them.

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/test/resident_memory.h"

#include "src/ipc/frame.h"
#include "src/tracing/ipc/raw_port_client.h"
#include "src/tracing/service/service_limits.h"
#include "zt/common/tracing_service_state.gen.h"
#include "zt/config/trace_config.gen.h"
#include "zt/ipc/consumer_port.gen.h"
#include "zt/ipc/producer_port.gen.h"

namespace zt {
namespace {

// A connected producer (InitializeConnection answered): its client, or
// null if the service refused it.
RawClient* ConnectProducer(Wire* wire, bool* accepted) {
  RawClient* client = wire->NewProducer();
  client->Bind();
  protos::gen::InitializeConnectionRequest req;
  req.set_producer_name("hostile");
  const uint64_t init = client->Call("InitializeConnection", req.SerializeAsString());
  wire->Pump();
  bool success = false;
  *accepted = client->Answered(init, &success) && success;
  return client;
}

// RegisterDataSource's answer: "" if registered, else the error.
std::string Register(Wire* wire, RawClient* client, const std::string& name) {
  protos::gen::RegisterDataSourceRequest req;
  req.mutable_data_source_descriptor()->set_name(name);
  const uint64_t id = client->Call("RegisterDataSource", req.SerializeAsString());
  wire->Pump();
  bool success = false;
  std::string reply;
  if (!client->Answered(id, &success, &reply) || !success)
    return "no answer";
  protos::gen::RegisterDataSourceResponse resp;
  if (!resp.ParseFromString(reply))
    return "undecodable answer";
  return resp.error();
}

using test::kResidentMemoryMeaningful;
using test::ResidentBytes;

// QueryServiceState through the consumer port, as an upstream consumer
// binds it (no zerotrace fields: its replies are held to 128 KiB).
bool QueryState(Wire* wire, protos::gen::TracingServiceState* state, size_t* frame_size) {
  RawClient* consumer = wire->NewConsumer();
  consumer->Bind();
  const uint64_t id = consumer->Call("QueryServiceState");
  wire->Pump();
  bool success = false;
  std::string reply;
  if (!consumer->Answered(id, &success, &reply) || !success)
    return false;
  *frame_size = ipc::SerializeFrame(*consumer->Replies(id).back()->frame).size();
  protos::gen::QueryServiceStateResponse resp;
  if (!resp.ParseFromString(reply))
    return false;
  *state = resp.service_state();
  return true;
}

// The report's attack: 2,000 data sources with 100 KB names, as any user
// can. Before the limits the service held every one (31 -> 395 MB).
TEST(ServiceLimitsTest, DataSourcesOverAProducersLimitsAreRefusedAndNothingGrows) {
  ServiceLimits limits;
  limits.max_data_sources_per_producer = 50;
  Wire wire(limits);
  bool accepted = false;
  RawClient* producer = ConnectProducer(&wire, &accepted);
  ASSERT_TRUE(accepted);
  const size_t rss_before = ResidentBytes();
  for (int i = 0; i < 2000; i++) {
    const std::string error =
        Register(&wire, producer, std::to_string(i) + std::string(100 * 1024, 'n'));
    ASSERT_NE(error.find("a data source name of 102"), std::string::npos) << error;
    ASSERT_NE(error.find("over the limit of 1024"), std::string::npos) << error;
  }
  const size_t rss_after = ResidentBytes();
  if (kResidentMemoryMeaningful) {
    EXPECT_LT(rss_after, rss_before + (64u << 20))
        << "resident memory grew from " << rss_before << " to " << rss_after;
  }
  for (int i = 0; i < 60; i++) {
    const std::string error = Register(&wire, producer, "ds." + std::to_string(i));
    if (i < 50) {
      EXPECT_EQ(error, "") << i;
    } else {
      EXPECT_NE(error.find("50 data sources registered, the limit"), std::string::npos) << error;
    }
  }
  // Registering one again updates it: not one more.
  EXPECT_EQ(Register(&wire, producer, "ds.3"), "");
  EXPECT_EQ(wire.host()->limit_stats().data_sources_refused, 2010u);
  EXPECT_FALSE(producer->closed()) << "a refused request is not a reason to disconnect";

  protos::gen::TracingServiceState state;
  size_t frame_size = 0;
  ASSERT_TRUE(QueryState(&wire, &state, &frame_size));
  EXPECT_EQ(state.data_sources_size(), 50);
}

TEST(ServiceLimitsTest, ADescriptorOverItsLimitIsRefused) {
  ServiceLimits limits;
  limits.max_data_source_descriptor_bytes = 4096;
  Wire wire(limits);
  bool accepted = false;
  RawClient* producer = ConnectProducer(&wire, &accepted);
  ASSERT_TRUE(accepted);
  protos::gen::RegisterDataSourceRequest req;
  req.mutable_data_source_descriptor()->set_name("big");
  req.mutable_data_source_descriptor()->set_track_event_descriptor_raw(std::string(8192, 'd'));
  const uint64_t id = producer->Call("RegisterDataSource", req.SerializeAsString());
  wire.Pump();
  bool success = false;
  std::string reply;
  ASSERT_TRUE(producer->Answered(id, &success, &reply));
  protos::gen::RegisterDataSourceResponse resp;
  ASSERT_TRUE(resp.ParseFromString(reply));
  EXPECT_NE(resp.error().find("over the limit of 4096"), std::string::npos) << resp.error();
}

// UpdateDataSource, as upstream producers send it (and our C ABI's
// PerfettoDsImplUpdateDescriptor): a registered name's descriptor is
// replaced, under the registration's limits; an unknown name is rejected.
// It used to be dropped unanswered.
TEST(ServiceLimitsTest, UpdateDataSourceReplacesADescriptorWithinTheLimits) {
  ServiceLimits limits;
  limits.max_data_source_descriptor_bytes = 4096;
  Wire wire(limits);
  bool accepted = false;
  RawClient* producer = ConnectProducer(&wire, &accepted);
  ASSERT_TRUE(accepted);
  ASSERT_EQ(Register(&wire, producer, "ds"), "");
  auto update = [&](const std::string& name, const std::string& raw) {
    protos::gen::UpdateDataSourceRequest req;
    req.mutable_data_source_descriptor()->set_name(name);
    req.mutable_data_source_descriptor()->set_track_event_descriptor_raw(raw);
    const uint64_t id = producer->Call("UpdateDataSource", req.SerializeAsString());
    wire.Pump();
    bool success = false;
    return producer->Answered(id, &success) && success;
  };
  EXPECT_TRUE(update("ds", "categories"));
  EXPECT_FALSE(update("unknown", "x")) << "only a registered name is updated";
  EXPECT_FALSE(update("ds", std::string(8192, 'd'))) << "over the descriptor limit";
  EXPECT_FALSE(producer->closed());

  protos::gen::TracingServiceState state;
  size_t frame_size = 0;
  ASSERT_TRUE(QueryState(&wire, &state, &frame_size));
  ASSERT_EQ(state.data_sources_size(), 1);
  EXPECT_EQ(state.data_sources()[0].ds_descriptor().name(), "ds");
  EXPECT_EQ(state.data_sources()[0].ds_descriptor().track_event_descriptor_raw(), "categories");
}

TEST(ServiceLimitsTest, ProducersOverAUidsLimitAreRefused) {
  ServiceLimits limits;
  limits.max_producers_per_uid = 3;
  Wire wire(limits);
  int accepted_count = 0;
  for (int i = 0; i < 5; i++) {
    bool accepted = false;
    ConnectProducer(&wire, &accepted);
    accepted_count += accepted;
  }
  EXPECT_EQ(accepted_count, 3);
  EXPECT_EQ(wire.host()->limit_stats().producers_refused, 2u);
}

TEST(ServiceLimitsTest, SessionsAndBuffersOverAUidsLimitsAreRefusedWithTheReason) {
  ServiceLimits limits;
  limits.max_sessions_per_uid = 2;
  limits.max_buffer_bytes_per_uid = 16u << 20;
  Wire wire(limits);
  auto enable = [&wire](uint32_t size_kb) {
    RawClient* consumer = wire.NewConsumer();
    consumer->Bind();
    protos::gen::EnableTracingRequest req;
    req.mutable_trace_config()->add_buffers()->set_size_kb(size_kb);
    req.mutable_trace_config()->add_data_sources()->mutable_config()->set_name("ds");
    const uint64_t id = consumer->Call("EnableTracing", req.SerializeAsString());
    wire.Pump();
    bool success = false;
    std::string reply;
    if (!consumer->Answered(id, &success, &reply))
      return std::string("running");
    protos::gen::EnableTracingResponse resp;
    resp.ParseFromString(reply);
    return resp.error();
  };
  EXPECT_NE(enable(32 * 1024).find("would take 33554432 bytes, over the limit of 16777216"),
            std::string::npos);
  EXPECT_EQ(enable(4096), "running");
  EXPECT_EQ(enable(4096), "running");
  const std::string third = enable(4096);
  EXPECT_NE(third.find("has 2 sessions, the limit"), std::string::npos) << third;
  EXPECT_EQ(wire.host()->limit_stats().sessions_refused, 2u);
}

// A config over 128 KiB reaches our service now; an upstream producer
// (its bind announces no limit: its frames are 128 KiB) cannot take it.
// Its stream must not fail (which ends its connection): that command is
// not sent, and counted.
TEST(ServiceLimitsTest, AConfigTooLargeForAnUpstreamProducerIsNotSentToIt) {
  Wire wire;
  bool accepted = false;
  RawClient* producer = ConnectProducer(&wire, &accepted);
  ASSERT_TRUE(accepted);
  const uint64_t commands = producer->Call("GetAsyncCommand");
  ASSERT_EQ(Register(&wire, producer, "ds"), "");
  RawClient* consumer = wire.NewConsumer();
  consumer->Bind();
  protos::gen::EnableTracingRequest req;
  req.mutable_trace_config()->add_buffers()->set_size_kb(1024);
  auto* ds = req.mutable_trace_config()->add_data_sources()->mutable_config();
  ds->set_name("ds");
  ds->set_legacy_config(std::string(300 * 1024, 'c'));
  consumer->Call("EnableTracing", req.SerializeAsString());
  wire.Pump();
  consumer->Call("StartTracing");
  wire.Pump();
  EXPECT_FALSE(producer->closed());
  for (const RawClient::Received* r : producer->Replies(commands)) {
    EXPECT_TRUE(r->frame->msg_invoke_method_reply().success())
        << "the command stream failed: the producer would disconnect";
    EXPECT_LE(ipc::SerializeFrame(*r->frame).size(), ipc::kMaxFrameSize);
  }
  EXPECT_GE(wire.host()->producer_port_stats().commands_too_large, 1u);
  EXPECT_EQ(Register(&wire, producer, "other"), "") << "the producer is still served";
}

// 20 producers with 1,000 data sources each: the state would be ~4 MB, and
// failed for every consumer. It fits one frame now, and says what it left
// out.
TEST(ServiceLimitsTest, TheServiceStateAlwaysFitsOneReply) {
  Wire wire;
  for (int p = 0; p < 20; p++) {
    bool accepted = false;
    RawClient* producer = ConnectProducer(&wire, &accepted);
    ASSERT_TRUE(accepted);
    for (int i = 0; i < 1000; i++) {
      ASSERT_EQ(Register(&wire, producer, "data.source." + std::to_string(i) +
                                              std::string(180, 'x')),
                "");
    }
  }
  protos::gen::TracingServiceState state;
  size_t frame_size = 0;
  ASSERT_TRUE(QueryState(&wire, &state, &frame_size)) << "the state did not fit";
  EXPECT_LE(frame_size, ipc::kMaxFrameSize);
  EXPECT_EQ(state.producers_size(), 20);
  EXPECT_GT(state.data_sources_size(), 100);
  EXPECT_EQ(static_cast<uint32_t>(state.data_sources_size()) + state.zt_data_sources_omitted(),
            20000u);
}

}  // namespace
}  // namespace zt
