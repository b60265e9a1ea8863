// `ztrace record`'s configs and command line: units, the shorthand, config
// files in both formats and their errors, and the flags.

#include "src/cmd/ztrace/record_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "zt/config/data_source_config.gen.h"
#include "zt/config/track_event/track_event_config.gen.h"

namespace zt {
namespace ztrace {
namespace {

using protos::gen::TraceConfig;

TEST(RecordConfigTest, DurationsTakeTheirUnitsInAnyCase) {
  const struct {
    const char* text;
    uint32_t ms;
  } kGood[] = {{"10s", 10000},   {"500ms", 500},        {"2m", 120000},
               {"1h", 3600000},  {"10S", 10000},        {"500MS", 500},
               {"0", 0},         {"0s", 0},             {"1193h", 4294800000u},
               {"007s", 7000},   {"4294967295ms", 4294967295u}};
  for (const auto& c : kGood) {
    uint32_t ms = 1;
    std::string error;
    EXPECT_TRUE(ParseDurationMs(c.text, &ms, &error)) << c.text << ": " << error;
    EXPECT_EQ(ms, c.ms) << c.text;
  }
  for (const char* bad : {"", "10", "s", "-1s", "+1s", " 1s", "1 s", "1x", "1.5s",
                          "1194h", "4294967296ms", "99999999999999999999s"}) {
    uint32_t ms = 0;
    std::string error;
    EXPECT_FALSE(ParseDurationMs(bad, &ms, &error)) << "\"" << bad << "\"";
    EXPECT_FALSE(error.empty()) << bad;
  }
  std::string error;
  uint32_t ms;
  ASSERT_FALSE(ParseDurationMs("10", &ms, &error));
  EXPECT_EQ(error, "bad duration \"10\": expected a number and a unit, e.g. 500ms, "
                   "10s, 2m or 1h");
  ASSERT_FALSE(ParseDurationMs("3d", &ms, &error));
  EXPECT_EQ(error, "bad duration \"3d\": unknown unit \"d\" (use 500ms, 10s, 2m or 1h)");
  ASSERT_FALSE(ParseDurationMs("2000h", &ms, &error));
  EXPECT_EQ(error, "duration \"2000h\" is too large");
}

TEST(RecordConfigTest, SizesAreInKibibytes) {
  const struct {
    const char* text;
    uint32_t kb;
  } kGood[] = {{"32mb", 32768}, {"32MB", 32768}, {"1gb", 1048576}, {"1Gb", 1048576},
               {"512kb", 512},  {"4k", 4},       {"2m", 2048},     {"3G", 3145728},
               {"0", 0}};
  for (const auto& c : kGood) {
    uint32_t kb = 1;
    std::string error;
    EXPECT_TRUE(ParseSizeKb(c.text, &kb, &error)) << c.text << ": " << error;
    EXPECT_EQ(kb, c.kb) << c.text;
  }
  for (const char* bad : {"", "32", "mb", "32mib", "32 mb", "32b", "4096gb", "-1mb"}) {
    uint32_t kb = 0;
    std::string error;
    EXPECT_FALSE(ParseSizeKb(bad, &kb, &error)) << "\"" << bad << "\"";
  }
}

// Upstream's defaults, and one of ours (the incremental state clear period).
TEST(RecordConfigTest, ShorthandDefaults) {
  TraceConfig cfg;
  std::string error;
  ASSERT_TRUE(BuildShorthandConfig(ShorthandOptions(), &cfg, &error)) << error;
  ASSERT_EQ(cfg.buffers().size(), 1u);
  EXPECT_EQ(cfg.buffers()[0].size_kb(), 32768u);
  EXPECT_EQ(cfg.buffers()[0].fill_policy(),
            protos::gen::TraceConfig_BufferConfig_FillPolicy_RING_BUFFER);
  EXPECT_EQ(cfg.duration_ms(), 10000u);
  EXPECT_EQ(cfg.flush_period_ms(), 30000u);
  // Ours, not upstream's: a wrapped ring stays readable.
  EXPECT_EQ(cfg.incremental_state_config().clear_period_ms(), 5000u);
  EXPECT_FALSE(cfg.write_into_file());
  EXPECT_FALSE(cfg.has_max_file_size_bytes());
  ASSERT_EQ(cfg.data_sources().size(), 1u);
  EXPECT_EQ(cfg.data_sources()[0].config().name(), "track_event");
  EXPECT_EQ(cfg.data_sources()[0].config().target_buffer(), 0u);
  // No categories: every category but those tagged slow or debug, said
  // outright (the C ABI turns on only what a config names).
  protos::gen::TrackEventConfig te;
  ASSERT_TRUE(te.ParseFromString(cfg.data_sources()[0].config().track_event_config_raw()));
  EXPECT_EQ(te.enabled_categories(), std::vector<std::string>{"*"});
  EXPECT_EQ(te.disabled_tags(), (std::vector<std::string>{"slow", "debug"}));
  EXPECT_TRUE(te.disabled_categories().empty());
  EXPECT_TRUE(ValidateConfig(cfg, &error)) << error;
}

TEST(RecordConfigTest, ShorthandCategoriesEnableExactlyThose) {
  ShorthandOptions options;
  options.duration = "2m";
  options.buffer_size = "64mb";
  options.max_file_size = "1gb";
  options.categories = {"rendering", "net*"};
  TraceConfig cfg;
  std::string error;
  ASSERT_TRUE(BuildShorthandConfig(options, &cfg, &error)) << error;
  EXPECT_EQ(cfg.duration_ms(), 120000u);
  EXPECT_EQ(cfg.buffers()[0].size_kb(), 65536u);
  EXPECT_TRUE(cfg.write_into_file());
  EXPECT_EQ(cfg.max_file_size_bytes(), 1024ull * 1024 * 1024);
  const auto& ds = cfg.data_sources()[0].config();
  ASSERT_TRUE(ds.has_track_event_config());
  protos::gen::TrackEventConfig te;
  ASSERT_TRUE(te.ParseFromString(ds.track_event_config_raw()));
  EXPECT_EQ(te.enabled_categories(), (std::vector<std::string>{"rendering", "net*"}));
  EXPECT_EQ(te.disabled_categories(), std::vector<std::string>{"*"});
  // The config survives the wire (what EnableTracing sends).
  TraceConfig again;
  ASSERT_TRUE(again.ParseFromString(cfg.SerializeAsString()));
  EXPECT_EQ(again.data_sources()[0].config().track_event_config_raw(),
            ds.track_event_config_raw());
}

TEST(RecordConfigTest, ShorthandErrorsNameTheFlag) {
  const struct {
    ShorthandOptions options;
    const char* error;
  } kCases[] = {
      {{"10", "32mb", "", {}},
       "-t: bad duration \"10\": expected a number and a unit, e.g. 500ms, 10s, 2m or 1h"},
      {{"10s", "32", "", {}},
       "-b: bad size \"32\": expected a number and a unit, e.g. 512kb, 32mb or 1gb"},
      {{"10s", "0", "", {}}, "-b: the buffer size must be more than 0"},
      {{"10s", "32mb", "0", {}}, "-s: the file size limit must be more than 0"},
      {{"10s", "32mb", "1tb", {}},
       "-s: bad size \"1tb\": unknown unit \"tb\" (use 512kb, 32mb or 1gb)"},
  };
  for (const auto& c : kCases) {
    TraceConfig cfg;
    std::string error;
    EXPECT_FALSE(BuildShorthandConfig(c.options, &cfg, &error));
    EXPECT_EQ(error, c.error);
  }
}

TEST(RecordConfigTest, TextConfigsParseWithTheTraceConfigSchema) {
  TraceConfig cfg;
  std::string error;
  ASSERT_TRUE(ParseConfig(R"(
      buffers { size_kb: 1024 fill_policy: DISCARD }
      data_sources { config { name: "track_event"
                              track_event_config { enabled_categories: "a" } } }
      duration_ms: 2500
      write_into_file: true
      file_write_period_ms: 1000)",
                          /*text=*/true, "c.pbtxt", &cfg, &error))
      << error;
  EXPECT_EQ(cfg.buffers()[0].size_kb(), 1024u);
  EXPECT_EQ(cfg.buffers()[0].fill_policy(),
            protos::gen::TraceConfig_BufferConfig_FillPolicy_DISCARD);
  EXPECT_EQ(cfg.duration_ms(), 2500u);
  EXPECT_TRUE(cfg.write_into_file());
  protos::gen::TrackEventConfig te;
  ASSERT_TRUE(te.ParseFromString(cfg.data_sources()[0].config().track_event_config_raw()));
  EXPECT_EQ(te.enabled_categories(), std::vector<std::string>{"a"});
}

TEST(RecordConfigTest, TextErrorsSayFileLineAndColumn) {
  TraceConfig cfg;
  std::string error;
  EXPECT_FALSE(ParseConfig("buffers {\n  size_kb: 1024\n  fill_policy: RING\n}", true,
                           "my.pbtxt", &cfg, &error));
  EXPECT_EQ(error.rfind("my.pbtxt:3:16: unknown value \"RING\"", 0), 0u) << error;
  EXPECT_FALSE(ParseConfig("duration_ms: 1\nbufers {}", true, "x.pbtxt", &cfg, &error));
  EXPECT_EQ(error.rfind("x.pbtxt:2:1: unknown field \"bufers\"", 0), 0u) << error;
}

TEST(RecordConfigTest, BinaryConfigsRoundTripAndTextIsNotMistakenForOne) {
  TraceConfig in;
  in.add_buffers()->set_size_kb(64);
  in.add_data_sources()->mutable_config()->set_name("ds");
  in.set_duration_ms(42);
  TraceConfig out;
  std::string error;
  ASSERT_TRUE(ParseConfig(in.SerializeAsString(), false, "c.pb", &out, &error)) << error;
  EXPECT_EQ(out.duration_ms(), 42u);
  EXPECT_EQ(out.data_sources()[0].config().name(), "ds");

  EXPECT_FALSE(ParseConfig("buffers { size_kb: 1 }\n", false, "c.pbtxt", &out, &error));
  EXPECT_EQ(error, "c.pbtxt: not a valid binary TraceConfig (it looks like text: add "
                   "--txt to read it as a .pbtxt config)");
  EXPECT_FALSE(ParseConfig(std::string("\xff\xff\xff", 3), false, "c.pb", &out, &error));
  EXPECT_EQ(error, "c.pb: not a valid binary TraceConfig");
}

class TempDir {
 public:
  TempDir() {
    char path[] = "/tmp/zt_ztrace_config_XXXXXX";
    EXPECT_NE(mkdtemp(path), nullptr);
    path_ = path;
  }
  ~TempDir() {
    const std::string cmd = "rm -rf '" + path_ + "'";
    EXPECT_EQ(system(cmd.c_str()), 0);
  }
  std::string Write(const std::string& name, const std::string& contents) {
    const std::string file = path_ + "/" + name;
    FILE* f = fopen(file.c_str(), "wb");
    EXPECT_NE(f, nullptr);
    fwrite(contents.data(), 1, contents.size(), f);
    fclose(f);
    return file;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(RecordConfigTest, ConfigFilesLoadOrSayWhy) {
  TraceConfig cfg;
  std::string error;
  // An upstream-style config from the test data.
  ASSERT_TRUE(LoadConfigFile(ZT_TEST_CONFIGS_DIR "/track_event.pbtxt", true, &cfg, &error))
      << error;
  EXPECT_EQ(cfg.duration_ms(), 15000u);
  EXPECT_TRUE(ValidateConfig(cfg, &error)) << error;

  TempDir dir;
  EXPECT_FALSE(LoadConfigFile(dir.path() + "/missing.pbtxt", true, &cfg, &error));
  EXPECT_EQ(error, "cannot read the config " + dir.path() +
                       "/missing.pbtxt: No such file or directory");
  const std::string empty = dir.Write("empty.pbtxt", "");
  EXPECT_FALSE(LoadConfigFile(empty, true, &cfg, &error));
  EXPECT_EQ(error, "the config " + empty + " is empty");
  const std::string bad = dir.Write("bad.pbtxt", "buffers { size_kb: 4 }\nduration_ms: x\n");
  EXPECT_FALSE(LoadConfigFile(bad, true, &cfg, &error));
  EXPECT_EQ(error.rfind(bad + ":2:14: ", 0), 0u) << error;
}

TEST(RecordConfigTest, ValidationCatchesUselessConfigsEarly) {
  std::string error;
  TraceConfig cfg;
  EXPECT_FALSE(ValidateConfig(cfg, &error));
  EXPECT_EQ(error, "the config has no buffers (add e.g. buffers { size_kb: 32768 })");
  cfg.add_buffers();
  EXPECT_FALSE(ValidateConfig(cfg, &error));
  EXPECT_EQ(error, "buffer 0 of the config has no size_kb");
  cfg.mutable_buffers()->at(0).set_size_kb(4);
  EXPECT_FALSE(ValidateConfig(cfg, &error));
  EXPECT_EQ(error, "the config has no data sources: the trace would be empty");
  auto* ds = cfg.add_data_sources()->mutable_config();
  EXPECT_FALSE(ValidateConfig(cfg, &error));
  EXPECT_EQ(error, "a data source of the config has no name");
  ds->set_name("ds");
  ds->set_target_buffer(1);
  EXPECT_FALSE(ValidateConfig(cfg, &error));
  EXPECT_EQ(error,
            "data source \"ds\" targets buffer 1, but the config defines 1 buffer "
            "(target_buffer counts from 0)");
  ds->set_target_buffer(0);
  EXPECT_TRUE(ValidateConfig(cfg, &error)) << error;
}

bool Parse(std::vector<std::string> args, RecordFlags* flags, std::string* error) {
  return ParseRecordFlags(args, flags, error);
}

TEST(RecordFlagsTest, ShortLongJoinedAndSeparateValues) {
  RecordFlags f;
  std::string error;
  ASSERT_TRUE(Parse({"-t", "5s", "--buffer=64mb", "-s1gb", "-o", "out.pftrace", "cat1",
                     "--no-clobber", "cat2", "--", "-dash-cat"},
                    &f, &error))
      << error;
  EXPECT_EQ(f.shorthand.duration, "5s");
  EXPECT_EQ(f.shorthand.buffer_size, "64mb");
  EXPECT_EQ(f.shorthand.max_file_size, "1gb");
  EXPECT_EQ(f.shorthand.categories, (std::vector<std::string>{"cat1", "cat2", "-dash-cat"}));
  EXPECT_TRUE(f.has_shorthand);
  EXPECT_TRUE(f.no_clobber);
  EXPECT_EQ(f.out_path, "out.pftrace");
  EXPECT_FALSE(f.background);

  ASSERT_TRUE(Parse({"--config", "c.pbtxt", "--txt", "--out=-", }, &f, &error)) << error;
  EXPECT_EQ(f.config_path, "c.pbtxt");
  EXPECT_TRUE(f.text_config);
  EXPECT_EQ(f.out_path, "-");
  EXPECT_FALSE(f.has_shorthand);
  EXPECT_EQ(f.shorthand.duration, "10s");  // Defaults stay.

  ASSERT_TRUE(Parse({"-c", "-", "-o", "x", "-d"}, &f, &error)) << error;
  EXPECT_EQ(f.config_path, "-");
  EXPECT_TRUE(f.background);
  ASSERT_TRUE(Parse({"-o", "x", "--background-wait"}, &f, &error)) << error;
  EXPECT_TRUE(f.background);
  ASSERT_TRUE(Parse({"-o", "x", "-D"}, &f, &error)) << error;
  EXPECT_TRUE(f.background);
  ASSERT_TRUE(Parse({"-o", "x", "-dh"}, &f, &error)) << error;
  EXPECT_TRUE(f.background);
  EXPECT_TRUE(f.help);
}

TEST(RecordFlagsTest, HelpNeedsNothingElse) {
  RecordFlags f;
  std::string error;
  ASSERT_TRUE(Parse({"--help"}, &f, &error)) << error;
  EXPECT_TRUE(f.help);
  ASSERT_TRUE(Parse({"-c", "x", "-t", "1s", "-h"}, &f, &error)) << error;
  EXPECT_TRUE(f.help);
  EXPECT_NE(RecordUsage().find("Usage: ztrace record -o FILE"), std::string::npos);
}

TEST(RecordFlagsTest, BadCommandLinesSayWhat) {
  const struct {
    std::vector<std::string> args;
    const char* error;
  } kCases[] = {
      {{"-o", "x", "--frobnicate"}, "unknown option \"--frobnicate\""},
      {{"-o", "x", "-q"}, "unknown option \"-q\""},
      {{"-o", "x", "-dq"}, "unknown option \"-dq\""},
      {{"-o", "x", "--txt=yes"}, "option --txt takes no value"},
      {{"-o"}, "option -o needs a value"},
      {{"-o", "x", "--time"}, "option --time needs a value"},
      {{"-o", "x", "-"}, "unexpected \"-\" (it is a value: -c - or -o -)"},
      {{"-t", "1s"}, "an output file is required: -o FILE (-o - writes to stdout)"},
      {{"-o", "x", "-c", "c", "-t", "1s"},
       "-c cannot be combined with -t, -b, -s or categories"},
      {{"-o", "x", "-c", "c", "cat"}, "-c cannot be combined with -t, -b, -s or categories"},
      {{"-o", "x", "--txt"}, "--txt needs a config file (-c FILE)"},
      {{"-o", "-", "-d"}, "--background cannot write the trace to stdout: give -o FILE"},
  };
  for (const auto& c : kCases) {
    RecordFlags f;
    std::string error;
    EXPECT_FALSE(Parse(c.args, &f, &error)) << c.error;
    EXPECT_EQ(error, c.error);
  }
}

TEST(RecordFlagsTest, BuildRecordConfigExitCodes) {
  RecordFlags f;
  std::string error;
  TraceConfig cfg;
  ASSERT_TRUE(Parse({"-o", "x", "-t", "1s", "app"}, &f, &error));
  EXPECT_EQ(BuildRecordConfig(f, &cfg, &error), kExitOk) << error;
  EXPECT_EQ(cfg.duration_ms(), 1000u);

  ASSERT_TRUE(Parse({"-o", "x", "-t", "1"}, &f, &error));
  EXPECT_EQ(BuildRecordConfig(f, &cfg, &error), kExitUsage);
  EXPECT_EQ(error.rfind("-t: bad duration", 0), 0u) << error;

  TempDir dir;
  const std::string bad = dir.Write("c.pbtxt", "buffers { size_kb: 4 }\n  nope: 1\n");
  ASSERT_TRUE(Parse({"-o", "x", "-c", bad, "--txt"}, &f, &error));
  EXPECT_EQ(BuildRecordConfig(f, &cfg, &error), kExitFailure);
  EXPECT_EQ(error.rfind(bad + ":2:3: unknown field \"nope\"", 0), 0u) << error;

  const std::string useless = dir.Write("u.pbtxt", "buffers { size_kb: 4 }\n");
  ASSERT_TRUE(Parse({"-o", "x", "-c", useless, "--txt"}, &f, &error));
  EXPECT_EQ(BuildRecordConfig(f, &cfg, &error), kExitFailure);
  EXPECT_EQ(error, "the config has no data sources: the trace would be empty");
}

}  // namespace
}  // namespace ztrace
}  // namespace zt
