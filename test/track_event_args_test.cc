// Track events with arguments: the fast path (up to four annotations with
// literal keys and flows, zt/tracing/internal/track_event_fast_args.h)
// must write what the general path writes. Each event is emitted twice
// with a literal name (the first fills the sequence's cache, the second is
// written from it) and once with a DynamicString name (the general path),
// with random values, and read back exactly.

#include "test/track_event_test_support.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "src/tracing/test/call_site_keys.h"

namespace zt {
namespace track_event_test {
namespace {

enum class Mode : int { kLow = -2, kHigh = 7 };

// Random values of each argument type, kept alive until the trace is read.
class Values {
 public:
  explicit Values(uint64_t seed) : rng_(seed) {}

  int64_t Int() {
    static const int64_t kEdges[] = {0, 1, -1, 127, 128, -128,
                                     std::numeric_limits<int64_t>::min(),
                                     std::numeric_limits<int64_t>::max()};
    return Pick(kEdges, static_cast<int64_t>(rng_()));
  }
  int SmallInt() { return static_cast<int>(Int()); }
  uint64_t Uint() {
    static const uint64_t kEdges[] = {0, 1, 127, 128, 16383, 16384,
                                      std::numeric_limits<uint64_t>::max()};
    return Pick(kEdges, rng_());
  }
  unsigned SmallUint() { return static_cast<unsigned>(Uint()); }
  bool Bool() { return rng_() & 1; }
  double Double() {
    static const double kEdges[] = {0.0, -0.0, 1.5, -1e300,
                                    std::numeric_limits<double>::infinity(),
                                    std::numeric_limits<double>::denorm_min()};
    return Pick(kEdges, std::uniform_real_distribution<double>(-1e9, 1e9)(rng_));
  }
  float Float() { return static_cast<float>(Double()); }
  Mode Enum() { return Bool() ? Mode::kLow : Mode::kHigh; }
  void* Pointer() { return reinterpret_cast<void*>(static_cast<uintptr_t>(Uint())); }
  Flow AFlow() { return Flow::Global(Uint()); }
  TerminatingFlow ATerminatingFlow() { return TerminatingFlow::Global(Uint()); }

  // 0 to 70 bytes (past the fast path's 64 at times), any byte but NUL.
  const std::string& String() {
    const size_t size = rng_() % 71;
    std::string s(size, 'x');
    for (char& c : s)
      c = static_cast<char>(1 + rng_() % 255);
    strings_.push_back(std::move(s));
    return strings_.back();
  }
  const char* CString() { return (rng_() % 8 == 0) ? nullptr : String().c_str(); }
  StaticString AStaticString() { return StaticString{String().c_str()}; }
  DynamicString ADynamicString() { return DynamicString(String()); }
  std::string_view View() { return String(); }

 private:
  template <typename T, size_t N>
  T Pick(const T (&edges)[N], T random) {
    const size_t i = rng_() % (2 * N);
    return i < N ? edges[i] : random;
  }

