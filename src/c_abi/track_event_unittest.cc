// Track events through the C ABI, in-process: categories turned on and off
// by session configs, and what the high- and low-level paths write, read
// back with the processor (the tables Perfetto's tools show). The macros
// of zt/c/track_event.h are used from C++ here (the C side: the examples
// and c_abi_headers_check.c).

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "src/c_abi/track_event_internal.h"
#include "src/tracing/sdk/track_event_clock.h"
#include "zt/c/abi/producer.h"
#include "zt/c/abi/tracing_session.h"
#include "zt/c/abi/track_event_ll.h"
#include "zt/c/data_source.h"
#include "zt/c/track_event.h"
#include "zt/config/trace_config.gen.h"
#include "zt/config/track_event/track_event_config.gen.h"
#include "zt/processor/trace_processor.h"
#include "zt/protozero/proto_decoder.h"

namespace {

const char* kSlowTags[] = {"slow"};
ZtCCategory g_gfx = ZT_C_CATEGORY_INIT("gfx", "Frames");
ZtCCategory g_net = ZT_C_CATEGORY_INIT_TAGS("net", "Requests", kSlowTags);
ZtCCategory g_xy = ZT_C_CATEGORY_INIT("xy", "Matched by name before patterns");
ZtCCategory g_xz = ZT_C_CATEGORY_INIT("xz", "Matched by a pattern");
ZtCCategory g_off = ZT_C_CATEGORY_INIT("off", "Named by nothing");
ZtCCategory* const g_categories[] = {&g_gfx, &g_net, &g_xy, &g_xz, &g_off};

struct TrackEventConfigSpec {
  std::vector<std::string> enabled_categories, disabled_categories, enabled_tags, disabled_tags;
  uint32_t clear_period_ms = 0;
  uint32_t buffer_kb = 4096;
};

std::string ConfigBytes(const TrackEventConfigSpec& spec) {
  zt::protos::gen::TraceConfig config;
  config.add_buffers()->set_size_kb(spec.buffer_kb);
  auto* ds = config.add_data_sources()->mutable_config();
  ds->set_name("track_event");
  zt::protos::gen::TrackEventConfig te;
  for (const auto& c : spec.enabled_categories)
    te.add_enabled_categories(c);
  for (const auto& c : spec.disabled_categories)
    te.add_disabled_categories(c);
  for (const auto& t : spec.enabled_tags)
    te.add_enabled_tags(t);
  for (const auto& t : spec.disabled_tags)
    te.add_disabled_tags(t);
  ds->set_track_event_config_raw(te.SerializeAsString());
  if (spec.clear_period_ms)
    config.mutable_incremental_state_config()->set_clear_period_ms(spec.clear_period_ms);
  return config.SerializeAsString();
}

void Append(PerfettoTracingSessionImpl*, const void* data, size_t size, bool, void* arg) {
  static_cast<std::string*>(arg)->append(static_cast<const char*>(data), size);
}

class Session {
 public:
  explicit Session(const TrackEventConfigSpec& spec) {
    impl_ = PerfettoTracingSessionInProcessCreate();
    std::string config = ConfigBytes(spec);
    PerfettoTracingSessionSetup(impl_, &config[0], config.size());
    PerfettoTracingSessionStartBlocking(impl_);
  }
  ~Session() {
    if (impl_)
      PerfettoTracingSessionDestroy(impl_);
  }
  // Stops, reads the trace and loads it into a processor.
  std::unique_ptr<zt::processor::TraceProcessor> StopAndLoad() {
    PerfettoTracingSessionStopBlocking(impl_);
    std::string& trace = trace_;
    PerfettoTracingSessionReadTraceBlocking(impl_, Append, &trace);
    PerfettoTracingSessionDestroy(impl_);
    impl_ = nullptr;
    char path[] = "/tmp/zt_c_track_event_XXXXXX";
    const int fd = mkstemp(path);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(write(fd, trace.data(), trace.size()), static_cast<ssize_t>(trace.size()));
    close(fd);
    std::string error;
    auto tp = zt::processor::TraceProcessor::Open(path, {}, &error);
    if (getenv("ZT_KEEP_TRACE"))  // To look at a failure's trace with ztrace.
      fprintf(stderr, "trace kept in %s\n", path);
    else
      unlink(path);
    EXPECT_TRUE(tp) << error;
    return tp;
  }
  // The trace's bytes, after StopAndLoad().
  const std::string& bytes() const { return trace_; }

