// TracingService::ObserveEvents: which data source instance states a
// consumer is told about and when (upstream's rules: stopped when set up,
// started when started or when the start is acknowledged, stopped when
// stopped or when the stop is acknowledged, nothing in between), how they
// are batched, the current states reported when observing begins, and
// all_data_sources_started in the same batch as the starts that completed
// it. What the consumer port makes of them is
// src/tracing/ipc/consumer_observe_unittest.cc.

#include "src/tracing/service/tracing_service_impl.h"

#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "src/tracing/service/tracing_service_test_fixture.h"

namespace zt {
namespace test {
namespace {

using testing::ElementsAre;
using testing::IsEmpty;

constexpr uint32_t kInstances = ObservedEvents::kDataSourceInstances;
constexpr uint32_t kAllStarted = ObservedEvents::kAllDataSourcesStarted;

class TracingServiceObserveTest : public TracingServiceTest {
 protected:
  void Observe(FakeConsumer* c, uint32_t mask) {
    c->Call([&](ConsumerEndpoint* e) { service_->ObserveEvents(e, mask); });
  }
  // Lets whatever is queued on the service's runner run.
  void Settle() { runner_->RunAndWait([] {}); }
};

INSTANTIATE_TEST_SUITE_P(Runners, TracingServiceObserveTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& param) {
                           return param.param ? "VirtualTime" : "Thread";
                         });

TEST_P(TracingServiceObserveTest, AnInstanceIsReportedFromItsSetUpToItsStop) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");  // Acknowledges nothing: started and stopped at once.
  auto c = NewConsumer();
  Observe(c.get(), kInstances);
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(c->WaitForObservedChanges(2)) << "the set-up and the start were not reported";
  c->DisableTracing();
  ASSERT_TRUE(c->WaitForObservedChanges(3)) << "the stop was not reported";
  EXPECT_EQ(c->WaitForDisabled(), "");
  EXPECT_THAT(c->observed_changes(),
              ElementsAre("prod/ds: stopped", "prod/ds: started", "prod/ds: stopped"));
  // Set up and started by one EnableTracing: one batch, as upstream's.
  const std::vector<ObservedEvents> batches = c->observed_batches();
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0].instance_state_changes.size(), 2u);
  EXPECT_FALSE(batches[0].all_data_sources_started) << "not asked for";
  EXPECT_TRUE(c->all_started()) << "OnAllDataSourcesStarted comes whatever is observed";
}

TEST_P(TracingServiceObserveTest, AcknowledgedStartsAndStopsAreReportedWhenAcknowledged) {
  FakeProducer::Options silent;
  silent.answer_starts = false;
  auto p = NewProducer("prod", silent);
  p->RegisterDataSource("ds", /*will_notify_on_start=*/true, /*will_notify_on_stop=*/true);
  auto c = NewConsumer();
  Observe(c.get(), kInstances | kAllStarted);
  auto cfg = Config("ds");
  cfg.set_data_source_stop_timeout_ms(60 * 1000);
  c->EnableTracing(cfg);
  ASSERT_TRUE(p->WaitForStarts(1));
  Settle();
  EXPECT_THAT(c->observed_changes(), ElementsAre("prod/ds: stopped"))
      << "a start not acknowledged yet is not reported";

  const DataSourceInstanceId id = p->starts()[0];
  p->Call([id](ProducerEndpoint* e) { e->NotifyDataSourceStarted(id); });
  ASSERT_TRUE(c->WaitForObservedChanges(2)) << "the acknowledged start was not reported";
  const std::vector<ObservedEvents> batches = c->observed_batches();
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_FALSE(batches[0].all_data_sources_started);
  // The start that completed the session's start, and the news, together.
  EXPECT_EQ(batches[1].instance_state_changes.size(), 1u);
  EXPECT_TRUE(batches[1].all_data_sources_started);

  c->DisableTracing();
  ASSERT_TRUE(p->WaitForStops(1));
  Settle();
  EXPECT_EQ(c->observed_changes().size(), 2u) << "a stop not acknowledged yet is not reported";
  p->Call([id](ProducerEndpoint* e) { e->NotifyDataSourceStopped(id); });
  ASSERT_TRUE(c->WaitForObservedChanges(3)) << "the acknowledged stop was not reported";
  EXPECT_EQ(c->WaitForDisabled(), "");
  EXPECT_THAT(c->observed_changes(),
              ElementsAre("prod/ds: stopped", "prod/ds: started", "prod/ds: stopped"));
  int all_started = 0;
  for (const ObservedEvents& batch : c->observed_batches())
    all_started += batch.all_data_sources_started;
  EXPECT_EQ(all_started, 1) << "all_data_sources_started once per session";
}

TEST_P(TracingServiceObserveTest, StartAndStopTimeoutsAreReportedAsTheOutcome) {
  if (!runner_->virtual_time())
    GTEST_SKIP() << "seconds of real time; the virtual-time run covers it";
  FakeProducer::Options silent;
  silent.answer_starts = false;
  auto p = NewProducer("prod", silent);
  p->RegisterDataSource("ds", /*will_notify_on_start=*/true, /*will_notify_on_stop=*/true);
  auto c = NewConsumer();
  Observe(c.get(), kInstances);
  auto cfg = Config("ds");
  cfg.set_data_source_stop_timeout_ms(100);
  c->EnableTracing(cfg);
  ASSERT_TRUE(p->WaitForStarts(1));
  runner_->AdvanceTime(TracingServiceImpl::kStartTimeoutMs);
  ASSERT_TRUE(c->WaitForObservedChanges(2)) << "the start timeout was not reported";
  // FakeProducer answers stops only when the test says: this one never does.
  c->DisableTracing();
  runner_->AdvanceTime(99);
  EXPECT_EQ(c->observed_changes().size(), 2u);
  runner_->AdvanceTime(1);
  ASSERT_TRUE(c->WaitForObservedChanges(3)) << "the stop timeout was not reported";
  EXPECT_THAT(c->observed_changes(),
              ElementsAre("prod/ds: stopped", "prod/ds: started", "prod/ds: stopped"));
}

