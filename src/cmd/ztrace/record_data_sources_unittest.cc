#include "src/cmd/ztrace/record_data_sources.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "zt/common/tracing_service_state.gen.h"

namespace zt {
namespace ztrace {
namespace {

std::vector<uint8_t> State(const protos::gen::TracingServiceState& state) {
  const std::string bytes = state.SerializeAsString();
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

void AddDataSource(protos::gen::TracingServiceState* state, int32_t producer_id,
                   const std::string& name) {
  auto* source = state->add_data_sources();
  source->set_producer_id(producer_id);
  source->mutable_ds_descriptor()->set_name(name);
}

protos::gen::TraceConfig ConfigOf(const std::vector<std::string>& names) {
  protos::gen::TraceConfig config;
  for (const std::string& name : names)
    config.add_data_sources()->mutable_config()->set_name(name);
  return config;
}

TEST(RecordDataSourcesTest, NamesEachUnprovidedSourceOnceInConfigOrder) {
  protos::gen::TracingServiceState state;
  auto* app = state.add_producers();
  app->set_id(1);
  app->set_name("app");
  AddDataSource(&state, 1, "track_event");
  std::vector<std::string> missing;
  ASSERT_TRUE(FindDataSourcesWithoutProducer(
      ConfigOf({"linux.ftrace", "track_event", "linux.process_stats", "linux.ftrace"}),
      State(state), &missing));
  EXPECT_EQ(missing, (std::vector<std::string>{"linux.ftrace", "linux.process_stats"}));

  ASSERT_TRUE(FindDataSourcesWithoutProducer(ConfigOf({"track_event"}), State(state), &missing));
  EXPECT_TRUE(missing.empty());
}

TEST(RecordDataSourcesTest, AProducerNameFilterNeedsThatProducer) {
  protos::gen::TracingServiceState state;
  auto* app = state.add_producers();
  app->set_id(7);
  app->set_name("app");
  AddDataSource(&state, 7, "track_event");
  protos::gen::TraceConfig config = ConfigOf({"track_event"});
  config.mutable_data_sources()->at(0).add_producer_name_filter("browser");
  std::vector<std::string> missing;
  ASSERT_TRUE(FindDataSourcesWithoutProducer(config, State(state), &missing));
  EXPECT_EQ(missing, std::vector<std::string>{"track_event"});

  config.mutable_data_sources()->at(0).add_producer_name_filter("app");
  ASSERT_TRUE(FindDataSourcesWithoutProducer(config, State(state), &missing));
  EXPECT_TRUE(missing.empty());

  // A regex filter is not evaluated: never claimed missing because of it.
  protos::gen::TraceConfig regex = ConfigOf({"track_event"});
  regex.mutable_data_sources()->at(0).add_producer_name_filter("browser");
  regex.mutable_data_sources()->at(0).add_producer_name_regex_filter("br.*");
  ASSERT_TRUE(FindDataSourcesWithoutProducer(regex, State(state), &missing));
  EXPECT_TRUE(missing.empty());
}

TEST(RecordDataSourcesTest, UndecodableStateIsFalse) {
  std::vector<std::string> missing{"stale"};
  EXPECT_FALSE(FindDataSourcesWithoutProducer(ConfigOf({"a"}), {0xFF, 0xFF}, &missing));
  EXPECT_TRUE(missing.empty());
}

TEST(RecordDataSourcesTest, JoinNamesReadsAsEnglish) {
  EXPECT_EQ(JoinNames({}), "");
  EXPECT_EQ(JoinNames({"a"}), "a");
  EXPECT_EQ(JoinNames({"a", "b"}), "a and b");
  EXPECT_EQ(JoinNames({"a", "b", "c"}), "a, b and c");
}

}  // namespace
}  // namespace ztrace
}  // namespace zt
