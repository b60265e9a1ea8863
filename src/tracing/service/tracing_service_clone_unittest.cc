// What a newer consumer asks of a session beyond starting and reading it:
// CloneSession (a snapshot of a running session, read by another
// consumer), QueryServiceState's session list and producers' sdk_version,
// and flushes that carry their flags to producers and leave out data
// sources that declared no_flush.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "src/tracing/service/service_limits.h"
#include "src/tracing/service/tracing_service_impl.h"
#include "src/tracing/service/tracing_service_test_fixture.h"
#include "zt/common/tracing_service_state.gen.h"
#include "zt/trace/trace_uuid.pbzero.h"

namespace zt {
namespace test {
namespace {

using CloneArgs = ConsumerEndpoint::CloneSessionArgs;
using CloneResult = ConsumerEndpoint::CloneSessionResult;

class SessionFeaturesTest : public TracingServiceTest {
 protected:
  std::unique_ptr<FakeConsumer> NewConsumerOfUid(int32_t uid) {
    return std::make_unique<FakeConsumer>(
        runner_.get(), [this, uid](Consumer* c) { return service_->ConnectConsumer(c, uid); });
  }
  CloneResult Clone(FakeConsumer* c, CloneArgs args) {
    return c->CloneSession(args, [this](ConsumerEndpoint* e, const CloneArgs& a,
                                        std::function<void(const CloneResult&)> done) {
      service_->CloneSession(e, a, std::move(done));
    });
  }
  protos::gen::TracingServiceState State(int32_t uid) {
    std::vector<uint8_t> bytes;
    runner_->RunAndWait([&] { bytes = service_->QueryServiceState(uid); });
    protos::gen::TracingServiceState state;
    EXPECT_TRUE(state.ParseFromArray(bytes.data(), bytes.size()));
    return state;
  }
};

INSTANTIATE_TEST_SUITE_P(Runners, SessionFeaturesTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& param) {
                           return param.param ? "VirtualTime" : "Thread";
                         });

// The TraceUuid a read's packets carry (0, 0 if none).
std::pair<int64_t, int64_t> UuidOf(const Packets& packets) {
  for (const auto& p : packets) {
    TracePacket_Decoder d(p.data(), p.size());
    if (d.has_trace_uuid()) {
      protos::pbzero::TraceUuid_Decoder uuid(d.trace_uuid());
      return {uuid.msb(), uuid.lsb()};
    }
  }
  return {0, 0};
}

// The snapshot holds what producers held when it was asked for (the clone
// flushes first, telling them why), the source goes on unaffected, and the
// clone reads like a stopped session: its data, then its final stats.
TEST_P(SessionFeaturesTest, CloneSnapshotsARunningSessionAfterAFlush) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(p->WaitForStarts(1));
  TraceWriter* w = p->Writer(p->setups()[0]);
  for (uint64_t i = 1; i <= 100; i++)
    w->NewTracePacket()->set_timestamp(i);
  // Still in the writer's chunk, which the flush's scrape copies: every
  // finished packet, the last included (the writer counts a packet as soon
  // as the one before it ends).

  uint64_t session_id = 0;
  {
    const protos::gen::TracingServiceState state = State(0);
    ASSERT_EQ(state.tracing_sessions().size(), 1u);
    session_id = state.tracing_sessions()[0].id();
  }
  auto cloner = NewConsumer();
  CloneArgs args;
  args.session_id = session_id;
  const CloneResult result = Clone(cloner.get(), args);
  ASSERT_TRUE(result.success) << result.error;
  ASSERT_FALSE(p->flush_requests().empty());
  EXPECT_EQ(p->flush_requests().back().first,
            flush_flags::kInitiatorTraced | flush_flags::kReasonTraceClone);