TEST_P(TracingServiceObserveTest, ObservingLateReportsWhereEachInstanceStands) {
  auto quick = NewProducer("quick");
  quick->RegisterDataSource("ds");
  FakeProducer::Options silent;
  silent.answer_starts = false;
  auto slow = NewProducer("slow", silent);
  slow->RegisterDataSource("ds", /*will_notify_on_start=*/true);
  auto gone = NewProducer("gone");
  gone->RegisterDataSource("ds");
  auto c = NewConsumer();
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(quick->WaitForStarts(1));
  ASSERT_TRUE(slow->WaitForStarts(1));
  ASSERT_TRUE(gone->WaitForStarts(1));
  gone->UnregisterDataSource("ds");
  Settle();
  EXPECT_THAT(c->observed_changes(), IsEmpty()) << "nothing before it is asked for";

  Observe(c.get(), kInstances | kAllStarted);
  ASSERT_TRUE(c->WaitForObservedChanges(1));
  Settle();
  // The instance still starting is not reported (upstream does the same),
  // nor is the one whose data source went away.
  EXPECT_THAT(c->observed_changes(), ElementsAre("quick/ds: started"));
  const DataSourceInstanceId id = slow->starts()[0];
  slow->Call([id](ProducerEndpoint* e) { e->NotifyDataSourceStarted(id); });
  ASSERT_TRUE(c->WaitForObservedChanges(2));
  EXPECT_THAT(c->observed_changes(), ElementsAre("quick/ds: started", "slow/ds: started"));
  EXPECT_TRUE(c->observed_batches().back().all_data_sources_started);

  // Asking again reports the states again, from the session as it is.
  Observe(c.get(), kInstances);
  ASSERT_TRUE(c->WaitForObservedChanges(4));
  const std::vector<std::string> changes = c->observed_changes();
  EXPECT_THAT(std::vector<std::string>(changes.begin() + 2, changes.end()),
              ElementsAre("quick/ds: started", "slow/ds: started"));
}

TEST_P(TracingServiceObserveTest, AllStartedIsObservedOnlyIfAskedAndOncePerConsumer) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto asks = NewConsumer();
  Observe(asks.get(), kAllStarted);
  asks->EnableTracing(Config("ds"));
  ASSERT_TRUE(asks->WaitForAllStarted());
  Settle();
  std::vector<ObservedEvents> batches = asks->observed_batches();
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_TRUE(batches[0].all_data_sources_started);
  EXPECT_THAT(batches[0].instance_state_changes, IsEmpty()) << "instances were not asked for";

  // Asked again: not said twice.
  Observe(asks.get(), kAllStarted | kInstances);
  Settle();
  batches = asks->observed_batches();
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_FALSE(batches[1].all_data_sources_started);

  // Asked after it happened (a client that sends ObserveEvents after
  // EnableTracing): said at once, once.
  auto late = NewConsumer();
  late->EnableTracing(Config("ds"));
  ASSERT_TRUE(late->WaitForAllStarted());
  Settle();
  Observe(late.get(), kAllStarted);
  Settle();
  Observe(late.get(), kAllStarted);
  Settle();
  batches = late->observed_batches();
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_TRUE(batches[0].all_data_sources_started);
}

TEST_P(TracingServiceObserveTest, AnInstanceWhoseDataSourceOrProducerGoesIsReportedStopped) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("one");
  p->RegisterDataSource("two");
  auto c = NewConsumer();
  Observe(c.get(), kInstances);
  auto cfg = Config("one");
  cfg.add_data_sources()->mutable_config()->set_name("two");
  c->EnableTracing(cfg);
  ASSERT_TRUE(c->WaitForObservedChanges(4));
  p->UnregisterDataSource("one");
  ASSERT_TRUE(c->WaitForObservedChanges(5));
  p.reset();  // The producer disconnects.
  ASSERT_TRUE(c->WaitForObservedChanges(6));
  const std::vector<std::string> changes = c->observed_changes();
  EXPECT_THAT(std::vector<std::string>(changes.begin() + 4, changes.end()),
              ElementsAre("prod/one: stopped", "prod/two: stopped"));
  // The session ends by itself later; nothing about those instances again.
  c->DisableTracing();
  EXPECT_EQ(c->WaitForDisabled(), "");
  EXPECT_EQ(c->observed_changes().size(), 6u);
}

TEST_P(TracingServiceObserveTest, AnEmptyMaskEndsReportsAndAFreedSessionSaysNothing) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  Observe(c.get(), kInstances);
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(c->WaitForObservedChanges(2));
  Observe(c.get(), 0);
  c->DisableTracing();
  EXPECT_EQ(c->WaitForDisabled(), "");
  EXPECT_EQ(c->observed_changes().size(), 2u) << "reported after the consumer stopped observing";

  // Freed while running: as for every other callback, nothing about the
  // session reaches the consumer after FreeBuffers.
  auto c2 = NewConsumer();
  Observe(c2.get(), kInstances);
  c2->EnableTracing(Config("ds"));
  ASSERT_TRUE(c2->WaitForObservedChanges(2));
  c2->FreeBuffers();
  ASSERT_TRUE(p->WaitForStops(2));
  Settle();
  EXPECT_EQ(c2->observed_changes().size(), 2u);
}

}  // namespace
}  // namespace test
}  // namespace zt
