#include "src/cmd/ztrace/convert_command.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "src/processor/exporters/export_json.h"
#include "src/processor/exporters/export_pftrace.h"
#include "src/processor/test/sample_storage.h"

namespace zt {
namespace ztrace {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Captures what the command prints on a stream.
class Captured {
 public:
  Captured() : file_(open_memstream(&data_, &size_)) {}
  ~Captured() {
    fclose(file_);
    free(data_);
  }
  FILE* file() { return file_; }
  std::string text() {
    fflush(file_);
    return std::string(data_, size_);
  }

 private:
  char* data_ = nullptr;
  size_t size_ = 0;
  FILE* file_;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string SampleJson() {
  processor::TraceStorage storage;
  processor::test::FillSampleStorage(&storage);
  std::string json;
  processor::StringJsonSink sink(&json);
  processor::ExportJson(storage, &sink);
  return json;
}

class ConvertTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/convert_test_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    trace_ = dir_ + "/in.pftrace";
    std::ofstream(trace_) << "not read by the fake loader";
  }
  void TearDown() override { EXPECT_EQ(system(("rm -rf " + dir_).c_str()), 0); }

  // Loads the sample storage for trace_, fails for any other path.
  LoadTraceFn Loader() {
    return [this](const std::string& path, const processor::ImportOptions& options,
                  processor::ImportResult*, std::string* error)
               -> std::unique_ptr<processor::TraceStorage> {
      ++loads_;
      if (path != trace_) {
        *error = "cannot open " + path + ": No such file or directory";
        return nullptr;
      }
      if (options.progress) options.progress(10, 10);
      auto storage = std::make_unique<processor::TraceStorage>();
      processor::test::FillSampleStorage(storage.get());
      return storage;
    };
  }

  int Run(const std::vector<std::string>& args, bool terminal = false) {
    ConvertStreams streams;
    streams.out = out_.file();
    streams.err = err_.file();
    streams.err_is_terminal = terminal;
    return RunConvert(args, Loader(), streams);
  }

  // The command writing "-" into a pipe nobody reads (its reading end
  // closed); messages to err_. -1 if the pipe cannot be made.
  int RunIntoClosedPipe(const std::vector<std::string>& args) {
    int fds[2];
    if (pipe(fds) != 0)
      return -1;
    close(fds[0]);
    FILE* pipe_out = fdopen(fds[1], "w");
    ConvertStreams streams;
    streams.out = pipe_out;
    streams.err = err_.file();
    const int code = RunConvert(args, Loader(), streams);
    fclose(pipe_out);
    return code;
  }

  // The command in a child whose files may not grow past `bytes` (the
  // write then fails part way, EFBIG, as on a full disk); its exit code, or
  // -1 if it did not exit.
  int RunUnderFileSizeLimit(const std::vector<std::string>& args, rlim_t bytes) {
    const pid_t child = fork();
    if (child < 0)
      return -1;
    if (child == 0) {
      signal(SIGXFSZ, SIG_IGN);
      const struct rlimit limit = {bytes, bytes};
      setrlimit(RLIMIT_FSIZE, &limit);
      ConvertStreams streams;
      streams.err = fopen("/dev/null", "w");
      _exit(RunConvert(args, Loader(), streams));
    }
    int status = 0;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status))
      return -1;
    return WEXITSTATUS(status);
  }

  std::string dir_;
  std::string trace_;
  int loads_ = 0;
  Captured out_;
  Captured err_;
};

TEST_F(ConvertTest, HelpGoesToStdout) {
  EXPECT_EQ(Run({"--help"}), kExitOk);
  EXPECT_THAT(out_.text(), HasSubstr("Usage: ztrace convert TRACE OUT --to FORMAT"));
  EXPECT_THAT(out_.text(), HasSubstr("  json       Chrome Trace Event JSON"));
  EXPECT_THAT(out_.text(), HasSubstr("  pftrace    Perfetto protobuf trace"));
  EXPECT_THAT(out_.text(), HasSubstr("  text       every packet in protobuf text format"));
  EXPECT_THAT(out_.text(), HasSubstr("  templight  Templight trace"));
  EXPECT_EQ(err_.text(), "");
}