 private:
  PerfettoTracingSessionImpl* impl_;
  std::string trace_;
};

// The packets of |trace| (its field 1), each as its fields by number (the
// last value of each; repeated fields are not needed here).
std::vector<std::map<uint32_t, std::string>> Packets(const std::string& trace) {
  std::vector<std::map<uint32_t, std::string>> packets;
  zt::protozero::ProtoDecoder outer(trace.data(), trace.size());
  for (auto f = outer.ReadField(); f.valid(); f = outer.ReadField()) {
    if (f.id() != 1)
      continue;
    std::map<uint32_t, std::string> fields;
    zt::protozero::ProtoDecoder packet(f.data(), f.size());
    for (auto g = packet.ReadField(); g.valid(); g = packet.ReadField())
      fields[g.id()] = std::string(reinterpret_cast<const char*>(g.data()), g.size());
    packets.push_back(std::move(fields));
  }
  return packets;
}

// One query's rows, each as its cells joined by '|', rows by ' '.
std::string Rows(zt::processor::TraceProcessor* tp, const std::string& sql) {
  zt::processor::QueryResult result = tp->Query(sql);
  if (!result.ok())
    return "error: " + result.error;
  std::string out;
  for (const auto& row : result.rows) {
    if (!out.empty())
      out += ' ';
    for (size_t i = 0; i < row.size(); i++)
      out += (i ? "|" : "") + row[i].ToString();
  }
  return out;
}

bool On(const ZtCCategory& cat) { return ZT_C_ATOMIC_LOAD_RELAXED(cat.enabled); }

struct CallbackLog {
  std::atomic<int> created{0}, destroyed{0}, global_changes{0};
};
CallbackLog g_gfx_log;
void GfxCallback(PerfettoTeCategoryImpl*, PerfettoDsInstanceIndex, bool created,
                 bool global_state_changed, void* arg) {
  auto* log = static_cast<CallbackLog*>(arg);
  (created ? log->created : log->destroyed)++;
  if (global_state_changed)
    log->global_changes++;
  // Traced from the callback (the SDK's thread), as upstream's example does.
  if (created)
    ZT_C_INSTANT(g_gfx, "from the callback");
}

class CTrackEventTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    PerfettoProducerBackendInitArgs* args = PerfettoProducerBackendInitArgsCreate();
    PerfettoProducerInProcessInit(args);
    PerfettoProducerBackendInitArgsDestroy(args);
    ZtCTrackEventInit(g_categories, sizeof(g_categories) / sizeof(g_categories[0]));
  }
};

TEST_F(CTrackEventTest, CategoriesFollowEachSessionsConfig) {
  EXPECT_NE(g_gfx.iid, 0u);
  EXPECT_NE(g_gfx.iid, g_net.iid);
  EXPECT_FALSE(On(g_gfx));
  PerfettoTeCategoryImplSetCallback(g_gfx.impl, GfxCallback, &g_gfx_log);
  {
    TrackEventConfigSpec spec;
    spec.enabled_categories = {"gfx", "x*"};
    spec.disabled_categories = {"xy"};
    spec.enabled_tags = {"slow"};
    Session session(spec);
    EXPECT_TRUE(On(g_gfx));
    EXPECT_TRUE(On(g_net)) << "by its tag";
    EXPECT_FALSE(On(g_xy)) << "a name decides before a pattern";
    EXPECT_TRUE(On(g_xz));
    EXPECT_FALSE(On(g_off)) << "named by nothing: off, the C ABI's rule";
    EXPECT_EQ(g_gfx_log.created.load(), 1);
    EXPECT_EQ(g_gfx_log.global_changes.load(), 1);

    // A category registered while the session runs is on at once if the
    // config names it.
    static ZtCCategory late = ZT_C_CATEGORY_INIT("xlate", "Registered late");
    static ZtCCategory* const late_list[] = {&late};
    ZtCCategoriesRegister(late_list, 1);
    EXPECT_TRUE(On(late));
    ZtCCategoriesUnregister(late_list, 1);
    EXPECT_FALSE(On(late));
    ZT_C_INSTANT(late, "never written");  // Off: the check only.

    auto tp = session.StopAndLoad();
    ASSERT_TRUE(tp);
    EXPECT_EQ(Rows(tp.get(), "SELECT name, category FROM slice"), "from the callback|gfx");
  }
  EXPECT_FALSE(On(g_gfx));
  EXPECT_FALSE(On(g_net));
  EXPECT_EQ(g_gfx_log.destroyed.load(), 1);
  EXPECT_EQ(g_gfx_log.global_changes.load(), 2) << "the first on, the last off";
  PerfettoTeCategoryImplSetCallback(g_gfx.impl, nullptr, nullptr);
}

