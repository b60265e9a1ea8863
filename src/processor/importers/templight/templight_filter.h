// Views of an imported Templight trace that templight-tools users rely on
// (`ztrace stats` and `ztrace convert` with --blacklist FILE and
// --instantiations-only):
//  * a blacklist in templight-tools' format: lines `context REGEX` and
//    `identifier REGEX`; an instantiation whose whole name matches either
//    is left out with everything instantiated inside it. '#' comments and
//    blank lines are skipped; any other line is an error naming its line;
//  * instantiations only: entries of other kinds (argument substitutions,
//    default arguments, exception specifications, ...) are left out and
//    what they hold moves up to their parent; memoizations (a use of an
//    instantiation made earlier) are folded into what they stand for: left
//    out, their time staying with their parent.
//
//   TemplightBlacklist blacklist;
//   if (!blacklist.Load(path, &error)) Fail(error);
//   TemplightFilterResult r = FilterTemplight(&storage, &blacklist, true);
//
// Regular expressions are POSIX extended ones, matched against the whole
// name (templight-tools' ECMAScript patterns of the usual kind, `.*`,
// alternatives, classes, read the same). Other tracks' slices are kept.
// Cost: one pass over the slices, one match per distinct name. Thread-
// compatible; the storage is rewritten in place (ids change).

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_TEMPLIGHT_TEMPLIGHT_FILTER_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_TEMPLIGHT_TEMPLIGHT_FILTER_H_

#include <regex.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {

class TemplightBlacklist {
 public:
  TemplightBlacklist();
  ~TemplightBlacklist();
  TemplightBlacklist(const TemplightBlacklist&) = delete;
  TemplightBlacklist& operator=(const TemplightBlacklist&) = delete;

  // Reads a blacklist file; false with *error ("FILE:LINE: ...").
  bool Load(const std::string& path, std::string* error);
  // The same from text (`origin` names it in errors).
  bool Parse(std::string_view text, const std::string& origin, std::string* error);

  size_t patterns() const { return patterns_.size(); }
  // Whether `name` as a whole matches a pattern.
  bool Matches(std::string_view name) const;

 private:
  struct Compiled;
  std::vector<std::unique_ptr<Compiled>> patterns_;
};

struct TemplightFilterResult {
  uint64_t blacklisted = 0;  // Instantiations matched, with what they held.
  uint64_t not_instantiations = 0;  // Left out by instantiations-only.
};

// Leaves out of *storage's Templight slices (and their templight rows)
// what the blacklist (may be null) and `instantiations_only` say.
TemplightFilterResult FilterTemplight(TraceStorage* storage, const TemplightBlacklist* blacklist,
                                      bool instantiations_only);

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_TEMPLIGHT_TEMPLIGHT_FILTER_H_
