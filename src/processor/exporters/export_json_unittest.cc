#include "src/processor/exporters/export_json.h"

#include <stdio.h>

#include <ctype.h>
#include <string.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "src/processor/test/sample_storage.h"

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

std::string Micros(int64_t ns) {
  std::string out;
  AppendMicros(ns, &out);
  return out;
}

std::string Quote(std::string_view text) {
  std::string out;
  AppendJsonString(text, &out);
  return out;
}

struct Exported {
  JsonExportResult result;
  std::string json;
};

Exported Export(const TraceStorage& storage) {
  Exported e;
  StringJsonSink sink(&e.json);
  e.result = ExportJson(storage, &sink);
  return e;
}

// The output's lines (one event per line).
std::vector<std::string> Lines(const std::string& json) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < json.size()) {
    size_t end = json.find('\n', pos);
    if (end == std::string::npos) end = json.size();
    lines.push_back(json.substr(pos, end - pos));
    pos = end + 1;
  }
  return lines;
}

// A strict JSON checker (RFC 8259): the grammar, string escapes, UTF-8 of
// the raw bytes (no overlongs, surrogates or code points past U+10FFFF),
// and no key twice in one object. Returns "" or what is wrong and where.
class JsonChecker {
 public:
  explicit JsonChecker(const std::string& text) : t_(text) {}
  std::string Check() {
    Ws();
    Value();
    Ws();
    if (error_.empty() && p_ != t_.size()) Fail("trailing bytes");
    return error_;
  }

 private:
  void Fail(const std::string& what) {
    if (error_.empty()) error_ = what + " at byte " + std::to_string(p_);
    p_ = t_.size();
  }
  bool Eat(char c) {
    if (p_ < t_.size() && t_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  void Ws() {
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\n' || t_[p_] == '\r' || t_[p_] == '\t')) ++p_;
  }
  void Literal(const char* word) {
    for (const char* c = word; *c; ++c) {
      if (!Eat(*c)) return Fail(std::string("bad literal ") + word);
    }
  }
  void Value() {
    if (p_ >= t_.size()) return Fail("value expected");
    const char c = t_[p_];
    if (c == '{') return Object();
    if (c == '[') return Array();
    if (c == '"') {
      std::string unused;
      return String(&unused);
    }
    if (c == 't') return Literal("true");
    if (c == 'f') return Literal("false");
    if (c == 'n') return Literal("null");
    return Number();
  }
  void Object() {
    Eat('{');
    Ws();
    std::set<std::string> keys;
    if (Eat('}')) return;
    do {
      Ws();
      std::string key;
      String(&key);
      if (!keys.insert(key).second) return Fail("duplicate key \"" + key + "\"");
      Ws();
      if (!Eat(':')) return Fail("':' expected");
      Ws();
      Value();
      Ws();
    } while (error_.empty() && Eat(','));
    if (!Eat('}')) Fail("'}' expected");
  }
  void Array() {
    Eat('[');
    Ws();
    if (Eat(']')) return;
    do {
      Ws();
      Value();
      Ws();
    } while (error_.empty() && Eat(','));
    if (!Eat(']')) Fail("']' expected");
  }
  void String(std::string* out) {
    if (!Eat('"')) return Fail("string expected");
    while (p_ < t_.size()) {
      const unsigned char c = static_cast<unsigned char>(t_[p_]);
      if (c == '"') {
        ++p_;
        return;
      }
      if (c < 0x20) return Fail("raw control character");
      if (c == '\\') {
        ++p_;
        if (p_ >= t_.size()) break;
        const char e = t_[p_++];
        // Keys compare as written: the exporter escapes one way only.
        out->push_back('\\');
        out->push_back(e);
        if (e == 'u') {
          for (int i = 0; i < 4; ++i, ++p_) {
            if (p_ >= t_.size() || !isxdigit(static_cast<unsigned char>(t_[p_]))) return Fail("bad \\u");
            out->push_back(t_[p_]);
          }
        } else if (!strchr("\"\\/bfnrt", e)) {
          return Fail("bad escape");
        }
        continue;
      }
      if (c < 0x80) {
        out->push_back(static_cast<char>(c));
        ++p_;
        continue;
      }
      // UTF-8: lead byte, length, range of the second byte.
      int len = 0;
      unsigned char lo = 0x80, hi = 0xBF;
      if (c >= 0xC2 && c <= 0xDF) len = 2;
      else if (c >= 0xE0 && c <= 0xEF) len = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
      else if (c >= 0xF0 && c <= 0xF4) len = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
      else return Fail("invalid UTF-8 lead byte");
      for (int i = 1; i < len; ++i) {
        if (p_ + i >= t_.size()) return Fail("cut UTF-8");
        const unsigned char b = static_cast<unsigned char>(t_[p_ + i]);
        if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xBF)) return Fail("invalid UTF-8");
      }
      out->append(t_, p_, static_cast<size_t>(len));
      p_ += static_cast<size_t>(len);
    }
    Fail("unterminated string");
  }
  void Number() {
    const size_t start = p_;
    Eat('-');
    if (Eat('0')) {
    } else if (p_ < t_.size() && t_[p_] >= '1' && t_[p_] <= '9') {
      while (p_ < t_.size() && isdigit(static_cast<unsigned char>(t_[p_]))) ++p_;
    } else {
      return Fail("number expected");
    }
    if (Eat('.')) {
      if (p_ >= t_.size() || !isdigit(static_cast<unsigned char>(t_[p_]))) return Fail("digit expected");
      while (p_ < t_.size() && isdigit(static_cast<unsigned char>(t_[p_]))) ++p_;
    }
    if (Eat('e') || Eat('E')) {
      if (!Eat('+')) Eat('-');
      if (p_ >= t_.size() || !isdigit(static_cast<unsigned char>(t_[p_]))) return Fail("exponent expected");
      while (p_ < t_.size() && isdigit(static_cast<unsigned char>(t_[p_]))) ++p_;
    }
    if (p_ == start) Fail("number expected");
  }