// A callback that traces with a dynamic category while its session starts:
// the dynamic category's lookup must not wait on the lock the callbacks
// run under (it did: the session never started).
ZtCCategory g_callback_dyn = ZT_C_CATEGORY_INIT("cbdyn", "Traced from its callback");
void DynamicFromCallback(PerfettoTeCategoryImpl*, PerfettoDsInstanceIndex, bool created, bool,
                         void*) {
  if (created)
    ZT_C_INSTANT(ZT_C_ANY_CATEGORY, "dynamic from the callback", ZT_C_DYNAMIC_CATEGORY("cbdyn"));
}

// `ztrace record` without categories asks for every category not tagged
// slow or debug in so many words, since the C ABI turns on only what a
// config names: an empty config leaves every category off.
TEST_F(CTrackEventTest, EveryCategoryButSlowOnesWhenTheConfigSaysSo) {
  {
    Session session(TrackEventConfigSpec{});
    EXPECT_FALSE(On(g_gfx));
    EXPECT_FALSE(On(g_net));
  }
  TrackEventConfigSpec spec;
  spec.enabled_categories = {"*"};
  spec.disabled_tags = {"slow", "debug"};
  Session session(spec);
  EXPECT_TRUE(On(g_gfx));
  EXPECT_TRUE(On(g_off));
  EXPECT_FALSE(On(g_net)) << "tagged slow";
}

TEST_F(CTrackEventTest, ACallbackMayTraceWithADynamicCategory) {
  static ZtCCategory* const list[] = {&g_callback_dyn};
  ZtCCategoriesRegister(list, 1);
  PerfettoTeCategoryImplSetCallback(g_callback_dyn.impl, DynamicFromCallback, nullptr);
  std::atomic<bool> started{false};
  std::thread watchdog([&started] {
    for (int i = 0; i < 3000 && !started.load(); i++)  // Up to 30 s.
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (!started.load()) {
      fprintf(stderr, "the session did not start within 30 s: a callback deadlocked\n");
      _exit(1);
    }
  });
  TrackEventConfigSpec spec;
  spec.enabled_categories = {"cbdyn"};
  Session session(spec);
  started = true;
  watchdog.join();
  auto tp = session.StopAndLoad();
  ASSERT_TRUE(tp);
  EXPECT_EQ(Rows(tp.get(), "SELECT name, category FROM slice"),
            "dynamic from the callback|cbdyn");
  PerfettoTeCategoryImplSetCallback(g_callback_dyn.impl, nullptr, nullptr);
  ZtCCategoriesUnregister(list, 1);
}

TEST_F(CTrackEventTest, TwoSessionsGetTheirOwnCategories) {
  TrackEventConfigSpec gfx_only, net_only;
  gfx_only.enabled_categories = {"gfx"};
  net_only.enabled_categories = {"net"};
  Session a(gfx_only), b(net_only);
  ZT_C_INSTANT(g_gfx, "for a");
  ZT_C_INSTANT(g_net, "for b");
  ZT_C_INSTANT(ZT_C_ANY_CATEGORY, "dyn for a", ZT_C_DYNAMIC_CATEGORY("gfx"));
  auto tpa = a.StopAndLoad();
  auto tpb = b.StopAndLoad();
  ASSERT_TRUE(tpa && tpb);
  EXPECT_EQ(Rows(tpa.get(), "SELECT name FROM slice ORDER BY ts"),
            "for a dyn for a");
  EXPECT_EQ(Rows(tpb.get(), "SELECT name FROM slice ORDER BY ts"), "for b");
}

