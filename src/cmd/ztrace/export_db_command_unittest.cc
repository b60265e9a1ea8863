#include "src/cmd/ztrace/export_db_command.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
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
  // Every table, the two Templight ones (empty here) included.
  EXPECT_EQ(One(db, "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table'"), "16");
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

}  // namespace
}  // namespace ztrace
}  // namespace zt
