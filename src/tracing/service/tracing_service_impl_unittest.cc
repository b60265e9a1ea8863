// The service's control plane driven on its own task runner by fake
// producers (which write real packets through SharedMemoryArbiter +
// TraceWriter into the SMB the service gave them) and fake consumers
// (src/tracing/test): matching, registration, starts, stops, flushes,
// periods, refused configs, shared memory. What comes out of a session is
// in tracing_service_output_unittest.cc.

#include "src/tracing/service/tracing_service_impl.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/heap_shared_memory.h"
#include "src/tracing/service/tracing_service_test_fixture.h"
#include "src/tracing/test/null_producer.h"

namespace zt {
namespace test {
namespace {

INSTANTIATE_TEST_SUITE_P(Runners, TracingServiceTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& param) {
                           return param.param ? "VirtualTime" : "Thread";
                         });

TEST_P(TracingServiceTest, InstancesFollowNamesAndProducerFilters) {
  auto a = NewProducer("proc.a");
  auto b = NewProducer("proc.b");
  a->RegisterDataSource("ds1");
  b->RegisterDataSource("ds1");
  b->RegisterDataSource("ds2");
  auto c1 = NewConsumer();
  auto cfg = Config("ds1");
  cfg.mutable_data_sources()->at(0).add_producer_name_filter("proc.b");
  c1->EnableTracing(cfg);
  ASSERT_TRUE(b->WaitForStarts(1));  // Not deferred: started at once.
  EXPECT_TRUE(a->setups().empty());
  ASSERT_EQ(b->setups().size(), 1u);
  EXPECT_EQ(b->starts(), b->setups());
  EXPECT_EQ(b->config(b->setups()[0]).name(), "ds1");

  // A second session on the same data source gets its own instance and its
  // own buffer.
  auto c2 = NewConsumer();
  c2->EnableTracing(Config("ds1"));
  ASSERT_TRUE(b->WaitForSetups(2));
  ASSERT_TRUE(a->WaitForSetups(1));
  EXPECT_NE(b->config(b->setups()[0]).target_buffer(),
            b->config(b->setups()[1]).target_buffer());

  // A data source registered later joins the running sessions it matches:
  // both for a producer named proc.b, only the unfiltered one otherwise.
  auto late_b = NewProducer("proc.b");
  late_b->RegisterDataSource("ds1");
  ASSERT_TRUE(late_b->WaitForStarts(2));
  auto late_c = NewProducer("proc.c");
  late_c->RegisterDataSource("ds1");
  ASSERT_TRUE(late_c->WaitForStarts(1));
  runner_->RunAndWait([] {});  // Anything more would have come by now.
  ASSERT_EQ(late_c->setups().size(), 1u);
  EXPECT_EQ(late_c->config(late_c->setups()[0]).target_buffer(),
            b->config(b->setups()[1]).target_buffer());
}

// ChangeTraceConfig widens a running session's producer filter: the newly
// named producers get the data source, started at once; instances already
// running stay, even where the new filter leaves them out.
TEST_P(TracingServiceTest, ChangeTraceConfigStartsNewlyNamedProducers) {
  auto a = NewProducer("proc.a");
  auto b = NewProducer("proc.b");
  auto c = NewProducer("proc.c");
  for (auto* p : {a.get(), b.get(), c.get()})
    p->RegisterDataSource("ds1");
  auto consumer = NewConsumer();
  auto cfg = Config("ds1");
  cfg.mutable_data_sources()->at(0).add_producer_name_filter("proc.a");
  consumer->EnableTracing(cfg);
  ASSERT_TRUE(a->WaitForStarts(1));

  auto change = [&](const protos::gen::TraceConfig& next, std::string* error) {
    bool ok = false;
    consumer->Call([&](ConsumerEndpoint* e) { ok = service_->ChangeTraceConfig(e, next, error); });
    return ok;
  };
  auto next = Config("ds1");
  next.mutable_data_sources()->at(0).add_producer_name_filter("proc.b");
  std::string error;
  ASSERT_TRUE(change(next, &error)) << error;
  ASSERT_TRUE(b->WaitForStarts(1));
  runner_->RunAndWait([] {});  // Anything more would have come by now.
  EXPECT_EQ(a->setups().size(), 1u);  // Still running, set up once.
  EXPECT_TRUE(a->stops().empty());
  EXPECT_TRUE(c->setups().empty());
  EXPECT_EQ(b->config(b->setups()[0]).target_buffer(),
            a->config(a->setups()[0]).target_buffer());

  // A regex filter is refused with a reason, and nothing changes.
  auto regex = Config("ds1");
  regex.mutable_data_sources()->at(0).add_producer_name_regex_filter("proc\\..*");
  EXPECT_FALSE(change(regex, &error));
  EXPECT_NE(error.find("producer_name_regex_filter"), std::string::npos) << error;
  runner_->RunAndWait([] {});
  EXPECT_TRUE(c->setups().empty());

  // Once stopped, a change is refused.
  consumer->DisableTracing();
  consumer->WaitForDisabled();
  next.mutable_data_sources()->at(0).add_producer_name_filter("proc.c");
  EXPECT_FALSE(change(next, &error));
  EXPECT_NE(error.find("no longer running"), std::string::npos) << error;
  EXPECT_TRUE(c->setups().empty());
}

// EnableTracing refuses a regex producer filter instead of ignoring it
// (which would enable the data source on every producer).
TEST_P(TracingServiceTest, ARegexProducerFilterIsRefused) {
  auto a = NewProducer("proc.a");
  a->RegisterDataSource("ds1");
  auto consumer = NewConsumer();
  auto cfg = Config("ds1");
  cfg.mutable_data_sources()->at(0).add_producer_name_regex_filter("proc\\..*");
  consumer->EnableTracing(cfg);
  EXPECT_NE(consumer->WaitForDisabled().find("producer_name_regex_filter"), std::string::npos);
  runner_->RunAndWait([] {});
  EXPECT_TRUE(a->setups().empty());
}

// A client may call its endpoint from any callback, and no callback ever
// runs inside an endpoint call (calls to clients are posted).
class ReentrantProducer : public Producer {
 public:
  void OnConnect() override { Callback("connect"); }
  void OnDisconnect() override { Callback("disconnect"); }
  void OnTracingSetup() override { Callback("tracing-setup"); }
  void SetupDataSource(DataSourceInstanceId, const protos::gen::DataSourceConfig&) override {
    Callback("setup");
  }
  void StartDataSource(DataSourceInstanceId id,
                       const protos::gen::DataSourceConfig&) override {
    Callback("start");
    endpoint->NotifyDataSourceStarted(id);
  }
  void StopDataSource(DataSourceInstanceId id) override {
    Callback("stop");
    // Answers, then unregisters at once: the service must stay consistent.
    endpoint->NotifyDataSourceStopped(id);
    endpoint->UnregisterDataSource("ds");
  }
  void Flush(FlushRequestId id, const std::vector<DataSourceInstanceId>&) override {
    Callback("flush");
    endpoint->NotifyFlushComplete(id);
  }
  void ClearIncrementalState(const std::vector<DataSourceInstanceId>&) override {
    Callback("clear");
  }
  void Callback(const char* what) {
    EXPECT_FALSE(inside_endpoint_call) << what << " ran inside an endpoint call";
    seen.push_back(what);
  }
  std::unique_ptr<ProducerEndpoint> owned_endpoint;
  ProducerEndpoint* endpoint = nullptr;
  bool inside_endpoint_call = false;
  std::vector<std::string> seen;
};

TEST_P(TracingServiceTest, CallbacksAreNeverMadeInsideEndpointCalls) {
  ReentrantProducer producer;
  runner_->RunAndWait([&] {
    producer.inside_endpoint_call = true;
    TracingService::ProducerOptions opt;
    opt.name = "reentrant";
    producer.owned_endpoint = service_->ConnectProducer(&producer, opt);
    producer.endpoint = producer.owned_endpoint.get();
    protos::gen::DataSourceDescriptor d;
    d.set_name("ds");
    d.set_will_notify_on_start(true);
    d.set_will_notify_on_stop(true);
    producer.endpoint->RegisterDataSource(d);
    producer.inside_endpoint_call = false;
  });
  auto c = NewConsumer();
  // Every consumer call, with the flag set for exactly its duration.
  auto call = [&](std::function<void(ConsumerEndpoint*)> f) {
    c->Call([&](ConsumerEndpoint* e) {
      producer.inside_endpoint_call = true;
      f(e);
      producer.inside_endpoint_call = false;
    });
  };
  auto cfg = Config("ds");
  cfg.mutable_incremental_state_config()->set_clear_period_ms(10);
  call([&](ConsumerEndpoint* e) { e->EnableTracing(cfg); });
  ASSERT_TRUE(c->WaitForAllStarted());
  call([](ConsumerEndpoint* e) { e->Flush(5000, nullptr); });
  runner_->AdvanceTime(10);  // A clear period.
  ASSERT_TRUE(c->Flush(5000)) << "answered from inside the producer's Flush";
  call([](ConsumerEndpoint* e) { e->ReadBuffers(); });
  call([](ConsumerEndpoint* e) { e->GetTraceStats(); });
  call([](ConsumerEndpoint* e) { e->DisableTracing(); });
  EXPECT_EQ(c->WaitForDisabled(), "");
  runner_->RunAndWait([&] { producer.owned_endpoint.reset(); });
  for (const char* what : {"connect", "setup", "start", "flush", "stop"}) {
    EXPECT_NE(std::find(producer.seen.begin(), producer.seen.end(), what),
              producer.seen.end())
        << what << " never reached the producer";
  }
}

TEST_P(TracingServiceTest, AllStartedWaitsForAcknowledgedStarts) {
  FakeProducer::Options silent;
  silent.answer_starts = false;
  auto p = NewProducer("prod", silent);
  p->RegisterDataSource("ds", /*will_notify_on_start=*/true);
  auto quick = NewProducer("quick");
  quick->RegisterDataSource("ds");  // Does not acknowledge: started at once.
  auto c = NewConsumer();
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(p->WaitForStarts(1));
  ASSERT_TRUE(quick->WaitForStarts(1));
  runner_->RunAndWait([] {});
  EXPECT_FALSE(c->all_started());  // The acknowledgement is missing.
  const DataSourceInstanceId id = p->starts()[0];
  p->Call([id](ProducerEndpoint* e) { e->NotifyDataSourceStarted(id); });
  EXPECT_TRUE(c->WaitForAllStarted());
}

TEST_P(TracingServiceTest, AStartNeverAcknowledgedCountsAfterTheStartTimeout) {
  if (!runner_->virtual_time())
    GTEST_SKIP() << "5 s of real time; the virtual-time run covers it";
  FakeProducer::Options silent;
  silent.answer_starts = false;
  auto p = NewProducer("prod", silent);
  p->RegisterDataSource("ds", /*will_notify_on_start=*/true);
  auto c = NewConsumer();
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(p->WaitForStarts(1));
  runner_->AdvanceTime(TracingServiceImpl::kStartTimeoutMs - 1);
  EXPECT_FALSE(c->all_started());
  runner_->AdvanceTime(1);
  EXPECT_TRUE(c->WaitForAllStarted());
}

TEST_P(TracingServiceTest, StopWaitsForAcksThenTimesOut) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds", false, /*will_notify_on_stop=*/true);
  auto c = NewConsumer();
  auto cfg = Config("ds");
  cfg.set_data_source_stop_timeout_ms(100);
  c->Call([&](ConsumerEndpoint* e) {
    e->EnableTracing(cfg);
    e->DisableTracing();
  });
  ASSERT_TRUE(p->WaitForStops(1));
  if (runner_->virtual_time()) {  // Not before the ack or the timeout.
    runner_->AdvanceTime(99);
    EXPECT_FALSE(c->disabled());
  }
  runner_->AdvanceTime(1);
  EXPECT_EQ(c->WaitForDisabled(), "");

