#include "src/cmd/ztrace/export_db_command.h"

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>
#include "src/cmd/ztrace/exit_codes.h"

namespace zt {
namespace ztrace {
namespace {

const std::string kFixture =
    std::string(ZT_TEST_DATA_DIR) + "/perfetto_v14/inprocess_small.pftrace";

int Export(const std::vector<std::string>& args, std::string* err_text) {
  char* buffer = nullptr;
  size_t size = 0;
  FILE* err = open_memstream(&buffer, &size);
  FILE* out = fopen("/dev/null", "w");
  const int code = RunExportDb(args, out, err);
  fclose(out);
  fclose(err);
  *err_text = std::string(buffer, size);
  free(buffer);
  return code;
}

std::string One(sqlite3* db, const char* sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK)
    return std::string("error: ") + sqlite3_errmsg(db);
  std::string value;
  if (sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0))
    value = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  sqlite3_finalize(stmt);
  return value;
}

TEST(ExportDbCommandTest, WritesADatabaseSqliteOpens) {
  char dir[] = "/tmp/zt_export_db_XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const std::string path = std::string(dir) + "/out.sqlite";
  std::string err;
  ASSERT_EQ(Export({kFixture, path}, &err), kExitOk) << err;
  EXPECT_EQ(err, "");

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  EXPECT_EQ(One(db, "SELECT COUNT(*) FROM slice"), "495");
  EXPECT_EQ(One(db, "SELECT COUNT(*) FROM flow"), "45");
  EXPECT_EQ(One(db,
                "SELECT SUM(value) FROM counter JOIN counter_track t "
                "ON counter.track_id = t.id WHERE t.name = 'conf_counter'"),
            "2130.0");
  EXPECT_EQ(One(db, "SELECT SUM(int_value) FROM args WHERE key = 'debug.int_arg'"), "765");
  EXPECT_EQ(One(db, "SELECT COUNT(*) FROM thread_track"), "2");
  // Every table, the two Templight ones (empty here) and trace_bounds
  // (its values, not the functions it is a view of) included.
  EXPECT_EQ(One(db, "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table'"), "18");
  EXPECT_EQ(One(db, "SELECT COUNT(*) FROM clock_snapshot WHERE clock_name = 'BOOTTIME'"),
            One(db, "SELECT COUNT(DISTINCT snapshot_id) FROM clock_snapshot"));
  EXPECT_EQ(One(db, "SELECT end_ts - start_ts > 0 FROM trace_bounds"), "1");
  EXPECT_EQ(One(db, "SELECT COUNT(*) FROM templight_instantiation"), "0");
  EXPECT_EQ(One(db, "PRAGMA integrity_check"), "ok");
  sqlite3_close(db);

  // The sqlite3 shell, where installed, opens it too.
  if (system("command -v sqlite3 >/dev/null 2>&1") == 0) {
    const std::string command = "sqlite3 '" + path + "' 'select count(*) from slice'";
    FILE* pipe = popen(command.c_str(), "r");
    char line[64] = {};
    ASSERT_TRUE(fgets(line, sizeof(line), pipe));
    pclose(pipe);
    EXPECT_STREQ(line, "495\n");
  }
  unlink(path.c_str());
  rmdir(dir);
}

TEST(ExportDbCommandTest, Failures) {
  std::string err;
  EXPECT_EQ(Export({}, &err), kExitUsage);
  EXPECT_EQ(Export({kFixture}, &err), kExitUsage);
  EXPECT_EQ(Export({"--bogus", kFixture, "/tmp/x.sqlite"}, &err), kExitUsage);
  EXPECT_EQ(Export({"/nonexistent.pftrace", "/tmp/x.sqlite"}, &err), kExitFailure);
  EXPECT_NE(err.find("/nonexistent.pftrace"), std::string::npos) << err;
  EXPECT_EQ(Export({kFixture, "/nonexistent/dir/x.sqlite"}, &err), kExitFailure);
  EXPECT_NE(err.find("/nonexistent/dir/x.sqlite"), std::string::npos) << err;
  EXPECT_EQ(Export({"--help"}, &err), kExitOk);
}

std::string ReadAll(const std::string& path) {
  std::string bytes;
  FILE* f = fopen(path.c_str(), "rb");
  if (!f)
    return bytes;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), f)) > 0;)
    bytes.append(buf, n);
  fclose(f);
  return bytes;
}

// A scratch directory, removed with what is left in it.
struct ScratchDir {
  ScratchDir() {
    char tmpl[] = "/tmp/zt-export-db-XXXXXX";
    path = mkdtemp(tmpl) ? tmpl : "";
  }
  ~ScratchDir() { EXPECT_EQ(system(("rm -rf '" + path + "'").c_str()), 0); }
  // The names of the files in it.
  std::string List() const {
    std::string names;
    FILE* ls = popen(("ls -A '" + path + "'").c_str(), "r");
    char buf[256];
    while (ls && fgets(buf, sizeof(buf), ls))
      names += buf;
    if (ls)
      pclose(ls);
    return names;
  }
  std::string path;
};

// The input trace is never overwritten: convert refuses it, and so does
// export-db (issue 27: it replaced the trace with a database).
TEST(ExportDbCommandTest, RefusesToWriteOverItsInput) {
  ScratchDir dir;
  const std::string trace = dir.path + "/t.pftrace";
  const std::string original = ReadAll(kFixture);
  ASSERT_FALSE(original.empty());
  FILE* f = fopen(trace.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  fwrite(original.data(), 1, original.size(), f);
  fclose(f);
  std::string err;
  EXPECT_EQ(Export({trace, trace}, &err), kExitUsage);
  EXPECT_NE(err.find("would replace the trace itself"), std::string::npos) << err;
  EXPECT_EQ(Export({trace, dir.path + "/./t.pftrace"}, &err), kExitUsage);
  EXPECT_EQ(ReadAll(trace), original);
}

// A full disk midway (simulated with RLIMIT_FSIZE: writes past it fail
// with EFBIG) fails the export with an error, leaves an existing database
// as it was and leaves no partial file (issue 27: a partial file was left).
TEST(ExportDbCommandTest, AFullDiskLeavesNoPartialFileAndKeepsTheOldOne) {
  ScratchDir dir;
  const std::string db = dir.path + "/out.sqlite";
  std::string err;
  ASSERT_EQ(Export({kFixture, db}, &err), kExitOk) << err;
  const std::string complete = ReadAll(db);
  ASSERT_GT(complete.size(), 16384u) << "the fixture's database must outgrow the limit below";

  struct sigaction ignore = {}, old_action = {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGXFSZ, &ignore, &old_action);
  struct rlimit old_limit {};
  getrlimit(RLIMIT_FSIZE, &old_limit);
  struct rlimit small = old_limit;
  small.rlim_cur = 8192;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const int code = Export({kFixture, db}, &err);
  setrlimit(RLIMIT_FSIZE, &old_limit);
  sigaction(SIGXFSZ, &old_action, nullptr);

  EXPECT_EQ(code, kExitFailure);
  EXPECT_NE(err.find("cannot write " + db), std::string::npos) << err;
  EXPECT_EQ(ReadAll(db) == complete, true) << "the existing database was damaged";
  EXPECT_EQ(dir.List(), "out.sqlite\n") << "a partial file was left behind";
}

}  // namespace
}  // namespace ztrace
}  // namespace zt
