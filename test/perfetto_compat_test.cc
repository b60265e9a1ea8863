// A program instrumented in the style of Perfetto's track event guide, with
// only its include swapped for zerotrace's compatibility header. Records a
// trace and checks with libprotobuf what it holds.

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "zt/perfetto_compat.h"
#include "zt/trace/trace.pb.h"

// In a header and a .cc in Perfetto's guide; one file here.
PERFETTO_DEFINE_CATEGORIES(
    perfetto::Category("rendering")
        .SetDescription("Events from the graphics subsystem"),
    perfetto::Category("network")
        .SetDescription("Network upload and download statistics"),
    perfetto::Category("audio.debug").SetTags("debug"));
PERFETTO_TRACK_EVENT_STATIC_STORAGE();

namespace {

void DrawPlayer(int player_number) {
  TRACE_EVENT("rendering", "DrawPlayer", "player_number", player_number);
}

void DrawGame() {
  TRACE_EVENT_BEGIN("rendering", "DrawGame");
  DrawPlayer(1);
  DrawPlayer(2);
  TRACE_EVENT_END("rendering");
  TRACE_COUNTER("rendering", "Framerate", 120);
  TRACE_EVENT("network", "Upload", [&](perfetto::EventContext ctx) {
    auto* typed = ctx.event()->add_debug_annotations();
    typed->set_name("typed");
    typed->set_int_value(7);
    ctx.AddDebugAnnotation("bytes", 1024);
  });
  TRACE_EVENT("network", perfetto::DynamicString{std::string("dyn") + "amic"},
              "request", [](perfetto::TracedValue context) {
                auto dict = std::move(context).WriteDictionary();
                dict.Add("size", 3);
                auto array = dict.AddArray("parts");
                array.Append("head");
                array.AppendDictionary().Add("id", 9);
              });
  TRACE_EVENT_INSTANT("rendering", "Marker", perfetto::ProcessTrack::Current());
  TRACE_EVENT_INSTANT("audio.debug", "not recorded");
}

TEST(PerfettoCompatTest, GuideStyleProgramRecords) {
  perfetto::TracingInitArgs args;
  args.backends |= perfetto::kInProcessBackend;
  perfetto::Tracing::Initialize(args);
  perfetto::TrackEvent::Register();

  perfetto::TraceConfig cfg;
  cfg.add_buffers()->set_size_kb(1024);
  auto* ds_cfg = cfg.add_data_sources()->mutable_config();
  ds_cfg->set_name("track_event");
  perfetto::protos::gen::TrackEventConfig te_cfg;
  te_cfg.add_disabled_categories("*");
  te_cfg.add_enabled_categories("rendering");
  te_cfg.add_enabled_categories("network");
  ds_cfg->set_track_event_config_raw(te_cfg.SerializeAsString());

  std::unique_ptr<perfetto::TracingSession> tracing_session = perfetto::Tracing::NewTrace();
  tracing_session->Setup(cfg);
  tracing_session->StartBlocking();
  DrawGame();
  perfetto::TrackEvent::Flush();
  tracing_session->StopBlocking();
  std::vector<char> trace_data(tracing_session->ReadTraceBlocking());

  zt::protos::Trace trace;
  ASSERT_TRUE(trace.ParseFromArray(trace_data.data(), static_cast<int>(trace_data.size())));
  std::vector<std::string> names;
  size_t counters = 0, annotations = 0;
  std::string nested;
  for (const auto& packet : trace.packet()) {
    for (const auto& n : packet.interned_data().event_names())
      names.push_back(n.name());
    const auto& event = packet.track_event();
    if (event.has_name())
      names.push_back(event.name());
    counters += event.has_counter_value();
    annotations += static_cast<size_t>(event.debug_annotations_size());
    for (const auto& a : event.debug_annotations()) {
      if (a.dict_entries_size() == 2) {
        const auto& parts = a.dict_entries(1);
        nested = a.dict_entries(0).name() + "=" + std::to_string(a.dict_entries(0).int_value()) +
                 " " + parts.name() + "=" + parts.array_values(0).string_value() + "," +
                 parts.array_values(1).dict_entries(0).name() + ":" +
                 std::to_string(parts.array_values(1).dict_entries(0).int_value());
      }
    }
  }
  EXPECT_EQ(names, (std::vector<std::string>{"DrawGame", "DrawPlayer", "Upload",
                                             "dynamic", "Marker"}));
  EXPECT_EQ(counters, 1u);
  EXPECT_EQ(annotations, 5u);  // Two player_numbers, "typed", "bytes", "request".
  EXPECT_EQ(nested, "size=3 parts=head,id:9");
}

}  // namespace