  // With the ack, at once.
  auto c2 = NewConsumer();
  cfg.set_data_source_stop_timeout_ms(60 * 1000);
  c2->Call([&](ConsumerEndpoint* e) {
    e->EnableTracing(cfg);
    e->DisableTracing();
  });
  ASSERT_TRUE(p->WaitForStops(2));
  EXPECT_FALSE(c2->disabled());
  const DataSourceInstanceId id = p->stops()[1];
  p->Call([id](ProducerEndpoint* e) { e->NotifyDataSourceStopped(id); });
  EXPECT_EQ(c2->WaitForDisabled(1000), "");
}

TEST_P(TracingServiceTest, FlushWithASilentProducerTimesOut) {
  FakeProducer::Options silent;
  silent.answer_flush = false;
  auto p = NewProducer("prod", silent);
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(p->WaitForStarts(1));
  EXPECT_FALSE(c->Flush(50));
  // The outcome is in the stats.
  c->DisableTracing();
  c->WaitForDisabled();
  protos::gen::TraceStats stats;
  ASSERT_TRUE(LastPacketStats(c->ReadAll(), &stats));
  EXPECT_EQ(stats.flushes_requested(), 1u);
  EXPECT_EQ(stats.flushes_succeeded(), 0u);
  EXPECT_EQ(stats.flushes_failed(), 1u);
}

TEST_P(TracingServiceTest, FlushAsksOnlyProducersThatAreStillThere) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto gone = NewProducer("gone");
  gone->RegisterDataSource("ds");
  auto c = NewConsumer();
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(gone->WaitForStarts(1));
  gone.reset();  // Its instance ends with it.
  EXPECT_TRUE(c->Flush(5000));
  EXPECT_EQ(c->GetStats().flushes_succeeded(), 1u);
}

