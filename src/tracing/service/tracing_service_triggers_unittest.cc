// Triggers (TraceConfig.trigger_config, TracingService::ActivateTriggers):
// a START_TRACING session waits for its trigger and ends empty without one;
// a STOP_TRACING session stops a trigger's delay after it; both record the
// trigger in the trace; skip_probability and max_per_24_h hold a trigger
// back; what upstream's service refuses (and what ours does not support) is
// refused with a reason.

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "src/tracing/service/tracing_service_test_fixture.h"
#include "zt/config/trace_config.pbzero.h"
#include "zt/protozero/scattered_heap_buffer.h"
#include "zt/trace/trigger.pbzero.h"

namespace zt {
namespace test {
namespace {

using protos::pbzero::TraceConfig_TriggerConfig;

class TracingServiceTriggersTest : public TracingServiceTest {
 protected:
  struct TriggerArgs {
    TriggerArgs(std::string n, uint32_t delay_ms = 0, uint32_t max = 0, double skip = 0)
        : name(std::move(n)), stop_delay_ms(delay_ms), max_per_24_h(max), skip_probability(skip) {}
    std::string name;
    uint32_t stop_delay_ms = 0;
    uint32_t max_per_24_h = 0;
    double skip_probability = 0;
    std::string producer_name_regex;
  };

  // Config("ds1") with a trigger_config of |mode| (1 START_TRACING, 2
  // STOP_TRACING), |timeout_ms| and |triggers|.
  static protos::gen::TraceConfig TriggerConfig(int mode, uint32_t timeout_ms,
                                                const std::vector<TriggerArgs>& triggers) {
    protozero::HeapBuffered<TraceConfig_TriggerConfig> trigger_config;
    trigger_config->set_trigger_mode(static_cast<protos::pbzero::TraceConfig_TriggerConfig_TriggerMode>(mode));
    trigger_config->set_trigger_timeout_ms(timeout_ms);
    for (const TriggerArgs& t : triggers) {
      auto* trigger = trigger_config->add_triggers();
      trigger->set_name(t.name);
      if (!t.producer_name_regex.empty())
        trigger->set_producer_name_regex(t.producer_name_regex);
      trigger->set_stop_delay_ms(t.stop_delay_ms);
      if (t.max_per_24_h)
        trigger->set_max_per_24_h(t.max_per_24_h);
      if (t.skip_probability > 0)
        trigger->set_skip_probability(t.skip_probability);
    }
    protos::gen::TraceConfig cfg = Config("ds1");
    cfg.set_trigger_config_raw(trigger_config.SerializeAsString());
    return cfg;
  }

  static void Activate(FakeProducer* producer, TracingService* service,
                       const std::vector<std::string>& names) {
    producer->Call([service, names](ProducerEndpoint* e) { service->ActivateTriggers(e, names); });
  }