TEST_F(CTrackEventTest, HighLevelEventsReadBack) {
  TrackEventConfigSpec spec;
  spec.enabled_categories = {"gfx", "dyn.on"};
  Session session(spec);
  std::string dynamic_name = "rewritten";  // Names are copied, not kept.
  for (int i = 0; i < 3; i++) {
    ZT_C_SLICE_BEGIN(g_gfx, "Frame", ZT_C_ARG_INT("i", i), ZT_C_ARG_UINT("u", 7u),
                     ZT_C_ARG_BOOL("b", true), ZT_C_ARG_DOUBLE("d", 1.5),
                     ZT_C_ARG_STR("s", "text"), ZT_C_ARG_PTR("p", 0x1234));
    dynamic_name[0] = static_cast<char>('a' + i);
    ZT_C_INSTANT(g_gfx, dynamic_name.c_str(), ZT_C_FLOW(i));
    // Again: the second is written from what the first left cached for
    // this address, which the next iteration's new contents must not use.
    ZT_C_INSTANT(g_gfx, dynamic_name.c_str());
    ZT_C_SLICE_END(g_gfx);
    ZT_C_INSTANT(g_gfx, "Later", ZT_C_TERMINATING_FLOW(i));
    ZT_C_COUNTER(g_gfx, "depth", ZT_C_INT_VALUE(10 * i));
    ZT_C_SLICE_BEGIN(g_gfx, "Async", ZT_C_TRACK("jobs", 5));
    ZT_C_SLICE_END(g_gfx, ZT_C_TRACK("jobs", 5));
    ZT_C_INSTANT(ZT_C_ANY_CATEGORY, "Dyn on", ZT_C_DYNAMIC_CATEGORY("dyn.on"));
    ZT_C_INSTANT(ZT_C_ANY_CATEGORY, "Dyn off", ZT_C_DYNAMIC_CATEGORY("dyn.off"));
  }
  // Extras the macros do not cover, through the ABI itself.
  PerfettoTeHlExtraCorrelationId correlation = {{PERFETTO_TE_HL_EXTRA_TYPE_CORRELATION_ID}, 99};
  PerfettoTeHlExtra no_intern = {PERFETTO_TE_HL_EXTRA_TYPE_NO_INTERN};
  PerfettoTeHlExtraTimestamp explicit_ts = {{PERFETTO_TE_HL_EXTRA_TYPE_TIMESTAMP},
                                            PerfettoTeGetTimestamp()};
  PerfettoTeHlExtra* extras[] = {reinterpret_cast<PerfettoTeHlExtra*>(&correlation), &no_intern,
                                 reinterpret_cast<PerfettoTeHlExtra*>(&explicit_ts), nullptr};
  PerfettoTeHlEmitImpl(g_gfx.impl, PERFETTO_TE_TYPE_INSTANT, "Raw", extras);
  // A proto track whose descriptor has a field holding an interned string.
  PerfettoTeHlProtoFieldCstrInterned interned_field = {
      {PERFETTO_TE_HL_PROTO_TYPE_CSTR_INTERNED, 99}, "interned in a descriptor", 2};
  PerfettoTeHlProtoField* track_fields[] = {&interned_field.header, nullptr};
  PerfettoTeHlExtraProtoTrack proto_track = {{PERFETTO_TE_HL_EXTRA_TYPE_PROTO_TRACK}, 4242,
                                             track_fields};
  PerfettoTeHlExtra* on_proto_track[] = {&proto_track.header, nullptr};
  PerfettoTeHlEmitImpl(g_gfx.impl, PERFETTO_TE_TYPE_INSTANT, "On a proto track", on_proto_track);

  auto tp = session.StopAndLoad();
  ASSERT_TRUE(tp);
  EXPECT_EQ(Rows(tp.get(), "SELECT name, COUNT(*), MIN(dur) >= 0 FROM slice GROUP BY name "
                           "ORDER BY name"),
            "Async|3|1 Dyn on|3|1 Frame|3|1 Later|3|1 On a proto track|1|1 Raw|1|1 aewritten|2|1 "
            "bewritten|2|1 cewritten|2|1");
  EXPECT_EQ(Rows(tp.get(), "SELECT category FROM slice WHERE name = 'Dyn on' LIMIT 1"), "dyn.on");
  EXPECT_EQ(Rows(tp.get(),
                 "SELECT EXTRACT_ARG(arg_set_id, 'debug.i'), EXTRACT_ARG(arg_set_id, 'debug.u'), "
                 "EXTRACT_ARG(arg_set_id, 'debug.b'), EXTRACT_ARG(arg_set_id, 'debug.d'), "
                 "EXTRACT_ARG(arg_set_id, 'debug.s'), EXTRACT_ARG(arg_set_id, 'debug.p') "
                 "FROM slice WHERE name = 'Frame' ORDER BY ts"),
            "0|7|1|1.5|text|4660 1|7|1|1.5|text|4660 2|7|1|1.5|text|4660");
  EXPECT_EQ(Rows(tp.get(), "SELECT a.name, b.name FROM flow f JOIN slice a ON f.slice_out = a.id "
                           "JOIN slice b ON f.slice_in = b.id ORDER BY a.ts"),
            "aewritten|Later bewritten|Later cewritten|Later");
  EXPECT_EQ(Rows(tp.get(), "SELECT t.name, GROUP_CONCAT(CAST(c.value AS INT)) FROM counter c "
                           "JOIN counter_track t ON c.track_id = t.id GROUP BY t.name"),
            "depth|0,10,20");
  EXPECT_EQ(Rows(tp.get(), "SELECT DISTINCT t.name FROM slice s JOIN track t ON s.track_id = t.id "
                           "WHERE s.name = 'Async'"),
            "jobs");
  EXPECT_EQ(Rows(tp.get(), "SELECT COUNT(*) FROM slice s JOIN thread_track t ON s.track_id = t.id "
                           "WHERE s.name = 'Frame' AND s.depth = 0"),
            "3");
  EXPECT_EQ(Rows(tp.get(), "SELECT value FROM stats WHERE severity IN ('error', 'data_loss') "
                           "AND value > 0"),
            "");
  // Descriptors of the tracks events name go in packets of their own with
  // no timestamp and no sequence flags (as upstream's library writes them);
  // a CSTR_INTERNED field's string is interned in that packet.
  int named_descriptors = 0, proto_descriptors = 0;
  for (const auto& packet : Packets(session.bytes())) {
    auto desc = packet.find(60);
    if (desc == packet.end() || packet.count(11))
      continue;
    std::map<uint32_t, std::string> fields;
    zt::protozero::ProtoDecoder d(desc->second.data(), desc->second.size());
    bool is_thread_or_process = false;
    for (auto f = d.ReadField(); f.valid(); f = d.ReadField()) {
      is_thread_or_process |= f.id() == 3 || f.id() == 4;
      if (f.id() == 10 || f.id() == 2)
        fields[f.id()] = std::string(f.as_string());
      if (f.id() == 1 && f.as_uint64() == 4242)
        fields[1] = "4242";
    }
    if (is_thread_or_process)
      continue;
    EXPECT_EQ(packet.count(8), 0u) << "a timestamp on a track descriptor's packet";
    EXPECT_EQ(packet.count(13), 0u) << "sequence flags on a track descriptor's packet";
    if (fields[10] == "jobs")
      named_descriptors++;
    if (fields[1] == "4242") {
      proto_descriptors++;
      ASSERT_TRUE(packet.count(12)) << "the interned string's entry, in the same packet";
      EXPECT_NE(packet.at(12).find("interned in a descriptor"), std::string::npos);
    }
  }
  EXPECT_EQ(named_descriptors, 1);
  EXPECT_EQ(proto_descriptors, 1);
}

