// The traces a pattern names, for commands that take many
// (`ztrace stats 'build/**/*.trace.pbf'`, `ztrace query --batch GLOB`):
// shell wildcards (* ? [...]) as glob(3) reads them, and `**` for any
// number of directories (bash expands it only with globstar set, so a
// quoted pattern is expanded here).
//
//   std::vector<std::string> paths;
//   std::string error;
//   if (!ExpandTraceGlob("build/**/*.trace.pbf", &paths, &error)) Fail(error);
//
// Paths come sorted. A `**` walk goes into directories, leaving out names
// that begin with '.' (as the shell's does) and failing past 128 levels
// (a loop through a bind mount); a directory that a
// plain pattern matches is listed (reading it then fails, said). A
// pattern without wildcards is the path itself (which need not exist: the
// import then says what is wrong with it). Thread-compatible.

#ifndef ZT_SRC_CMD_ZTRACE_TRACE_GLOB_H_
#define ZT_SRC_CMD_ZTRACE_TRACE_GLOB_H_

#include <string>
#include <vector>

namespace zt {
namespace ztrace {

// Appends the files `pattern` matches to *paths (sorted). False with
// *error when it matches none.
bool ExpandTraceGlob(const std::string& pattern, std::vector<std::string>* paths,
                     std::string* error);

}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_TRACE_GLOB_H_