  std::mt19937_64 rng_;
  std::deque<std::string> strings_;
};

// Emits the event thrice: literal name twice (cache filled, then used),
// dynamic name once (the general path); as a scoped slice too.
size_t g_emits = 0;

template <typename... Args>
void EmitAllWays(Args&&... args) {
  g_emits++;
  for (int i = 0; i < 2; i++)
    TRACE_EVENT_INSTANT("test", "fast", args...);
  TRACE_EVENT_INSTANT("test", DynamicString("general"), args...);
  TRACE_EVENT("test", "fast slice", args...);
}
constexpr size_t kEventsPerEmit = 5;  // Three instants, a begin, an end.

// Every argument kind alone, in pairs, threes and fours, then five (the
// general path only), with fresh values each call.
void EmitShapes(Values& v) {
  static char writable[24] = "writable array";
  static const char kPadded[32] = "padded";
  // A NUL inside, none at the end: the string is up to the NUL on every path.
  static const char kNulInside[24] = {'a', 'b', '\0', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x',
                                      'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x'};
  EmitAllWays("i", v.Int());
  EmitAllWays("i32", v.SmallInt());
  EmitAllWays("u", v.Uint());
  EmitAllWays("u32", v.SmallUint());
  EmitAllWays("b", v.Bool());
  EmitAllWays("d", v.Double());
  EmitAllWays("f", v.Float());
  EmitAllWays("e", v.Enum());
  EmitAllWays("p", v.Pointer());
  EmitAllWays("s", "literal");
  EmitAllWays("empty", "");
  EmitAllWays("s64", "0123456789012345678901234567890123456789012345678901234567890123");
  EmitAllWays("s65", "01234567890123456789012345678901234567890123456789012345678901234");
  EmitAllWays("padded", kPadded);
  EmitAllWays("nul inside", kNulInside);
  EmitAllWays("i", v.Int(), "nul inside", kNulInside);
  EmitAllWays("writable", writable);
  EmitAllWays("cstr", v.CString());
  EmitAllWays("std", v.String());
  EmitAllWays("view", v.View());
  EmitAllWays("static", v.AStaticString());
  EmitAllWays("dynamic", v.ADynamicString());
  EmitAllWays(v.AFlow());
  EmitAllWays(v.ATerminatingFlow());
  EmitAllWays("i", v.Int(), "b", v.Bool());
  EmitAllWays("s", v.String(), "t", v.String());
  EmitAllWays(v.AFlow(), "d", v.Double());
  EmitAllWays("p", v.Pointer(), v.ATerminatingFlow(), "u", v.Uint());
  EmitAllWays("i", v.Int(), "b", v.Bool(), "d", v.Double(), "s", "text");
  EmitAllWays("a", v.String(), "b", v.String(), "c", v.String(), "d", v.String());
  EmitAllWays("a", v.Int(), "b", v.Int(), "c", v.Int(), "d", v.Int());
  EmitAllWays(v.AFlow(), v.AFlow(), v.ATerminatingFlow(), "x", v.CString());
  EmitAllWays("i", v.Int(), "b", v.Bool(), "d", v.Double(), "s", "text", "e", v.Enum());
  // Same name and shape, other keys: the cached entry is not theirs.
  EmitAllWays("j", v.Int(), "c", v.Bool());
}

void ExpectSameEvents(const std::vector<Event>& events, size_t first) {
  const Event& fast = events[first];
  const Event& cached = events[first + 1];
  const Event& general = events[first + 2];
  const Event& slice = events[first + 3];
  EXPECT_EQ(fast.name, "fast");
  EXPECT_EQ(general.name, "general");
  EXPECT_EQ(slice.name, "fast slice");
  for (const Event* e : {&cached, &general, &slice}) {
    EXPECT_EQ(e->exact_args, fast.exact_args) << "event " << first;
    EXPECT_EQ(e->flows, fast.flows) << "event " << first;
    EXPECT_EQ(e->terminating_flows, fast.terminating_flows) << "event " << first;
    EXPECT_EQ(e->category, "test");
  }
  EXPECT_EQ(events[first + 4].type, 2);  // The slice's end.
}

TEST_F(TrackEventTest, ArgumentsReadTheSameOnEveryPath) {
  constexpr int kRounds = 40;
  Values values(20261201);
  g_emits = 0;
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [&] {
    for (int round = 0; round < kRounds; round++)
      EmitShapes(values);
  });
  ASSERT_EQ(read.events.size(), g_emits * kEventsPerEmit);
  for (size_t i = 0; i < read.events.size(); i += kEventsPerEmit)
    ExpectSameEvents(read.events, i);
}

// The same with the arguments spelled at each call site, as people write
// them: such sites keep their literal name and keys in a table
// (zt/tracing/internal/track_event_site.h) and pass only the values. The
// values are drawn first: the macro spells them at four call sites.
#define EMIT_SPELLED(...)                                                \
  do {                                                                   \
    g_emits++;                                                           \
    for (int emit_round = 0; emit_round < 2; emit_round++)               \
      TRACE_EVENT_INSTANT("test", "fast", __VA_ARGS__);                  \
    TRACE_EVENT_INSTANT("test", DynamicString("general"), __VA_ARGS__);  \
    {                                                                    \
      TRACE_EVENT("test", "fast slice", __VA_ARGS__);                    \
    }                                                                    \
  } while (0)

void EmitSpelledShapes(Values& v) {
  const int64_t i = v.Int();
  const int small = v.SmallInt();
  const uint64_t u = v.Uint();
  const unsigned small_u = v.SmallUint();
  const bool b = v.Bool();
  const double d = v.Double();
  const float f = v.Float();
  const Mode e = v.Enum();
  void* const p = v.Pointer();
  const Flow flow = v.AFlow();
  const Flow flow2 = v.AFlow();
  const TerminatingFlow end = v.ATerminatingFlow();
  const char* const cstr = v.CString();
  const std::string& s1 = v.String();
  const std::string& s2 = v.String();
  const std::string& s3 = v.String();
  const std::string& s4 = v.String();
  const StaticString static_string = v.AStaticString();
  const DynamicString dynamic_string = v.ADynamicString();
  const std::string_view view = v.View();
  EMIT_SPELLED("b", b);
  EMIT_SPELLED("d", d, "f", f);
  EMIT_SPELLED("e", e, "p", p);
  EMIT_SPELLED("cstr", cstr, "std", s1);
  EMIT_SPELLED("static", static_string, "dynamic", dynamic_string, "view", view);
  EMIT_SPELLED(flow);
  EMIT_SPELLED(end);
  EMIT_SPELLED("i", i, "b", b);
  EMIT_SPELLED("s", s1, "t", s2);
  EMIT_SPELLED(flow, "d", d);
  EMIT_SPELLED("p", p, end, "u", u);
  // A literal past 64 bytes: the table's long-string path.
  EMIT_SPELLED("i", small, "u", small_u, "lit", "literal", "long",
               "0123456789012345678901234567890123456789012345678901234567890123456789");
  EMIT_SPELLED("i", i, "b", b, "d", d, "s", "text");
  EMIT_SPELLED("a", s1, "b", s2, "c", s3, "d", s4);
  EMIT_SPELLED("a", i, "b", i / 2, "c", i % 1000, "d", -(i / 3));
  EMIT_SPELLED(flow, flow2, end, "x", cstr);
  EMIT_SPELLED("i", i, "b", b, "d", d, "s", "text", "e", e);
  EMIT_SPELLED("j", i, "c", b);
}

TEST_F(TrackEventTest, SpelledArgumentsReadTheSameOnEveryPath) {
  constexpr int kRounds = 40;
  Values values(20261202);
  g_emits = 0;
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [&] {
    for (int round = 0; round < kRounds; round++)
      EmitSpelledShapes(values);
  });
  ASSERT_EQ(read.events.size(), g_emits * kEventsPerEmit);
  for (size_t i = 0; i < read.events.size(); i += kEventsPerEmit)
    ExpectSameEvents(read.events, i);
}

// Keys as people spell them: the scanner reads some (escapes, literals
// concatenated or from a macro, digit separators and braces around), leaves
// others to the path that passes the keys; every one reads back.
#define KEY_FROM_A_MACRO "from a macro"
TEST_F(TrackEventTest, KeysReadBackHoweverTheyAreSpelled) {
  static const char kKey[] = "named";
  struct Point {
    int x, y;
  };
  std::vector<std::map<std::string, std::string>> expected = {
      {{"esc\"aped", "int:1"}, {"tab\there", "double:2.000000"}},
      {{"concat", "int:1000"}, {"from a macro", "uint:7"}},
      {{"k", "int:2"}, {"comma", "int:44"}, {"ellipsis", "uint:4"}},
      {{"named", "int:1"}, {"raw", "int:2"}, {"octA", "bool:1"}},
  };
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [] {
    for (int round = 0; round < 2; round++) {
      TRACE_EVENT_INSTANT("test", "escapes", "esc\"aped", 1, "tab\there", 2.0);
      TRACE_EVENT_INSTANT("test", "joined", "con" "cat", 1'000, KEY_FROM_A_MACRO, 7u);
      TRACE_EVENT_INSTANT("test", "grouped", "k", Point{1, 2}.y, "comma", int{','},
                          "ellipsis", sizeof("..."));
      TRACE_EVENT_INSTANT("test", "left", kKey, 1, R"(raw)", 2, "oct\101", true);
    }
  });
  ASSERT_EQ(read.events.size(), 2 * expected.size());
  for (size_t i = 0; i < read.events.size(); i++)
    EXPECT_EQ(read.events[i].args, expected[i % expected.size()]) << "event " << i;
}

// A call site that spells its literal keys keeps them in a table of its
// own and interns its own copies: two such sites with the same keys show
// two iids for each. One site whose arguments come through a function
// (spelled `args...`: no table) shows the same iids each time: so this
// sees which path the sites took.
template <typename... Args>
void EmitForwarded(const Args&... args) {
  TRACE_EVENT_INSTANT("test", "forwarded", args...);
}
TEST_F(TrackEventTest, SitesSpellingTheirKeysInternTheirOwn) {
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [] {
    TRACE_EVENT_INSTANT("test", "one", "k", 1, "j", 2.0);
    TRACE_EVENT_INSTANT("test", "two", "k", 1, "j", 2.0);
    for (int i = 0; i < 2; i++)
      EmitForwarded("k", 1, "j", 2.0);
  });
  ASSERT_EQ(read.events.size(), 4u);
  for (const Event& e : read.events) {
    EXPECT_EQ(e.args, (std::map<std::string, std::string>{{"k", "int:1"}, {"j", "double:2.000000"}}));
    ASSERT_EQ(e.key_iids.size(), 2u);
  }
  EXPECT_NE(read.events[0].key_iids[0], read.events[1].key_iids[0]);
  EXPECT_NE(read.events[0].key_iids[1], read.events[1].key_iids[1]);
  EXPECT_EQ(read.events[2].key_iids, read.events[3].key_iids);
}