  const Packets cloned = cloner->ReadAll();
  std::vector<uint64_t> expected;
  for (uint64_t i = 1; i <= 100; i++)
    expected.push_back(i);
  EXPECT_EQ(ProducerTimestamps(cloned), expected);
  protos::gen::TraceStats stats;
  ASSERT_TRUE(LastPacketStats(cloned, &stats)) << "a clone is read as a stopped session";
  EXPECT_EQ(stats.final_flush_outcome(),
            protos::gen::TraceStats_FinalFlushOutcome_FINAL_FLUSH_SUCCEEDED);
  ASSERT_EQ(stats.buffer_stats().size(), 1u);
  EXPECT_EQ(stats.buffer_stats()[0].chunks_written(), 1u);
  // The slot reserved for the next packet was not taken: not a loss.
  EXPECT_EQ(stats.buffer_stats()[0].trace_writer_packet_loss(), 0u);
  // Its own TraceUuid, the low half its source's.
  EXPECT_EQ(UuidOf(cloned), std::make_pair(result.uuid_msb, result.uuid_lsb));

  // The source runs on and still has everything: the copy consumed nothing.
  w->NewTracePacket()->set_timestamp(101);
  w->Flush();
  expected.push_back(101);
  EXPECT_FALSE(c->disabled());
  const Packets source = c->ReadAll();
  EXPECT_EQ(ProducerTimestamps(source), expected);
  const auto source_uuid = UuidOf(source);
  EXPECT_EQ(source_uuid.second, result.uuid_lsb);
  EXPECT_NE(source_uuid.first, result.uuid_msb);

  // The clone is listed as such, and freed with its consumer's FreeBuffers.
  const protos::gen::TracingServiceState state = State(0);
  ASSERT_EQ(state.tracing_sessions().size(), 2u);
  EXPECT_EQ(state.tracing_sessions()[1].state(), "CLONED_READ_ONLY");
  cloner->FreeBuffers();
  EXPECT_EQ(State(0).tracing_sessions().size(), 1u);
}

TEST_P(SessionFeaturesTest, CloneFindsByNameAndRefusesWithAReason) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto owner = NewConsumerOfUid(1000);
  protos::gen::TraceConfig cfg = Config("ds");
  cfg.set_unique_session_name("named");
  owner->EnableTracing(cfg);
  ASSERT_TRUE(p->WaitForStarts(1));
  TraceWriter* w = p->Writer(p->setups()[0]);
  w->NewTracePacket()->set_timestamp(7);
  w->NewTracePacket()->set_timestamp(8);  // Finished, not yet committed.

  auto other = NewConsumerOfUid(2000);
  CloneArgs by_name;
  by_name.unique_session_name = "named";
  CloneResult result = Clone(other.get(), by_name);
  EXPECT_FALSE(result.success);
  EXPECT_NE(result.error.find("belongs to another uid"), std::string::npos) << result.error;

  CloneArgs unknown;
  unknown.session_id = 999;
  result = Clone(other.get(), unknown);
  EXPECT_FALSE(result.success);
  EXPECT_NE(result.error.find("no session with id 999"), std::string::npos) << result.error;
  unknown = CloneArgs();
  unknown.unique_session_name = "nameless";
  EXPECT_NE(Clone(other.get(), unknown).error.find("no session named \"nameless\""),
            std::string::npos);

  // The same uid may; so may root. A clone is not found by the name.
  auto same = NewConsumerOfUid(1000);
  result = Clone(same.get(), by_name);
  ASSERT_TRUE(result.success) << result.error;
  EXPECT_EQ(ProducerTimestamps(same->ReadAll()), (std::vector<uint64_t>{7, 8}));
  auto root = NewConsumerOfUid(0);
  result = Clone(root.get(), by_name);
  ASSERT_TRUE(result.success) << result.error;
  // A consumer that has a session cannot clone into it.
  result = Clone(root.get(), by_name);
  EXPECT_FALSE(result.success);
  EXPECT_NE(result.error.find("already has a session"), std::string::npos) << result.error;

