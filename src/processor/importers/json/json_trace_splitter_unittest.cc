#include "src/processor/importers/json/json_trace_splitter.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace zt {
namespace processor {
namespace {

struct Collected : JsonTraceSplitter::Handler {
  std::vector<std::string> events;
  std::vector<uint64_t> offsets;
  std::vector<std::string> keys;
  std::vector<std::string> skipped;
  void OnEvent(std::string_view json, uint64_t offset) override {
    events.emplace_back(json);
    offsets.push_back(offset);
  }
  void OnTopLevelKey(std::string_view key, std::string_view value) override {
    keys.push_back(std::string(key) + "=" + std::string(value));
  }
  void OnSkipped(std::string_view key, uint64_t bytes, uint64_t) override {
    skipped.push_back(std::string(key) + ":" + std::to_string(bytes));
  }
};

// A splitter fed `text` in pieces of `piece` bytes, and what it handed out.
struct Run {
  Collected c;
  JsonTraceSplitter splitter{&c};
  bool ok = false;
};

std::unique_ptr<Run> Split(const std::string& text, size_t piece) {
  std::unique_ptr<Run> run(new Run());
  for (size_t i = 0; i < text.size(); i += piece)
    run->splitter.Feed(text.data() + i, std::min(piece, text.size() - i));
  run->ok = run->splitter.Finish();
  return run;
}

const char kTrace[] =
    "\xEF\xBB\xBF {\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n"
    "  {\"ph\": \"B\", \"name\": \"a \\\"quoted\\\" } ] name\", \"ts\": 1},\n"
    "  {\"ph\": \"E\", \"ts\": 2, \"args\": {\"x\": [1, {\"y\": \"\\\\\"}]}}\n"
    "], \"metadata\": {\"k\": 1}, \"otherData\": 12.5}";

TEST(JsonTraceSplitterTest, EveryPieceSizeCutsTheSameEvents) {
  const std::string text = kTrace;
  const Collected whole = Split(text, text.size())->c;
  ASSERT_EQ(whole.events.size(), 2u);
  EXPECT_EQ(whole.events[0], "{\"ph\": \"B\", \"name\": \"a \\\"quoted\\\" } ] name\", \"ts\": 1}");
  EXPECT_EQ(whole.events[1], "{\"ph\": \"E\", \"ts\": 2, \"args\": {\"x\": [1, {\"y\": \"\\\\\"}]}}");
  EXPECT_EQ(whole.offsets[0], text.find("{\"ph\": \"B\""));
  ASSERT_EQ(whole.keys.size(), 3u);
  EXPECT_EQ(whole.keys[0], "displayTimeUnit=\"ns\"");
  EXPECT_EQ(whole.keys[1], "metadata={\"k\": 1}");
  EXPECT_EQ(whole.keys[2], "otherData=12.5");
  for (size_t piece = 1; piece < text.size(); ++piece) {
    const Collected c = Split(text, piece)->c;
    EXPECT_EQ(c.events, whole.events) << piece;
    EXPECT_EQ(c.offsets, whole.offsets) << piece;
    EXPECT_EQ(c.keys, whole.keys) << piece;
  }
}

TEST(JsonTraceSplitterTest, BareAndCutArraysAreTraces) {
  auto run = Split("[{\"ph\":\"i\"},{\"ph\":\"X\"}]", 3);
  EXPECT_TRUE(run->ok);
  EXPECT_EQ(run->c.events.size(), 2u);
  EXPECT_FALSE(run->splitter.truncated());
  // Chrome leaves out the "]" when it is killed; a half event is dropped.
  run = Split("[{\"ph\":\"i\"},\n{\"ph\":\"X\"},\n{\"ph\":\"B\", \"na", 5);
  EXPECT_TRUE(run->ok);
  EXPECT_EQ(run->c.events.size(), 2u);
  EXPECT_TRUE(run->splitter.truncated());
  EXPECT_EQ(run->splitter.cut_event_bytes(), 14u);
  // Trailing commas and missing commas between events, as upstream.
  run = Split("{\"traceEvents\": [{\"a\":1} {\"b\":2},]}", 4);
  EXPECT_TRUE(run->ok);
  EXPECT_EQ(run->c.events.size(), 2u);
  EXPECT_FALSE(run->splitter.truncated());
}

TEST(JsonTraceSplitterTest, BrokenStructureIsAnErrorSayingWhere) {
  auto run = Split("hello", 2);
  EXPECT_FALSE(run->ok);
  EXPECT_EQ(run->splitter.error(), "not a JSON trace: it starts with 'h', not '{' or '['");
  run = Split("[{\"a\":1}, }", 2);
  EXPECT_FALSE(run->ok);
  EXPECT_EQ(run->c.events.size(), 1u);
  EXPECT_EQ(run->splitter.error(), "unexpected '}' in the events array at byte 10");
  run = Split("{\"traceEvents\" [] }", 7);
  EXPECT_FALSE(run->ok);
  EXPECT_EQ(run->splitter.error(),
            "expected ':' after the top-level key \"traceEvents\" at byte 15");
  run = Split("   \n ", 2);
  EXPECT_FALSE(run->ok);
  run = Split("{\"a\": 1} trailing", 2);
  EXPECT_TRUE(run->ok);
  EXPECT_EQ(run->splitter.trailing_bytes(), 8u);
}

TEST(JsonTraceSplitterTest, HugeValuesAreMeasuredNotHeld) {
  std::string text = "{\"systemTraceEvents\": \"";
  text += std::string(JsonTraceSplitter::kMaxTopLevelValueBytes + 10, 'x');
  text += "\", \"traceEvents\": [{\"ph\": \"i\"}]}";
  const Collected c = Split(text, 1 << 20)->c;
  ASSERT_EQ(c.skipped.size(), 1u);
  EXPECT_EQ(c.skipped[0],
            "systemTraceEvents:" + std::to_string(JsonTraceSplitter::kMaxTopLevelValueBytes + 12));
  EXPECT_EQ(c.events.size(), 1u);
}

}  // namespace
}  // namespace processor
}  // namespace zt
