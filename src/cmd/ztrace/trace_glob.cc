#include "src/cmd/ztrace/trace_glob.h"

#include <dirent.h>
#include <fnmatch.h>
#include <glob.h>
#include <sys/stat.h>

#include <algorithm>

namespace zt {
namespace ztrace {
namespace {

// Deeper than this is a loop (a bind mount of a parent) or a mistake; the
// walk stops with an error rather than a stack overflow or no end.
constexpr int kMaxDepth = 128;

// Every file under `dir` (any depth) whose path below `dir` matches `rest`
// (fnmatch with FNM_PATHNAME at some depth: "*.pbf" matches a/b/x.pbf,
// "gen/*.pbf" matches a/gen/x.pbf). As the shell's `**` does, entries
// whose names begin with '.' are left out. Symbolic links to directories
// are not followed (no cycles). False, with |error| set, past kMaxDepth.
bool Walk(const std::string& dir, const std::string& relative, const std::string& rest,
          int depth, std::vector<std::string>* out, std::string* error) {
  if (depth > kMaxDepth) {
    *error = "'" + dir + "' is more than " + std::to_string(kMaxDepth) +
             " directories deep: is a directory mounted inside itself?";
    return false;
  }
  DIR* d = opendir(dir.c_str());
  if (!d)
    return true;
  std::vector<std::string> names;
  while (dirent* entry = readdir(d)) {
    const std::string name = entry->d_name;
    if (name[0] != '.')
      names.push_back(name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    const std::string path = dir == "." && relative.empty() ? name : dir + "/" + name;
    const std::string below = relative.empty() ? name : relative + "/" + name;
    struct stat st;
    if (lstat(path.c_str(), &st) != 0)
      continue;
    if (S_ISDIR(st.st_mode)) {
      if (!Walk(path, below, rest, depth + 1, out, error))
        return false;
      continue;
    }
    // Match `rest` against the last as many components of `below` as it has.
    const size_t parts = static_cast<size_t>(std::count(rest.begin(), rest.end(), '/')) + 1;
    size_t start = below.size();
    for (size_t i = 0; i < parts && start != std::string::npos; i++)
      start = start == 0 ? std::string::npos : below.rfind('/', start - 1);
    const std::string tail = start == std::string::npos ? below : below.substr(start + 1);
    if (fnmatch(rest.c_str(), tail.c_str(), FNM_PATHNAME) == 0)
      out->push_back(path);
  }
  return true;
}

}  // namespace

bool ExpandTraceGlob(const std::string& pattern, std::vector<std::string>* paths,
                     std::string* error) {
  std::vector<std::string> found;
  const size_t star_star = pattern.find("**");
  if (star_star != std::string::npos) {
    // DIR/**/REST: DIR may itself hold wildcards (expanded first).
    std::string dir = pattern.substr(0, star_star);
    while (!dir.empty() && dir.back() == '/')
      dir.pop_back();
    std::string rest = pattern.substr(star_star + 2);
    while (!rest.empty() && rest.front() == '/')
      rest.erase(0, 1);
    if (rest.empty())
      rest = "*";
    std::vector<std::string> roots;
    if (dir.empty()) {
      roots.push_back(".");
    } else if (dir.find_first_of("*?[") == std::string::npos) {
      roots.push_back(dir);
    } else {
      glob_t matches;
      if (glob(dir.c_str(), 0, nullptr, &matches) == 0) {
        for (size_t i = 0; i < matches.gl_pathc; i++)
          roots.emplace_back(matches.gl_pathv[i]);
      }
      globfree(&matches);
    }
    for (const std::string& root : roots) {
      if (!Walk(root, "", rest, 0, &found, error))
        return false;
    }
  } else if (pattern.find_first_of("*?[") == std::string::npos) {
    found.push_back(pattern);
  } else {
    glob_t matches;
    if (glob(pattern.c_str(), 0, nullptr, &matches) == 0) {
      // A directory that matches stays: reading it fails with its name,
      // rather than its being left out unsaid.
      for (size_t i = 0; i < matches.gl_pathc; i++)
        found.emplace_back(matches.gl_pathv[i]);
    }
    globfree(&matches);
  }
  if (found.empty()) {
    *error = "no trace matches '" + pattern + "'";
    return false;
  }
  std::sort(found.begin(), found.end());
  paths->insert(paths->end(), found.begin(), found.end());
  return true;
}

}  // namespace ztrace
}  // namespace zt