  // The names of the trigger packets in |packets|, each checked for the
  // producer that sent it and the service's sequence.
  static std::vector<std::string> Triggers(const Packets& packets,
                                           const std::string& producer_name) {
    std::vector<std::string> names;
    for (const auto& p : packets) {
      TracePacket_Decoder d(p.data(), p.size());
      if (!d.has_trigger())
        continue;
      EXPECT_EQ(d.trusted_packet_sequence_id(), kServicePacketSequenceId);
      EXPECT_NE(d.timestamp(), 0u);
      protos::pbzero::Trigger_Decoder trigger(d.trigger());
      EXPECT_EQ(std::string(trigger.producer_name()), producer_name);
      EXPECT_EQ(trigger.trusted_producer_uid(), 1234);
      names.emplace_back(trigger.trigger_name());
    }
    return names;
  }
};

INSTANTIATE_TEST_SUITE_P(Runners, TracingServiceTriggersTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& param) {
                           return param.param ? "VirtualTime" : "Thread";
                         });

TEST_P(TracingServiceTriggersTest, AStartTriggerStartsTheSessionAndIsRecorded) {
  auto producer = NewProducer("proc.a");
  producer->RegisterDataSource("ds1");
  auto consumer = NewConsumer();
  consumer->EnableTracing(TriggerConfig(1, 60000, {{"go", /*stop_delay_ms=*/0}}));
  ASSERT_TRUE(producer->WaitForSetups(1));
  // Waiting: set up, not started, and nothing to read (not even the
  // service's packets).
  Activate(producer.get(), service_.get(), {"unrelated"});
  runner_->RunAndWait([] {});
  EXPECT_TRUE(producer->starts().empty());
  EXPECT_TRUE(consumer->ReadAll().empty());

  Activate(producer.get(), service_.get(), {"go"});
  ASSERT_TRUE(producer->WaitForStarts(1));
  ASSERT_TRUE(consumer->WaitForAllStarted());
  consumer->DisableTracing();
  consumer->WaitForDisabled();
  Packets packets = consumer->ReadAll();
  EXPECT_EQ(Triggers(packets, "proc.a"), std::vector<std::string>{"go"});
  protos::gen::TraceStats stats;
  EXPECT_TRUE(LastPacketStats(packets, &stats));
}

TEST_P(TracingServiceTriggersTest, AStartTriggerThatNeverComesEndsTheSessionEmpty) {
  auto producer = NewProducer("proc.a");
  producer->RegisterDataSource("ds1");
  auto consumer = NewConsumer();
  consumer->EnableTracing(TriggerConfig(1, /*timeout_ms=*/50, {{"go"}}));
  ASSERT_TRUE(producer->WaitForSetups(1));
  runner_->AdvanceTime(50);
  EXPECT_EQ(consumer->WaitForDisabled(), "");
  EXPECT_TRUE(producer->starts().empty());
  EXPECT_TRUE(consumer->ReadAll().empty());
}

TEST_P(TracingServiceTriggersTest, AStopTriggerStopsAfterItsDelay) {
  auto producer = NewProducer("proc.a");
  producer->RegisterDataSource("ds1");
  auto consumer = NewConsumer();
  consumer->EnableTracing(TriggerConfig(2, /*timeout_ms=*/600000, {{"stop", /*delay=*/20}}));
  ASSERT_TRUE(producer->WaitForStarts(1));  // Traces at once.
  EXPECT_TRUE(consumer->ReadAll().empty());  // But yields nothing yet.
  Activate(producer.get(), service_.get(), {"stop", "stop"});  // The second: recorded only.
  runner_->AdvanceTime(20);
  EXPECT_EQ(consumer->WaitForDisabled(), "");
  Packets packets = consumer->ReadAll();
  EXPECT_EQ(Triggers(packets, "proc.a"), (std::vector<std::string>{"stop", "stop"}));
  protos::gen::TraceStats stats;
  EXPECT_TRUE(LastPacketStats(packets, &stats));
}

TEST_P(TracingServiceTriggersTest, AStopTriggerThatNeverComesEndsTheSessionEmpty) {
  auto producer = NewProducer("proc.a");
  producer->RegisterDataSource("ds1");
  auto consumer = NewConsumer();
  consumer->EnableTracing(TriggerConfig(2, /*timeout_ms=*/50, {{"stop"}}));
  ASSERT_TRUE(producer->WaitForStarts(1));
  runner_->AdvanceTime(50);
  EXPECT_EQ(consumer->WaitForDisabled(), "");
  EXPECT_TRUE(consumer->ReadAll().empty());
}

TEST_P(TracingServiceTriggersTest, AStartTriggersStopDelayEndsTheTrace) {
  auto producer = NewProducer("proc.a");
  producer->RegisterDataSource("ds1");
  auto consumer = NewConsumer();
  consumer->EnableTracing(TriggerConfig(1, 600000, {{"go", /*stop_delay_ms=*/30}}));
  ASSERT_TRUE(producer->WaitForSetups(1));
  Activate(producer.get(), service_.get(), {"go"});
  ASSERT_TRUE(producer->WaitForStarts(1));
  runner_->AdvanceTime(30);
  EXPECT_EQ(consumer->WaitForDisabled(), "");
  EXPECT_EQ(Triggers(consumer->ReadAll(), "proc.a"), std::vector<std::string>{"go"});
}

// With deferred_start, a STOP_TRACING trigger before the start is recorded
// but stops nothing; the timeout still ends the session once started.
TEST_P(TracingServiceTriggersTest, AStopTriggerBeforeADeferredStartKeepsTheTimeout) {
  auto producer = NewProducer("proc.a");
  producer->RegisterDataSource("ds1");
  auto consumer = NewConsumer();
  auto cfg = TriggerConfig(2, /*timeout_ms=*/50, {{"stop", /*delay=*/0}});
  cfg.set_deferred_start(true);
  consumer->EnableTracing(cfg);
  ASSERT_TRUE(producer->WaitForSetups(1));
  Activate(producer.get(), service_.get(), {"stop"});
  runner_->RunAndWait([] {});
  EXPECT_FALSE(consumer->disabled());
  consumer->StartTracing();
  ASSERT_TRUE(producer->WaitForStarts(1));
  runner_->AdvanceTime(50);
  EXPECT_EQ(consumer->WaitForDisabled(), "");
  EXPECT_EQ(Triggers(consumer->ReadAll(), "proc.a"), std::vector<std::string>{"stop"});
}

// A mode with no trigger listed waits for nothing (upstream's rule): a
// STOP_TRACING session keeps its data at the timeout.
TEST_P(TracingServiceTriggersTest, AModeWithoutTriggersKeepsItsData) {
  auto producer = NewProducer("proc.a");
  producer->RegisterDataSource("ds1");
  auto consumer = NewConsumer();
  consumer->EnableTracing(TriggerConfig(2, /*timeout_ms=*/50, {}));
  ASSERT_TRUE(producer->WaitForStarts(1));
  runner_->AdvanceTime(50);
  EXPECT_EQ(consumer->WaitForDisabled(), "");
  protos::gen::TraceStats stats;
  EXPECT_TRUE(LastPacketStats(consumer->ReadAll(), &stats));
}

// A producer firing in a loop: every trigger acts, the records between two
// reads are bounded.
TEST_P(TracingServiceTriggersTest, TriggerRecordsAreBoundedBetweenReads) {
  auto producer = NewProducer("proc.a");
  producer->RegisterDataSource("ds1");
  auto consumer = NewConsumer();
  consumer->EnableTracing(TriggerConfig(2, 600000, {{"stop", /*delay=*/600000}}));
  ASSERT_TRUE(producer->WaitForStarts(1));
  Activate(producer.get(), service_.get(), std::vector<std::string>(1500, "stop"));
  consumer->DisableTracing();
  EXPECT_EQ(consumer->WaitForDisabled(), "");
  EXPECT_EQ(Triggers(consumer->ReadAll(), "proc.a").size(), 1024u);
}

TEST_P(TracingServiceTriggersTest, SkipProbabilityAndMaxPerDayHoldTriggersBack) {
  auto producer = NewProducer("proc.a");
  producer->RegisterDataSource("ds1");
  auto skipped = NewConsumer();
  skipped->EnableTracing(TriggerConfig(1, 60000, {{"go", 0, 0, /*skip_probability=*/1.0}}));
  auto once = NewConsumer();
  once->EnableTracing(TriggerConfig(2, 600000, {{"stop", 0, /*max_per_24_h=*/1}}));
  ASSERT_TRUE(producer->WaitForStarts(1));  // |once| runs; |skipped| waits.
  Activate(producer.get(), service_.get(), {"go", "stop"});
  EXPECT_EQ(once->WaitForDisabled(), "");
  runner_->RunAndWait([] {});
  EXPECT_EQ(producer->starts().size(), 1u);  // |skipped| never started.
  EXPECT_TRUE(skipped->ReadAll().empty());

  // The day's one "stop" is spent: a new session does not get it.
  auto again = NewConsumer();
  again->EnableTracing(TriggerConfig(2, 600000, {{"stop", 0, /*max_per_24_h=*/1}}));
  ASSERT_TRUE(producer->WaitForStarts(2));
  Activate(producer.get(), service_.get(), {"stop"});
  runner_->RunAndWait([] {});
  EXPECT_FALSE(again->disabled());
  EXPECT_TRUE(again->ReadAll().empty());
}

TEST_P(TracingServiceTriggersTest, BadTriggerConfigsAreRefusedWithAReason) {
  struct Case {
    protos::gen::TraceConfig config;
    std::string reason;
  };
  std::vector<Case> cases;
  cases.push_back({TriggerConfig(1, 0, {{"go"}}), "trigger_timeout_ms"});
  cases.push_back({TriggerConfig(1, 8 * 24 * 3600 * 1000u, {{"go"}}), "trigger_timeout_ms"});
  cases.push_back({TriggerConfig(1, 1000, {{"go"}, {"go"}}), "listed twice"});
  cases.push_back({TriggerConfig(4, 1000, {{"go"}}), "not supported"});
  TriggerArgs regex{"go"};
  regex.producer_name_regex = "proc.*";
  cases.push_back({TriggerConfig(1, 1000, {regex}), "producer_name_regex"});
  Case with_duration{TriggerConfig(1, 1000, {{"go"}}), "duration_ms"};
  with_duration.config.set_duration_ms(10);
  cases.push_back(with_duration);
  Case stop_into_file{TriggerConfig(2, 1000, {{"stop"}}), "write_into_file"};
  stop_into_file.config.set_write_into_file(true);
  cases.push_back(stop_into_file);
  for (const Case& c : cases) {
    auto consumer = NewConsumer();
    TempFile file;
    consumer->EnableTracing(c.config, c.config.write_into_file() ? file.release_write_fd() : -1);
    const std::string error = consumer->WaitForDisabled();
    EXPECT_NE(error.find(c.reason), std::string::npos) << "expected \"" << c.reason
                                                       << "\" in: " << error;
  }
}

}  // namespace
}  // namespace test
}  // namespace zt