  const std::string& t_;
  size_t p_ = 0;
  std::string error_;
};

// A thread with one track, for the focused tests; returns the track.
uint32_t OneThread(TraceStorage* s) {
  AddProcess(s, 0, "");
  const uint32_t upid = AddProcess(s, 10, "p");
  AddThread(s, 0, kNullId, "");
  const uint32_t utid = AddThread(s, 11, upid, "t");
  return AddTrack(s, TrackKind::kThread, "", utid, kNullId);
}

TEST(ExportJsonTest, MicrosecondsHaveThreeExactDecimals) {
  EXPECT_EQ(Micros(0), "0.000");
  EXPECT_EQ(Micros(1), "0.001");
  EXPECT_EQ(Micros(999), "0.999");
  EXPECT_EQ(Micros(1000), "1.000");
  EXPECT_EQ(Micros(1234567891), "1234567.891");
  EXPECT_EQ(Micros(-1500), "-1.500");
  EXPECT_EQ(Micros(-1), "-0.001");
  // No float on the way: the last digits survive at any magnitude.
  EXPECT_EQ(Micros(std::numeric_limits<int64_t>::max()), "9223372036854775.807");
  EXPECT_EQ(Micros(std::numeric_limits<int64_t>::min()), "-9223372036854775.808");
}

TEST(ExportJsonTest, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(Quote(""), "\"\"");
  EXPECT_EQ(Quote("plain"), "\"plain\"");
  EXPECT_EQ(Quote("a\"b\\c/"), "\"a\\\"b\\\\c/\"");
  EXPECT_EQ(Quote("\b\f\n\r\t"), "\"\\b\\f\\n\\r\\t\"");
  EXPECT_EQ(Quote(std::string("\0\x01\x1f\x7f", 4)), "\"\\u0000\\u0001\\u001f\x7f\"");
}

TEST(ExportJsonTest, CopiesValidUtf8) {
  // 2, 3 and 4 byte sequences, the edges of each range, U+2028.
  const std::string valid =
      "\xC2\x80\xDF\xBF\xE0\xA0\x80\xED\x9F\xBF\xEE\x80\x80\xEF\xBF\xBF"
      "\xF0\x90\x80\x80\xF4\x8F\xBF\xBF\xE2\x80\xA8 caf\xC3\xA9";
  EXPECT_EQ(Quote(valid), "\"" + valid + "\"");
}

