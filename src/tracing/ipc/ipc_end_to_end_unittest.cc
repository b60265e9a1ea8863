// The IPC clients against the service's own ports (ServiceIpcHost) over
// real UNIX sockets, on a real thread (TSan in CI): the fakes of
// src/tracing/test drive a whole session through ProducerIpcClient and
// ConsumerIpcClient, with the producer's SMB its own or the service's.
// The default socket addresses at the end.

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/test/wait.h"
#include "src/tracing/ipc/consumer_ipc_client.h"
#include "src/tracing/ipc/default_socket.h"
#include "src/tracing/ipc/producer_ipc_client.h"
#include "src/tracing/ipc/service_ipc_host.h"
#include "src/tracing/test/fake_consumer.h"
#include "src/tracing/test/fake_producer.h"
#include "src/tracing/test/test_runner.h"
#include "src/tracing/test/trace_checks.h"
#include "zt/common/data_source_descriptor.gen.h"
#include "zt/config/trace_config.gen.h"
#include "zt/config/track_event/track_event_config.gen.h"
#include "zt/trace/test_event.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace zt {
namespace {

using protos::pbzero::TracePacket_Decoder;
using test::FakeConsumer;
using test::FakeProducer;
using test::Packets;

std::string UniqueAddress(const char* what) {
  static int counter = 0;
  return std::string("@zt-ipc-e2e-") + what + "-" + std::to_string(getpid()) + "-" +
         std::to_string(++counter);
}

protos::gen::TraceConfig Config(const std::string& ds, uint32_t size_kb = 4096) {
  protos::gen::TraceConfig cfg;
  auto* buf = cfg.add_buffers();
  buf->set_size_kb(size_kb);
  buf->set_fill_policy(protos::gen::TraceConfig_BufferConfig_FillPolicy_DISCARD);
  cfg.add_data_sources()->mutable_config()->set_name(ds);
  return cfg;
}

// The for_testing.str payloads of the producers' packets, in order.
std::vector<std::string> Payloads(const Packets& packets) {
  std::vector<std::string> out;
  for (const auto& p : packets) {
    TracePacket_Decoder d(p.data(), p.size());
    if (d.trusted_packet_sequence_id() == kServicePacketSequenceId || !d.has_for_testing())
      continue;
    protos::pbzero::TestEvent_Decoder event(d.for_testing());
    out.emplace_back(event.str());
  }
  return out;
}

// The parameter: whether the producer brings its own SMB.
class IpcEndToEndTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    producer_address_ = UniqueAddress("producer");
    consumer_address_ = UniqueAddress("consumer");
    runner_.RunAndWait([&] {
      host_ = ServiceIpcHost::Listen(producer_address_, consumer_address_,
                                     runner_.task_runner());
    });
    ASSERT_NE(host_, nullptr);
  }
  void TearDown() override {
    // The clients go before the service they talk to.
    producers_.clear();
    consumers_.clear();
    runner_.RunAndWait([&] { host_.reset(); });
  }

  FakeProducer* NewProducer(const std::string& name, FakeProducer::Options options = {},
                            bool commit_queue = true) {
    producers_.push_back(std::make_unique<FakeProducer>(
        &runner_,
        [this, name, commit_queue](Producer* p) {
          TracingService::ProducerOptions opt;
          opt.name = name;
          opt.commit_queue = commit_queue;
          opt.shm_size_hint_bytes = 64 * 1024;
          opt.shm_page_size_hint_bytes = 8 * 1024;
          return ProducerIpcClient::Connect(producer_address_, p, runner_.task_runner(), opt,
                                            /*provide_smb=*/GetParam());
        },
        options));
    return producers_.back().get();
  }
  FakeConsumer* NewConsumer() {
    consumers_.push_back(std::make_unique<FakeConsumer>(&runner_, [this](Consumer* c) {
      return ConsumerIpcClient::Connect(consumer_address_, c, runner_.task_runner());
    }));
    return consumers_.back().get();
  }
  ProducerPortStats PortStats() {
    ProducerPortStats stats;
    runner_.RunAndWait([&] { stats = host_->producer_port_stats(); });
    return stats;
  }
  // The SMB geometry the producer's endpoint has.
  std::pair<size_t, size_t> SmbOf(FakeProducer* p) {
    std::pair<size_t, size_t> out;
    p->Call([&](ProducerEndpoint* e) {
      if (e->shared_memory())
        out = {e->shared_memory()->size(), e->shared_memory_page_size()};
    });
    return out;
  }

  test::ThreadTestRunner runner_;
  std::string producer_address_;
  std::string consumer_address_;
  std::unique_ptr<ServiceIpcHost> host_;
  std::vector<std::unique_ptr<FakeProducer>> producers_;
  std::vector<std::unique_ptr<FakeConsumer>> consumers_;
};

