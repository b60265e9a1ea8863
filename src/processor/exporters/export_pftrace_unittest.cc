#include "src/processor/exporters/export_pftrace.h"

#include <stdio.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "src/processor/exporters/export_json.h"
#include "src/processor/test/sample_storage.h"
#include "src/processor/importers/trace_importer.h"
#include "zt/protozero/proto_decoder.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/trace/track_event/track_descriptor.pbzero.h"
#include "zt/trace/track_event/track_event.pbzero.h"

namespace zt {
namespace processor {
namespace {

using test::AddArg;
using test::AddCounter;
using test::AddFlow;
using test::AddProcess;
using test::AddSlice;
using test::AddThread;
using test::AddTrack;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string Export(const TraceStorage& storage, PftraceExportResult* result = nullptr) {
  std::string bytes;
  StringJsonSink sink(&bytes);
  PftraceExportResult r = ExportPftrace(storage, &sink);
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.bytes, bytes.size());
  if (result) *result = r;
  return bytes;
}

// Imports `bytes` with our importer and checks it raised no error or data
// loss stat, and no info stat but the expected ones.
void Import(const std::string& bytes, TraceStorage* out,
            const std::set<std::string>& allowed_info = {}) {
  const ImportResult imported = ImportTrace(bytes.data(), bytes.size(), out);
  EXPECT_EQ(imported.tokenizer.damage, TraceDamage::kNone);
  for (int k = 0; k < stats::kNumKeys; ++k) {
    const auto key = static_cast<stats::Key>(k);
    const stats::Descriptor& d = stats::Describe(key);
    const int64_t value =
        d.type == stats::kIndexed ? out->stats.GetIndexedTotal(key) : out->stats.Get(key);
    if (value == 0) continue;
    EXPECT_TRUE(d.severity == stats::kInfo && allowed_info.count(d.name))
        << "stat " << d.name << " = " << value;
  }
}

std::string TrackText(const TraceStorage& s, uint32_t t) {
  if (t >= s.track.size()) return "no track";
  auto str = [&](StringId id) { return std::string(s.strings.IsNull(id) ? "-" : s.strings.Get(id)); };
  const uint32_t utid = s.track.utid[t];
  const uint32_t upid = s.track.upid[t];
  switch (s.track.kind[t]) {
    case TrackKind::kThread:
      return "thread " + std::to_string(s.thread.tid[utid]) + " " + str(s.thread.name[utid]) +
             " in " + std::to_string(s.process.pid[s.thread.upid[utid]]) + " track " +
             str(s.track.name[t]);
    case TrackKind::kProcess:
      return "process " + std::to_string(s.process.pid[upid]) + " " + str(s.process.name[upid]) +
             " track " + str(s.track.name[t]);
    case TrackKind::kGlobal:
      return "global " + str(s.track.name[t]);
    case TrackKind::kCounter:
      return "counter " + str(s.track.name[t]) + " unit " + str(s.track.unit[t]);
  }
  return "?";
}

std::string ArgsText(const TraceStorage& s, uint32_t set) {
  std::vector<std::string> args;
  for (uint32_t i = 0; i < s.args.size(); ++i) {
    if (set == kNullId || s.args.arg_set_id[i] != set) continue;
    std::string value;
    switch (s.args.value_type[i]) {
      case ArgType::kString:
      case ArgType::kJson:
        value = std::string(s.strings.Get(s.args.string_value[i]));
        break;
      case ArgType::kReal:
        value = std::to_string(s.args.real_value[i]);
        break;
      case ArgType::kNull:
        break;
      default:
        value = std::to_string(s.args.int_value[i]);
    }
    args.push_back(std::string(s.strings.Get(s.args.key[i])) + "=" +
                   ArgTypeName(s.args.value_type[i]) + ":" + value);
  }
  std::sort(args.begin(), args.end());
  std::string text;
  for (const std::string& a : args) text += " " + a;
  return text;
}

std::string SliceText(const TraceStorage& s, uint32_t i) {
  auto str = [&](StringId id) { return std::string(s.strings.IsNull(id) ? "-" : s.strings.Get(id)); };
  std::string parent = s.slice.parent_id[i] == kNullId ? "-" : str(s.slice.name[s.slice.parent_id[i]]);
  return str(s.slice.name[i]) + " ts " + std::to_string(s.slice.ts[i]) + " dur " +
         std::to_string(s.slice.dur[i]) + " depth " + std::to_string(s.slice.depth[i]) +
         " parent " + parent + " cat " + str(s.slice.category[i]) + " on " +
         TrackText(s, s.slice.track_id[i]) + " args" + ArgsText(s, s.slice.arg_set_id[i]);
}

// Every slice, counter value and flow as a line, sorted: what a round trip
// must keep.
std::vector<std::string> ModelText(const TraceStorage& s) {
  std::vector<std::string> lines;
  for (uint32_t i = 0; i < s.slice.size(); ++i) lines.push_back("slice " + SliceText(s, i));
  for (uint32_t i = 0; i < s.counter.size(); ++i) {
    lines.push_back("counter " + std::to_string(s.counter.ts[i]) + " " +
                    std::to_string(s.counter.value[i]) + " on " +
                    TrackText(s, s.counter.track_id[i]));
  }
  for (uint32_t i = 0; i < s.flow.size(); ++i) {
    lines.push_back("flow " + std::string(s.strings.Get(s.slice.name[s.flow.slice_out[i]])) +
                    " -> " + std::string(s.strings.Get(s.slice.name[s.flow.slice_in[i]])));
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

struct Packet {
  uint32_t sequence_id = 0;
  bool has_flags = false;
  uint32_t flags = 0;
  bool first_on_sequence = false;
  uint64_t descriptor_uuid = 0;  // 0: no descriptor.
  bool has_event = false;
  uint64_t event_track_uuid = 0;
  int event_type = 0;
  uint64_t ts = 0;
};

// The packets, decoded with protozero (independent of our importer).
std::vector<Packet> Decode(const std::string& bytes) {
  std::vector<Packet> packets;
  protozero::ProtoDecoder trace(bytes.data(), bytes.size());
  for (protozero::Field f = trace.ReadField(); f.valid(); f = trace.ReadField()) {
    EXPECT_EQ(f.id(), 1u);
    protos::pbzero::TracePacket_Decoder p(f.data(), f.size());
    Packet packet;
    packet.sequence_id = p.trusted_packet_sequence_id();
    packet.has_flags = p.has_sequence_flags();
    packet.flags = p.sequence_flags();
    packet.first_on_sequence = p.first_packet_on_sequence();
    packet.ts = p.timestamp();
    if (p.has_track_descriptor()) {
      protos::pbzero::TrackDescriptor_Decoder d(p.track_descriptor().data,
                                                p.track_descriptor().size);
      packet.descriptor_uuid = d.uuid();
    }
    if (p.has_track_event()) {
      protos::pbzero::TrackEvent_Decoder e(p.track_event().data, p.track_event().size);
      packet.has_event = true;
      packet.event_track_uuid = e.track_uuid();
      packet.event_type = e.type();
    }
    packets.push_back(packet);
  }
  EXPECT_FALSE(trace.parse_error());
  EXPECT_EQ(trace.bytes_left(), 0u);
  return packets;
}

TEST(ExportPftraceTest, SampleStorageRoundTripsThroughOurImporter) {
  TraceStorage storage;
  test::FillSampleStorage(&storage);
  PftraceExportResult result;
  const std::string bytes = Export(storage, &result);
  TraceStorage back;
  Import(bytes, &back, {"slices_unterminated"});
  EXPECT_THAT(ModelText(back), ::testing::ContainerEq(ModelText(storage)));
  EXPECT_EQ(back.slice.dur[back.slice.size() - 1], -1);
  // The sample's only loss: nothing (all is representable).
  EXPECT_THAT(result.notes, IsEmpty());
  EXPECT_EQ(result.packets, Decode(bytes).size());
}

TEST(ExportPftraceTest, OneSequenceClearedFirstAndDescriptorsBeforeEvents) {
  TraceStorage storage;
  test::FillSampleStorage(&storage);
  const std::vector<Packet> packets = Decode(Export(storage));
  ASSERT_GT(packets.size(), 2u);
  EXPECT_TRUE(packets[0].first_on_sequence);
  EXPECT_EQ(packets[0].flags, 1u);  // SEQ_INCREMENTAL_STATE_CLEARED
  std::set<uint64_t> described;
  bool seen_event = false;
  uint64_t last_ts = 0;
  int begins = 0, ends = 0, instants = 0, counters = 0;
  for (size_t i = 0; i < packets.size(); ++i) {
    const Packet& p = packets[i];
    EXPECT_EQ(p.sequence_id, 1u) << i;
    if (i > 0) {
      EXPECT_FALSE(p.first_on_sequence) << i;
    }
    if (p.descriptor_uuid) {
      EXPECT_FALSE(seen_event) << "descriptor after an event, packet " << i;
      EXPECT_TRUE(described.insert(p.descriptor_uuid).second) << "uuid twice";
    }
    if (p.has_event) {
      seen_event = true;
      EXPECT_EQ(p.flags, 2u) << i;  // SEQ_NEEDS_INCREMENTAL_STATE
      EXPECT_TRUE(described.count(p.event_track_uuid)) << "undescribed track, packet " << i;
      EXPECT_GE(p.ts, last_ts) << "time goes back at packet " << i;
      last_ts = p.ts;
      begins += p.event_type == 1;
      ends += p.event_type == 2;
      instants += p.event_type == 3;
      counters += p.event_type == 4;
    }
  }
  // 9 slices: one instant, one unterminated; 2 counter values.
  EXPECT_EQ(begins, 8);
  EXPECT_EQ(ends, 7);
  EXPECT_EQ(instants, 1);
  EXPECT_EQ(counters, 2);
}

// Ends and begins at one time: a sibling's begin after the end, a child's
// (or an instant inside) before it; a child that ends with its parent.
TEST(ExportPftraceTest, NestingAtEqualTimesIsKept) {
  TraceStorage s;
  AddProcess(&s, 0, "");
  const uint32_t upid = AddProcess(&s, 10, "p");
  AddThread(&s, 0, kNullId, "");
  const uint32_t utid = AddThread(&s, 11, upid, "t");
  const uint32_t track = AddTrack(&s, TrackKind::kThread, "", utid, kNullId);
  const uint32_t a = AddSlice(&s, 100, 100, track, "A");
  AddSlice(&s, 150, 50, track, "A.child_to_end", 1, a);
  AddSlice(&s, 200, 0, track, "A.instant_at_end", 1, a);
  const uint32_t b = AddSlice(&s, 200, 100, track, "B");
  AddSlice(&s, 200, 0, track, "B.instant_at_begin", 1, b);
  const uint32_t c = AddSlice(&s, 200, 100, track, "B.child_whole", 1, b);
  AddSlice(&s, 300, 0, track, "C.instant_at_end", 2, c);
  AddSlice(&s, 300, -1, track, "D.open");
  AddSlice(&s, 400, 10, track, "D.child", 1, 7);
  PftraceExportResult result;
  const std::string bytes = Export(s, &result);
  EXPECT_THAT(result.notes, IsEmpty());
  TraceStorage back;
  Import(bytes, &back, {"slices_unterminated"});
  EXPECT_THAT(ModelText(back), ::testing::ContainerEq(ModelText(s)));
}

// A recursion 600 deep: Perfetto's importer keeps stacks 512 deep, so the
// slices below are left out (begin and end) and noted; the rest reads back
// exactly, with no misplaced end.
TEST(ExportPftraceTest, SlicesDeeperThanReadersKeepAreNoted) {
  TraceStorage s;
  AddProcess(&s, 0, "");
  AddThread(&s, 0, kNullId, "");
  const uint32_t track = AddTrack(&s, TrackKind::kGlobal, "deep", kNullId, kNullId);
  uint32_t parent = kNullId;
  for (uint32_t depth = 0; depth < 600; depth++)
    parent = AddSlice(&s, 1000 + depth, 2000 - 2 * depth, track, "rec", depth, parent);
  PftraceExportResult result;
  const std::string bytes = Export(s, &result);
  ASSERT_EQ(result.notes.size(), 1u);
  EXPECT_THAT(result.notes[0], HasSubstr("slices nested 512 or more deep skipped"));
  EXPECT_THAT(result.notes[0], HasSubstr("88")) << result.notes[0];
  TraceStorage back;
  Import(bytes, &back);
  ASSERT_EQ(back.slice.size(), 512u);
  for (uint32_t i = 0; i < 512; i++) {
    EXPECT_EQ(back.slice.depth[i], i);
    EXPECT_EQ(back.slice.dur[i], 2000 - 2 * int64_t{i});
  }
}

TEST(ExportPftraceTest, ArgsOfEveryTypeAndNestedKeys) {
  TraceStorage s;
  AddProcess(&s, 0, "");
  const uint32_t track = AddTrack(&s, TrackKind::kGlobal, "g", kNullId, kNullId);
  const uint32_t x = AddSlice(&s, 10, 5, track, "X", 0, kNullId, "");
  AddArg(&s, x, "debug.i", ArgType::kInt, -5);
  AddArg(&s, x, "debug.u", ArgType::kUint, -1);  // 2^64 - 1
  AddArg(&s, x, "debug.s", ArgType::kString, 0, "text");
  AddArg(&s, x, "debug.r", ArgType::kReal, 0, {}, 0.25);
  AddArg(&s, x, "debug.b", ArgType::kBool, 1);
  AddArg(&s, x, "debug.p", ArgType::kPointer, 0x1234);
  AddArg(&s, x, "debug.d.e.f", ArgType::kInt, 7);
  AddArg(&s, x, "debug.d.g", ArgType::kString, 0, "text");
  AddArg(&s, x, "debug.a[0]", ArgType::kInt, 1);
  AddArg(&s, x, "debug.a[1].k", ArgType::kInt, 2);
  const uint32_t y = AddSlice(&s, 20, 5, track, "Y", 0, kNullId, "");
  AddArg(&s, y, "debug.s", ArgType::kString, 0, "text");  // Interned once.
  PftraceExportResult result;
  const std::string bytes = Export(s, &result);
  EXPECT_THAT(result.notes, IsEmpty());
  TraceStorage back;
  Import(bytes, &back);
  EXPECT_THAT(ModelText(back), ::testing::ContainerEq(ModelText(s)));
  // Strings interned: "text" is in the output once.
  size_t count = 0;
  for (size_t pos = bytes.find("text"); pos != std::string::npos; pos = bytes.find("text", pos + 1))
    ++count;
  EXPECT_EQ(count, 1u);
}

TEST(ExportPftraceTest, WhatCannotBeWrittenIsNoted) {
  TraceStorage s;
  AddProcess(&s, 0, "");
  const uint32_t upid = AddProcess(&s, 20, "idle_process");
  AddThread(&s, 0, kNullId, "");
  AddThread(&s, 21, upid, "idle_thread");
  const uint32_t track = AddTrack(&s, TrackKind::kGlobal, "g", kNullId, kNullId);
  const uint32_t x = AddSlice(&s, -5, 5, track, "Early");
  const uint32_t y = AddSlice(&s, 10, 5, track, "Y");
  AddArg(&s, y, "debug.n", ArgType::kNull, 0);
  AddArg(&s, y, "debug.c", ArgType::kInt, 1);
  AddArg(&s, y, "debug.c.d", ArgType::kInt, 2);  // Clashes with c.
  AddArg(&s, y, "legacy.key", ArgType::kInt, 3);
  AddFlow(&s, y, x);
  s.metadata.name.push_back(s.strings.Intern("trace_uuid"));
  s.metadata.int_value.push_back(kNullInt);
  s.metadata.str_value.push_back(s.strings.Intern("abc"));
  s.stats.Increment(stats::misplaced_end_event);
  PftraceExportResult result;
  const std::string bytes = Export(s, &result);
  const std::string notes = ::testing::PrintToString(result.notes);
  EXPECT_THAT(notes, HasSubstr("before time 0 skipped"));
  EXPECT_THAT(notes, HasSubstr("null args"));
  EXPECT_THAT(notes, HasSubstr("clashes"));
  EXPECT_THAT(notes, HasSubstr("not keyed \\\"debug.*\\\""));
  EXPECT_THAT(notes, HasSubstr("flows not written"));
  EXPECT_THAT(notes, HasSubstr("no slices or counters: not written: 2"));
  EXPECT_THAT(notes, HasSubstr("metadata rows (not in the trace): 1 (first: trace_uuid)"));
  EXPECT_THAT(notes, HasSubstr("misplaced_end_event=1 (data_loss)"));
  TraceStorage back;
  Import(bytes, &back);
  ASSERT_EQ(back.slice.size(), 1u);
  EXPECT_EQ(ArgsText(back, back.slice.arg_set_id[0]),
            " debug.c=int:1 debug.legacy.key=int:3 debug.n=null:");
}

TEST(ExportPftraceTest, EmptyStorageIsAValidTrace) {
  TraceStorage s;
  const std::string bytes = Export(s);
  const std::vector<Packet> packets = Decode(bytes);
  ASSERT_EQ(packets.size(), 1u);
  EXPECT_EQ(packets[0].flags, 1u);
  TraceStorage back;
  Import(bytes, &back);
  EXPECT_EQ(back.slice.size(), 0u);
}

class FailingSink : public JsonSink {
 public:
  bool Write(const char*, size_t, std::string* error) override {
    *error = "No space left on device";
    return false;
  }
};

TEST(ExportPftraceTest, SinkErrorsFailTheExport) {
  TraceStorage s;
  test::FillSampleStorage(&s);
  FailingSink sink;
  const PftraceExportResult result = ExportPftrace(s, &sink);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.error, "No space left on device");
  EXPECT_EQ(result.bytes, 0u);
}

// Bounded: a large storage goes out in many writes of about 64 KiB.
class CountingSink : public JsonSink {
 public:
  bool Write(const char*, size_t size, std::string*) override {
    max_write = std::max(max_write, size);
    total += size;
    ++writes;
    return true;
  }
  size_t max_write = 0;
  size_t total = 0;
  size_t writes = 0;
};

TEST(ExportPftraceTest, StreamsInBoundedWritesWithProgress) {
  TraceStorage s;
  AddProcess(&s, 0, "");
  const uint32_t track = AddTrack(&s, TrackKind::kGlobal, "g", kNullId, kNullId);
  for (int i = 0; i < 50000; ++i) AddSlice(&s, i * 10, 5, track, "S" + std::to_string(i % 100));
  CountingSink sink;
  PftraceExportOptions options;
  uint64_t last_done = 0, last_total = 0;
  options.progress = [&](uint64_t done, uint64_t total) {
    last_done = done;
    last_total = total;
  };
  const PftraceExportResult result = ExportPftrace(s, &sink, options);
  ASSERT_TRUE(result.ok);
  EXPECT_GT(sink.writes, 10u);
  EXPECT_LT(sink.max_write, 80u << 10);
  EXPECT_EQ(sink.total, result.bytes);
  EXPECT_EQ(last_done, 50000u);
  EXPECT_EQ(last_total, 50000u);
}

// A Templight track: each slice with a row gets the row's args, in the
// Perfetto trace and in the JSON alike.
TEST(ExportPftraceTest, TemplightRowsBecomeArgsInPftraceAndJson) {
  TraceStorage s;
  AddProcess(&s, 0, "");
  const uint32_t track = AddTrack(&s, TrackKind::kGlobal, "unit.cpp", kNullId, kNullId);
  const uint32_t outer = AddSlice(&s, 1000, 500, track, "std::vector<int>", 0, kNullId, "");
  AddSlice(&s, 1100, 100, track, "std::allocator<int>", 1, outer, "");
  AddSlice(&s, 1600, -1, track, "Open<T>", 0, kNullId, "");
  AddArg(&s, 2, "debug.extra", ArgType::kInt, 9);  // Merged with the row's args.
  TemplightInstantiationTable& t = s.templight;
  auto add_row = [&](uint32_t slice, uint32_t kind, const char* kind_name, const char* file,
                     uint32_t line, const char* origin, uint64_t mem_begin, uint64_t mem_end) {
    t.slice_id.push_back(slice);
    t.kind.push_back(kind);
    t.kind_name.push_back(kind_name ? s.strings.Intern(kind_name) : kNullStringId);
    t.file.push_back(file ? s.strings.Intern(file) : kNullStringId);
    t.line.push_back(line);
    t.column.push_back(3);
    t.origin_file.push_back(origin ? s.strings.Intern(origin) : kNullStringId);
    t.origin_line.push_back(origin ? 40 : 0);
    t.origin_column.push_back(origin ? 5 : 0);
    t.memory_begin.push_back(mem_begin);
    t.memory_end.push_back(mem_end);
  };
  add_row(0, 0, "TemplateInstantiation", "/src/vector.h", 12, "/src/unit.cpp", 1000,
          uint64_t{1} << 40);
  add_row(1, 99, nullptr, nullptr, 0, nullptr, 0, 0);
  add_row(2, 1, "DefaultTemplateArgumentInstantiation", "/src/open.h", 7, nullptr, 5, 0);
  TemplightUnitRow unit;
  unit.track_id = track;
  unit.version = 2;
  unit.source_file = s.strings.Intern("unit.cpp");
  s.templight_units.push_back(unit);

  PftraceExportResult result;
  const std::string bytes = Export(s, &result);
  ASSERT_EQ(result.notes.size(), 1u);
  EXPECT_THAT(result.notes[0], HasSubstr("Templight unit headers"));
  TraceStorage back;
  Import(bytes, &back, {"slices_unterminated"});
  ASSERT_EQ(back.slice.size(), 3u);
  EXPECT_EQ(ArgsText(back, back.slice.arg_set_id[0]),
            " debug.column=int:3 debug.file=string:/src/vector.h debug.kind=int:0"
            " debug.kind_name=string:TemplateInstantiation debug.line=int:12"
            " debug.memory_begin=uint:1000 debug.memory_end=uint:1099511627776"
            " debug.origin_column=int:5 debug.origin_file=string:/src/unit.cpp"
            " debug.origin_line=int:40");
  EXPECT_EQ(ArgsText(back, back.slice.arg_set_id[1]),
            " debug.column=int:3 debug.kind=int:99 debug.line=int:0");
  EXPECT_EQ(ArgsText(back, back.slice.arg_set_id[2]),
            " debug.column=int:3 debug.extra=int:9 debug.file=string:/src/open.h debug.kind=int:1"
            " debug.kind_name=string:DefaultTemplateArgumentInstantiation debug.line=int:7"
            " debug.memory_begin=uint:5");
  EXPECT_EQ(back.slice.dur[2], -1);

  std::string json;
  StringJsonSink json_sink(&json);
  const JsonExportResult json_result = ExportJson(s, &json_sink);
  ASSERT_TRUE(json_result.ok);
  EXPECT_THAT(json, HasSubstr(
      "\"args\":{\"kind\":0,\"kind_name\":\"TemplateInstantiation\",\"file\":\"/src/vector.h\","
      "\"line\":12,\"column\":3,\"origin_file\":\"/src/unit.cpp\",\"origin_line\":40,"
      "\"origin_column\":5,\"memory_begin\":1000,\"memory_end\":1099511627776}"));
  EXPECT_THAT(json, HasSubstr("\"args\":{\"kind\":99,\"line\":0,\"column\":3}"));
  EXPECT_THAT(json, HasSubstr(
      "\"args\":{\"extra\":9,\"kind\":1,\"kind_name\":\"DefaultTemplateArgumentInstantiation\","
      "\"file\":\"/src/open.h\",\"line\":7,\"column\":3,\"memory_begin\":5}"));
}

// A Templight arg whose key a slice's own arg has already: the first kept.
TEST(ExportPftraceTest, TemplightArgClashingWithAnArgIsNoted) {
  TraceStorage s;
  AddProcess(&s, 0, "");
  const uint32_t track = AddTrack(&s, TrackKind::kGlobal, "unit.cpp", kNullId, kNullId);
  AddSlice(&s, 10, 5, track, "T");
  AddArg(&s, 0, "debug.kind", ArgType::kString, 0, "mine");
  TemplightInstantiationTable& t = s.templight;
  t.slice_id.push_back(0);
  t.kind.push_back(4);
  t.kind_name.push_back(kNullStringId);
  t.file.push_back(kNullStringId);
  t.line.push_back(1);
  t.column.push_back(2);
  t.origin_file.push_back(kNullStringId);
  t.origin_line.push_back(0);
  t.origin_column.push_back(0);
  t.memory_begin.push_back(0);
  t.memory_end.push_back(0);
  PftraceExportResult result;
  const std::string bytes = Export(s, &result);
  EXPECT_THAT(::testing::PrintToString(result.notes), HasSubstr("clashes"));
  TraceStorage back;
  Import(bytes, &back);
  EXPECT_EQ(ArgsText(back, back.slice.arg_set_id[0]),
            " debug.column=int:2 debug.kind=string:mine debug.line=int:1");
  std::string json;
  StringJsonSink json_sink(&json);
  const JsonExportResult json_result = ExportJson(s, &json_sink);
  EXPECT_THAT(json, HasSubstr("\"args\":{\"kind\":\"mine\",\"line\":1,\"column\":2}"));
  EXPECT_THAT(::testing::PrintToString(json_result.notes), HasSubstr("clashes"));
}

}  // namespace
}  // namespace processor
}  // namespace zt