TEST(ExportJsonTest, ReplacesEachMaximalInvalidSubpartWithOneReplacementCharacter) {
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(Quote("\x80"), "\"" + r + "\"");               // Lone continuation.
  EXPECT_EQ(Quote("a\xFF" "b"), "\"a" + r + "b\"");         // Never valid.
  EXPECT_EQ(Quote("\xC0\x80"), "\"" + r + r + "\"");       // Overlong NUL.
  EXPECT_EQ(Quote("\xE0\x80\x80"), "\"" + r + r + r + "\"");  // Overlong.
  EXPECT_EQ(Quote("\xED\xA0\x80"), "\"" + r + r + r + "\"");  // Surrogate.
  EXPECT_EQ(Quote("\xF4\x90\x80\x80"), "\"" + r + r + r + r + "\"");  // > U+10FFFF.
  EXPECT_EQ(Quote("\xE2\x82"), "\"" + r + "\"");           // Cut at the end.
  EXPECT_EQ(Quote("\xE2\x82x"), "\"" + r + "x\"");         // Cut before ASCII.
  EXPECT_EQ(Quote("\xF0\x9F\x98"), "\"" + r + "\"");
  EXPECT_EQ(Quote("\xE2\x82\"\xF0\x9F\x98\x80"), "\"" + r + "\\\"\xF0\x9F\x98\x80\"");
}

TEST(ExportJsonTest, EveryByteStringGivesOnlyJsonSafeOutput) {
  // All one- and two-byte strings: no raw control character, quote or
  // backslash escapes the literal, and the output is valid UTF-8.
  for (int a = 0; a < 256; ++a) {
    for (int b = -1; b < 256; ++b) {
      std::string in(1, static_cast<char>(a));
      if (b >= 0) in.push_back(static_cast<char>(b));
      const std::string out = Quote(in);
      ASSERT_GE(out.size(), 2u);
      const std::string body = out.substr(1, out.size() - 2);
      for (size_t i = 0; i < body.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(body[i]);
        ASSERT_GE(c, 0x20) << a << " " << b;
        if (c == '\\') {
          ++i;  // The escaped character.
          continue;
        }
        ASSERT_NE(c, '"') << a << " " << b;
      }
      // Re-quoting the output's body changes nothing but escapes: valid
      // UTF-8 passes through unchanged.
      std::string unescaped_free;
      for (char c : body) {
        if (static_cast<unsigned char>(c) >= 0x80) unescaped_free.push_back(c);
      }
      ASSERT_EQ(Quote(unescaped_free), "\"" + unescaped_free + "\"") << a << " " << b;
    }
  }
}

TEST(ExportJsonTest, SampleStorageExactly) {
  TraceStorage s;
  test::FillSampleStorage(&s);
  const Exported e = Export(s);
  ASSERT_TRUE(e.result.ok) << e.result.error;
  EXPECT_THAT(
      Lines(e.json),
      ElementsAre(
          "{\"traceEvents\":[",
          R"({"ph":"M","pid":4242,"tid":0,"name":"process_name","args":{"name":"sample_process"}},)",
          R"({"ph":"M","pid":4194306,"tid":0,"name":"process_name","args":{"name":"Global tracks"}},)",
          R"({"ph":"M","pid":4242,"tid":4242,"name":"thread_name","args":{"name":"main"}},)",
          R"({"ph":"M","pid":4242,"tid":4243,"name":"thread_name","args":{"name":"worker"}},)",
          R"({"ph":"M","pid":4242,"tid":4194305,"name":"thread_name","args":{"name":"async_track"}},)",
          R"({"ph":"M","pid":4194306,"tid":4194307,"name":"thread_name","args":{"name":"conf_custom_track"}},)",
          R"({"ph":"X","pid":4242,"tid":4242,"ts":1000.000,"dur":9000.000,"name":"Outer","cat":"conf","args":{"iter":3,"nested":{"a":1,"b":"x"},"arr":[10,2.5]}},)",
          R"({"ph":"X","pid":4242,"tid":4242,"ts":2000.000,"dur":6000.000,"name":"Middle","cat":"conf"},)",
          R"({"ph":"X","pid":4242,"tid":4242,"ts":3000.000,"dur":2000.001,"name":"Inner","cat":"conf"},)",
          R"({"ph":"i","pid":4242,"tid":4242,"ts":4000.000,"s":"t","name":"Instant","cat":"conf"},)",
          R"({"ph":"X","pid":4242,"tid":4242,"ts":10000.000,"dur":500.000,"name":"FlowOut","cat":"conf","bind_id":2,"flow_out":true},)",
          R"({"ph":"X","pid":4242,"tid":4243,"ts":11000.000,"dur":500.000,"name":"FlowIn","cat":"conf","bind_id":2,"flow_in":true},)",
          R"({"ph":"X","pid":4194306,"tid":4194307,"ts":12000.000,"dur":1000.000,"name":"OnCustomTrack","cat":"conf"},)",
          R"({"ph":"X","pid":4242,"tid":4194305,"ts":13000.000,"dur":1000.000,"name":"AsyncSlice","cat":"conf"},)",
          R"({"ph":"B","pid":4242,"tid":4243,"ts":20000.000,"name":"Unterminated","cat":"conf"},)",
          R"({"ph":"s","pid":4242,"tid":4242,"ts":10000.001,"id":1,"name":"FlowOut","cat":"conf"},)",
          R"({"ph":"f","bp":"e","pid":4194306,"tid":4194307,"ts":12000.001,"id":1,"name":"FlowOut","cat":"conf"},)",
          R"({"ph":"C","pid":4242,"tid":4242,"ts":1000.000,"name":"conf_counter","args":{"value":5}},)",
          R"({"ph":"C","pid":4242,"tid":4242,"ts":15000.000,"name":"conf_counter","args":{"value":2.5}})",
          "],", "\"metadata\":{}}"));
  EXPECT_EQ(e.result.events, 19u);
  EXPECT_EQ(e.result.bytes, e.json.size());
  EXPECT_THAT(e.result.notes,
              ElementsAre("counter units (JSON counters have none): 1 (first: conf_counter: bytes)"));
}

