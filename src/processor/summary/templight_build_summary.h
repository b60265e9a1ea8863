// `ztrace stats` over many Templight traces (a whole build's .trace.pbf
// files): the templates that cost the build the most, by total time and by
// count, each with the translation units it appears in.
//
//   TemplightBuildSummary build;
//   for (const std::string& path : paths)
//     build.Add(path, *ImportTraceFile(path, ...));  // One storage at a time.
//   fputs(build.Format(10).c_str(), stdout);
//
// Each trace's costs are those of ComputeTemplightCosts (templates with
// their arguments folded, counted once per stack), summed over the traces:
// only the per-template sums and the units' names are kept, not the
// traces. Cost per trace: one ComputeTemplightCosts; memory: per distinct
// template, its sums and the ids of its units. Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_SUMMARY_TEMPLIGHT_BUILD_SUMMARY_H_
#define ZT_SRC_PROCESSOR_SUMMARY_TEMPLIGHT_BUILD_SUMMARY_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {

class TemplightBuildSummary {
 public:
  struct Template {
    std::string name;
    uint64_t count = 0;
    int64_t total_ns = 0;
    int64_t self_ns = 0;
    uint64_t memory_bytes = 0;
    std::vector<uint32_t> units;  // Indices into units(), ascending.
  };

  // Adds one trace. False (nothing added) when it holds no Templight unit.
  bool Add(const std::string& path, const TraceStorage& storage);

  // Every unit added, in order: its source file (the trace's path when
  // none was recorded).
  const std::vector<std::string>& units() const { return units_; }
  // Every template, the largest total time first.
  std::vector<Template> ByTotalTime() const;
  uint64_t traces() const { return traces_; }
  uint64_t instantiations() const { return instantiations_; }

  // The section `ztrace stats` prints: the build's totals, the top `top`
  // templates by total time and by count, each with its units (up to three
  // named).
  std::string Format(size_t top) const;

 private:
  std::vector<Template> templates_;
  std::unordered_map<std::string, uint32_t> index_;
  std::vector<std::string> units_;
  uint64_t traces_ = 0;
  uint64_t instantiations_ = 0;
  int64_t total_ns_ = 0;
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SUMMARY_TEMPLIGHT_BUILD_SUMMARY_H_
