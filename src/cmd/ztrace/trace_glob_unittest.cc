#include "src/cmd/ztrace/trace_glob.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace zt {
namespace ztrace {
namespace {

class TraceGlobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/zt_trace_glob_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    root_ = dir;
    for (const char* sub : {"a", "a/b", "a/b/c", "gen"})
      ASSERT_EQ(mkdir((root_ + "/" + sub).c_str(), 0700), 0);
    for (const char* file : {"top.trace.pbf", "a/x.trace.pbf", "a/b/y.trace.pbf",
                             "a/b/c/z.trace.pbf", "a/b/notes.txt", "gen/g.trace.pbf"})
      std::ofstream(root_ + "/" + file) << "x";
  }
  void TearDown() override { system(("rm -rf " + root_).c_str()); }

  std::vector<std::string> Expand(const std::string& pattern) {
    std::vector<std::string> paths;
    std::string error;
    EXPECT_TRUE(ExpandTraceGlob(root_ + "/" + pattern, &paths, &error)) << error;
    for (std::string& path : paths)
      path = path.substr(root_.size() + 1);
    return paths;
  }
  std::string root_;
};

TEST_F(TraceGlobTest, StarStarIsAnyNumberOfDirectories) {
  EXPECT_EQ(Expand("**/*.trace.pbf"),
            (std::vector<std::string>{"a/b/c/z.trace.pbf", "a/b/y.trace.pbf", "a/x.trace.pbf",
                                      "gen/g.trace.pbf", "top.trace.pbf"}));
  EXPECT_EQ(Expand("a/**/*.trace.pbf"),
            (std::vector<std::string>{"a/b/c/z.trace.pbf", "a/b/y.trace.pbf", "a/x.trace.pbf"}));
  EXPECT_EQ(Expand("a/**/c/*.pbf"), (std::vector<std::string>{"a/b/c/z.trace.pbf"}));
}

TEST_F(TraceGlobTest, PlainWildcardsAndPlainPaths) {
  EXPECT_EQ(Expand("a/*.trace.pbf"), (std::vector<std::string>{"a/x.trace.pbf"}));
  EXPECT_EQ(Expand("*"), (std::vector<std::string>{"a", "gen", "top.trace.pbf"}));
  EXPECT_EQ(Expand("missing.pbf"), (std::vector<std::string>{"missing.pbf"}));
}

TEST_F(TraceGlobTest, StarStarLeavesOutHiddenEntriesAsTheShellDoes) {
  ASSERT_EQ(mkdir((root_ + "/.cache").c_str(), 0700), 0);
  std::ofstream(root_ + "/.cache/old.trace.pbf") << "x";
  std::ofstream(root_ + "/a/.partial.trace.pbf") << "x";
  EXPECT_EQ(Expand("**/*.trace.pbf"),
            (std::vector<std::string>{"a/b/c/z.trace.pbf", "a/b/y.trace.pbf", "a/x.trace.pbf",
                                      "gen/g.trace.pbf", "top.trace.pbf"}));
}

TEST_F(TraceGlobTest, ATreeTooDeepIsAnErrorNotACrash) {
  std::string dir = root_ + "/deep";
  ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
  for (int i = 0; i < 140; i++) {
    dir += "/d";
    ASSERT_EQ(mkdir(dir.c_str(), 0700), 0) << dir;
  }
  std::ofstream(dir + "/bottom.trace.pbf") << "x";
  std::vector<std::string> paths;
  std::string error;
  EXPECT_FALSE(ExpandTraceGlob(root_ + "/deep/**/*.trace.pbf", &paths, &error));
  EXPECT_NE(error.find("directories deep"), std::string::npos) << error;
}

TEST_F(TraceGlobTest, NoMatchIsAnError) {
  std::vector<std::string> paths;
  std::string error;
  EXPECT_FALSE(ExpandTraceGlob(root_ + "/**/*.json", &paths, &error));
  EXPECT_NE(error.find("no trace matches"), std::string::npos);
  EXPECT_TRUE(paths.empty());
}

}  // namespace
}  // namespace ztrace
}  // namespace zt