INSTANTIATE_TEST_SUITE_P(Smb, IpcEndToEndTest, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? "ProducerProvided" : "ServiceProvided";
                         });

TEST_P(IpcEndToEndTest, ASessionsPacketsReachTheConsumerIntact) {
  FakeProducer* p = NewProducer("prod");
  p->RegisterDataSource("ds", /*will_notify_on_start=*/true);
  FakeConsumer* c = NewConsumer();
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(p->WaitForStarts(1));
  ASSERT_TRUE(c->WaitForAllStarted()) << "ObserveEvents never said all started";
  EXPECT_EQ(SmbOf(p), std::make_pair(size_t{64 * 1024}, size_t{8 * 1024}));
  EXPECT_EQ(p->config(p->setups()[0]).name(), "ds");

  // Packets of every size: inside a chunk, across chunks, and larger than
  // one ReadBuffers slice (which the consumer client must reassemble).
  std::vector<std::string> sent;
  TraceWriter* w = p->Writer(p->setups()[0]);
  for (size_t i = 0; i < 400; i++) {
    const size_t size = i % 50 == 7 ? 40000 + i : (i * 37) % 3000;
    std::string payload(size, static_cast<char>('a' + i % 26));
    payload += std::to_string(i);
    w->NewTracePacket()->set_for_testing()->set_str(payload);
    sent.push_back(payload);
  }
  w->Flush();
  // The consumer's flush reaches the producer and its answer comes back
  // as a commit naming it.
  ASSERT_TRUE(c->Flush(5000));
  EXPECT_EQ(p->flush_count(), 1u);
  Packets packets = c->ReadAll();
  EXPECT_GT(c->batches_in_last_read(), 1);
  EXPECT_EQ(Payloads(packets), sent);
  for (const auto& packet : packets) {
    TracePacket_Decoder d(packet.data(), packet.size());
    if (d.trusted_packet_sequence_id() != kServicePacketSequenceId) {
      EXPECT_EQ(d.trusted_pid(), getpid());  // The socket's peer, not a claim.
    }
  }

  c->DisableTracing();
  EXPECT_EQ(c->WaitForDisabled(), "");
  Packets rest = c->ReadAll();
  packets.insert(packets.end(), rest.begin(), rest.end());
  EXPECT_TRUE(Payloads(rest).empty());
  EXPECT_TRUE(test::CheckServicePackets(packets).empty());
  protos::gen::TraceStats stats = c->GetStats();
  EXPECT_EQ(stats.producers_connected(), 1u);
  EXPECT_EQ(stats.flushes_succeeded(), 1u);
  // Our producer and our service: every commit went through the ring.
  EXPECT_EQ(PortStats().queues_set_up, 1u);
  EXPECT_GT(PortStats().commits_by_queue, 0u);
}

// A config of megabytes (4,000 categories took 240 KB; here 100,000) goes
// from our consumer through our service to our producer: over upstream's
// 128 KiB frame, within ours. One over our limit fails EnableTracing with
// the sizes, and the consumer's connection goes on.
TEST_P(IpcEndToEndTest, AConfigOfMegabytesGoesThroughAndOneOverTheLimitFailsClearly) {
  FakeProducer* p = NewProducer("prod");
  p->RegisterDataSource("ds");
  FakeConsumer* c = NewConsumer();
  protos::gen::TraceConfig large = Config("ds");
  protos::gen::TrackEventConfig track_event;
  for (int i = 0; i < 100000; i++)
    track_event.add_enabled_categories("category.number." + std::to_string(i) + ".enabled");
  (*large.mutable_data_sources())[0].mutable_config()->set_track_event_config_raw(
      track_event.SerializeAsString());
  ASSERT_GT(large.SerializeAsString().size(), 3000000u);
  c->EnableTracing(large);
  ASSERT_TRUE(p->WaitForStarts(1));
  protos::gen::TrackEventConfig received;
  ASSERT_TRUE(received.ParseFromString(p->config(p->setups()[0]).track_event_config_raw()));
  EXPECT_EQ(received.enabled_categories_size(), 100000);
  c->DisableTracing();
  EXPECT_EQ(c->WaitForDisabled(), "");
  c->FreeBuffers();

  FakeConsumer* c2 = NewConsumer();
  protos::gen::TraceConfig over = Config("ds");
  (*over.mutable_data_sources())[0].mutable_config()->set_legacy_config(
      std::string(5 << 20, 'x'));
  c2->EnableTracing(over);
  const std::string error = c2->WaitForDisabled();
  EXPECT_NE(error.find("the trace config cannot be sent"), std::string::npos) << error;
  EXPECT_NE(error.find("4194304-byte frame limit"), std::string::npos) << error;
  // The same connection serves the next request.
  c2->EnableTracing(Config("ds"));
  ASSERT_TRUE(p->WaitForStarts(2));
}