TEST_F(CTrackEventTest, LowLevelIterationAndInterning) {
  TrackEventConfigSpec spec;
  spec.enabled_categories = {"gfx"};
  Session session(spec);
  // A high-level event first: it interns the category on this sequence.
  ZT_C_INSTANT(g_gfx, "high level first");
  PerfettoTeTimestamp ts = PerfettoTeGetTimestamp();
  int instances = 0;
  for (PerfettoTeLlImplIterator it = PerfettoTeLlImplBegin(g_gfx.impl, ts); it.ds.tracer;
       PerfettoTeLlImplNext(g_gfx.impl, ts, &it)) {
    instances++;
    bool seen = true;
    const uint64_t a = PerfettoTeLlImplIntern(it.incr, 2, "name", 4, &seen);
    EXPECT_FALSE(seen);
    EXPECT_EQ(PerfettoTeLlImplIntern(it.incr, 2, "name", 4, &seen), a);
    EXPECT_TRUE(seen);
    const uint64_t b = PerfettoTeLlImplIntern(it.incr, 2, "other", 5, &seen);
    EXPECT_FALSE(seen);
    EXPECT_NE(a, b);
    EXPECT_EQ(PerfettoTeLlImplIntern(it.incr, 3, "name", 4, &seen), 1u) << "ids are per type";
    EXPECT_FALSE(PerfettoTeLlImplTrackSeen(it.incr, 1234));
    EXPECT_TRUE(PerfettoTeLlImplTrackSeen(it.incr, 1234));
    EXPECT_FALSE(PerfettoTeLlImplTrackSeen(it.incr, 0)) << "the root track is a track too";
    EXPECT_TRUE(PerfettoTeLlImplTrackSeen(it.incr, 0));
    // The category, keyed as upstream's inline helpers key it: the
    // high-level event above interned it already.
    const uint64_t cat_iid = g_gfx.iid;
    PerfettoTeLlImplIntern(it.incr, 1, &cat_iid, sizeof(cat_iid), &seen);
    EXPECT_TRUE(seen) << "interned twice on one sequence";
    PerfettoTeCategoryDescriptor on = {"gfx", nullptr, nullptr, 0};
    PerfettoTeCategoryDescriptor off = {"net", nullptr, nullptr, 0};
    EXPECT_TRUE(PerfettoTeLlImplDynCatEnabled(it.ds.tracer, it.ds.inst_id, &on));
    EXPECT_FALSE(PerfettoTeLlImplDynCatEnabled(it.ds.tracer, it.ds.inst_id, &off));
    // Nested: a trace point inside an iteration is ignored.
    EXPECT_EQ(PerfettoTeLlImplBegin(g_gfx.impl, ts).ds.tracer, nullptr);
  }
  EXPECT_EQ(instances, 1);
  // The iteration ended: trace points work again; Break ends one early.
  PerfettoTeLlImplIterator it = PerfettoTeLlImplBegin(g_gfx.impl, ts);
  ASSERT_NE(it.ds.tracer, nullptr);
  PerfettoTeLlImplBreak(g_gfx.impl, &it);
  EXPECT_EQ(it.ds.tracer, nullptr);
  ZT_C_INSTANT(g_gfx, "after");
  auto tp = session.StopAndLoad();
  ASSERT_TRUE(tp);
  EXPECT_EQ(Rows(tp.get(), "SELECT name FROM slice ORDER BY ts"), "high level first after");
}

