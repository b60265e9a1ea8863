// The real schemas (protos/zt/**) through cppgen: random messages of the
// configs, IPC arguments and trace messages go libprotobuf -> gen ->
// libprotobuf unchanged, and every schema table matches the descriptors.

#include <cstdint>
#include <set>
#include <string>
#include <type_traits>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "zt/common/commit_data_request.gen.h"
#include "zt/common/data_source_descriptor.gen.h"
#include "zt/common/data_source_descriptor.pb.h"
#include "zt/config/data_source_config.gen.h"
#include "zt/config/data_source_config.pb.h"
#include "zt/config/ftrace/ftrace_config.gen.h"
#include "zt/config/ftrace/ftrace_config.pb.h"
#include "zt/config/track_event/track_event_config.pb.h"
#include "zt/common/commit_data_request.pb.h"
#include "zt/config/trace_config.gen.h"
#include "zt/config/trace_config.pb.h"
#include "zt/ipc/consumer_port.gen.h"
#include "zt/ipc/consumer_port.pb.h"
#include "zt/ipc/producer_port.gen.h"
#include "zt/ipc/producer_port.pb.h"
#include "zt/ipc/wire_protocol.gen.h"
#include "zt/ipc/wire_protocol.pb.h"
#include "zt/protozero/schema.h"
#include "zt/trace/trace_packet.gen.h"
#include "zt/trace/trace_packet.pb.h"

#include "src/protozero/plugin/test/cppgen_test_util.h"

namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::util::MessageDifferencer;
using zt::cppgen_test::FillRandom;
using zt::cppgen_test::NoUnknownFields;
using zt::cppgen_test::Random;
using zt::protozero::MessageSchema;

namespace gen = ::zt::protos::gen;
namespace lp = ::zt::protos;

template <typename Pair>
class CppgenProtosTest : public testing::Test {};

template <typename G, typename L>
struct Types {
  using Gen = G;
  using Lp = L;
};

using Messages = testing::Types<
    Types<gen::TraceConfig, lp::TraceConfig>,
    Types<gen::DataSourceConfig, lp::DataSourceConfig>,
    Types<gen::IPCFrame, lp::IPCFrame>,
    Types<gen::CommitDataRequest, lp::CommitDataRequest>,
    Types<gen::EnableTracingRequest, lp::EnableTracingRequest>,
    Types<gen::ReadBuffersResponse, lp::ReadBuffersResponse>,
    Types<gen::GetTraceStatsResponse, lp::GetTraceStatsResponse>,
    Types<gen::QueryServiceStateResponse, lp::QueryServiceStateResponse>,
    Types<gen::InitializeConnectionRequest, lp::InitializeConnectionRequest>,
    Types<gen::RegisterDataSourceRequest, lp::RegisterDataSourceRequest>,
    Types<gen::GetAsyncCommandResponse, lp::GetAsyncCommandResponse>,
    Types<gen::TracePacket, lp::TracePacket>>;
TYPED_TEST_SUITE(CppgenProtosTest, Messages, );

TYPED_TEST(CppgenProtosTest, RoundTripThroughLibprotobuf) {
  using Gen = typename TypeParam::Gen;
  using Lp = typename TypeParam::Lp;
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    Random rnd(seed);
    Lp original;
    FillRandom(&rnd, &original, 0, /*max_depth=*/3);
    const std::string bytes = original.SerializeAsString();
    Gen g;
    ASSERT_TRUE(g.ParseFromString(bytes)) << "seed " << seed;
    EXPECT_EQ(g.unknown_fields(), "") << "seed " << seed;
    Lp back;
    ASSERT_TRUE(back.ParseFromString(g.SerializeAsString())) << "seed " << seed;
    EXPECT_TRUE(MessageDifferencer::Equals(original, back)) << "seed " << seed;
    EXPECT_TRUE(NoUnknownFields(back)) << "seed " << seed;
    const Gen copy = g;
    EXPECT_EQ(copy, g);
  }
}