// A descriptor too large for any frame (a program on the system backend
// aborted on one): that registration fails with a log line, the producer
// stays connected and its other data sources work.
TEST_P(IpcEndToEndTest, ADescriptorTooLargeToSendFailsAloneWithoutAborting) {
  FakeProducer* p = NewProducer("prod");
  p->Call([](ProducerEndpoint* e) {
    protos::gen::DataSourceDescriptor huge;
    huge.set_name("huge");
    huge.set_track_event_descriptor_raw(std::string(5 << 20, 'd'));
    e->RegisterDataSource(huge);
  });
  p->RegisterDataSource("ds");
  FakeConsumer* c = NewConsumer();
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(p->WaitForStarts(1));
  EXPECT_EQ(p->config(p->setups()[0]).name(), "ds");
}

TEST_P(IpcEndToEndTest, WithoutTheCommitQueueEveryCommitIsAMessage) {
  // As against upstream's traced, which lists no ZtSetupCommitQueue.
  FakeProducer* p = NewProducer("prod", {}, /*commit_queue=*/false);
  p->RegisterDataSource("ds");
  FakeConsumer* c = NewConsumer();
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(p->WaitForStarts(1));
  std::vector<std::string> sent;
  TraceWriter* w = p->Writer(p->setups()[0]);
  for (size_t i = 0; i < 200; i++) {
    sent.push_back(std::string(i * 97 % 5000, 'm') + std::to_string(i));
    w->NewTracePacket()->set_for_testing()->set_str(sent.back());
  }
  w->Flush();
  ASSERT_TRUE(c->Flush(5000));
  EXPECT_EQ(Payloads(c->ReadAll()), sent);
  const ProducerPortStats stats = PortStats();
  EXPECT_EQ(stats.queues_set_up, 0u);
  EXPECT_EQ(stats.commits_by_queue, 0u);
  EXPECT_GT(stats.commits_by_message, 0u);
}

TEST_P(IpcEndToEndTest, AFlushAProducerNeverAnswersFails) {
  FakeProducer::Options options;
  options.answer_flush = false;
  FakeProducer* p = NewProducer("silent", options);
  p->RegisterDataSource("ds");
  FakeConsumer* c = NewConsumer();
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(p->WaitForStarts(1));
  EXPECT_FALSE(c->Flush(200));
  EXPECT_TRUE(p->WaitForFlushes(1));
}

// A consumer's flush flags cross both sockets to the producer; a second
// consumer clones the running session and reads the snapshot.
TEST_P(IpcEndToEndTest, FlushFlagsReachTheProducerAndASessionIsCloned) {
  FakeProducer* p = NewProducer("prod");
  p->RegisterDataSource("ds");
  FakeConsumer* c = NewConsumer();
  protos::gen::TraceConfig cfg = Config("ds");
  cfg.set_unique_session_name("e2e");
  c->EnableTracing(cfg);
  ASSERT_TRUE(p->WaitForStarts(1));
  TraceWriter* w = p->Writer(p->setups()[0]);
  for (int i = 0; i < 3; i++)
    w->NewTracePacket()->set_for_testing()->set_str("p" + std::to_string(i));
  w->Flush();
  const uint64_t flags = flush_flags::kInitiatorConsumerSdk | flush_flags::kReasonExplicit;
  ASSERT_TRUE(c->Flush(5000, flags));
  ASSERT_EQ(p->flush_requests().size(), 1u);
  EXPECT_EQ(p->flush_requests()[0].first, flags);

  FakeConsumer* cloner = NewConsumer();
  ConsumerEndpoint::CloneSessionArgs args;
  args.unique_session_name = "e2e";
  const ConsumerEndpoint::CloneSessionResult result = cloner->CloneSession(
      args, [](ConsumerEndpoint* e, const ConsumerEndpoint::CloneSessionArgs& a,
               std::function<void(const ConsumerEndpoint::CloneSessionResult&)> done) {
        e->CloneSession(a, std::move(done));
      });
  ASSERT_TRUE(result.success) << result.error;
  ASSERT_EQ(p->flush_requests().size(), 2u);
  EXPECT_EQ(p->flush_requests()[1].first,
            flush_flags::kInitiatorTraced | flush_flags::kReasonTraceClone);
  const std::vector<std::string> sent = {"p0", "p1", "p2"};
  EXPECT_EQ(Payloads(cloner->ReadAll()), sent);
  EXPECT_EQ(Payloads(c->ReadAll()), sent) << "the source keeps its data";
}