TEST(ExportJsonTest, SampleAndEdgeCasesAreValidJson) {
  TraceStorage sample;
  test::FillSampleStorage(&sample);
  EXPECT_EQ(JsonChecker(Export(sample).json).Check(), "");
  TraceStorage empty;
  EXPECT_EQ(JsonChecker(Export(empty).json).Check(), "");
}

// Random bytes in every string the exporter writes (names, categories,
// process and thread names, arg keys with dots and brackets, values,
// metadata), random numbers and nesting: the output is always strict JSON
// with no duplicate keys.
TEST(ExportJsonTest, RandomStoragesGiveStrictJson) {
  std::mt19937_64 rng(12);
  auto bytes = [&rng](size_t max_len) {
    std::string out(rng() % (max_len + 1), '\0');
    const char alphabet[] = "ab.[]0123\"\\\x01\x7f\xc3\xa9\xed\xa0\x80\xf0\x9f\x98\x80\xff";
    for (char& c : out) {
      c = rng() % 3 ? alphabet[rng() % (sizeof(alphabet) - 1)] : static_cast<char>(rng());
    }
    return out;
  };
  for (int round = 0; round < 500; ++round) {
    TraceStorage s;
    AddProcess(&s, 0, "");
    const uint32_t upid = AddProcess(&s, static_cast<int64_t>(rng() % 100000), bytes(8) + "p");
    AddThread(&s, 0, kNullId, "");
    const uint32_t utid = AddThread(&s, static_cast<int64_t>(rng() % 100000), upid, bytes(8) + "t");
    std::vector<uint32_t> tracks = {
        AddTrack(&s, TrackKind::kThread, "", utid, kNullId),
        AddTrack(&s, TrackKind::kThread, bytes(6) + "n", utid, kNullId),
        AddTrack(&s, TrackKind::kProcess, bytes(6), kNullId, upid),
        AddTrack(&s, TrackKind::kGlobal, bytes(6), kNullId, kNullId)};
    const uint32_t counter = AddTrack(&s, TrackKind::kCounter, bytes(6), kNullId, upid, bytes(3));
    const int slices = static_cast<int>(rng() % 20);
    for (int i = 0; i < slices; ++i) {
      const int64_t dur = static_cast<int64_t>(rng() % 4) - 1;  // -1, 0, 1, 2.
      const uint32_t id = AddSlice(&s, static_cast<int64_t>(rng()), dur * 1000,
                                   tracks[rng() % tracks.size()], bytes(10), 0, kNullId, bytes(4));
      const int args = static_cast<int>(rng() % 6);
      for (int a = 0; a < args; ++a) {
        const auto type = static_cast<ArgType>(rng() % 8);
        std::string key = rng() % 2 ? "debug." : "";
        const int parts = 1 + static_cast<int>(rng() % 3);
        for (int p = 0; p < parts; ++p) {
          if (rng() % 3 == 0) key += "[" + std::to_string(rng() % 3) + "]";
          else key += (p ? "." : "") + bytes(3);
        }
        const double reals[] = {0.1, -0.0, 1e300, std::nan(""),
                                std::numeric_limits<double>::infinity(), 5e-324};
        AddArg(&s, id, key, type, static_cast<int64_t>(rng()), bytes(8), reals[rng() % 6]);
      }
      if (i > 0 && rng() % 4 == 0) AddFlow(&s, static_cast<uint32_t>(rng() % i), id);
    }
    for (int i = 0; i < 3; ++i) {
      const double values[] = {1.5, -2, 1e-300, std::nan("")};
      AddCounter(&s, static_cast<int64_t>(rng()), values[rng() % 4], counter);
    }
    s.metadata.name.push_back(s.strings.Intern(bytes(6) + "m"));
    s.metadata.int_value.push_back(rng() % 2 ? kNullInt : 42);
    s.metadata.str_value.push_back(rng() % 2 ? s.strings.Intern(bytes(6)) : kNullStringId);
    const Exported e = Export(s);
    ASSERT_TRUE(e.result.ok);
    ASSERT_EQ(JsonChecker(e.json).Check(), "") << "round " << round << ":\n" << e.json;
  }
}