// Every field of every message reachable from the root, by full name.
void ExpectSchemaMatches(const MessageSchema* schema, const Descriptor* d,
                         std::set<std::string>* seen) {
  ASSERT_NE(schema, nullptr);
  ASSERT_EQ(std::string(schema->full_name), d->full_name());
  if (!seen->insert(d->full_name()).second)
    return;
  ASSERT_EQ(schema->num_fields, static_cast<size_t>(d->field_count()))
      << d->full_name();
  for (size_t i = 0; i < schema->num_fields; ++i) {
    const zt::protozero::FieldSchema& f = schema->fields[i];
    if (i > 0) {
      EXPECT_LT(schema->fields[i - 1].number, f.number);
    }
    const FieldDescriptor* fd = d->FindFieldByNumber(static_cast<int>(f.number));
    ASSERT_NE(fd, nullptr) << d->full_name() << "." << f.name;
    EXPECT_EQ(std::string(f.name), fd->name());
    EXPECT_EQ(static_cast<int>(f.type), static_cast<int>(fd->type()));
    EXPECT_EQ(f.repeated, fd->is_repeated());
    EXPECT_EQ(f.packed, fd->is_packed());
    if (fd->message_type()) {
      ASSERT_NE(f.message_type, nullptr);
      ExpectSchemaMatches(f.message_type(), fd->message_type(), seen);
    } else if (fd->enum_type()) {
      ASSERT_NE(f.enum_type, nullptr);
      EXPECT_EQ(std::string(f.enum_type()->full_name),
                fd->enum_type()->full_name());
      EXPECT_EQ(f.enum_type()->num_values,
                static_cast<size_t>(fd->enum_type()->value_count()));
    }
  }
}

TYPED_TEST(CppgenProtosTest, SchemaMatchesDescriptors) {
  std::set<std::string> seen;
  ExpectSchemaMatches(TypeParam::Gen::GetSchema(), TypeParam::Lp::descriptor(),
                      &seen);
  EXPECT_GE(seen.size(), 1u);
}

TEST(CppgenProtosTest, TraceConfigByHand) {
  gen::TraceConfig cfg;
  cfg.add_buffers()->set_size_kb(1024);
  auto* ds = cfg.add_data_sources()->mutable_config();
  ds->set_name("track_event");
  ds->set_target_buffer(0);
  cfg.set_duration_ms(5000);
  lp::TraceConfig ref;
  ASSERT_TRUE(ref.ParseFromString(cfg.SerializeAsString()));
  EXPECT_EQ(ref.buffers(0).size_kb(), 1024u);
  EXPECT_EQ(ref.data_sources(0).config().name(), "track_event");
  EXPECT_EQ(ref.duration_ms(), 5000u);
  EXPECT_STREQ(gen::TraceConfig::GetSchema()->full_name, "zt.protos.TraceConfig");
}

// [lazy = true] sub-configs are kept as their encoding: the value class
// needs no class of theirs, forwards them byte for byte, and the bytes are
// the sub-config libprotobuf wrote.
TEST(CppgenProtosTest, LazySubConfigsStayBytesAndRoundTripExactly) {
  lp::DataSourceConfig ref;
  ref.set_name("linux.ftrace");
  ref.mutable_ftrace_config()->add_ftrace_events("sched/sched_switch");
  ref.mutable_ftrace_config()->set_buffer_size_kb(4096);
  ref.mutable_track_event_config()->add_enabled_categories("net");
  ref.mutable_track_event_config()->add_disabled_categories("*");
  const std::string bytes = ref.SerializeAsString();

  gen::DataSourceConfig cfg;
  ASSERT_TRUE(cfg.ParseFromString(bytes));
  EXPECT_EQ(cfg.name(), "linux.ftrace");
  ASSERT_TRUE(cfg.has_ftrace_config());
  EXPECT_EQ(cfg.ftrace_config_raw(), ref.ftrace_config().SerializeAsString());
  ASSERT_TRUE(cfg.has_track_event_config());
  EXPECT_EQ(cfg.track_event_config_raw(),
            ref.track_event_config().SerializeAsString());
  EXPECT_FALSE(cfg.has_chrome_config());
  EXPECT_EQ(cfg.unknown_fields(), "");
  // Field order is the schema's, so the re-encoding is the same bytes.
  EXPECT_EQ(cfg.SerializeAsString(), bytes);

  // The raw bytes decode with the sub-config's own value class.
  gen::FtraceConfig ftrace;
  ASSERT_TRUE(ftrace.ParseFromString(cfg.ftrace_config_raw()));
  EXPECT_EQ(ftrace.buffer_size_kb(), 4096u);

  // Built by hand, then read by libprotobuf.
  gen::DataSourceConfig built;
  built.set_name("x");
  built.set_ftrace_config_raw(ref.ftrace_config().SerializeAsString());
  lp::DataSourceConfig parsed;
  ASSERT_TRUE(parsed.ParseFromString(built.SerializeAsString()));
  EXPECT_TRUE(MessageDifferencer::Equals(parsed.ftrace_config(), ref.ftrace_config()));
  built.clear_ftrace_config();
  EXPECT_FALSE(built.has_ftrace_config());
  EXPECT_EQ(built.SerializeAsString(), std::string("\x0a\x01x", 3));
}