// fork() while a session records: the child has no session, so every
// category is off in it (it must not write into the writers it inherited,
// over memory its parent still uses); the parent goes on recording.
TEST_F(CTrackEventTest, AForkedChildHasEveryCategoryOff) {
  TrackEventConfigSpec spec;
  spec.enabled_categories = {"gfx"};
  Session session(spec);
  ASSERT_TRUE(On(g_gfx));
  ZT_C_INSTANT(g_gfx, "before the fork");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const bool off = !On(g_gfx) && !ZT_C_ATOMIC_LOAD_RELAXED(perfetto_te_any_categories_enabled);
    ZT_C_INSTANT(g_gfx, "in the child");  // Off: the check only.
    _exit(off ? 0 : 1);
  }
  int status = -1;
  pid_t waited = 0;
  for (int i = 0; i < 3000 && waited == 0; i++) {  // Up to 30 s.
    waited = waitpid(pid, &status, WNOHANG);
    if (waited == 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(waited, pid) << "the child did not exit within 30 s";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "a category was still on in the child";
  EXPECT_TRUE(On(g_gfx)) << "the parent's session goes on";
  ZT_C_INSTANT(g_gfx, "after the fork");
  auto tp = session.StopAndLoad();
  ASSERT_TRUE(tp);
  EXPECT_EQ(Rows(tp.get(), "SELECT name FROM slice ORDER BY ts"), "before the fork after the fork");
}

// ZT_C_COUNTER registers its call site's track at the site's first event:
// four threads racing to that first event share one track, and no value
// is lost while it is being registered. ZT_C_COUNTER_DYNAMIC's name may
// change from one event to the next.
void CountFromOneCallSite(int64_t value) {
  ZT_C_COUNTER(g_gfx, "shared depth", ZT_C_INT_VALUE(value));
}

TEST_F(CTrackEventTest, ACounterCallSiteRegistersItsTrackOnce) {
  TrackEventConfigSpec spec;
  spec.enabled_categories = {"gfx"};
  Session session(spec);
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; t++) {
    threads.emplace_back([&go, t] {
      while (!go.load()) {
      }
      for (int i = 0; i < 100; i++)
        CountFromOneCallSite(t * 1000 + i);
    });
  }
  go = true;
  for (auto& thread : threads)
    thread.join();
  for (int i = 0; i < 6; i++) {
    const std::string name = std::string("dyn ") + static_cast<char>('a' + i % 2);
    ZT_C_COUNTER_DYNAMIC(g_gfx, name.c_str(), ZT_C_INT_VALUE(i));
  }
  auto tp = session.StopAndLoad();
  ASSERT_TRUE(tp);
  EXPECT_EQ(Rows(tp.get(), "SELECT t.name, COUNT(*), COUNT(DISTINCT c.value) FROM counter c "
                           "JOIN counter_track t ON c.track_id = t.id GROUP BY t.id ORDER BY t.name"),
            "dyn a|3|3 dyn b|3|3 shared depth|400|400");
}