TEST_F(ConvertTest, UsageErrorsExitTwoWithoutReading) {
  EXPECT_EQ(Run({}), kExitUsage);
  EXPECT_THAT(err_.text(), HasSubstr("TRACE and OUT are required"));
  EXPECT_EQ(Run({trace_, "-"}), kExitUsage);
  EXPECT_THAT(err_.text(), HasSubstr("--to FORMAT is required"));
  EXPECT_EQ(Run({trace_, "-", "--to", "xml"}), kExitUsage);
  EXPECT_THAT(err_.text(), HasSubstr("unknown format \"xml\""));
  EXPECT_EQ(Run({trace_, "-", "--to"}), kExitUsage);
  EXPECT_THAT(err_.text(), HasSubstr("--to needs a format"));
  EXPECT_EQ(Run({trace_, "-", "--to=json", "--fast"}), kExitUsage);
  EXPECT_THAT(err_.text(), HasSubstr("unknown option \"--fast\""));
  EXPECT_EQ(Run({trace_, "a", "b", "--to=json"}), kExitUsage);
  EXPECT_THAT(err_.text(), HasSubstr("too many arguments"));
  EXPECT_EQ(Run({trace_, trace_, "--to=json"}), kExitUsage);
  EXPECT_THAT(err_.text(), HasSubstr("OUT is TRACE itself"));
  EXPECT_EQ(loads_, 0);
  EXPECT_EQ(out_.text(), "");
}

// The text dump reads the file's bytes, not the imported tables.
TEST_F(ConvertTest, TextReadsTheFileNotTheTables) {
  // A trace cut inside its first packet: the dump says where it stops.
  const std::string cut = dir_ + "/cut.pftrace";
  std::ofstream(cut, std::ios::binary) << std::string("\x0a\x05\x40\x01", 4);
  EXPECT_EQ(Run({cut, "-", "--to", "text"}), kExitOk) << err_.text();
  EXPECT_EQ(loads_, 0);
  EXPECT_THAT(err_.text(), HasSubstr("damaged, read up to the damage"));
}

// A file that is not a trace is refused by name, not dumped as damage.
TEST_F(ConvertTest, TextRefusesAFileThatIsNotATrace) {
  EXPECT_EQ(Run({trace_, "-", "--to", "text"}), kExitFailure);
  EXPECT_EQ(loads_, 0);
  EXPECT_THAT(err_.text(),
              HasSubstr(trace_ + " is text, not a Perfetto, Chrome JSON or Templight trace"));
  EXPECT_EQ(out_.text(), "");
}

// The packet dump reads protobuf bytes: JSON and gzip are named, not
// dumped as damage.
TEST_F(ConvertTest, TextRefusesJsonAndGzipInput) {
  const std::string json = dir_ + "/t.json";
  std::ofstream(json) << "{\"traceEvents\": []}";
  EXPECT_EQ(Run({json, "-", "--to", "text"}), kExitFailure);
  EXPECT_THAT(err_.text(), HasSubstr(json + " is a Chrome JSON trace; --to text reads protobuf "
                                            "traces as they are on disk"));
  EXPECT_EQ(out_.text(), "");
}

TEST_F(ConvertTest, WritesJsonToAFileAndNotesToStderr) {
  const std::string out = dir_ + "/out.json";
  EXPECT_EQ(Run({"--to", "json", trace_, out}), kExitOk);
  EXPECT_EQ(ReadFile(out), SampleJson());
  EXPECT_EQ(err_.text(),
            "ztrace convert: not in the JSON: counter units (JSON counters have none): 1 "
            "(first: conf_counter: bytes)\n");
  EXPECT_EQ(out_.text(), "");
}