TEST_P(TracingServiceTest, HostileCommitsAreDroppedAndCounted) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(p->WaitForStarts(1));
  CommitData bad;
  bad.chunks_to_move.push_back({9999, 0, 1});  // No such page.
  bad.chunks_to_move.push_back({0, 200, 1});   // No such chunk.
  CommitData::ChunkToPatch patch;
  patch.target_buffer = 777;  // Not this producer's buffer.
  patch.writer_id = 1;
  patch.patches.push_back(CommitData::Patch());
  bad.chunks_to_patch.push_back(patch);
  p->Call([&](ProducerEndpoint* e) { e->CommitData(bad); });
  c->DisableTracing();
  c->WaitForDisabled();
  protos::gen::TraceStats stats;
  ASSERT_TRUE(LastPacketStats(c->ReadAll(), &stats));
  EXPECT_EQ(stats.chunks_discarded(), 2u);
  EXPECT_EQ(stats.patches_discarded(), 1u);
}




// A producer may patch only its own chunks: one that names another
// producer's writer and chunk in a buffer both write changes nothing of it,
// and the failed patch is counted (issue 27: hostile peers).
TEST_P(TracingServiceTest, PatchesOfAnotherProducersChunkChangeNothing) {
  auto victim = NewProducer("victim");
  victim->RegisterDataSource("ds");
  auto hostile = NewProducer("hostile");
  hostile->RegisterDataSource("ds");
  auto c = NewConsumer();
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(victim->WaitForStarts(1));
  ASSERT_TRUE(hostile->WaitForStarts(1));
  const DataSourceInstanceId victim_instance = victim->setups()[0];
  TraceWriter* w = victim->Writer(victim_instance);
  for (uint64_t i = 0; i < 5; i++)
    w->NewTracePacket()->set_timestamp(1000 + i);
  w->Flush();
  // The victim's first writer and chunk, in the buffer both may write.
  CommitData forged;
  CommitData::ChunkToPatch patch;
  patch.target_buffer = victim->config(victim_instance).target_buffer();
  patch.writer_id = 1;
  patch.chunk_id = 0;
  CommitData::Patch bytes;
  bytes.offset = 0;
  bytes.data = {0xff, 0xff, 0xff, 0xff};
  patch.patches.push_back(bytes);
  forged.chunks_to_patch.push_back(patch);
  hostile->Call([&](ProducerEndpoint* e) { e->CommitData(forged); });
  c->DisableTracing();
  c->WaitForDisabled();
  const Packets packets = c->ReadAll();
  EXPECT_EQ(ProducerTimestamps(packets), (std::vector<uint64_t>{1000, 1001, 1002, 1003, 1004}));
  protos::gen::TraceStats stats;
  ASSERT_TRUE(LastPacketStats(packets, &stats));
  ASSERT_EQ(stats.buffer_stats().size(), 1u);
  EXPECT_EQ(stats.buffer_stats()[0].patches_failed(), 1u);
  EXPECT_EQ(stats.buffer_stats()[0].patches_succeeded(), 0u);
}