// What the fast path writes, as readers see it: each kind's value.
TEST_F(TrackEventTest, FastArgumentsReadBack) {
  static const char kKey[] = "key";
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [] {
    for (int i = 0; i < 2; i++) {
      TRACE_EVENT_INSTANT("test", "kinds", "i", -5, "u", 5u, "b", true, "d", 1.5);
      TRACE_EVENT_INSTANT("test", "strings", "lit", "text", "std", std::string("std"),
                          "static", StaticString{"static"}, kKey, DynamicString("dyn"));
      TRACE_EVENT_INSTANT("test", "more", "p", reinterpret_cast<void*>(0x1234), "e",
                          Mode::kLow, Flow::Global(7), TerminatingFlow::Global(8));
    }
  });
  ASSERT_EQ(read.events.size(), 6u);
  for (size_t i = 0; i < 6; i += 3) {
    EXPECT_EQ(read.events[i].args,
              (std::map<std::string, std::string>{{"i", "int:-5"},
                                                  {"u", "uint:5"},
                                                  {"b", "bool:1"},
                                                  {"d", "double:1.500000"}}));
    EXPECT_EQ(read.events[i + 1].args,
              (std::map<std::string, std::string>{{"lit", "string:text"},
                                                  {"std", "string:std"},
                                                  {"static", "string:static"},
                                                  {"key", "string:dyn"}}));
    EXPECT_EQ(read.events[i + 2].args,
              (std::map<std::string, std::string>{{"p", "pointer:4660"}, {"e", "int:-2"}}));
    EXPECT_EQ(read.events[i + 2].flows, std::vector<uint64_t>{7});
    EXPECT_EQ(read.events[i + 2].terminating_flows, std::vector<uint64_t>{8});
  }
}