TEST_P(IpcEndToEndTest, TwoProducersAndASecondSessionAfterTheFirstWasFreed) {
  FakeProducer* a = NewProducer("a");
  FakeProducer* b = NewProducer("b");
  a->RegisterDataSource("ds");
  b->RegisterDataSource("ds");
  FakeConsumer* c = NewConsumer();
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(a->WaitForStarts(1));
  ASSERT_TRUE(b->WaitForStarts(1));
  a->Writer(a->setups()[0])->NewTracePacket()->set_for_testing()->set_str("from a");
  b->Writer(b->setups()[0])->NewTracePacket()->set_for_testing()->set_str("from b");
  a->ResetWriters();
  b->ResetWriters();
  ASSERT_TRUE(c->Flush(5000));
  std::vector<std::string> got = Payloads(c->ReadAll());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{"from a", "from b"}));
  // Freed while running: nothing of it reaches the consumer any more; a
  // new session on the same connection works.
  c->FreeBuffers();
  ASSERT_TRUE(a->WaitForStops(1));
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(a->WaitForStarts(2));
  c->DisableTracing();
  EXPECT_EQ(c->WaitForDisabled(), "");
  EXPECT_EQ(c->disabled_count(), 1);
}

TEST_P(IpcEndToEndTest, TheServiceGoingAwayDisconnectsBothSidesWithoutHanging) {
  FakeProducer* p = NewProducer("prod");
  p->RegisterDataSource("ds");
  FakeConsumer* c = NewConsumer();
  c->EnableTracing(Config("ds"));
  ASSERT_TRUE(p->WaitForStarts(1));
  TraceWriter* w = p->Writer(p->setups()[0]);
  runner_.RunAndWait([&] { host_.reset(); });
  ASSERT_TRUE(base::WaitFor([&] { return p->disconnected(); })) << "no OnDisconnect";
  EXPECT_FALSE(c->WaitForDisabled().empty());  // The session ended with an error.
  // The producer's writer keeps writing into its SMB, mapped still; its
  // commits go nowhere.
  for (int i = 0; i < 100; i++)
    w->NewTracePacket()->set_for_testing()->set_str(std::string(500, 'x'));
  w->Flush();
  EXPECT_FALSE(c->Flush(100));
}

// --- Default sockets ---

TEST(DefaultSocketTest, TheEnvironmentWinsElseRunPerfettoIfUsableElseTmp) {
  setenv("PERFETTO_PRODUCER_SOCK_NAME", "@zt-producer", 1);
  setenv("PERFETTO_CONSUMER_SOCK_NAME", "/x/consumer.sock", 1);
  EXPECT_EQ(GetProducerSocket(), "@zt-producer");
  EXPECT_EQ(GetConsumerSocket(), "/x/consumer.sock");
  unsetenv("PERFETTO_PRODUCER_SOCK_NAME");
  setenv("PERFETTO_CONSUMER_SOCK_NAME", "", 1);  // Empty: as if unset.
  const bool run = access("/run/perfetto/", X_OK) == 0;
  EXPECT_EQ(GetProducerSocket(),
            run ? "/run/perfetto/traced-producer.sock" : "/tmp/perfetto-producer");
  EXPECT_EQ(GetConsumerSocket(),
            run ? "/run/perfetto/traced-consumer.sock" : "/tmp/perfetto-consumer");
  unsetenv("PERFETTO_CONSUMER_SOCK_NAME");
}

}  // namespace
}  // namespace zt