// A detached session is another user's to take only if it is theirs: a
// consumer of another uid (root included, as upstream's service decides)
// cannot attach to it; its own uid can.
TEST_P(TracingServiceTest, ADetachedSessionIsAttachedOnlyByItsUid) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto as_uid = [this](int32_t uid) {
    return std::make_unique<FakeConsumer>(
        runner_.get(), [this, uid](Consumer* c) { return service_->ConnectConsumer(c, uid); });
  };
  auto owner = as_uid(1000);
  owner->EnableTracing(Config("ds"));
  ASSERT_TRUE(p->WaitForStarts(1));
  bool detached = false;
  owner->Call([&](ConsumerEndpoint* e) { detached = service_->DetachConsumer(e, "key"); });
  ASSERT_TRUE(detached);
  for (int32_t other : {1001, 0}) {
    auto stranger = as_uid(other);
    bool attached = true;
    protos::gen::TraceConfig config;
    stranger->Call(
        [&](ConsumerEndpoint* e) { attached = service_->AttachConsumer(e, "key", &config); });
    EXPECT_FALSE(attached) << "uid " << other << " took uid 1000's session";
  }
  auto again = as_uid(1000);
  bool attached = false;
  protos::gen::TraceConfig config;
  again->Call([&](ConsumerEndpoint* e) { attached = service_->AttachConsumer(e, "key", &config); });
  EXPECT_TRUE(attached);
  EXPECT_EQ(config.data_sources_size(), 1);
  again->DisableTracing();
  again->WaitForDisabled();
}

