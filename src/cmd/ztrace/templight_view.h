// The Templight views `ztrace stats` and `ztrace convert` share
// (processor/importers/templight/templight_filter.h): --blacklist FILE
// (templight-tools' format) and --instantiations-only.
//
//   TemplightView view;
//   if (view.ParseOption(args, &i, &error)) continue;  // Consumed args[i].
//   ...
//   if (!view.Load(&error)) Fail(error);              // Once, before reading.
//   view.Apply(storage.get(), path, err);             // Each trace.

#ifndef ZT_SRC_CMD_ZTRACE_TEMPLIGHT_VIEW_H_
#define ZT_SRC_CMD_ZTRACE_TEMPLIGHT_VIEW_H_

#include <cstdio>
#include <string>
#include <vector>

#include "src/processor/importers/templight/templight_filter.h"

namespace zt {
namespace ztrace {

class TemplightView {
 public:
  // The options' lines for a command's --help.
  static const char* Usage();

  // True when args[*i] is one of the options (its value consumed too);
  // false with *error set when it is one but malformed, false with *error
  // empty when it is not one.
  bool ParseOption(const std::vector<std::string>& args, size_t* i, std::string* error);

  // Reads the blacklist, if one was given.
  bool Load(std::string* error);

  // Filters one imported trace; says on `err` what was left out.
  void Apply(processor::TraceStorage* storage, const std::string& path, FILE* err) const;

  bool active() const { return !blacklist_path_.empty() || instantiations_only_; }

 private:
  std::string blacklist_path_;
  bool instantiations_only_ = false;
  processor::TemplightBlacklist blacklist_;
};

}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_TEMPLIGHT_VIEW_H_