TEST(ExportJsonTest, EmptyStorageIsAValidEmptyTrace) {
  TraceStorage s;
  const Exported e = Export(s);
  ASSERT_TRUE(e.result.ok);
  EXPECT_EQ(e.json, "{\"traceEvents\":[\n],\n\"metadata\":{}}\n");
  EXPECT_THAT(e.result.notes, IsEmpty());
}

TEST(ExportJsonTest, FlowChainsShareAnIdAndFurtherFlowsAreV1Events) {
  TraceStorage s;
  const uint32_t t = OneThread(&s);
  const uint32_t a = AddSlice(&s, 1000, 10, t, "a");
  const uint32_t b = AddSlice(&s, 2000, 10, t, "b");
  const uint32_t c = AddSlice(&s, 3000, 0, t, "c");
  const uint32_t d = AddSlice(&s, 4000, 10, t, "d");
  const uint32_t d_child = AddSlice(&s, 4005, 2, t, "d_child", 1, d);
  const uint32_t e = AddSlice(&s, 5000, 10, t, "e");
  AddSlice(&s, 5001, 2, t, "e_child", 1, e);  // At e's bind point.
  AddFlow(&s, b, c);  // Flow 0: the second step of the chain a -> b -> c.
  AddFlow(&s, a, b);  // Flow 1.
  AddFlow(&s, a, d);  // Flow 2: a's second outgoing flow: v1 events.
  AddFlow(&s, a, e);  // Flow 3: e has no point before its child: dropped.
  (void)d_child;
  const Exported e_json = Export(s);
  ASSERT_TRUE(e_json.result.ok);
  const std::vector<std::string> lines = Lines(e_json.json);
  ASSERT_EQ(lines.size(), 14u);
  // One id along the chain, past the one v1 flow's; b both ends and starts
  // it; c, an instant with a flow, is an X of duration 0 so that readers
  // bind the flow.
  EXPECT_THAT(lines[3], HasSubstr("\"name\":\"a\",\"cat\":\"conf\",\"bind_id\":3,\"flow_out\":true}"));
  EXPECT_THAT(lines[4], HasSubstr("\"bind_id\":3,\"flow_in\":true,\"flow_out\":true}"));
  EXPECT_THAT(lines[5], HasSubstr("{\"ph\":\"X\",\"pid\":10,\"tid\":11,\"ts\":3.000,\"dur\":0.000,"));
  EXPECT_THAT(lines[5], HasSubstr("\"bind_id\":3,\"flow_in\":true}"));
  EXPECT_THAT(lines[6], Not(HasSubstr("bind_id")));
  // 1 ns into a and into d, before d's child.
  EXPECT_EQ(lines[10], R"({"ph":"s","pid":10,"tid":11,"ts":1.001,"id":1,"name":"a","cat":"conf"},)");
  EXPECT_EQ(lines[11], R"({"ph":"f","bp":"e","pid":10,"tid":11,"ts":4.001,"id":1,"name":"a","cat":"conf"})");
  ASSERT_EQ(e_json.result.notes.size(), 1u);
  EXPECT_THAT(e_json.result.notes[0], HasSubstr("flows not exported"));
  EXPECT_THAT(e_json.result.notes[0], HasSubstr(": 1 (first: flow 3 from slice 0 \"a\")"));
}

