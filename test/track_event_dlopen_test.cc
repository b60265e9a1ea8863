// A library loaded with dlopen (track_event_dlopen_library.cc) registers
// its category slot at load: a session already running records its
// categories at once, and later sessions record them too. Each test runs in
// a process of its own under ctest, so the first one really loads the
// library mid-session. The tests emit the same macro forms as the library
// (a scoped slice and an instant with literal names): the library's SDK
// references resolve only against what the static link put into this
// executable.

#include <dlfcn.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "zt/config/data_source_config.gen.h"
#include "zt/config/trace_config.gen.h"
#include "zt/config/track_event/track_event_config.pb.h"
#include "zt/trace/trace.pb.h"
#include "zt/tracing/tracing.h"
#include "zt/tracing/track_event.h"

// The test's own slot; the library's is 7.
ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(2), zt::Category{"dlopen.test"});
ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(2));

namespace zt {
namespace {

using LibraryWork = void (*)();

bool LibraryLoaded() {
  return dlopen(ZT_DLOPEN_LIBRARY_PATH, RTLD_NOW | RTLD_NOLOAD) != nullptr;
}

// The library's ZtLateLibraryWork, loaded once per process (dlopen counts
// references). Never closed: the registry keeps pointers into the library.
LibraryWork LoadLibraryWork() {
  void* library = dlopen(ZT_DLOPEN_LIBRARY_PATH, RTLD_NOW | RTLD_LOCAL);
  // RTLD_NOW: a symbol the executable does not export fails here, named.
  EXPECT_NE(library, nullptr) << dlerror();
  if (!library)
    return nullptr;
  auto work =
      reinterpret_cast<LibraryWork>(dlsym(library, "ZtLateLibraryWork"));
  EXPECT_NE(work, nullptr) << dlerror();
  return work;
}

std::unique_ptr<TracingSession> StartSession() {
  protos::TrackEventConfig track_event;
  track_event.add_disabled_categories("*");
  track_event.add_enabled_categories("late");
  track_event.add_enabled_categories("dlopen.test");
  protos::gen::TraceConfig config;
  config.add_buffers()->set_size_kb(1024);
  auto* ds = config.add_data_sources()->mutable_config();
  ds->set_name("track_event");
  ds->set_track_event_config_raw(track_event.SerializeAsString());
  std::unique_ptr<TracingSession> session = Tracing::NewTrace();
  session->Setup(config);
  session->StartBlocking();
  return session;
}

// The track events of a trace as "TYPE category(iid) name", categories and
// names resolved through their sequence's interned data as readers do.
std::vector<std::string> ReadEvents(const std::vector<char>& bytes) {
  protos::Trace trace;
  EXPECT_TRUE(
      trace.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  struct Interned {
    std::map<uint64_t, std::string> categories, names;
  };
  std::map<uint32_t, Interned> sequences;
  std::vector<std::string> events;
  for (const protos::TracePacket& packet : trace.packet()) {
    Interned& interned = sequences[packet.trusted_packet_sequence_id()];
    if (packet.sequence_flags() &
        protos::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED)
      interned = Interned();
    for (const auto& category : packet.interned_data().event_categories())
      interned.categories[category.iid()] = category.name();
    for (const auto& name : packet.interned_data().event_names())
      interned.names[name.iid()] = name.name();
    if (!packet.has_track_event())
      continue;
    const protos::TrackEvent& event = packet.track_event();
    std::string line = protos::TrackEvent::Type_Name(event.type());
    for (uint64_t iid : event.category_iids()) {
      auto it = interned.categories.find(iid);
      line += " " + (it == interned.categories.end() ? "?" : it->second) + "(" +
              std::to_string(iid) + ")";
    }
    if (event.has_name_iid()) {
      auto it = interned.names.find(event.name_iid());
      line += " " + (it == interned.names.end() ? "?" : it->second);
    }
    events.push_back(line);
  }
  return events;
}

// Category iids are ids + 1 (docs/design/track_event.md); index 0 of a slot
// has the slot's number as its id.
const std::vector<std::string> kLibraryEvents = {
    "TYPE_SLICE_BEGIN late(8) LateWork", "TYPE_INSTANT late(8) LateInstant",
    "TYPE_SLICE_END"};

class TrackEventDlopenTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_TRUE(Tracing::Initialize(TracingInitArgs()));
  }
};

TEST_F(TrackEventDlopenTest, RunningSessionRecordsLibraryLoadedDuringIt) {
  if (LibraryLoaded())
    GTEST_SKIP() << "an earlier test of this process loaded the library";
  std::unique_ptr<TracingSession> session = StartSession();
  {
    TRACE_EVENT("dlopen.test", "BeforeLoad");
    TRACE_EVENT_INSTANT("dlopen.test", "Loading");
  }
  LibraryWork work = LoadLibraryWork();
  ASSERT_NE(work, nullptr);
  work();
  session->StopBlocking();
  std::vector<std::string> expected = {
      "TYPE_SLICE_BEGIN dlopen.test(3) BeforeLoad",
      "TYPE_INSTANT dlopen.test(3) Loading", "TYPE_SLICE_END"};
  expected.insert(expected.end(), kLibraryEvents.begin(), kLibraryEvents.end());
  EXPECT_EQ(ReadEvents(session->ReadTraceBlocking()), expected);
}

TEST_F(TrackEventDlopenTest, SessionStartedAfterLoadRecordsLibrary) {
  LibraryWork work = LoadLibraryWork();
  ASSERT_NE(work, nullptr);
  std::unique_ptr<TracingSession> session = StartSession();
  work();
  {
    TRACE_EVENT("dlopen.test", "AfterLoad");
    TRACE_EVENT_INSTANT("dlopen.test", "Loaded");
  }
  session->StopBlocking();
  std::vector<std::string> expected = kLibraryEvents;
  expected.insert(expected.end(),
                  {"TYPE_SLICE_BEGIN dlopen.test(3) AfterLoad",
                   "TYPE_INSTANT dlopen.test(3) Loaded", "TYPE_SLICE_END"});
  EXPECT_EQ(ReadEvents(session->ReadTraceBlocking()), expected);
}

}  // namespace
}  // namespace zt