std::string SamplePftrace() {
  processor::TraceStorage storage;
  processor::test::FillSampleStorage(&storage);
  std::string bytes;
  processor::StringJsonSink sink(&bytes);
  processor::ExportPftrace(storage, &sink);
  return bytes;
}

TEST_F(ConvertTest, WritesPftraceThatOurImporterReadsBack) {
  const std::string out = dir_ + "/out.pftrace";
  EXPECT_EQ(Run({"--to", "pftrace", trace_, out}), kExitOk) << err_.text();
  const std::string bytes = ReadFile(out);
  EXPECT_EQ(bytes, SamplePftrace());
  EXPECT_EQ(err_.text(), "");  // The sample loses nothing.
  processor::TraceStorage back;
  processor::ImportTrace(bytes.data(), bytes.size(), &back);
  EXPECT_EQ(back.slice.size(), 9u);
  EXPECT_EQ(back.counter.size(), 2u);
  EXPECT_EQ(back.flow.size(), 2u);
}

TEST_F(ConvertTest, PftraceNotesGoToStderr) {
  auto load = [](const std::string&, const processor::ImportOptions&,
                     processor::ImportResult*, std::string*) {
    auto storage = std::make_unique<processor::TraceStorage>();
    processor::test::FillSampleStorage(storage.get());
    storage->metadata.name.push_back(storage->strings.Intern("trace_uuid"));
    storage->metadata.int_value.push_back(processor::kNullInt);
    storage->metadata.str_value.push_back(storage->strings.Intern("x"));
    return storage;
  };
  ConvertStreams streams;
  streams.out = out_.file();
  streams.err = err_.file();
  EXPECT_EQ(RunConvert({trace_, "-", "--to=pftrace"}, load, streams), kExitOk);
  EXPECT_EQ(err_.text(),
            "ztrace convert: not in the Perfetto trace: metadata rows (not in the trace): 1 "
            "(first: trace_uuid)\n");
}

TEST_F(ConvertTest, PftraceWriteErrorsExitOne) {
  EXPECT_EQ(RunIntoClosedPipe({trace_, "-", "--to=pftrace"}), kExitFailure);
  EXPECT_THAT(err_.text(), HasSubstr("ztrace convert: writing stdout: Broken pipe"));

  struct stat before;
  if (stat("/dev/full", &before) != 0) GTEST_SKIP() << "no /dev/full";
  EXPECT_EQ(Run({trace_, "/dev/full", "--to=pftrace"}), kExitFailure);
  EXPECT_THAT(err_.text(), HasSubstr("ztrace convert: writing /dev/full: No space left on device"));
}

TEST_F(ConvertTest, PartialPftraceFileIsRemoved) {
  const std::string out = dir_ + "/partial.pftrace";
  EXPECT_EQ(RunUnderFileSizeLimit({trace_, out, "--to=pftrace"}, 100), kExitFailure);
  EXPECT_NE(access(out.c_str(), F_OK), 0);  // Removed.
}

TEST_F(ConvertTest, DashIsStdout) {
  EXPECT_EQ(Run({trace_, "-", "--to=json"}), kExitOk);
  EXPECT_EQ(out_.text(), SampleJson());
}

TEST_F(ConvertTest, ProgressOnlyOnATerminal) {
  EXPECT_EQ(Run({trace_, dir_ + "/a.json", "--to=json"}), kExitOk);
  EXPECT_THAT(err_.text(), Not(HasSubstr("\r")));
  EXPECT_EQ(Run({trace_, dir_ + "/b.json", "--to=json"}, /*terminal=*/true), kExitOk);
  EXPECT_THAT(err_.text(), HasSubstr("\rztrace convert: reading 100% (10/10 bytes)"));
  EXPECT_THAT(err_.text(), HasSubstr("\rztrace convert: writing 100% (11/11 rows)"));
  EXPECT_THAT(err_.text(), HasSubstr("\r\033[K"));
}