// The event cache is keyed by the category's iid, not its address: a
// category destroyed and another made (often at the same address, which
// the allocator hands out again) has its own category on its events.
TEST_F(CTrackEventTest, ACategoryMadeAgainIsNotTakenForTheOldOne) {
  TrackEventConfigSpec spec;
  spec.enabled_categories = {"first.cat", "second.cat"};
  Session session(spec);
  PerfettoTeHlExtra* none[] = {nullptr};
  PerfettoTeCategoryDescriptor first_desc = {"first.cat", nullptr, nullptr, 0};
  PerfettoTeCategoryImpl* first = PerfettoTeCategoryImplCreate(&first_desc);
  PerfettoTeHlEmitImpl(first, PERFETTO_TE_TYPE_INSTANT, "Same", none);
  PerfettoTeHlEmitImpl(first, PERFETTO_TE_TYPE_INSTANT, "Same", none);  // From the cache.
  PerfettoTeCategoryImplDestroy(first);
  PerfettoTeCategoryDescriptor second_desc = {"second.cat", nullptr, nullptr, 0};
  PerfettoTeCategoryImpl* second = PerfettoTeCategoryImplCreate(&second_desc);
  PerfettoTeHlEmitImpl(second, PERFETTO_TE_TYPE_INSTANT, "Same", none);
  PerfettoTeHlEmitImpl(second, PERFETTO_TE_TYPE_INSTANT, "Same", none);
  PerfettoTeCategoryImplDestroy(second);
  auto tp = session.StopAndLoad();
  ASSERT_TRUE(tp);
  EXPECT_EQ(Rows(tp.get(), "SELECT category, COUNT(*) FROM slice WHERE name = 'Same' "
                           "GROUP BY category ORDER BY category"),
            "first.cat|2 second.cat|2");
}

// Trace points in a signal handler, landing anywhere in the thread's own
// trace points (the hot paths write raw bytes into the open packet): the
// handler's are written whole or dropped, the thread's are all there.
// (Not under TSan: outside the thread's trace points, the handler's may
// take the general path, which allocates; TSan reports any allocation in a
// signal handler.)
void InstantFromASignal(int) {
  const int saved_errno = errno;
  ZT_C_INSTANT(g_gfx, "from a signal");
  errno = saved_errno;
}

TEST_F(CTrackEventTest, TracePointsInASignalHandlerNeverTearAnEvent) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "TSan reports the general path's allocations in a signal handler";
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
  GTEST_SKIP() << "TSan reports the general path's allocations in a signal handler";
#endif
#endif
  TrackEventConfigSpec spec;
  spec.enabled_categories = {"gfx"};
  spec.buffer_kb = 32 * 1024;  // Every event: the ring must not wrap.
  Session session(spec);
  struct sigaction action = {}, previous = {};
  action.sa_handler = InstantFromASignal;
  sigemptyset(&action.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR1, &action, &previous), 0);
  const pthread_t traced = pthread_self();
  std::atomic<bool> done{false};
  std::atomic<int> sent{0};
  std::thread signaler([&] {
    while (!done.load()) {
      pthread_kill(traced, SIGUSR1);
      sent++;
      std::this_thread::yield();
    }
  });
  constexpr int kEvents = 100000;
  for (int i = 0; i < kEvents; i++) {
    ZT_C_INSTANT(g_gfx, "main");
    ZT_C_SLICE_BEGIN(g_gfx, "main slice", ZT_C_ARG_INT("i", i));
    ZT_C_SLICE_END(g_gfx);
  }
  done = true;
  signaler.join();
  ASSERT_EQ(sigaction(SIGUSR1, &previous, nullptr), 0);
  auto tp = session.StopAndLoad();
  ASSERT_TRUE(tp);
  EXPECT_EQ(Rows(tp.get(), "SELECT name, COUNT(*), COUNT(EXTRACT_ARG(arg_set_id, 'debug.i')) "
                           "FROM slice WHERE name LIKE 'main%' GROUP BY name ORDER BY name"),
            "main|100000|0 main slice|100000|100000");
  const std::string from_signals =
      Rows(tp.get(), "SELECT COUNT(*) FROM slice WHERE name = 'from a signal'");
  EXPECT_GT(sent.load(), 0);
  EXPECT_LE(std::stoll(from_signals), sent.load());
  EXPECT_EQ(Rows(tp.get(), "SELECT COUNT(*) FROM slice WHERE name NOT LIKE 'main%' "
                           "AND name != 'from a signal'"),
            "0");
  EXPECT_EQ(Rows(tp.get(), "SELECT name, value FROM stats WHERE severity IN ('error', "
                           "'data_loss') AND value > 0"),
            "");
}