TEST_P(TracingServiceTest, FreeBuffersWhileTracingStopsTheDataSourcesFirst) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(p->WaitForStarts(1));
  c->FreeBuffers();
  ASSERT_TRUE(p->WaitForStops(1));
  // The consumer may start again at once, while the old session ends.
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(p->WaitForStarts(2));
  c->DisableTracing();
  EXPECT_EQ(c->WaitForDisabled(), "");
  EXPECT_EQ(c->disabled_count(), 1);  // Nothing about the freed session.
}



TEST_P(TracingServiceTest, PeriodicFlushAndIncrementalStateClears) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  auto cfg = Config("ds");
  cfg.set_flush_period_ms(20);
  cfg.mutable_incremental_state_config()->set_clear_period_ms(20);
  c->EnableTracing(cfg);
  if (runner_->virtual_time()) {  // Exactly on the period, not before.
    runner_->AdvanceTime(19);
    EXPECT_EQ(p->flush_count(), 0u);
    runner_->AdvanceTime(41);
    EXPECT_EQ(p->flush_count(), 3u);
    EXPECT_EQ(p->clear_count(), 3u);
  }
  EXPECT_TRUE(p->WaitForFlushes(3)) << "the flush period never ran";
  EXPECT_TRUE(p->WaitForClears(3)) << "the clear period never ran";
  c->DisableTracing();
  c->WaitForDisabled();
}

TEST_P(TracingServiceTest, UnregisteringEndsTheWaitForItsStop) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds", false, /*will_notify_on_stop=*/true);
  auto c = NewConsumer();
  auto cfg = Config("ds");
  cfg.set_data_source_stop_timeout_ms(60 * 60 * 1000);
  c->Call([&](ConsumerEndpoint* e) {
    e->EnableTracing(cfg);
    e->DisableTracing();
  });
  ASSERT_TRUE(p->WaitForStops(1));
  EXPECT_FALSE(c->disabled());
  p->UnregisterDataSource("ds");
  EXPECT_EQ(c->WaitForDisabled(1000), "");
}

TEST_P(TracingServiceTest, ImpossibleBufferSizesAreRefused) {
  auto c = NewConsumer();
  c->EnableTracing(Config("ds", /*size_kb=*/0xFFFFFFFFu));  // ~4 TiB.
  EXPECT_NE(c->WaitForDisabled().find("cannot allocate"), std::string::npos);
}

TEST_P(TracingServiceTest, DurationStopsTheSessionByItself) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  auto cfg = Config("ds");
  cfg.set_duration_ms(30);
  c->EnableTracing(cfg);
  if (runner_->virtual_time()) {  // Not a millisecond early.
    runner_->AdvanceTime(29);
    EXPECT_FALSE(c->disabled());
  }
  runner_->AdvanceTime(1);
  EXPECT_EQ(c->WaitForDisabled(), "");  // No DisableTracing() call.
  EXPECT_TRUE(p->WaitForStops(1));
}


