// The Templight part of `ztrace stats` (docs/design/templight.md): for a
// trace imported from Templight, the instantiations that cost the compiler
// the most time and memory, by template (a name up to its template
// arguments: every `std::vector<...>` together), by instantiation (the
// full name), by file (where the instantiation was requested) and by kind.
//
// Time is the instantiations' own duration ("total": counted once per
// stack, so a recursive template is not counted again inside itself) and
// their self time (less their nested instantiations). Memory is the growth
// of the compiler's memory between begin and end, when both were
// recorded, counted the same way.
//
// Cost: one pass over the Templight rows, each walking its stack (depth is
// small), plus a sort per list. Thread-safe on a finished storage.

#ifndef ZT_SRC_PROCESSOR_SUMMARY_TEMPLIGHT_SUMMARY_H_
#define ZT_SRC_PROCESSOR_SUMMARY_TEMPLIGHT_SUMMARY_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {

// `name` up to its first template argument list: "std::vector<int>::push_back"
// gives "std::vector"; `operator<` and `operator<<` are not argument lists.
std::string_view TemplateOf(std::string_view name);

struct TemplightCost {
  std::string key;  // Template, name or file.
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t self_ns = 0;
  uint64_t memory_bytes = 0;
};

// kKind: the kind's name in its unit's numbering, or "kind N" when the
// number is not known there.
enum class TemplightGrouping { kTemplate, kName, kFile, kKind };

// Every key's cost, the largest total time first.
std::vector<TemplightCost> ComputeTemplightCosts(const TraceStorage& storage,
                                                 TemplightGrouping grouping);

// The section `ztrace stats` prints; empty when the storage holds no
// Templight rows. `top`: rows per list.
std::string FormatTemplightSummary(const TraceStorage& storage, size_t top);

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SUMMARY_TEMPLIGHT_SUMMARY_H_
