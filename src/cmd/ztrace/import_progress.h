// The progress line of commands that import a trace: "reading T: 37%
// (1.2 of 3.1 GiB)", rewritten in place on a terminal, absent otherwise
// (logs and pipes get no carriage returns). Small traces print nothing.

#ifndef ZT_SRC_CMD_ZTRACE_IMPORT_PROGRESS_H_
#define ZT_SRC_CMD_ZTRACE_IMPORT_PROGRESS_H_

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace zt {
namespace ztrace {

class ImportProgress {
 public:
  ImportProgress(FILE* stream, std::string name)
      : stream_(stream), name_(std::move(name)), enabled_(isatty(fileno(stream)) == 1) {}

  std::function<void(uint64_t, uint64_t)> callback() {
    if (!enabled_)
      return nullptr;
    return [this](uint64_t done, uint64_t total) {
      if (total < (64u << 20))
        return;  // Over before anyone could read it.
      fprintf(stream_, "\rreading %s: %3d%% (%.1f of %.1f MiB)", name_.c_str(),
              static_cast<int>(done * 100 / total), static_cast<double>(done) / (1 << 20),
              static_cast<double>(total) / (1 << 20));
      fflush(stream_);
      shown_ = true;
    };
  }

  // Ends the line if one was shown.
  void Done() {
    if (shown_)
      fputs("\n", stream_);
    shown_ = false;
  }

 private:
  FILE* const stream_;
  const std::string name_;
  const bool enabled_;
  bool shown_ = false;
};

}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_IMPORT_PROGRESS_H_