TEST_P(TracingServiceTest, BadConfigsAreRefusedWithAReason) {
  auto c = NewConsumer();
  c->EnableTracing(protos::gen::TraceConfig());  // No buffers.
  EXPECT_NE(c->WaitForDisabled().find("no buffers"), std::string::npos);
  auto c2 = NewConsumer();
  auto cfg = Config("ds");
  cfg.mutable_data_sources()->at(0).mutable_config()->set_target_buffer(3);
  c2->EnableTracing(cfg);
  EXPECT_NE(c2->WaitForDisabled().find("targets buffer 3"), std::string::npos);
}

TEST_P(TracingServiceTest, UniqueSessionNamesAreUnique) {
  auto c1 = NewConsumer();
  auto cfg = Config("ds");
  cfg.set_unique_session_name("nightly");
  c1->EnableTracing(cfg);
  auto c2 = NewConsumer();
  c2->EnableTracing(cfg);
  EXPECT_NE(c2->WaitForDisabled().find("\"nightly\" already exists"), std::string::npos);
  EXPECT_FALSE(c1->disabled());
}



// Hands out heap memory, or nothing once told to fail; remembers sizes.
class CountingFactory : public base::SharedMemory::Factory {
 public:
  std::unique_ptr<base::SharedMemory> CreateSharedMemory(size_t size) override {
    sizes->push_back(size);
    return *fail ? nullptr : base::HeapSharedMemory::Create(size);
  }
  std::shared_ptr<std::vector<size_t>> sizes = std::make_shared<std::vector<size_t>>();
  std::shared_ptr<bool> fail = std::make_shared<bool>(false);
};

TEST(TracingServiceSharedMemoryTest, ProducersGetTheirSmbFromTheFactoryOrAreRefused) {
  test::ThreadTestRunner runner;
  auto factory = std::make_unique<CountingFactory>();
  auto sizes = factory->sizes;
  auto fail = factory->fail;
  std::unique_ptr<TracingService> service;
  runner.RunAndWait(
      [&] { service = TracingService::Create(runner.task_runner(), std::move(factory)); });
  TracingService::ProducerOptions opt;
  opt.name = "p";
  opt.shm_size_hint_bytes = 64 * 1024;
  opt.shm_page_size_hint_bytes = 8192;
  NullProducer producer;
  runner.RunAndWait([&] {
    auto endpoint = service->ConnectProducer(&producer, opt);
    ASSERT_TRUE(endpoint);
    EXPECT_EQ(endpoint->shared_memory()->size(), 64u * 1024);
    EXPECT_EQ(endpoint->shared_memory_page_size(), 8192u);
    EXPECT_EQ(*sizes, std::vector<size_t>{64 * 1024});
    // Out of memory: the smallest SMB is tried, then the producer refused.
    *fail = true;
    EXPECT_FALSE(service->ConnectProducer(&producer, opt));
    EXPECT_EQ(*sizes, (std::vector<size_t>{64 * 1024, 64 * 1024, 2 * 8192}));
    // A provided SMB must be the size the hints give.
    opt.provided_shm = base::HeapSharedMemory::Create(32 * 1024);
    EXPECT_FALSE(service->ConnectProducer(&producer, opt));
    opt.provided_shm = base::HeapSharedMemory::Create(64 * 1024);
    auto provided = service->ConnectProducer(&producer, opt);
    ASSERT_TRUE(provided);
    EXPECT_EQ(provided->shared_memory(), opt.provided_shm.get());
    provided.reset();
    endpoint.reset();
    service.reset();
  });
}




// A stop by duration_ms flushes first and says how that went.
TEST_P(TracingServiceTest, DurationStopsRecordTheFinalFlushOutcome) {
  for (bool answer : {true, false}) {
    FakeProducer::Options options;
    options.answer_flush = answer;
    auto p = NewProducer("prod", options);
    p->RegisterDataSource("ds");
    auto c = NewConsumer();
    auto cfg = Config("ds");
    cfg.set_duration_ms(10);
    cfg.set_flush_timeout_ms(50);
    c->EnableTracing(cfg);
    ASSERT_TRUE(p->WaitForStarts(1));
    runner_->AdvanceTime(10);
    ASSERT_TRUE(p->WaitForFlushes(1));
    runner_->AdvanceTime(50);  // The flush's timeout, if unanswered.
    EXPECT_EQ(c->WaitForDisabled(), "");
    protos::gen::TraceStats stats;
    ASSERT_TRUE(LastPacketStats(c->ReadAll(), &stats));
    EXPECT_EQ(stats.final_flush_outcome(),
              answer ? protos::gen::TraceStats_FinalFlushOutcome_FINAL_FLUSH_SUCCEEDED
                     : protos::gen::TraceStats_FinalFlushOutcome_FINAL_FLUSH_FAILED);
  }
}


