// The built-in functions on the sample storage (sample_storage_for_testing.h),
// whose rows give the expected values: args of sets 0 and 1, slices from
// 100 to 300 (the last never ends), counters from 100 to 260.

#include "src/processor/sql/functions/functions.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/processor/sql/query_engine.h"
#include "src/processor/sql/query_engine_fixture_for_testing.h"
#include "src/processor/sql/sample_storage_for_testing.h"

namespace zt {
namespace processor {
namespace sql {
namespace {

class FunctionsTest : public QueryEngineFixture {};

TEST_F(FunctionsTest, ExtractArgReturnsEachValueTypeAsItsSqlType) {
  EXPECT_EQ(Run("SELECT EXTRACT_ARG(0, 'debug.count'), typeof(EXTRACT_ARG(0, 'debug.count'))"),
            Rows{"3|integer"});
  EXPECT_EQ(Run("SELECT EXTRACT_ARG(0, 'debug.name'), typeof(EXTRACT_ARG(0, 'debug.name'))"),
            Rows{"x|text"});
  EXPECT_EQ(Run("SELECT EXTRACT_ARG(0, 'debug.ratio'), typeof(EXTRACT_ARG(0, 'debug.ratio'))"),
            Rows{"0.25|real"});
  EXPECT_EQ(Run("SELECT EXTRACT_ARG(1, 'debug.flag')"), Rows{"1"});
}

TEST_F(FunctionsTest, ExtractArgAsUpstreamDocsUseIt) {
  EXPECT_EQ(Run("SELECT name, EXTRACT_ARG(arg_set_id, 'debug.count') AS count FROM slice "
                "WHERE arg_set_id IS NOT NULL ORDER BY id"),
            (Rows{"Outer|3", "Work|NULL"}));
}

TEST_F(FunctionsTest, ExtractArgIsNullForAbsentSetsAndKeys) {
  EXPECT_EQ(Run("SELECT EXTRACT_ARG(NULL, 'debug.count')"), Rows{"NULL"});
  EXPECT_EQ(Run("SELECT EXTRACT_ARG(0, 'debug.flag')"), Rows{"NULL"});  // Set 1's key.
  EXPECT_EQ(Run("SELECT EXTRACT_ARG(0, 'debug')"), Rows{"NULL"});       // A prefix only.
  EXPECT_EQ(Run("SELECT EXTRACT_ARG(7, 'debug.count')"), Rows{"NULL"});
  EXPECT_EQ(Run("SELECT EXTRACT_ARG(-1, 'debug.count')"), Rows{"NULL"});
}

TEST_F(FunctionsTest, ExtractArgNamesTheArgumentOfTheWrongType) {
  EXPECT_EQ(Run("SELECT EXTRACT_ARG('0', 'debug.count')"),
            Rows{"error: EXTRACT_ARG: the arg set id (1st argument) must be an integer"});
  EXPECT_EQ(Run("SELECT EXTRACT_ARG(0, 5)"),
            Rows{"error: EXTRACT_ARG: the key (2nd argument) must be text"});
}

TEST_F(FunctionsTest, TraceBoundsSpanEverySliceAndCounter) {
  // First event: Outer at 100; last end: the unfinished Async at 300 (its
  // dur -1 counts as 0), after the last counter at 260.
  EXPECT_EQ(Run("SELECT trace_start(), trace_end(), trace_dur()"), Rows{"100|300|200"});
  EXPECT_EQ(Run("SELECT start_ts, end_ts FROM trace_bounds"), Rows{"100|300"});
  EXPECT_EQ(Run("SELECT COUNT(*) FROM slice WHERE ts BETWEEN trace_start() AND trace_end()"),
            Rows{"6"});
}

TEST_F(FunctionsTest, TraceBoundsOfAnEmptyTraceAreZero) {
  Use(std::make_unique<TraceStorage>());
  EXPECT_EQ(Run("SELECT trace_start(), trace_end(), trace_dur()"), Rows{"0|0|0"});
  EXPECT_EQ(Run("SELECT * FROM trace_bounds"), Rows{"0|0"});
}

TEST_F(FunctionsTest, TraceBoundsOfOneInstantAreOneNanosecondWide) {
  auto storage = std::make_unique<TraceStorage>();
  storage->counter.ts.push_back(42);
  storage->counter.value.push_back(1);
  storage->counter.track_id.push_back(0);
  Use(std::move(storage));
  EXPECT_EQ(Run("SELECT trace_start(), trace_end(), trace_dur()"), Rows{"42|43|1"});
}

TEST_F(FunctionsTest, SliceIsAncestorFollowsNestingOnOneTrack) {
  // Outer (0) holds both Inners (1, 2) on main's track; Work (3) holds
  // Instant (4) on worker's.
  EXPECT_EQ(Run("SELECT slice_is_ancestor(0, 1), slice_is_ancestor(0, 2), "
                "slice_is_ancestor(3, 4)"),
            Rows{"1|1|1"});
  EXPECT_EQ(Run("SELECT slice_is_ancestor(1, 0), slice_is_ancestor(1, 2), "
                "slice_is_ancestor(0, 3), slice_is_ancestor(0, 0)"),
            Rows{"0|0|0|0"});
}

TEST_F(FunctionsTest, SliceIsAncestorIsNullForIdsThatNameNoSlice) {
  EXPECT_EQ(Run("SELECT slice_is_ancestor(0, 99), slice_is_ancestor(NULL, 1), "
                "slice_is_ancestor(-1, 1)"),
            Rows{"NULL|NULL|NULL"});
  EXPECT_EQ(Run("SELECT slice_is_ancestor('a', 1)"),
            Rows{"error: slice_is_ancestor: the ancestor id (1st argument) must be an integer"});
}

TEST_F(FunctionsTest, AnUnfinishedSliceEnclosesWhatStartsInIt) {
  auto storage = MakeSampleStorage();
  // A child of Async (5, from 300, never ends) at 400.
  storage->slice.ts.push_back(400);
  storage->slice.dur.push_back(10);
  storage->slice.track_id.push_back(2);
  storage->slice.category.push_back(kNullStringId);
  storage->slice.name.push_back(kNullStringId);
  storage->slice.depth.push_back(1);
  storage->slice.parent_id.push_back(5);
  storage->slice.arg_set_id.push_back(kNullId);
  Use(std::move(storage));
  EXPECT_EQ(Run("SELECT slice_is_ancestor(5, 6)"), Rows{"1"});
}

TEST_F(FunctionsTest, AncestorSliceListsTheEnclosingSlicesRootFirst) {
  EXPECT_EQ(Run("SELECT id, name, depth FROM ancestor_slice(1)"), Rows{"0|Outer|0"});
  EXPECT_EQ(Run("SELECT id, name FROM ancestor_slice(4)"), Rows{"3|Work"});
  EXPECT_EQ(Run("SELECT COUNT(*) FROM ancestor_slice(0)"), Rows{"0"});
  EXPECT_EQ(Run("SELECT COUNT(*) FROM ancestor_slice(NULL)"), Rows{"0"});
}

TEST_F(FunctionsTest, DescendantSliceListsTheEnclosedSlicesInIdOrder) {
  EXPECT_EQ(Run("SELECT id, ts, dur, depth, name FROM descendant_slice(0)"),
            (Rows{"1|110|30|1|Inner", "2|150|20|1|Inner"}));
  EXPECT_EQ(Run("SELECT id, name FROM descendant_slice(3)"), Rows{"4|Instant"});
  EXPECT_EQ(Run("SELECT COUNT(*) FROM descendant_slice(1)"), Rows{"0"});
  EXPECT_EQ(Run("SELECT COUNT(*) FROM descendant_slice(5)"), Rows{"0"});  // Unfinished, alone.
}

// Stack ids: equal for slices at the same place in stacks of the same
// names (the two Inner slices under Outer), different otherwise; a child's
// parent_stack_id is its parent's stack_id.
TEST_F(FunctionsTest, StackIdsAndTheTablesByStack) {
  EXPECT_EQ(Run("SELECT COUNT(DISTINCT stack_id) FROM slice WHERE name = 'Inner'"), Rows{"1"});
  EXPECT_EQ(Run("SELECT COUNT(DISTINCT stack_id) FROM slice"), Rows{"5"});
  EXPECT_EQ(Run("SELECT s.parent_stack_id = p.stack_id FROM slice s JOIN slice p "
                "ON s.parent_id = p.id ORDER BY s.id"),
            (Rows{"1", "1", "1"}));
  EXPECT_EQ(Run("SELECT DISTINCT parent_stack_id FROM slice WHERE depth = 0"), Rows{"0"});
  // Every slice of the stack, its ancestors (each once) or descendants.
  EXPECT_EQ(Run("SELECT id, name FROM ancestor_slice_by_stack("
                "(SELECT stack_id FROM slice WHERE id = 1))"),
            Rows{"0|Outer"});
  EXPECT_EQ(Run("SELECT id, name FROM descendant_slice_by_stack("
                "(SELECT stack_id FROM slice WHERE id = 0))"),
            (Rows{"1|Inner", "2|Inner"}));
  EXPECT_EQ(Run("SELECT COUNT(*) FROM descendant_slice_by_stack(12345)"), Rows{"0"});
  EXPECT_EQ(Run("SELECT * FROM ancestor_slice_by_stack('x')"),
            Rows{"error: ancestor_slice_by_stack: the stack id must be an integer"});
}

// HASH gives upstream's numbers (the values of upstream's own diff test).
TEST_F(FunctionsTest, HashIsUpstreams) {
  EXPECT_EQ(Run("SELECT hash(1, 'hello', 42), hash('single_arg'), hash(1, 2, 3, 4, 5)"),
            Rows{"4730678220997103486|1309196097616646754|-6396149620914793052"});
  EXPECT_EQ(Run("SELECT hash(1.5)"),
            Rows{"error: hash: argument 1 is neither an integer nor text"});
}

// upstream's diff test's values.
TEST_F(FunctionsTest, ToTimecode) {
  EXPECT_EQ(Run("SELECT to_timecode(0), to_timecode(3599123456789), to_timecode(3600123456789)"),
            Rows{"00:00:00 000 000 000|00:59:59 123 456 789|01:00:00 123 456 789"});
  EXPECT_EQ(Run("SELECT to_timecode(-1500), to_timecode(NULL)"), Rows{"-00:00:00 000 001 500|NULL"});
}

TEST_F(FunctionsTest, StrSplitAndRegexp) {
  EXPECT_EQ(Run("SELECT str_split('a,b,,c', ',', 0), str_split('a,b,,c', ',', 2), "
                "str_split('a,b,,c', ',', 3), str_split('a::b', '::', 1), "
                "str_split('a', ',', 1), str_split(NULL, ',', 0)"),
            Rows{"a||c|b|NULL|NULL"});
  EXPECT_EQ(Run("SELECT str_split('a', '', 0)"),
            Rows{"error: str_split: the delimiter (2nd argument) must be a non-empty string"});
  EXPECT_EQ(Run("SELECT str_split('a', ',', -1)"),
            Rows{"error: str_split: the field number (3rd argument) must be a non-negative "
                 "integer"});
  EXPECT_EQ(Run("SELECT name FROM slice WHERE name REGEXP '^In' ORDER BY id"),
            (Rows{"Inner", "Inner", "Instant"}));
  EXPECT_EQ(Run("SELECT 'x' REGEXP NULL"), Rows{"error: regexp: the pattern must be text"});
  const Rows bad = Run("SELECT 'x' REGEXP '('");
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].rfind("error: regexp: bad pattern: ", 0), 0u) << bad[0];
}

TEST_F(FunctionsTest, TableFunctionsTakeTheirArgumentFromAJoin) {
  EXPECT_EQ(Run("SELECT s.name, a.name FROM slice s JOIN ancestor_slice(s.id) a "
                "ORDER BY s.id, a.id"),
            (Rows{"Inner|Outer", "Inner|Outer", "Instant|Work"}));
  // As upstream's docs write it: each slice's root.
  EXPECT_EQ(Run("SELECT s.id, (SELECT name FROM ancestor_slice(s.id) WHERE depth = 0) "
                "FROM slice s WHERE s.depth > 0 ORDER BY s.id"),
            (Rows{"1|Outer", "2|Outer", "4|Work"}));
  EXPECT_EQ(Run("SELECT s.name, COUNT(d.id) FROM slice s LEFT JOIN descendant_slice(s.id) d "
                "GROUP BY s.id ORDER BY s.id"),
            (Rows{"Outer|2", "Inner|0", "Inner|0", "Work|1", "Instant|0", "Async|0"}));
}

TEST_F(FunctionsTest, TableFunctionsNameWhatIsWrong) {
  EXPECT_EQ(Run("SELECT * FROM ancestor_slice(99)"),
            Rows{"error: ancestor_slice: no slice has id 99"});
  EXPECT_EQ(Run("SELECT * FROM descendant_slice('x')"),
            Rows{"error: descendant_slice: the slice id must be an integer"});
  EXPECT_EQ(Run("SELECT * FROM ancestor_slice"),
            Rows{"error: ancestor_slice: needs its argument, as in ancestor_slice(start_id)"});
}

TEST_F(FunctionsTest, DescendantsOfAnUnfinishedSliceRunToTheTrackEnd) {
  auto storage = MakeSampleStorage();
  // Children of Async (5, from 300, never ends) at 400 and, deeper, 405;
  // then a new root at 500 on the same track (not under Async: depth 0).
  auto add = [&](int64_t ts, int64_t dur, uint32_t depth, uint32_t parent) {
    storage->slice.ts.push_back(ts);
    storage->slice.dur.push_back(dur);
    storage->slice.track_id.push_back(2);
    storage->slice.category.push_back(kNullStringId);
    storage->slice.name.push_back(kNullStringId);
    storage->slice.depth.push_back(depth);
    storage->slice.parent_id.push_back(parent);
    storage->slice.arg_set_id.push_back(kNullId);
  };
  add(400, 10, 1, 5);
  add(405, 2, 2, 6);
  add(500, 10, 0, kNullId);
  Use(std::move(storage));
  EXPECT_EQ(Run("SELECT id FROM descendant_slice(5)"), (Rows{"6", "7"}));
  EXPECT_EQ(Run("SELECT id FROM ancestor_slice(7)"), (Rows{"5", "6"}));
}

TEST_F(FunctionsTest, FlowFunctionsOnTheSampleFlow) {
  // The sample's one flow: Inner (1, on main) -> Work (3, on worker).
  EXPECT_EQ(Run("SELECT id, slice_out, slice_in FROM directly_connected_flow(1)"),
            Rows{"0|1|3"});
  EXPECT_EQ(Run("SELECT id FROM DIRECTLY_CONNECTED_FLOW(3)"), Rows{"0"});  // Arriving.
  EXPECT_EQ(Run("SELECT COUNT(*) FROM directly_connected_flow(0)"), Rows{"0"});  // Its parent.
  EXPECT_EQ(Run("SELECT id FROM following_flow(0)"), Rows{"0"});   // Through a descendant.
  EXPECT_EQ(Run("SELECT id FROM preceding_flow(4)"), Rows{"0"});   // Through an ancestor.
  EXPECT_EQ(Run("SELECT COUNT(*) FROM following_flow(3)"), Rows{"0"});
  EXPECT_EQ(Run("SELECT COUNT(*) FROM preceding_flow(1)"), Rows{"0"});
  EXPECT_EQ(Run("SELECT * FROM following_flow(42)"),
            Rows{"error: following_flow: no slice has id 42"});
}

TEST_F(FunctionsTest, FlowFunctionsFollowChainsThroughNesting) {
  auto storage = MakeSampleStorage();
  // f0: Inner (1) -> Work (3), the sample's; f1: Instant (4, in Work) ->
  // Async (5); f2: Inner (2) -> Outer (0), a cycle through nesting.
  storage->flow.slice_out.push_back(4);
  storage->flow.slice_in.push_back(5);
  storage->flow.slice_out.push_back(2);
  storage->flow.slice_in.push_back(0);
  Use(std::move(storage));
  // Flows only: nothing leaves Work itself.
  EXPECT_EQ(Run("SELECT id FROM directly_connected_flow(1)"), Rows{"0"});
  // Work, then its child Instant, then on to Async.
  EXPECT_EQ(Run("SELECT id FROM following_flow(1)"), (Rows{"0", "1"}));
  // Back from Async to Instant, through its parent Work to Inner, through
  // Inner's parent Outer to the other Inner: every flow, each once.
  EXPECT_EQ(Run("SELECT id FROM preceding_flow(5)"), (Rows{"0", "1", "2"}));
  EXPECT_EQ(Run("SELECT id FROM preceding_flow(4)"), (Rows{"0", "2"}));
  // Upstream's documented query: how many flows follow each slice.
  EXPECT_EQ(Run("SELECT (SELECT COUNT(*) FROM FOLLOWING_FLOW(slice_id)) AS following "
                "FROM slice ORDER BY id"),
            (Rows{"3", "2", "3", "1", "1", "0"}));
}

TEST_F(FunctionsTest, SliceLayoutStacksEachTracksStalactitesWithoutOverlap) {
  // Outer [100, 200) with two Inners (track 0) and Work [160, 200) with an
  // Instant (track 1) overlap in time: Outer's box, first by start, takes
  // rows 0-1, Work's goes below. Async (track 2, from 300 on) fits at 0.
  EXPECT_EQ(Run("SELECT id, layout_depth FROM experimental_slice_layout('0,1')"),
            (Rows{"0|0", "1|1", "2|1", "3|2", "4|3"}));
  EXPECT_EQ(Run("SELECT s.name, l.layout_depth FROM experimental_slice_layout(' 2 ,0,x,') l "
                "JOIN slice s USING (id) WHERE s.depth = 0"),
            (Rows{"Outer|0", "Async|0"}));
  // The same arguments again: the kept layout.
  EXPECT_EQ(Run("SELECT COUNT(*) FROM experimental_slice_layout('0,1')"), Rows{"5"});
  EXPECT_EQ(Run("SELECT COUNT(*) FROM experimental_slice_layout('')"), Rows{"0"});
  EXPECT_EQ(Run("SELECT * FROM experimental_slice_layout(1)"),
            Rows{"error: experimental_slice_layout: filter_track_ids must be text: track ids "
                 "separated by commas, as '1,2'"});
  // The argument as upstream's UI gives it, through the hidden column.
  EXPECT_EQ(Run("SELECT id, layout_depth FROM experimental_slice_layout "
                "WHERE filter_track_ids = '2'"),
            Rows{"5|0"});
}

TEST_F(FunctionsTest, RegexpFlagsExtractAndReplace) {
  EXPECT_EQ(Run("SELECT regexp('^in', 'Inner', 'i'), regexp('^in', 'Inner', 'ic'), "
                "regexp('^in', 'Inner'), regexp('x', NULL, 'i')"),
            Rows{"1|0|0|NULL"});
  EXPECT_EQ(Run("SELECT regexp('x', 'x', 'g')"),
            Rows{"error: regexp: unknown flag 'g' (flags are 'i', ignore case, and 'c', heed it)"});
  // The whole match, or the one group when it matched.
  EXPECT_EQ(Run("SELECT regexp_extract('frame 42 of 90', '[0-9]+'), "
                "regexp_extract('frame 42', 'frame ([0-9]+)'), "
                "regexp_extract('frame', 'frame( [0-9]+)?'), regexp_extract('none', '[0-9]')"),
            Rows{"42|42|frame|NULL"});
  EXPECT_EQ(Run("SELECT regexp_extract('ab', '(a)(b)')"),
            Rows{"error: regexp_extract: the pattern has more than one group"});
  EXPECT_EQ(Run("SELECT regexp_replace_simple('a1b22c333', '[0-9]+', '#'), "
                "regexp_replace_simple('abc', 'x*', '-'), regexp_replace_simple('aXa', '^a', 'b'), "
                "regexp_replace_simple(NULL, 'a', 'b')"),
            Rows{"a#b#c#|-a-b-c-|bXa|NULL"});
}

TEST_F(FunctionsTest, ReverseBase64UnhexDemangle) {
  EXPECT_EQ(Run("SELECT reverse('abc'), reverse(''), reverse(NULL)"), Rows{"cba||NULL"});
  EXPECT_EQ(Run("SELECT reverse(12)"), Rows{"error: reverse: the argument must be text"});
  EXPECT_EQ(Run("SELECT base64_encode(x''), base64_encode(x'66'), base64_encode(x'666f'), "
                "base64_encode(CAST('foob' AS BLOB)), base64_encode(CAST('fooba' AS BLOB))"),
            Rows{"|Zg==|Zm8=|Zm9vYg==|Zm9vYmE="});
  EXPECT_EQ(Run("SELECT CAST(base64_decode('Zm9vYmFy') AS TEXT), hex(base64_decode('Zg')), "
                "typeof(base64_decode('Zm8='))"),
            Rows{"foobar|66|blob"});
  EXPECT_EQ(Run("SELECT base64_decode('Zm9v!')"),
            Rows{"error: base64_decode: not base64 at character 5"});
  EXPECT_EQ(Run("SELECT base64_encode('text')"),
            Rows{"error: base64_encode: the argument must be bytes (a BLOB)"});
  EXPECT_EQ(Run("SELECT unhex('ff'), unhex(' 0x7FFFFFFFFFFFFFFF '), unhex('-10'), unhex(NULL)"),
            Rows{"255|9223372036854775807|-16|NULL"});
  EXPECT_EQ(Run("SELECT unhex('0x')"), Rows{"error: unhex: no hex digits"});
  EXPECT_EQ(Run("SELECT unhex('12g')"), Rows{"error: unhex: not a hex digit in the text"});
  EXPECT_EQ(Run("SELECT unhex('10000000000000000')"), Rows{"error: unhex: out of range"});
  EXPECT_EQ(Run("SELECT demangle('_ZN2zt9processor3sql4HashEv'), demangle('main'), demangle(NULL)"),
            Rows{"zt::processor::sql::Hash()|NULL|NULL"});
}

TEST_F(FunctionsTest, PrintArgsNestsTheSetAsJson) {
  EXPECT_EQ(Run("SELECT PRINT_ARGS(0), PRINT_ARGS(1), PRINT_ARGS(7), PRINT_ARGS(NULL)"),
            Rows{"{\"debug\":{\"count\":3,\"name\":\"x\",\"ratio\":0.25}}|"
                 "{\"debug\":{\"flag\":true}}|{}|NULL"});
  EXPECT_EQ(Run("SELECT PRINT_ARGS('x')"),
            Rows{"error: PRINT_ARGS: the arg set id must be an integer"});
}

TEST_F(FunctionsTest, ClockConversionsFollowTheSnapshots) {
  EXPECT_EQ(Run("SELECT to_realtime(100), to_monotonic(100), abs_time_str(100)"),
            Rows{"NULL|NULL|NULL"});  // The sample has no snapshots.
  auto storage = MakeSampleStorage();
  auto add = [&](int64_t ts, int64_t clock, int64_t value, uint32_t snapshot) {
    ClockSnapshotTable& c = storage->clock_snapshot;
    c.ts.push_back(ts);
    c.clock_id.push_back(clock);
    c.clock_name.push_back(clock == 1 ? "REALTIME" : "BOOTTIME");
    c.clock_value.push_back(value);
    c.snapshot_id.push_back(snapshot);
  };
  // Realtime ran slower than the trace clock between the snapshots.
  add(1000, 6, 1000, 0);
  add(1000, 1, 5000, 0);
  add(2000, 6, 2000, 1);
  add(2000, 1, 5500, 1);
  Use(std::move(storage));
  EXPECT_EQ(Run("SELECT to_realtime(500), to_realtime(1000), to_realtime(1200), "
                "to_realtime(1800), to_realtime(2000), to_realtime(3000), to_realtime(NULL)"),
            Rows{"5000|5000|5200|5500|5500|6500|NULL"});
  EXPECT_EQ(Run("SELECT to_monotonic(1000)"), Rows{"NULL"});
  // After the last snapshot: its offset (1,700,000,000 s is 2023-11-14
  // 22:13:20 UTC).
  EXPECT_EQ(Run("SELECT abs_time_str(1000), abs_time_str(1699999999999996500 + 1)"),
            Rows{"1970-01-01T00:00:00.000005000|2023-11-14T22:13:20.000000001"});
  // Found by review: past int64 wrapped around; it is NULL.
  EXPECT_EQ(Run("SELECT to_realtime(9223372036854775807), abs_time_str(9223372036854775807)"),
            Rows{"NULL|NULL"});
  EXPECT_EQ(Run("SELECT to_realtime('x')"),
            Rows{"error: to_realtime: the timestamp must be an integer"});
  EXPECT_EQ(Run("SELECT snapshot_id, clock_name, clock_value FROM clock_snapshot WHERE ts = 2000"),
            (Rows{"1|BOOTTIME|2000", "1|REALTIME|5500"}));
}

TEST_F(FunctionsTest, SelfDurAndHierarchyModules) {
  // Outer [100, 200) holds Inner 30 and Inner 20: self 50. Work 40 holds
  // an instant: self 40. Async never ended: -1.
  EXPECT_EQ(Run("INCLUDE PERFETTO MODULE slices.self_dur; "
                "SELECT id, self_dur FROM slice_self_dur ORDER BY id"),
            (Rows{"0|50", "1|30", "2|20", "3|40", "4|0", "5|-1"}));
  EXPECT_EQ(Run("INCLUDE PERFETTO MODULE slices.hierarchy; "
                "SELECT id, name FROM _slice_ancestor_and_self(1)"),
            (Rows{"1|Inner", "0|Outer"}));
  EXPECT_EQ(Run("INCLUDE PERFETTO MODULE slices.hierarchy; "
                "SELECT id, name FROM _slice_descendant_and_self(0)"),
            (Rows{"0|Outer", "1|Inner", "2|Inner"}));
}

TEST_F(FunctionsTest, SliceLayoutKeepsAnInstantAtABoxStartFromHidingTheBox) {
  // Found by review: A [100, 110) with a child (track 0), B an instant at
  // 100 (track 1), C [105, 106) (track 2). B shares row 0 with A's start;
  // C must not land on row 0 or 1, which A takes.
  auto storage = std::make_unique<TraceStorage>();
  auto add = [&](int64_t ts, int64_t dur, uint32_t track, uint32_t depth, uint32_t parent) {
    storage->slice.ts.push_back(ts);
    storage->slice.dur.push_back(dur);
    storage->slice.track_id.push_back(track);
    storage->slice.category.push_back(kNullStringId);
    storage->slice.name.push_back(kNullStringId);
    storage->slice.depth.push_back(depth);
    storage->slice.parent_id.push_back(parent);
    storage->slice.arg_set_id.push_back(kNullId);
  };
  add(100, 10, 0, 0, kNullId);
  add(100, 0, 1, 0, kNullId);
  add(101, 1, 0, 1, 0);
  add(105, 1, 2, 0, kNullId);
  Use(std::move(storage));
  EXPECT_EQ(Run("SELECT id, layout_depth FROM experimental_slice_layout('0,1,2')"),
            (Rows{"0|0", "1|0", "2|1", "3|2"}));
}

TEST_F(FunctionsTest, ExtractMetadataReadsAnEntryOfTheOneTrace) {
  EXPECT_EQ(Run("SELECT extract_metadata('trace_size_bytes')"), Rows{"1234"});
  EXPECT_EQ(Run("SELECT typeof(extract_metadata('trace_size_bytes')), "
                "typeof(extract_metadata('trace_uuid')), extract_metadata('nothing') IS NULL"),
            Rows{"integer|text|1"});
  // Trace 0 on the host (NULL or 0): the one there is; others have none.
  EXPECT_EQ(Run("SELECT extract_metadata_for_trace(0, 'trace_size_bytes'), "
                "extract_metadata_for_trace(1, 'trace_size_bytes') IS NULL, "
                "extract_metadata_for_machine(NULL, 'trace_size_bytes'), "
                "extract_metadata_for_machine(0, 'trace_size_bytes'), "
                "extract_metadata_for_machine(3, 'trace_size_bytes') IS NULL"),
            Rows{"1234|1|1234|1234|1"});
  EXPECT_EQ(Run("SELECT DISTINCT machine_id IS NULL, trace_id FROM metadata"), Rows{"1|0"});
}

TEST_F(FunctionsTest, StringAggJoinsTheValuesThatAreNotNull) {
  EXPECT_EQ(Run("SELECT string_agg(name, ', ') FROM (SELECT name FROM slice ORDER BY id)"),
            Rows{"Outer, Inner, Inner, Work, Instant, Async"});
  EXPECT_EQ(Run("SELECT string_agg(x, '-') FROM (SELECT 'a' AS x UNION ALL SELECT NULL "
                "UNION ALL SELECT 'b')"),
            Rows{"a-b"});
  EXPECT_EQ(Run("SELECT string_agg(x, NULL) FROM (SELECT 'a' AS x UNION ALL SELECT 'b')"),
            Rows{"ab"});
  EXPECT_EQ(Run("SELECT string_agg(name, ',') IS NULL FROM slice WHERE 0"), Rows{"1"});
  EXPECT_EQ(Run("SELECT track_id, string_agg(name, '+') FROM slice GROUP BY track_id "
                "ORDER BY track_id"),
            (Rows{"0|Outer+Inner+Inner", "1|Work+Instant", "2|Async"}));
}

// Perfetto UI's distribution panel asks PERCENTILE(dur, 50) ... (99.9)
// for a slice's name: SQLite's percentile extension, which Debian's
// SQLite lacks.
TEST_F(FunctionsTest, PercentilesInterpolateBetweenTheValuesAroundThem) {
  const std::string values =
      " FROM (SELECT 4 AS x UNION ALL SELECT 1 UNION ALL SELECT NULL UNION ALL SELECT 3 "
      "UNION ALL SELECT 2)";
  EXPECT_EQ(Run("SELECT percentile(x, 0), percentile(x, 50), percentile(x, 100), "
                "percentile(x, 99.9) > 3.99" + values),
            Rows{"1.0|2.5|4.0|1"});
  EXPECT_EQ(Run("SELECT percentile(x, 50)" + values), Run("SELECT median(x)" + values));
  EXPECT_EQ(Run("SELECT percentile_cont(x, 0.25)" + values), Rows{"1.75"});
  EXPECT_EQ(Run("SELECT percentile(dur, 50) IS NULL FROM slice WHERE 0"), Rows{"1"});
  EXPECT_EQ(Run("SELECT track_id, percentile(dur, 50) FROM slice WHERE dur >= 0 "
                "GROUP BY track_id ORDER BY track_id LIMIT 1"),
            Run("SELECT 0, (SELECT median(dur) FROM slice WHERE track_id = 0 AND dur >= 0)"));
  EXPECT_EQ(Run("SELECT percentile(x, 101)" + values),
            Rows{"error: PERCENTILE: the percentile must be a number from 0 to 100"});
  EXPECT_EQ(Run("SELECT percentile(x, x)" + values),
            Rows{"error: PERCENTILE: the percentile must be the same for every row"});
  EXPECT_EQ(Run("SELECT percentile('a', 50)"),
            Rows{"error: PERCENTILE: the values must be numbers"});
  // Numbers only, as SQLite's own: text that looks like one too.
  EXPECT_EQ(Run("SELECT median('7')"), Rows{"error: MEDIAN: the values must be numbers"});
  EXPECT_EQ(Run("SELECT percentile_cont(x, 2)" + values),
            Rows{"error: PERCENTILE_CONT: the percentile must be a number from 0 to 1"});
  // On a value exactly, that value, an infinite one too.
  EXPECT_EQ(Run("SELECT percentile(x, 0), percentile(x, 100) > 1e308 FROM "
                "(SELECT 1 AS x UNION ALL SELECT 9e999)"),
            Rows{"1.0|1"});
}

// As window functions: a running median (values kept sorted from the
// first result on) and a sliding one (rows leaving the frame).
TEST_F(FunctionsTest, PercentilesOverWindows) {
  const std::string values =
      " FROM (SELECT 1 AS id, 5 AS x UNION ALL SELECT 2, 1 UNION ALL SELECT 3, 4 "
      "UNION ALL SELECT 4, 2)";
  EXPECT_EQ(Run("SELECT median(x) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND "
                "CURRENT ROW)" + values),
            (Rows{"5.0", "3.0", "4.0", "3.0"}));
  EXPECT_EQ(Run("SELECT median(x) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)" +
                values),
            (Rows{"5.0", "3.0", "2.5", "3.0"}));
}

TEST_F(FunctionsTest, InternalLayoutGivesOverlappingSpansTheLowestFreeDepth) {
  const std::string spans =
      "(SELECT 1 AS id, 0 AS ts, 10 AS dur, 'a' AS g UNION ALL "  // depth 0 until 10
      "SELECT 2, 2, 3, 'a' UNION ALL "                            // 1 until 5
      "SELECT 3, 4, 0, 'a' UNION ALL "                            // an instant: 2, not held
      "SELECT 4, 5, 1, 'a' UNION ALL "                            // 1 again (freed at 5)
      "SELECT 5, 6, -1, 'a' UNION ALL "                           // 1 (freed at 6), held for ever
      "SELECT 6, 10, 1, 'a' UNION ALL "                           // 0 (freed at 10)
      "SELECT 7, 0, 5, 'b')";                                     // its own partition
  EXPECT_EQ(Run("SELECT id, internal_layout(ts, dur) OVER (PARTITION BY g ORDER BY ts ROWS "
                "BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM " + spans + " ORDER BY id"),
            (Rows{"1|0", "2|1", "3|2", "4|1", "5|1", "6|0", "7|0"}));
  EXPECT_NE(Run("SELECT internal_layout(ts, dur) OVER (ORDER BY ts DESC ROWS BETWEEN UNBOUNDED "
                "PRECEDING AND CURRENT ROW) FROM " + spans).back().find("ts order"),
            std::string::npos);
  EXPECT_NE(Run("SELECT internal_layout(ts, -5) OVER (ORDER BY ts) FROM slice").back().find(
                "less than -1"),
            std::string::npos);
}

}  // namespace
}  // namespace sql
}  // namespace processor
}  // namespace zt
