// Whether two paths name one file, so that a command never writes its
// output over its own input (convert, export-db).

#ifndef ZT_SRC_CMD_ZTRACE_SAME_FILE_H_
#define ZT_SRC_CMD_ZTRACE_SAME_FILE_H_

#include <sys/stat.h>

#include <string>

namespace zt {
namespace ztrace {

// True if both exist and are the same file (same device and inode: links
// and different spellings of one path included). Cost: two stat(2).
inline bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_SAME_FILE_H_
