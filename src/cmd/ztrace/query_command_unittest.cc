// ztrace query on the upstream v14 fixture (test/data/perfetto_v14): one
// query in each format, the prompt fed from a string, batches over copies.

#include "src/cmd/ztrace/query_command.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include "src/cmd/ztrace/exit_codes.h"

namespace zt {
namespace ztrace {
namespace {

const std::string kFixture =
    std::string(ZT_TEST_DATA_DIR) + "/perfetto_v14/inprocess_small.pftrace";

// A FILE* writing into a string.
class Capture {
 public:
  Capture() : file_(open_memstream(&buffer_, &size_)) {}
  ~Capture() {
    if (file_)
      fclose(file_);
    free(buffer_);
  }
  FILE* file() { return file_; }
  std::string text() {
    fflush(file_);
    return std::string(buffer_, size_);
  }

 private:
  char* buffer_ = nullptr;
  size_t size_ = 0;
  FILE* file_;
};

struct Outcome {
  int code;
  std::string out;
  std::string err;
};

Outcome Query(const std::vector<std::string>& args, const std::string& input = "") {
  Capture out, err;
  FILE* in = fmemopen(const_cast<char*>(input.data()), input.size(), "r");
  if (!in)
    in = fopen("/dev/null", "r");
  const int code = RunQuery(args, in, out.file(), err.file());
  fclose(in);
  return {code, out.text(), err.text()};
}

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/zt_query_XXXXXX";
    path_ = mkdtemp(pattern);
  }
  ~TempDir() { (void)system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void Copy(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  std::ofstream out(to, std::ios::binary);
  out << in.rdbuf();
}

TEST(QueryCommandTest, OneQueryAsATable) {
  const Outcome r = Query({kFixture,
                           "SELECT name, COUNT(*) AS n FROM slice "
                           "WHERE name LIKE 'dyn_%' GROUP BY name LIMIT 3"});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(r.out,
            "name   n\n"
            "-----  -\n"
            "dyn_0  6\n"
            "dyn_1  6\n"
            "dyn_2  6\n");
  EXPECT_EQ(r.err, "");
}

TEST(QueryCommandTest, CsvAndJson) {
  const std::string sql =
      "SELECT t.name AS counter, SUM(c.value) AS total FROM counter c "
      "JOIN counter_track t ON c.track_id = t.id GROUP BY t.name ORDER BY t.name";
  Outcome r = Query({"--csv", kFixture, sql});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(r.out, "counter,total\nconf_counter,2130.0\nconf_counter_double,495.0\n");
  r = Query({kFixture, "--json", sql});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(r.out,
            "[\n  {\"counter\": \"conf_counter\", \"total\": 2130.0},\n"
            "  {\"counter\": \"conf_counter_double\", \"total\": 495.0}\n]\n");
}

// Upstream's .sql files start with a "--" comment: such text is SQL, not
// an option; "--" ends the options.
TEST(QueryCommandTest, SqlStartingWithACommentIsNotAnOption) {
  Outcome r = Query({"--csv", kFixture, "-- how many\nSELECT COUNT(*) AS n FROM slice WHERE 0"});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(r.out, "n\n0\n");
  EXPECT_EQ(Query({"--csv", kFixture, "-j"}).code, kExitUsage);
  r = Query({"--csv", "--", kFixture, "-j"});
  EXPECT_EQ(r.code, kExitFailure);  // "-j" is SQL here: a syntax error.
  EXPECT_NE(r.err.find("error:"), std::string::npos) << r.err;
}

TEST(QueryCommandTest, SqlErrorIsExitOne) {
  const Outcome r = Query({kFixture, "SELECT nope FROM slice"});
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: no such column: nope\n");
}

TEST(QueryCommandTest, UnreadableTraceIsExitOne) {
  const Outcome r = Query({"/nonexistent.pftrace", "SELECT 1"});
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_NE(r.err.find("/nonexistent.pftrace"), std::string::npos) << r.err;
}

TEST(QueryCommandTest, UsageErrorsAreExitTwo) {
  EXPECT_EQ(Query({}).code, kExitUsage);
  EXPECT_EQ(Query({"--frobnicate", kFixture}).code, kExitUsage);
  EXPECT_EQ(Query({kFixture, "SELECT", "1"}).code, kExitUsage);
  EXPECT_EQ(Query({"-j", "0", "--batch", "*.x", "SELECT 1"}).code, kExitUsage);
  EXPECT_EQ(Query({"--batch", "*.x"}).code, kExitUsage);
  const Outcome help = Query({"--help"});
  EXPECT_EQ(help.code, kExitOk);
  EXPECT_NE(help.out.find("Usage: ztrace query"), std::string::npos);
}

TEST(QueryCommandTest, PromptRunsStatementsAndDotCommands) {
  TempDir dir;
  setenv("HOME", dir.path().c_str(), 1);
  const Outcome r = Query({kFixture},
                          ".tables\n"
                          "SELECT COUNT(*) AS n\n"
                          "  FROM slice;\n"
                          ".mode csv\n"
                          "SELECT 1 AS one;\n"
                          "SELECT bad;\n"
                          "!1\n"
                          ".history\n"
                          ".quit\n"
                          "SELECT 'not run';\n");
  // A script (no terminal) with a failed statement ends with 1.
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_NE(r.out.find("slice\nslices\nstats\ntemplight_instantiation\ntemplight_unit\nthread\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("n\n---\n495\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("one\n1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("n\n495\n"), std::string::npos) << r.out;  // !1 in csv mode.
  EXPECT_NE(r.out.find("    1  SELECT COUNT(*) AS n FROM slice;\n"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("not run"), std::string::npos);
  EXPECT_EQ(r.err, "error: no such column: bad\n");

  // The history went to ~/.ztrace_history, and the next session sees it.
  std::ifstream file(dir.path() + "/.ztrace_history");
  std::stringstream saved;
  saved << file.rdbuf();
  EXPECT_EQ(saved.str(),
            "SELECT COUNT(*) AS n FROM slice;\nSELECT 1 AS one;\nSELECT bad;\n"
            "SELECT COUNT(*) AS n FROM slice;\n");
  const Outcome again = Query({"--csv", kFixture}, "!2\n");
  EXPECT_EQ(again.code, kExitOk) << again.err;
  EXPECT_EQ(again.out, "one\n1\n");
}

TEST(QueryCommandTest, PromptShowsSchemasAndWhatTheSessionCreated) {
  TempDir dir;
  setenv("HOME", dir.path().c_str(), 1);
  const Outcome r = Query({kFixture},
                          ".schema counter\n"
                          "CREATE PERFETTO TABLE long_slices AS\n"
                          "  SELECT id, dur FROM slice WHERE dur > 1000;\n"
                          ".tables\n"
                          ".schema long_slices\n"
                          ".schema nope\n");
  EXPECT_NE(r.out.find("CREATE TABLE counter(id INTEGER, ts INTEGER, track_id INTEGER, "
                       "value REAL, arg_set_id INTEGER);\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("instant\nlong_slices\nmachine\nmetadata\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CREATE TABLE long_slices(id INT, dur INT);\n"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.err, "error: no table or view named nope (.tables lists them)\n");
  EXPECT_EQ(r.code, kExitFailure);
}

TEST(QueryCommandTest, PromptRunsAnUnterminatedLastStatement) {
  TempDir dir;
  setenv("HOME", dir.path().c_str(), 1);
  const Outcome r = Query({"--csv", kFixture}, "SELECT COUNT(*) AS n FROM flow");
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(r.out, "n\n45\n");
}

TEST(QueryCommandTest, BatchUnionWithTraceColumn) {
  TempDir dir;
  Copy(kFixture, dir.path() + "/a.pftrace");
  Copy(kFixture, dir.path() + "/b.pftrace");
  Copy(kFixture, dir.path() + "/c.pftrace");
  const Outcome r = Query({"--csv", "-j", "3", "--batch", dir.path() + "/*.pftrace",
                           "SELECT COUNT(*) AS slices FROM slice"});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(r.out, "trace,slices\n" + dir.path() + "/a.pftrace,495\n" + dir.path() +
                       "/b.pftrace,495\n" + dir.path() + "/c.pftrace,495\n");
}

TEST(QueryCommandTest, BatchReportsBadTracesAndKeepsTheRest) {
  TempDir dir;
  Copy(kFixture, dir.path() + "/a.pftrace");
  // A directory that matches: cannot be read as a trace.
  ASSERT_EQ(mkdir((dir.path() + "/b.pftrace").c_str(), 0700), 0);
  const Outcome r = Query({"--csv", "--batch", dir.path() + "/*.pftrace",
                           "SELECT COUNT(*) AS n FROM thread_track"});
  EXPECT_EQ(r.out, "trace,n\n" + dir.path() + "/a.pftrace,2\n");
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_NE(r.err.find(dir.path() + "/b.pftrace"), std::string::npos) << r.err;
  const Outcome none = Query({"--batch", dir.path() + "/*.nothing", "SELECT 1"});
  EXPECT_EQ(none.code, kExitFailure);
  EXPECT_NE(none.err.find("no trace matches"), std::string::npos);
  const Outcome bad_sql = Query({"--batch", dir.path() + "/a.pftrace", "SELECT nope"});
  EXPECT_EQ(bad_sql.code, kExitFailure);
  EXPECT_NE(bad_sql.err.find("no such column: nope"), std::string::npos) << bad_sql.err;
}

}  // namespace
}  // namespace ztrace
}  // namespace zt