TEST_F(ConvertTest, UnreadableTraceExitsOne) {
  const std::string out = dir_ + "/out.json";
  EXPECT_EQ(Run({dir_ + "/missing.pftrace", out, "--to=json"}), kExitFailure);
  EXPECT_THAT(err_.text(), HasSubstr("cannot open " + dir_ + "/missing.pftrace: No such file"));
  EXPECT_NE(access(out.c_str(), F_OK), 0);  // No output left behind.
}

TEST_F(ConvertTest, UnwritableOutputExitsOne) {
  EXPECT_EQ(Run({trace_, dir_ + "/no/such/dir.json", "--to=json"}), kExitFailure);
  EXPECT_THAT(err_.text(), HasSubstr("cannot write " + dir_ + "/no/such/dir.json: No such file"));
}

TEST_F(ConvertTest, FullDiskExitsOne) {
  FILE* full = fopen("/dev/full", "w");
  if (!full) GTEST_SKIP() << "no /dev/full";
  ConvertStreams streams;
  streams.out = full;
  streams.err = err_.file();
  EXPECT_EQ(RunConvert({trace_, "-", "--to=json"}, Loader(), streams), kExitFailure);
  fclose(full);
  EXPECT_THAT(err_.text(), HasSubstr("ztrace convert: writing stdout: No space left on device"));
}

TEST_F(ConvertTest, FullDeviceAsOutExitsOneAndIsNotRemoved) {
  struct stat before;
  if (stat("/dev/full", &before) != 0) GTEST_SKIP() << "no /dev/full";
  EXPECT_EQ(Run({trace_, "/dev/full", "--to=json"}), kExitFailure);
  EXPECT_EQ(err_.text(), "ztrace convert: writing /dev/full: No space left on device\n");
  struct stat after;
  ASSERT_EQ(stat("/dev/full", &after), 0);  // Only regular files are removed.
  EXPECT_TRUE(S_ISCHR(after.st_mode));
}

TEST_F(ConvertTest, PartialRegularFileIsRemoved) {
  // A file size limit makes the write fail (EFBIG) part way, as a full disk
  // would; in a child, so that the limit stays there.
  const std::string out = dir_ + "/partial.json";
  EXPECT_EQ(RunUnderFileSizeLimit({trace_, out, "--to=json"}, 1000), kExitFailure);
  EXPECT_NE(access(out.c_str(), F_OK), 0);  // Removed.
}