  // A session writing into a file is read from its file.
  TempFile file;
  auto writer = NewConsumerOfUid(1000);
  protos::gen::TraceConfig file_cfg = FileConfig("ds", 1000);
  file_cfg.set_unique_session_name("into-file");
  writer->EnableTracing(file_cfg, file.release_write_fd());
  ASSERT_TRUE(p->WaitForStarts(2));
  auto another = NewConsumerOfUid(1000);
  CloneArgs file_session;
  file_session.unique_session_name = "into-file";
  result = Clone(another.get(), file_session);
  EXPECT_FALSE(result.success);
  EXPECT_NE(result.error.find("writes into a file"), std::string::npos) << result.error;
}

// A clone is a session of the asking uid with buffers the size of the
// source's: the daemon's per-uid limits count it as EnableTracing does.
TEST_P(SessionFeaturesTest, ClonesCountAgainstTheUidsLimits) {
  ServiceLimits limits = ServiceLimits::Unlimited();
  limits.max_sessions_per_uid = 1;
  runner_->RunAndWait(
      [&] { static_cast<TracingServiceImpl*>(service_.get())->set_limits(limits); });
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto owner = NewConsumerOfUid(1000);
  protos::gen::TraceConfig cfg = Config("ds");
  cfg.set_unique_session_name("limited");
  owner->EnableTracing(cfg);
  ASSERT_TRUE(p->WaitForStarts(1));
  auto same = NewConsumerOfUid(1000);
  CloneArgs by_name;
  by_name.unique_session_name = "limited";
  const CloneResult result = Clone(same.get(), by_name);
  EXPECT_FALSE(result.success);
  EXPECT_NE(result.error.find("--max-sessions-per-uid"), std::string::npos) << result.error;
  // Another uid's own count is not touched by it: root may clone.
  auto root = NewConsumerOfUid(0);
  EXPECT_TRUE(Clone(root.get(), by_name).success);
}

// tracing_sessions lists what the asker may clone: its own uid's sessions,
// all for root; producers carry the sdk_version they said.
TEST_P(SessionFeaturesTest, ServiceStateListsTheSessionsTheAskerMaySee) {
  auto p = std::make_unique<FakeProducer>(runner_.get(), [this](Producer* producer) {
    TracingService::ProducerOptions opt;
    opt.name = "prod";
    opt.uid = 1234;
    opt.sdk_version = "zerotrace 9.9";
    return service_->ConnectProducer(producer, opt);
  });
  p->RegisterDataSource("ds");
  auto mine = NewConsumerOfUid(1000);
  protos::gen::TraceConfig cfg = Config("ds", 512);
  cfg.set_unique_session_name("mine");
  cfg.set_duration_ms(600000);
  mine->EnableTracing(cfg);
  auto theirs = NewConsumerOfUid(2000);
  theirs->EnableTracing(Config("ds"));
  ASSERT_TRUE(p->WaitForStarts(2));

  protos::gen::TracingServiceState state = State(1000);
  EXPECT_TRUE(state.supports_tracing_sessions());
  EXPECT_EQ(state.num_sessions(), 2);
  ASSERT_EQ(state.tracing_sessions().size(), 1u) << "uid 2000's session is not listed";
  const auto& s = state.tracing_sessions()[0];
  EXPECT_EQ(s.consumer_uid(), 1000);
  EXPECT_EQ(s.state(), "STARTED");
  EXPECT_TRUE(s.is_started());
  EXPECT_EQ(s.unique_session_name(), "mine");
  EXPECT_EQ(s.buffer_size_kb(), std::vector<uint32_t>{512});
  EXPECT_EQ(s.duration_ms(), 600000u);
  EXPECT_EQ(s.num_data_sources(), 1u);
  EXPECT_GT(s.start_realtime_ns(), 0);
  ASSERT_EQ(state.producers().size(), 1u);
  EXPECT_EQ(state.producers()[0].sdk_version(), "zerotrace 9.9");
  EXPECT_EQ(State(0).tracing_sessions().size(), 2u) << "root sees every session";
}