// A singular message seen twice merges; for a lazy field that is the
// concatenation of the two encodings, which libprotobuf reads as the merge.
TEST(CppgenProtosTest, LazyFieldSeenTwiceMerges) {
  lp::DataSourceConfig first, second;
  first.mutable_ftrace_config()->add_ftrace_events("a");
  first.mutable_ftrace_config()->set_buffer_size_kb(1);
  second.mutable_ftrace_config()->add_ftrace_events("b");
  const std::string bytes = first.SerializeAsString() + second.SerializeAsString();
  gen::DataSourceConfig cfg;
  ASSERT_TRUE(cfg.ParseFromString(bytes));
  lp::DataSourceConfig expected;
  ASSERT_TRUE(expected.ParseFromString(bytes));
  lp::DataSourceConfig back;
  ASSERT_TRUE(back.ParseFromString(cfg.SerializeAsString()));
  EXPECT_TRUE(MessageDifferencer::Equals(back, expected));
  EXPECT_EQ(back.ftrace_config().ftrace_events_size(), 2);
  EXPECT_EQ(back.ftrace_config().buffer_size_kb(), 1u);
}

// TraceConfig's sub-configs the service does not act on are lazy; the
// nested messages only they name get no value class (less code in every
// program that links the SDK), and their bytes still round-trip exactly.
template <typename T, typename = void>
struct HasNestedTriggerConfig : std::false_type {};
template <typename T>
struct HasNestedTriggerConfig<T, std::void_t<typename T::TriggerConfig>>
    : std::true_type {};
template <typename T, typename = void>
struct HasNestedBufferConfig : std::false_type {};
template <typename T>
struct HasNestedBufferConfig<T, std::void_t<typename T::BufferConfig>>
    : std::true_type {};
static_assert(!HasNestedTriggerConfig<gen::TraceConfig>::value,
              "reached only through a lazy field: no value class");
static_assert(HasNestedBufferConfig<gen::TraceConfig>::value,
              "reached through an eager field: a value class");

TEST(CppgenProtosTest, TraceConfigKeepsUnreadSubConfigsAsBytes) {
  lp::TraceConfig ref;
  ref.add_buffers()->set_size_kb(1024);
  auto* trigger = ref.mutable_trigger_config()->add_triggers();
  trigger->set_name("boom");
  trigger->set_stop_delay_ms(5);
  ref.mutable_trigger_config()->set_trigger_timeout_ms(1000);
  ref.mutable_builtin_data_sources()->set_disable_clock_snapshotting(true);
  ref.set_duration_ms(10);
  const std::string bytes = ref.SerializeAsString();

  gen::TraceConfig cfg;
  ASSERT_TRUE(cfg.ParseFromString(bytes));
  ASSERT_EQ(cfg.buffers_size(), 1);
  EXPECT_EQ(cfg.buffers()[0].size_kb(), 1024u);
  ASSERT_TRUE(cfg.has_trigger_config());
  EXPECT_EQ(cfg.trigger_config_raw(), ref.trigger_config().SerializeAsString());
  // The service reads the builtin data sources: a class of its own.
  EXPECT_TRUE(cfg.builtin_data_sources().disable_clock_snapshotting());
  EXPECT_FALSE(cfg.has_trace_filter());
  EXPECT_EQ(cfg.unknown_fields(), "");
  // Eager sub-messages are re-encoded (with padded sizes); lazy ones are
  // their original bytes, so the message libprotobuf reads back is the same.
  const gen::TraceConfig copy = cfg;
  EXPECT_EQ(copy, cfg);
  lp::TraceConfig back;
  ASSERT_TRUE(back.ParseFromString(copy.SerializeAsString()));
  EXPECT_TRUE(MessageDifferencer::Equals(back, ref));
  const std::string encoded = copy.SerializeAsString();
  EXPECT_NE(encoded.find(ref.trigger_config().SerializeAsString()),
            std::string::npos);
}

TEST(CppgenProtosTest, LazyDescriptorsStayBytes) {
  lp::DataSourceDescriptor ref;
  ref.set_name("track_event");
  ref.mutable_track_event_descriptor()->add_available_categories()->set_name("net");
  gen::DataSourceDescriptor desc;
  ASSERT_TRUE(desc.ParseFromString(ref.SerializeAsString()));
  EXPECT_EQ(desc.track_event_descriptor_raw(),
            ref.track_event_descriptor().SerializeAsString());
  EXPECT_EQ(desc.SerializeAsString(), ref.SerializeAsString());
}

}  // namespace