TEST(ExportJsonTest, ArgValuesAndKeys) {
  TraceStorage s;
  const uint32_t t = OneThread(&s);
  const uint32_t x = AddSlice(&s, 0, 5, t, "x");
  AddArg(&s, x, "debug.u", ArgType::kUint, -1);
  AddArg(&s, x, "debug.p", ArgType::kPointer, 0xdeadbeef);
  AddArg(&s, x, "debug.yes", ArgType::kBool, 1);
  AddArg(&s, x, "debug.no", ArgType::kBool, 0);
  AddArg(&s, x, "debug.n", ArgType::kNull, 0);
  AddArg(&s, x, "debug.j", ArgType::kJson, 0, "{\"k\":1}");
  AddArg(&s, x, "debug.nan", ArgType::kReal, 0, {}, std::nan(""));
  AddArg(&s, x, "debug.tiny", ArgType::kReal, 0, {}, 0.1);
  AddArg(&s, x, "debug.list[1].name", ArgType::kString, 0, "second");
  AddArg(&s, x, "debug.list[0].name", ArgType::kString, 0, "fir\"st");
  AddArg(&s, x, "task.posted_from.file", ArgType::kString, 0, "a.cc");
  AddArg(&s, x, "debug.u.clash", ArgType::kInt, 1);  // u is already a leaf.
  const Exported e = Export(s);
  ASSERT_TRUE(e.result.ok);
  EXPECT_THAT(
      e.json,
      HasSubstr(R"("args":{"u":18446744073709551615,"p":"0xdeadbeef","yes":true,"no":false,)"
                R"("n":null,"j":"{\"k\":1}","nan":"NaN","tiny":0.1,)"
                R"("list":[{"name":"fir\"st"},{"name":"second"}],)"
                R"("task":{"posted_from":{"file":"a.cc"}}}})"));
  EXPECT_THAT(e.result.notes,
              ElementsAre(HasSubstr("clashes with another arg of the set once nested (kept the "
                                    "first): 1 (first: debug.u.clash)"),
                          HasSubstr("JSON-typed args written as strings: 1 (first: debug.j)"),
                          HasSubstr("(NaN, infinities), written as strings: 1 (first: arg "
                                    "debug.nan)")));
}

TEST(ExportJsonTest, KeysEqualOnceInvalidUtf8IsReplacedAreOneKey) {
  TraceStorage s;
  const uint32_t t = OneThread(&s);
  const uint32_t x = AddSlice(&s, 0, 5, t, "x");
  AddArg(&s, x, "debug.\xff", ArgType::kInt, 1);
  AddArg(&s, x, "debug.\xfe", ArgType::kInt, 2);
  AddArg(&s, x, "debug.\xfe\xff.a", ArgType::kInt, 3);  // Two U+FFFDs: another key.
  for (const char* name : {"m\xff", "m\xfe"}) {
    s.metadata.name.push_back(s.strings.Intern(name));
    s.metadata.int_value.push_back(7);
    s.metadata.str_value.push_back(kNullStringId);
  }
  const Exported e = Export(s);
  EXPECT_THAT(e.json, HasSubstr("\"args\":{\"\xEF\xBF\xBD\":1,\"\xEF\xBF\xBD\xEF\xBF\xBD\":{\"a\":3}}"));
  EXPECT_THAT(e.json, HasSubstr("\"metadata\":{\"m\xEF\xBF\xBD\":7}}"));
  EXPECT_THAT(e.result.notes,
              ElementsAre(HasSubstr("clashes with another arg of the set once nested (kept the "
                                    "first): 1"),
                          HasSubstr("metadata names equal to an earlier one once invalid UTF-8 is "
                                    "replaced (kept the first): 1")));
}

TEST(ExportJsonTest, ThreadsSecondTracksAndReusedTidsGetSyntheticTids) {
  TraceStorage s;
  AddProcess(&s, 0, "");
  const uint32_t upid = AddProcess(&s, 5000000, "big");  // Above 2^22.
  AddThread(&s, 0, kNullId, "");
  const uint32_t t1 = AddThread(&s, 7, upid, "first");
  const uint32_t t2 = AddThread(&s, 7, upid, "second");  // tid reused.
  const uint32_t named = AddTrack(&s, TrackKind::kThread, "named", t1, kNullId);
  const uint32_t plain = AddTrack(&s, TrackKind::kThread, "", t1, kNullId);
  const uint32_t other = AddTrack(&s, TrackKind::kThread, "", t2, kNullId);
  AddSlice(&s, 0, 5, named, "on_named");
  AddSlice(&s, 1, 5, plain, "on_plain");
  AddSlice(&s, 2, 5, other, "on_other");
  const Exported e = Export(s);
  ASSERT_TRUE(e.result.ok);
  // Synthetic ids start above the largest id in the trace.
  EXPECT_THAT(e.json, HasSubstr(R"({"ph":"M","pid":5000000,"tid":5000001,"name":"thread_name","args":{"name":"second"}})"));
  EXPECT_THAT(e.json, HasSubstr(R"({"ph":"M","pid":5000000,"tid":5000002,"name":"thread_name","args":{"name":"named"}})"));
  EXPECT_THAT(e.json, HasSubstr(R"("tid":5000002,"ts":0.000,"dur":0.005,"name":"on_named")"));
  EXPECT_THAT(e.json, HasSubstr(R"("tid":7,"ts":0.001,"dur":0.005,"name":"on_plain")"));
  EXPECT_THAT(e.json, HasSubstr(R"("tid":5000001,"ts":0.002,"dur":0.005,"name":"on_other")"));
  EXPECT_THAT(e.result.notes, ElementsAre(HasSubstr("given a synthetic tid: 1 (first: tid 7 in pid 5000000)")));
}