// A stop while flushes are pending ends them, unsuccessful, before the
// final stats: their answers come before OnTracingDisabled, their counts
// are in the stats, and nothing about them follows tracing_disabled.
TEST_P(TracingServiceTest, AStopEndsPendingFlushesFirst) {
  FakeProducer::Options silent;
  silent.answer_flush = false;
  auto p = NewProducer("prod", silent);
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  auto cfg = Config("ds");
  cfg.set_flush_timeout_ms(60 * 60 * 1000);
  c->EnableTracing(cfg);
  ASSERT_TRUE(p->WaitForStarts(1));
  bool answered = false, answer = true;
  c->Call([&](ConsumerEndpoint* e) {
    e->Flush(0, [&, c = c.get()](bool ok) {
      EXPECT_FALSE(c->disabled()) << "the flush's answer came after the stop's";
      answered = true;
      answer = ok;
    });
    e->DisableTracing();
  });
  EXPECT_EQ(c->WaitForDisabled(), "");
  runner_->RunAndWait([] {});
  EXPECT_TRUE(answered);
  EXPECT_FALSE(answer);
  const Packets packets = c->ReadAll();
  EXPECT_EQ(CheckServicePackets(packets), std::vector<std::string>{});
  protos::gen::TraceStats stats;
  ASSERT_TRUE(LastPacketStats(packets, &stats));
  EXPECT_EQ(stats.flushes_requested(), 1u);
  EXPECT_EQ(stats.flushes_failed(), 1u);
  EXPECT_EQ(stats.flushes_succeeded(), 0u);
}

// Flushing a session that is not running is answered "not flushed" at
// once and leaves no trace in it.
TEST_P(TracingServiceTest, FlushingASessionThatIsNotRunningIsRefused) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  auto cfg = Config("ds");
  cfg.set_deferred_start(true);
  c->EnableTracing(cfg);
  ASSERT_TRUE(p->WaitForSetups(1));
  EXPECT_FALSE(c->Flush(1000)) << "set up, not started";
  c->StartTracing();
  ASSERT_TRUE(p->WaitForStarts(1));
  c->DisableTracing();
  EXPECT_EQ(c->WaitForDisabled(), "");
  EXPECT_FALSE(c->Flush(1000)) << "stopped";
  EXPECT_EQ(p->flush_count(), 0u);
  const Packets packets = c->ReadAll();
  EXPECT_EQ(CheckServicePackets(packets), std::vector<std::string>{});
  EXPECT_EQ(CountServicePackets(packets).events[9], 0u) << "a flush_started";
  protos::gen::TraceStats stats;
  ASSERT_TRUE(LastPacketStats(packets, &stats));
  EXPECT_EQ(stats.flushes_requested(), 0u);
}

// A session whose consumer left ends by itself and is freed: its name can
// be taken again, and other sessions' stats no longer count it.
TEST_P(TracingServiceTest, ASessionWithoutConsumerIsFreedOnceStopped) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto cfg = Config("ds");
  cfg.set_unique_session_name("once");
  {
    auto gone = NewConsumer();
    gone->EnableTracing(cfg);
    ASSERT_TRUE(p->WaitForStarts(1));
  }  // Disconnected while tracing.
  ASSERT_TRUE(p->WaitForStops(1));
  runner_->RunAndWait([] {});  // The orphan is freed in a task of its own.
  auto c = NewConsumer();
  c->EnableTracing(cfg);
  ASSERT_TRUE(p->WaitForStarts(2)) << "the name is still taken";
  EXPECT_FALSE(c->disabled());
  EXPECT_EQ(c->GetStats().tracing_sessions(), 1u);
}

}  // namespace
}  // namespace test
}  // namespace zt