// The cache belongs to the incremental state: after each clear the keys
// and names are interned again, and every event still reads.
TEST_F(TrackEventTest, ArgumentsSurviveIncrementalStateClears) {
  size_t emitted = 0;
  ReadTrace read = Record(
      SerializeTrackEventConfig({"*"}),
      [&] {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        for (int i = 0; i < 20000 && std::chrono::steady_clock::now() < deadline; i++) {
          TRACE_EVENT_INSTANT("test", "tick", "i", i, "s", "text", "b", i % 2 == 0, Flow::Global(i));
          emitted++;
          if (i % 1000 == 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));  // Let clears come.
        }
      },
      /*clear_period_ms=*/5);
  EXPECT_GT(read.cleared_packets, 1u);
  ASSERT_EQ(read.events.size(), emitted);
  for (size_t i = 0; i < read.events.size(); i++) {
    const Event& e = read.events[i];
    ASSERT_EQ(e.name, "tick");
    ASSERT_EQ(e.args.at("i"), "int:" + std::to_string(i));
    ASSERT_EQ(e.args.at("s"), "string:text");
    ASSERT_EQ(e.flows, std::vector<uint64_t>{i});
  }
}

// More names than the cache has entries, cycled through: each miss is
// encoded again from the sequence's iids (or interned by the simple path on
// first use); every event reads back with its own name, as slices too.
TEST_F(TrackEventTest, ManyNamesCycledThroughTheCacheReadBack) {
  constexpr int kNames = 300;
  constexpr int kRounds = 3;
  std::vector<std::string> names;
  for (int i = 0; i < kNames; i++)
    names.push_back("name " + std::to_string(i));
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [&] {
    for (int round = 0; round < kRounds; round++) {
      for (const std::string& name : names) {
        TRACE_EVENT_INSTANT("test", StaticString{name.c_str()});
        TRACE_EVENT("gfx", StaticString{name.c_str()});
      }
    }
  });
  ASSERT_EQ(read.events.size(), static_cast<size_t>(kNames * kRounds * 3));
  size_t e = 0;
  for (int round = 0; round < kRounds; round++) {
    for (const std::string& name : names) {
      EXPECT_EQ(read.events[e].name, name);
      EXPECT_EQ(read.events[e].category, "test");
      EXPECT_FALSE(read.events[e].name_inline);  // Interned.
      EXPECT_EQ(read.events[e + 1].name, name);
      EXPECT_EQ(read.events[e + 1].category, "gfx");
      EXPECT_EQ(read.events[e + 1].type, 1);
      EXPECT_EQ(read.events[e + 2].type, 2);
      e += 3;
    }
  }
}