TEST(ExportJsonTest, NotesWhatJsonCannotHold) {
  TraceStorage s;
  const uint32_t t = OneThread(&s);
  AddSlice(&s, 0, -1, t, "open");
  AddSlice(&s, 5, 3, t, "sibling_after_open");  // Depth 0 again: nests in JSON.
  AddSlice(&s, 9, -7, t, "weird");
  AddSlice(&s, 10, 1, 99, "no_track");
  AddSlice(&s, int64_t{1} << 53, 1, t, "late");
  const uint32_t ct = AddTrack(&s, TrackKind::kCounter, "c", 1, kNullId);
  AddCounter(&s, 0, std::numeric_limits<double>::infinity(), ct);
  s.stats.Set(stats::trace_damage_bytes_skipped, 12);
  s.stats.SetIndexed(stats::traced_buf_bytes_written, 0, 100);
  const Exported e = Export(s);
  ASSERT_TRUE(e.result.ok);
  EXPECT_THAT(e.json, HasSubstr(R"({"ph":"B","pid":10,"tid":11,"ts":0.009,"name":"weird","cat":"conf"})"));
  EXPECT_THAT(e.json, HasSubstr(R"("args":{"value":"Infinity"})"));
  EXPECT_THAT(e.json, Not(HasSubstr("no_track")));
  EXPECT_THAT(
      e.result.notes,
      ElementsAre(HasSubstr("track id out of range: 1 (first: slice 3 \"no_track\")"),
                  HasSubstr("other than -1, written as unterminated (\"B\"): 1 (first: slice 2"),
                  HasSubstr("same or a lower depth (JSON readers nest them inside it): 3 (first: "
                            "slice 1 \"sibling_after_open\")"),
                  HasSubstr("written as strings: 1 (first: counter c)"),
                  HasSubstr("thread-scoped counter tracks written as counters of the thread's "
                            "process (JSON counters are per process): 1 (first: c)"),
                  HasSubstr("round them: 1 (first: 9007199254740992)"),
                  "stats (`ztrace stats` prints them): trace_damage_bytes_skipped=12 "
                  "(data_loss); 1 info stat"));
}

TEST(ExportJsonTest, ExtremeValuesDoNotOverflow) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  TraceStorage s;
  AddProcess(&s, 0, "");
  const uint32_t upid = AddProcess(&s, kMax, "p");
  AddThread(&s, 0, kNullId, "");
  const uint32_t utid = AddThread(&s, kMin, upid, "t");
  const uint32_t t = AddTrack(&s, TrackKind::kThread, "", utid, kNullId);
  const uint32_t async = AddTrack(&s, TrackKind::kProcess, "a", kNullId, upid);
  const uint32_t a = AddSlice(&s, kMin, kMax, t, "a");
  const uint32_t b = AddSlice(&s, kMax - 1, kMax, t, "b");
  const uint32_t c = AddSlice(&s, kMax, -1, async, "c");
  AddFlow(&s, a, b);
  AddFlow(&s, a, c);  // v1: c has no point 1 ns in.
  AddFlow(&s, b, c);
  const Exported e = Export(s);
  ASSERT_TRUE(e.result.ok);
  EXPECT_EQ(JsonChecker(e.json).Check(), "");
  EXPECT_THAT(e.json, HasSubstr("\"ts\":-9223372036854775.808,\"dur\":9223372036854775.807"));
  EXPECT_THAT(e.json, HasSubstr("\"pid\":9223372036854775807,\"tid\":4611686018427387905,"));
}

