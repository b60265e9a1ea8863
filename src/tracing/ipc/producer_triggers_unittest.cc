// ActivateTriggers on the producer port, as an upstream SDK producer sends
// it (Tracing::ActivateTriggers): a consumer's START_TRACING session starts
// on it and its trace records which producer sent it. Real sockets
// (socketpairs) into ServiceIpcHost, on virtual time. What triggers do to a
// session is the service's tracing_service_triggers_unittest.cc.

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/ipc/client.h"
#include "src/tracing/ipc/port_test_fixture.h"
#include "zt/config/trace_config.pbzero.h"
#include "zt/ipc/consumer_port.gen.h"
#include "zt/ipc/producer_port.gen.h"
#include "zt/protozero/scattered_heap_buffer.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/trace/trigger.pbzero.h"

namespace zt {
namespace {

using ProducerTriggersTest = PortTest;

TEST_F(ProducerTriggersTest, AProducersTriggerStartsASessionAndIsRecorded) {
  ipc::Client* producer = Bind(host_->producer_host(), "ProducerPort");
  protos::gen::InitializeConnectionRequest init;
  init.set_producer_name("proc.trigger");
  ASSERT_TRUE(CallAndWait(producer, "InitializeConnection", init.SerializeAsString()));

  ipc::Client* consumer = Bind(host_->consumer_host(), "ConsumerPort");
  protozero::HeapBuffered<protos::pbzero::TraceConfig_TriggerConfig> triggers;
  triggers->set_trigger_mode(protos::pbzero::TraceConfig_TriggerConfig::START_TRACING);
  triggers->set_trigger_timeout_ms(60000);
  triggers->add_triggers()->set_name("go");
  protos::gen::EnableTracingRequest enable;
  enable.mutable_trace_config()->add_buffers()->set_size_kb(64);
  enable.mutable_trace_config()->set_trigger_config_raw(triggers.SerializeAsString());
  bool ended = false;
  consumer->Invoke("EnableTracing", enable.SerializeAsString(),
                   [&ended](ipc::Client::Response) { ended = true; });

  protos::gen::ActivateTriggersRequest activate;
  activate.add_trigger_names("unknown");
  activate.add_trigger_names("go");
  ASSERT_TRUE(CallAndWait(producer, "ActivateTriggers", activate.SerializeAsString()));
  ASSERT_TRUE(CallAndWait(consumer, "DisableTracing", ""));
  ASSERT_TRUE(runner_.RunUntil([&] { return ended; }));

  std::vector<std::string> replies;
  ASSERT_TRUE(CallAndWait(consumer, "ReadBuffers", "", &replies));
  std::string packet;
  std::vector<std::string> trigger_names;
  for (const std::string& reply : replies) {
    protos::gen::ReadBuffersResponse response;
    ASSERT_TRUE(response.ParseFromString(reply));
    for (const auto& slice : response.slices()) {
      packet += slice.data();
      if (!slice.last_slice_for_packet())
        continue;
      protos::pbzero::TracePacket_Decoder decoded(packet);
      if (decoded.has_trigger()) {
        protos::pbzero::Trigger_Decoder trigger(decoded.trigger());
        EXPECT_EQ(std::string(trigger.producer_name()), "proc.trigger");
        trigger_names.emplace_back(trigger.trigger_name());
      }
      packet.clear();
    }
  }
  EXPECT_EQ(trigger_names, std::vector<std::string>{"go"});
}

}  // namespace
}  // namespace zt