// However many sessions root may see, the state fits one reply frame: the
// sessions that would not fit are left out and counted.
TEST_P(SessionFeaturesTest, ServiceStateWithManySessionsStillFits) {
  constexpr int kSessions = 300;
  std::vector<std::unique_ptr<FakeConsumer>> consumers;
  for (int i = 0; i < kSessions; i++) {
    consumers.push_back(NewConsumerOfUid(1000 + i));
    protos::gen::TraceConfig cfg = Config("nothing", 4);
    cfg.set_unique_session_name(std::string(500, 'a') + std::to_string(i));
    consumers.back()->EnableTracing(cfg);
  }
  std::vector<uint8_t> bytes;
  runner_->RunAndWait([&] { bytes = service_->QueryServiceState(0); });
  EXPECT_LE(bytes.size(), 128u * 1024);
  protos::gen::TracingServiceState state;
  ASSERT_TRUE(state.ParseFromArray(bytes.data(), bytes.size()));
  EXPECT_EQ(state.num_sessions(), kSessions);
  EXPECT_GT(state.zt_sessions_omitted(), 0u);
  EXPECT_EQ(state.tracing_sessions().size() + state.zt_sessions_omitted(),
            static_cast<size_t>(kSessions));
}

// A consumer's flush flags reach producers as given; the service's own
// flushes say they are its own, and why.
TEST_P(SessionFeaturesTest, FlushFlagsReachProducers) {
  auto p = NewProducer("prod");
  p->RegisterDataSource("ds");
  auto c = NewConsumer();
  protos::gen::TraceConfig cfg = Config("ds");
  cfg.set_duration_ms(1000);
  c->EnableTracing(cfg);
  ASSERT_TRUE(p->WaitForStarts(1));
  const uint64_t consumer_flags =
      flush_flags::kInitiatorPerfettoCmd | flush_flags::kReasonExplicit;
  ASSERT_TRUE(c->Flush(5000, consumer_flags));
  ASSERT_EQ(p->flush_requests().size(), 1u);
  EXPECT_EQ(p->flush_requests()[0].first, consumer_flags);
  EXPECT_EQ(p->flush_requests()[0].second, p->setups());
  runner_->AdvanceTime(1000);  // The duration's stop flushes first.
  EXPECT_EQ(c->WaitForDisabled(), "");
  ASSERT_EQ(p->flush_requests().size(), 2u);
  EXPECT_EQ(p->flush_requests()[1].first,
            flush_flags::kInitiatorTraced | flush_flags::kReasonTraceStop);
}

// A data source that declared no_flush is never asked to flush; it counts
// as answered, so a flush does not wait for it.
TEST_P(SessionFeaturesTest, NoFlushDataSourcesAreNotAsked) {
  FakeProducer::Options silent;
  silent.answer_flush = false;  // Were it asked, the flush would time out.
  auto p = NewProducer("prod", silent);
  p->Call([](ProducerEndpoint* e) {
    protos::gen::DataSourceDescriptor d;
    d.set_name("quiet");
    d.set_no_flush(true);
    e->RegisterDataSource(d);
  });
  auto other = NewProducer("other");
  other->RegisterDataSource("quiet");
  other->RegisterDataSource("loud");
  auto c = NewConsumer();
  protos::gen::TraceConfig cfg = Config("quiet");
  cfg.add_data_sources()->mutable_config()->set_name("loud");
  c->EnableTracing(cfg);
  ASSERT_TRUE(p->WaitForStarts(1));
  ASSERT_TRUE(other->WaitForStarts(2));
  EXPECT_TRUE(c->Flush(5000)) << "waited for a no_flush data source";
  EXPECT_TRUE(p->flush_requests().empty());
  // The other producer's "quiet" has no no_flush: both of its are asked.
  ASSERT_EQ(other->flush_requests().size(), 1u);
  EXPECT_EQ(other->flush_requests()[0].second.size(), 2u);
}

}  // namespace
}  // namespace test
}  // namespace zt