// A reading of now a little before the sequence's last time (what an
// anchor renewal of the clock does: it steps back by some ns) is held at
// that time on every path. The general path (here: an end with a flush
// extra) once wrote it as an absolute time, before its slice's begin:
// readers counted a misplaced end (the signal-handler test above found it,
// its handler's events renewing the anchor).
TEST_F(CTrackEventTest, ATimeALittleBeforeTheLastIsHeldOnEveryPath) {
  TrackEventConfigSpec spec;
  spec.enabled_categories = {"gfx"};
  Session session(spec);
  zt::c_abi::TeThread* thread = zt::c_abi::CurrentTeThread();
  // The anchor valid (the clock's first 10 ms read clock_gettime), within
  // a bounded wait.
  uint64_t now = 0;
  for (int i = 0; i < 2000000 && !zt::internal::TrackEventClock::TryNowNs(thread->clock, &now);
       i++) {
    ZT_C_INSTANT(g_gfx, "warm up");
  }
  if (!zt::internal::TrackEventClock::TryNowNs(thread->clock, &now))
    GTEST_SKIP() << "no time-stamp counter clock here: readings never step back";
  for (int i = 0; i < 3; i++) {
    ZT_C_SLICE_BEGIN(g_gfx, "held");
    thread->clock.ns -= 500;  // The anchor renewed, 500 ns behind.
    ZT_C_SLICE_END(g_gfx, ZT_C_FLUSH());
    ZT_C_SLICE_BEGIN(g_gfx, "held");
    thread->clock.ns -= 500;
    ZT_C_SLICE_END(g_gfx);  // The hot path.
  }
  auto tp = session.StopAndLoad();
  ASSERT_TRUE(tp);
  EXPECT_EQ(Rows(tp.get(), "SELECT COUNT(*), MIN(dur) >= 0 FROM slice WHERE name = 'held'"),
            "6|1");
  EXPECT_EQ(Rows(tp.get(), "SELECT name, value FROM stats WHERE severity IN ('error', "
                           "'data_loss') AND value > 0"),
            "");
}

// Incremental state cleared every 5 ms while two threads write into a
// ring buffer that wraps many times (the ring holds about 20 ms of their
// events, so it holds several clears): every event that survives still has
// its name, category and thread track (each sequence writes its defaults,
// descriptors and interned entries again after a clear, so what the ring
// overwrote is not needed).
TEST_F(CTrackEventTest, EventsSurviveARingThatWraps) {
  TrackEventConfigSpec spec;
  spec.enabled_categories = {"gfx"};
  spec.clear_period_ms = 5;
  spec.buffer_kb = 64;
  Session session(spec);
  auto work = [] {
    char name[16];
    for (int i = 0; i < 10000; i++) {
      snprintf(name, sizeof name, "event %d", i % 7);
      ZT_C_SLICE_BEGIN(g_gfx, name, ZT_C_ARG_INT("i", i));
      ZT_C_SLICE_END(g_gfx);
      if (i % 50 == 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  };
  std::thread t1(work), t2(work);
  t1.join();
  t2.join();
  auto tp = session.StopAndLoad();
  ASSERT_TRUE(tp);
  zt::processor::QueryResult result = tp->Query(
      "SELECT COUNT(*), COUNT(s.name), COUNT(s.category), COUNT(t.id), "
      "COUNT(EXTRACT_ARG(s.arg_set_id, 'debug.i')) FROM slice s "
      "LEFT JOIN thread_track t ON s.track_id = t.id");
  ASSERT_TRUE(result.ok()) << result.error;
  const auto& row = result.rows.at(0);
  const int64_t slices = row[0].int_value;
  EXPECT_GT(slices, 100) << "the ring keeps its last 64 KiB, from its first clear on";
  EXPECT_LT(slices, 20000) << "the ring wrapped";
  EXPECT_EQ(row[1].int_value, slices) << "named";
  EXPECT_EQ(row[2].int_value, slices) << "with a category";
  EXPECT_EQ(row[3].int_value, slices) << "on a thread's track";
  EXPECT_EQ(row[4].int_value, slices) << "with its argument's name";
}

}  // namespace