TEST_F(ConvertTest, ClosedPipeExitsOneInsteadOfDying) {
  EXPECT_EQ(RunIntoClosedPipe({trace_, "-", "--to=json"}), kExitFailure);
  EXPECT_THAT(err_.text(), HasSubstr("ztrace convert: writing stdout: Broken pipe"));
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

// The upstream v14 fixture through the real importer, out as a Perfetto
// trace and in again: the same slices, counters and flows, and no new
// error or data loss.
TEST(ConvertFixtureTest, UpstreamFixtureRoundTripsAsPftrace) {
  Captured out, err;
  ConvertStreams streams;
  streams.out = out.file();
  streams.err = err.file();
  const std::string trace = std::string(ZT_TEST_DATA_DIR) + "/perfetto_v14/inprocess_small.pftrace";
  ASSERT_EQ(RunConvert({trace, "-", "--to", "pftrace"}, processor::ImportTraceFile, streams),
            kExitOk)
      << err.text();
  const std::string bytes = out.text();
  processor::ImportResult result;
  std::string error;
  auto first = processor::ImportTraceFile(trace, processor::ImportOptions(), &result, &error);
  ASSERT_TRUE(first) << error;
  processor::TraceStorage back;
  processor::ImportTrace(bytes.data(), bytes.size(), &back);
  auto summary = [](const processor::TraceStorage& s) {
    std::multiset<std::string> lines;
    for (uint32_t i = 0; i < s.slice.size(); ++i) {
      lines.insert(std::string(s.strings.Get(s.slice.name[i])) + " " +
                   std::to_string(s.slice.ts[i]) + " " + std::to_string(s.slice.dur[i]) + " " +
                   std::to_string(s.slice.depth[i]));
    }
    return lines;
  };
  EXPECT_EQ(summary(back), summary(*first));
  EXPECT_EQ(back.counter.size(), first->counter.size());
  EXPECT_EQ(back.flow.size(), first->flow.size());
  EXPECT_EQ(back.args.size(), first->args.size());
  for (int k = 0; k < processor::stats::kNumKeys; ++k) {
    const auto key = static_cast<processor::stats::Key>(k);
    const processor::stats::Descriptor& d = processor::stats::Describe(key);
    if (d.severity == processor::stats::kInfo) continue;
    const int64_t value = d.type == processor::stats::kIndexed ? back.stats.GetIndexedTotal(key)
                                                               : back.stats.Get(key);
    EXPECT_EQ(value, 0) << d.name;
  }
}

// The upstream v14 fixture through the real importer: what its manifest
// lists, as JSON events.
TEST(ConvertFixtureTest, UpstreamFixtureAsJson) {
  Captured out, err;
  ConvertStreams streams;
  streams.out = out.file();
  streams.err = err.file();
  const std::string trace = std::string(ZT_TEST_DATA_DIR) + "/perfetto_v14/inprocess_small.pftrace";
  ASSERT_EQ(RunConvert({trace, "-", "--to", "json"}, processor::ImportTraceFile, streams), kExitOk)
      << err.text();
  const std::string json = out.text();
  for (const char* name : {"Outer", "Middle", "Inner", "ArgsA", "FlowOut", "FlowIn",
                           "OnCustomTrack", "WorkerSlice"}) {
    EXPECT_EQ(Count(json, std::string("\"name\":\"") + name + "\""), 45u) << name;
  }
  EXPECT_EQ(Count(json, "\"name\":\"dyn_0\""), 6u);
  EXPECT_EQ(Count(json, "\"ph\":\"X\""), 405u);  // slice_begins_total.
  EXPECT_EQ(Count(json, "\"ph\":\"i\""), 90u);   // Instant, ArgsB.
  EXPECT_EQ(Count(json, "\"ph\":\"C\""), 90u);
  EXPECT_EQ(Count(json, "\"name\":\"conf_counter\""), 45u);
  EXPECT_EQ(Count(json, "\"name\":\"conf_counter_double\""), 45u);
  EXPECT_EQ(Count(json, "\"flow_out\":true"), 45u);
  EXPECT_EQ(Count(json, "\"flow_in\":true"), 45u);
  // Debug annotations without "debug.".
  EXPECT_EQ(Count(json, "\"args\":{\"iter\":"), 45u);
  EXPECT_EQ(Count(json, "\"str_arg\":\"s0\""), 12u);
  EXPECT_EQ(Count(json, "\"bool_arg\":true"), 23u);
  EXPECT_EQ(Count(json, "\"bool_arg\":false"), 22u);
  EXPECT_THAT(json, HasSubstr("\"name\":\"thread_name\",\"args\":{\"name\":\"conf_custom_track\"}"));
  EXPECT_THAT(json, Not(HasSubstr("ShouldNotAppear")));
}

// The same fixture as text: every packet, interned names resolved.
TEST(ConvertFixtureTest, UpstreamFixtureAsText) {
  Captured out, err;
  ConvertStreams streams;
  streams.out = out.file();
  streams.err = err.file();
  const std::string trace = std::string(ZT_TEST_DATA_DIR) + "/perfetto_v14/inprocess_small.pftrace";
  ASSERT_EQ(RunConvert({trace, "-", "--to", "text"}, processor::ImportTraceFile, streams), kExitOk)
      << err.text();
  const std::string text = out.text();
  EXPECT_EQ(Count(text, "packet {  # byte "), 1054u);
  EXPECT_EQ(Count(text, "  # \"Outer\"\n"), 45u);
  EXPECT_EQ(err.text(), "");
}

// Templight input as text: its own messages (before: Perfetto-packet junk,
// exit status 0); a file cut short says so on stderr.
TEST(ConvertFixtureTest, TemplightAsText) {
  const std::string trace = std::string(ZT_TEST_DATA_DIR) + "/templight/tiny.memory.trace.pbf";
  Captured out, err;
  ConvertStreams streams;
  streams.out = out.file();
  streams.err = err.file();
  ASSERT_EQ(RunConvert({trace, "-", "--to", "text"}, processor::ImportTraceFile, streams), kExitOk)
      << err.text();
  const std::string text = out.text();
  EXPECT_THAT(text, ::testing::StartsWith("traces {  # byte 3: translation unit 0"));
  EXPECT_EQ(Count(text, "    begin {\n"), 10u);
  EXPECT_EQ(text.find("packet {"), std::string::npos);
  EXPECT_EQ(err.text(), "");
}

// templight-tools' blacklist and an instantiations-only view, on the way
// to any format; a bad list is an error naming its line.
TEST(ConvertFixtureTest, TemplightBlacklistAndInstantiationsOnly) {
  const std::string trace = std::string(ZT_TEST_DATA_DIR) + "/templight/tiny.memory.trace.pbf";
  char list[] = "/tmp/zt_blacklist_XXXXXX";
  const int fd = mkstemp(list);
  ASSERT_GE(fd, 0);
  const std::string text = "identifier std::map<.*\n";
  ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  {
    Captured out, err;
    ConvertStreams streams;
    streams.out = out.file();
    streams.err = err.file();
    ASSERT_EQ(RunConvert({trace, "-", "--to", "folded", "--blacklist", list, "--instantiations-only"},
                         processor::ImportTraceFile, streams),
              kExitOk)
        << err.text();
    EXPECT_EQ(out.text().find("std::map"), std::string::npos) << out.text();
    EXPECT_NE(out.text().find("std::vector<"), std::string::npos) << out.text();
    EXPECT_THAT(err.text(), HasSubstr("3 instantiations left out by the blacklist"));
    EXPECT_THAT(err.text(), HasSubstr("entries that are not instantiations folded away"));
  }
  {
    Captured out, err;
    ConvertStreams streams;
    streams.out = out.file();
    streams.err = err.file();
    EXPECT_EQ(RunConvert({trace, "-", "--to", "text", "--instantiations-only"},
                         processor::ImportTraceFile, streams),
              kExitUsage);
    FILE* bad = fopen(list, "w");
    fputs("identifier (\n", bad);
    fclose(bad);
    EXPECT_EQ(RunConvert({trace, "-", "--to", "json", "--blacklist", list}, processor::ImportTraceFile,
                         streams),
              kExitFailure);
    EXPECT_THAT(err.text(), HasSubstr(std::string(list) + ":1: bad regular expression"));
  }
  unlink(list);
}

// `ztrace report`: convert's --to html with OUT named after TRACE.
TEST(ConvertFixtureTest, ReportWritesOneHtmlFile) {
  const std::string trace = std::string(ZT_TEST_DATA_DIR) + "/perfetto_v14/inprocess_small.pftrace";
  Captured out, err;
  ConvertStreams streams;
  streams.out = out.file();
  streams.err = err.file();
  EXPECT_EQ(RunReport({"--help"}, processor::ImportTraceFile, streams), kExitOk);
  EXPECT_THAT(out.text(), HasSubstr("Usage: ztrace report TRACE"));
  EXPECT_EQ(RunReport({}, processor::ImportTraceFile, streams), kExitUsage);
  EXPECT_EQ(RunReport({trace, "--frobnicate"}, processor::ImportTraceFile, streams), kExitUsage);
  // Its errors are the report's, not convert's.
  EXPECT_EQ(RunReport({"/nonexistent/t.pftrace"}, processor::ImportTraceFile, streams), kExitFailure);
  EXPECT_THAT(err.text(), HasSubstr("ztrace report: /nonexistent/t.pftrace"));
  EXPECT_THAT(err.text(), Not(HasSubstr("ztrace convert:")));
  char dir[] = "/tmp/zt_report_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string html = std::string(dir) + "/r.html";
  ASSERT_EQ(RunReport({trace, "-o", html}, processor::ImportTraceFile, streams), kExitOk) << err.text();
  FILE* f = fopen(html.c_str(), "rb");
  ASSERT_TRUE(f);
  char head[16] = {};
  fread(head, 1, 15, f);
  fclose(f);
  EXPECT_STREQ(head, "<!DOCTYPE html>");
  EXPECT_THAT(err.text(), HasSubstr("wrote " + html + "; open it in a browser"));
  unlink(html.c_str());
  rmdir(dir);
}

// Templight in, Templight out: the file Templight wrote, byte for byte; and
// in Perfetto's formats, a slice per instantiation on the unit's track.
TEST(ConvertFixtureTest, TemplightRoundTripAndJson) {
  const std::string trace = std::string(ZT_TEST_DATA_DIR) + "/templight/tiny.memory.trace.pbf";
  {
    Captured out, err;
    ConvertStreams streams;
    streams.out = out.file();
    streams.err = err.file();
    ASSERT_EQ(RunConvert({trace, "-", "--to", "templight"}, processor::ImportTraceFile, streams),
              kExitOk)
        << err.text();
    FILE* original = fopen(trace.c_str(), "rb");
    ASSERT_TRUE(original);
    std::string bytes(4096, '\0');
    bytes.resize(fread(&bytes[0], 1, bytes.size(), original));
    fclose(original);
    EXPECT_EQ(out.text(), bytes);
  }
  {
    Captured out, err;
    ConvertStreams streams;
    streams.out = out.file();
    streams.err = err.file();
    ASSERT_EQ(RunConvert({trace, "-", "--to", "json"}, processor::ImportTraceFile, streams),
              kExitOk)
        << err.text();
    const std::string json = out.text();
    EXPECT_EQ(Count(json, "\"ph\":\"X\""), 7u) << json;
    EXPECT_EQ(Count(json, "\"ph\":\"i\""), 3u) << json;  // Memoizations: no time.
    EXPECT_THAT(json, HasSubstr("\"name\":\"thread_name\",\"args\":{\"name\":\"/src/app/main.cpp\"}"));
  }
  {
    // A full disk is an error, said.
    Captured err;
    ConvertStreams streams;
    streams.err = err.file();
    struct stat full;
    if (stat("/dev/full", &full) == 0) {
      EXPECT_EQ(RunConvert({trace, "/dev/full", "--to", "templight"}, processor::ImportTraceFile,
                           streams),
                kExitFailure);
      EXPECT_THAT(err.text(), HasSubstr("writing /dev/full: No space left on device"));
    }
  }
  {
    // A Perfetto trace has no Templight unit to write.
    Captured out, err;
    ConvertStreams streams;
    streams.out = out.file();
    streams.err = err.file();
    const std::string pftrace =
        std::string(ZT_TEST_DATA_DIR) + "/perfetto_v14/inprocess_small.pftrace";
    EXPECT_EQ(RunConvert({pftrace, "-", "--to", "templight"}, processor::ImportTraceFile, streams),
              kExitFailure);
    EXPECT_THAT(err.text(), HasSubstr("no Templight translation unit"));
  }
}

}  // namespace
}  // namespace ztrace
}  // namespace zt