TEST(ExportJsonTest, MetadataRowsGoToTheMetadataObject) {
  TraceStorage s;
  s.metadata.name.push_back(s.strings.Intern("trace_uuid"));
  s.metadata.int_value.push_back(kNullInt);
  s.metadata.str_value.push_back(s.strings.Intern("abc"));
  s.metadata.name.push_back(s.strings.Intern("trace_size_bytes"));
  s.metadata.int_value.push_back(1234);
  s.metadata.str_value.push_back(kNullStringId);
  const Exported e = Export(s);
  EXPECT_THAT(e.json, HasSubstr("\"metadata\":{\"trace_uuid\":\"abc\",\"trace_size_bytes\":1234}}"));
}

// Records each write: the exporter streams in bounded pieces.
class CountingSink : public JsonSink {
 public:
  bool Write(const char* data, size_t size, std::string* error) override {
    if (fail_after_ >= 0 && writes_ >= fail_after_) {
      *error = "Broken pipe";
      return false;
    }
    ++writes_;
    max_write_ = std::max(max_write_, size);
    total_ += size;
    (void)data;
    return true;
  }
  int fail_after_ = -1;
  int writes_ = 0;
  size_t max_write_ = 0;
  size_t total_ = 0;
};

TEST(ExportJsonTest, StreamsInBoundedWrites) {
  TraceStorage s;
  const uint32_t t = OneThread(&s);
  for (int i = 0; i < 100000; ++i) AddSlice(&s, i * 10, 5, t, "slice");
  CountingSink sink;
  uint64_t last_done = 0, last_total = 0;
  JsonExportOptions options;
  options.progress = [&](uint64_t done, uint64_t total) {
    last_done = done;
    last_total = total;
  };
  const JsonExportResult result = ExportJson(s, &sink, options);
  ASSERT_TRUE(result.ok);
  EXPECT_GT(sink.writes_, 50);
  EXPECT_LT(sink.max_write_, 70u << 10);
  EXPECT_EQ(sink.total_, result.bytes);
  EXPECT_EQ(last_done, 100000u);
  EXPECT_EQ(last_total, 100000u);
}

TEST(ExportJsonTest, SinkErrorsFailTheExport) {
  TraceStorage s;
  const uint32_t t = OneThread(&s);
  for (int i = 0; i < 100000; ++i) AddSlice(&s, i, 0, t, "slice");
  CountingSink sink;
  sink.fail_after_ = 2;
  const JsonExportResult result = ExportJson(s, &sink);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.error, "Broken pipe");
  EXPECT_EQ(sink.writes_, 2);  // Nothing written after the failure.
}

TEST(ExportJsonTest, FullDiskIsReported) {
  FILE* full = fopen("/dev/full", "w");
  if (!full) GTEST_SKIP() << "no /dev/full";
  TraceStorage s;
  test::FillSampleStorage(&s);
  FileJsonSink sink(full);
  const JsonExportResult result = ExportJson(s, &sink);  // Small: fails at the flush.
  fclose(full);
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.error, "No space left on device");
}

}  // namespace
}  // namespace processor
}  // namespace zt

namespace zt {
namespace processor {
namespace {

// Slices 512 or more deep (a deep template recursion): written, and said,
// since Perfetto's UI drops them.
TEST(ExportJsonTest, SlicesDeeperThanPerfettoKeepsAreNoted) {
  TraceStorage s;
  test::AddProcess(&s, 0, "");
  test::AddThread(&s, 0, kNullId, "");
  const uint32_t track = test::AddTrack(&s, TrackKind::kGlobal, "deep", kNullId, kNullId);
  uint32_t parent = kNullId;
  for (uint32_t depth = 0; depth < 520; depth++)
    parent = test::AddSlice(&s, 1000 + depth, 2000 - 2 * depth, track, "rec", depth, parent);
  std::string json;
  StringJsonSink sink(&json);
  const JsonExportResult result = ExportJson(s, &sink);
  ASSERT_TRUE(result.ok);
  bool noted = false;
  for (const std::string& note : result.notes)
    noted |= note.find("slices nested 512 or more deep (written; Perfetto's UI drops them") == 0 &&
             note.find(": 8") != std::string::npos;
  EXPECT_TRUE(noted) << ::testing::PrintToString(result.notes);
  size_t events = 0;
  for (size_t at = json.find("\"ph\":\"X\""); at != std::string::npos;
       at = json.find("\"ph\":\"X\"", at + 1))
    events++;
  EXPECT_EQ(events, 520u);
}

}  // namespace
}  // namespace processor
}  // namespace zt