// A call site with a literal key of its own (call_site_keys.h).
template <int N>
struct EventWithSiteKey {
  static void Run(int64_t value) {
    TRACE_EVENT_INSTANT("test", "keyed", zt::test::CallSiteKey<N>::value, value);
  }
};

// More keys on one event name than the cache holds, cycled through: each
// miss is encoded again from the name's and key's iids; every key and
// value reads back.
TEST_F(TrackEventTest, ManyKeysCycledThroughTheCacheReadBack) {
  constexpr int kKeys = 200;
  const std::vector<void (*)(int64_t)> sites = zt::test::CallSites<EventWithSiteKey, kKeys>();
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [&] {
    for (int round = 0; round < 3; round++) {
      for (int k = 0; k < kKeys; k++)
        sites[static_cast<size_t>(k)](round * 1000 + k);
    }
  });
  ASSERT_EQ(read.events.size(), static_cast<size_t>(3 * kKeys));
  for (int round = 0; round < 3; round++) {
    for (int k = 0; k < kKeys; k++) {
      const Event& e = read.events[static_cast<size_t>(round * kKeys + k)];
      char key[5];
      snprintf(key, sizeof(key), "k%03d", k);
      EXPECT_EQ(e.name, "keyed");
      EXPECT_EQ(e.args, (std::map<std::string, std::string>{
                            {key, "int:" + std::to_string(round * 1000 + k)}}));
    }
  }
}

// A sequence interns at most 16,384 names between clears: past that it
// clears its own incremental state (so its memory stays bounded) and
// interns again. Readers see the clear and resolve every name, before and
// after it, the earlier names used again too.
TEST_F(TrackEventTest, InternTablesStayBoundedAndEveryNameReadsBack) {
  constexpr int kNames = 20000;
  constexpr int kAgain = 500;
  std::vector<std::string> names;
  for (int i = 0; i < kNames; i++)
    names.push_back("bounded " + std::to_string(i));
  ReadTrace read = Record(SerializeTrackEventConfig({"*"}), [&] {
    for (const std::string& name : names)
      TRACE_EVENT_INSTANT("test", StaticString{name.c_str()});
    for (int i = 0; i < kAgain; i++)
      TRACE_EVENT_INSTANT("test", StaticString{names[static_cast<size_t>(i)].c_str()});
  });
  EXPECT_GE(read.cleared_packets, 2u) << "the first reset and the bound's";
  ASSERT_EQ(read.events.size(), static_cast<size_t>(kNames + kAgain));
  for (int i = 0; i < kNames + kAgain; i++) {
    ASSERT_EQ(read.events[static_cast<size_t>(i)].name, names[static_cast<size_t>(i % kNames)])
        << i;
  }
}

}  // namespace
}  // namespace track_event_test
}  // namespace zt
