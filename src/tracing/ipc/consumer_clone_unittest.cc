// CloneSession and the session list of QueryServiceState on the consumer
// port, as a v53+ consumer (upstream's `perfetto --clone`) uses them: it
// lists the sessions, clones one by id, and reads the clone with
// ReadBuffers. Real sockets (socketpairs) into ServiceIpcHost, on virtual
// time.

#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/tracing/ipc/port_test_fixture.h"
#include "zt/common/tracing_service_state.gen.h"
#include "zt/ipc/consumer_port.gen.h"
#include "zt/ipc/producer_port.gen.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/trace/trace_uuid.pbzero.h"

namespace zt {
namespace {

class ConsumerCloneTest : public PortTest {
 protected:
  ipc::Client* NewConsumer() { return Bind(host_->consumer_host(), "ConsumerPort"); }

  static std::string EnableArgs(const std::string& name) {
    protos::gen::EnableTracingRequest req;
    req.mutable_trace_config()->add_buffers()->set_size_kb(64);
    req.mutable_trace_config()->set_unique_session_name(name);
    return req.SerializeAsString();
  }
  protos::gen::CloneSessionResponse Clone(ipc::Client* client,
                                          const protos::gen::CloneSessionRequest& req) {
    std::vector<std::string> replies;
    EXPECT_TRUE(CallAndWait(client, "CloneSession", req.SerializeAsString(), &replies))
        << "CloneSession was refused without an answer";
    protos::gen::CloneSessionResponse resp;
    EXPECT_FALSE(replies.empty());
    if (!replies.empty()) {
      EXPECT_TRUE(resp.ParseFromString(replies.back()));
    }
    return resp;
  }
};

TEST_F(ConsumerCloneTest, ACloneIsListedTakenAndRead) {
  ipc::Client* owner = NewConsumer();
  owner->Invoke("EnableTracing", EnableArgs("svc"), [](ipc::Client::Response) {});
  runner_.RunUntilIdle();

  // The session is listed to its uid (this process's: the socketpair's).
  std::vector<std::string> replies;
  ipc::Client* cloner = NewConsumer();
  ASSERT_TRUE(CallAndWait(cloner, "QueryServiceState", "", &replies));
  protos::gen::QueryServiceStateResponse state;
  ASSERT_TRUE(state.ParseFromString(replies.back()));
  EXPECT_TRUE(state.service_state().supports_tracing_sessions());
  ASSERT_EQ(state.service_state().tracing_sessions().size(), 1u);
  const auto& listed = state.service_state().tracing_sessions()[0];
  EXPECT_EQ(listed.unique_session_name(), "svc");
  EXPECT_EQ(listed.consumer_uid(), static_cast<int32_t>(getuid()));
  EXPECT_EQ(listed.state(), "STARTED");

  replies.clear();
  ASSERT_TRUE(CallAndWait(cloner, "QueryCapabilities", "", &replies));
  protos::gen::QueryCapabilitiesResponse caps;
  ASSERT_TRUE(caps.ParseFromString(replies.back()));
  EXPECT_TRUE(caps.capabilities().has_clone_session());

  protos::gen::CloneSessionRequest req;
  req.set_session_id(listed.id());
  const protos::gen::CloneSessionResponse resp = Clone(cloner, req);
  ASSERT_TRUE(resp.success()) << resp.error();
  EXPECT_NE(resp.uuid_msb(), 0);

  // The clone is the cloner's session: its trace, ending with the stats.
  replies.clear();
  ASSERT_TRUE(CallAndWait(cloner, "ReadBuffers", "", &replies));
  std::string trace;
  for (const std::string& r : replies) {
    protos::gen::ReadBuffersResponse read;
    ASSERT_TRUE(read.ParseFromString(r));
    for (const auto& slice : read.slices()) {
      ASSERT_TRUE(slice.last_slice_for_packet()) << "the service's packets are small";
      protos::pbzero::TracePacket_Decoder packet(slice.data());
      if (packet.has_trace_uuid()) {
        protos::pbzero::TraceUuid_Decoder uuid(packet.trace_uuid());
        EXPECT_EQ(uuid.msb(), resp.uuid_msb());
        EXPECT_EQ(uuid.lsb(), resp.uuid_lsb());
      }
      trace = slice.data();
    }
  }
  protos::pbzero::TracePacket_Decoder last(trace);
  EXPECT_TRUE(last.has_trace_stats()) << "the clone's read ends with its final stats";
}

// v53's `perfetto --clone-all-for-bugreport` lists the sessions with
// QueryServiceStateRequest.sessions_only and clones those with a
// bugreport_score: the reply leaves producers and data sources out (they
// would share its size budget with the sessions) and carries each session's
// bugreport_score and bugreport_filename. Found running a live v53 consumer
// against ztraced (docs/perfetto_compat.md).
TEST_F(ConsumerCloneTest, ASessionsOnlyStateListsSessionsWithTheirBugreportFields) {
  ipc::Client* producer = Bind(host_->producer_host(), "ProducerPort");
  protos::gen::InitializeConnectionRequest init;
  init.set_producer_name("p");
  ASSERT_TRUE(CallAndWait(producer, "InitializeConnection", init.SerializeAsString()));
  protos::gen::RegisterDataSourceRequest reg;
  reg.mutable_data_source_descriptor()->set_name("ds");
  ASSERT_TRUE(CallAndWait(producer, "RegisterDataSource", reg.SerializeAsString()));

  ipc::Client* owner = NewConsumer();
  protos::gen::EnableTracingRequest enable;
  auto* config = enable.mutable_trace_config();
  config->add_buffers()->set_size_kb(64);
  config->add_data_sources()->mutable_config()->set_name("ds");
  config->set_unique_session_name("svc");
  config->set_bugreport_score(7);
  config->set_bugreport_filename("svc_report");
  owner->Invoke("EnableTracing", enable.SerializeAsString(), [](ipc::Client::Response) {});
  runner_.RunUntilIdle();

  ipc::Client* lister = NewConsumer();
  for (const bool sessions_only : {false, true}) {
    SCOPED_TRACE(sessions_only ? "sessions_only" : "everything");
    protos::gen::QueryServiceStateRequest req;
    if (sessions_only)
      req.set_sessions_only(true);
    std::vector<std::string> replies;
    ASSERT_TRUE(CallAndWait(lister, "QueryServiceState", req.SerializeAsString(), &replies));
    protos::gen::QueryServiceStateResponse resp;
    ASSERT_TRUE(resp.ParseFromString(replies.back()));
    const auto& state = resp.service_state();
    EXPECT_EQ(state.producers().size(), sessions_only ? 0u : 1u);
    EXPECT_EQ(state.data_sources().size(), sessions_only ? 0u : 1u);
    EXPECT_EQ(state.num_sessions(), 1);
    ASSERT_EQ(state.tracing_sessions().size(), 1u);
    const auto& listed = state.tracing_sessions()[0];
    EXPECT_EQ(listed.unique_session_name(), "svc");
    EXPECT_EQ(listed.num_data_sources(), 1u);
    EXPECT_EQ(listed.bugreport_score(), 7);
    EXPECT_EQ(listed.bugreport_filename(), "svc_report");
  }
}

TEST_F(ConsumerCloneTest, ARefusedCloneIsAnsweredWithItsReason) {
  ipc::Client* cloner = NewConsumer();
  protos::gen::CloneSessionRequest req;
  req.set_unique_session_name("nobody");
  const protos::gen::CloneSessionResponse resp = Clone(cloner, req);
  EXPECT_FALSE(resp.success());
  EXPECT_NE(resp.error().find("no session named \"nobody\""), std::string::npos) << resp.error();
}

}  // namespace
}  // namespace zt
