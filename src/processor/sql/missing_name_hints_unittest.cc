#include "src/processor/sql/missing_name_hints.h"

#include <string>

#include <gtest/gtest.h>

#include "src/processor/sql/query_engine_fixture_for_testing.h"

namespace zt {
namespace processor {
namespace sql {
namespace {

TEST(MissingNameHintsTest, UpstreamTablesOfDataWeDoNotImportSayWhy) {
  EXPECT_EQ(ExplainMissingName("no such table: sched"),
            "no such table: sched (sched is upstream's table of ftrace (Linux kernel) data, "
            "which zerotrace does not import; docs/sql.md lists what is here)");
  EXPECT_NE(ExplainMissingName("no such table: main.thread_state").find("upstream's table of"),
            std::string::npos);
  EXPECT_NE(ExplainMissingName("no such table: android_logs").find("Android system data"),
            std::string::npos);
}

TEST(MissingNameHintsTest, RenamedColumnsNameTheirNewName) {
  EXPECT_NE(ExplainMissingName("no such column: t.classification").find("use type"),
            std::string::npos);
  EXPECT_NE(ExplainMissingName("no such column: dimensions").find("use dimension_arg_set_id"),
            std::string::npos);
}

TEST(MissingNameHintsTest, OtherMessagesAreLeftAsTheyAre) {
  for (const std::string& message :
       {std::string("no such table: my_table"), std::string("no such column: foo"),
        std::string("near \"SELEC\": syntax error"), std::string("no such table: "),
        std::string("")}) {
    EXPECT_EQ(ExplainMissingName(message), message);
  }
}

class MissingNameHintsQueryTest : public QueryEngineFixture {};

TEST_F(MissingNameHintsQueryTest, QueriesGetTheHintInTheirError) {
  EXPECT_EQ(Run("SELECT classification FROM track"),
            Rows{"error: no such column: classification (if it is track's: "
                 "track.classification was upstream v48's name of track.type (renamed in v49); "
                 "zerotrace has v58.2's columns: use type)"});
  const Rows sched = Run("SELECT ts, dur FROM sched JOIN thread USING (utid)");
  ASSERT_EQ(sched.size(), 1u);
  EXPECT_NE(sched[0].find("sched is upstream's table of ftrace"), std::string::npos) << sched[0];
}

}  // namespace
}  // namespace sql
}  // namespace processor
}  // namespace zt
