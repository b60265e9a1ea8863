// A trace's slices as a call graph, for `--to callgrind` and `--to
// graphviz` (docs/design/profile_formats.md): one function per distinct
// (name, origin file, origin line) — a name alone outside Templight — and
// one root function per track calling the track's top slices; per function
// its self time and memory; per (caller, callee, call line) the calls and
// their inclusive time and memory. A Templight memoization has the name
// and origin of the instantiation it stands for, so it is folded into that
// function, as templight-tools does.
//
// Memory (Templight with -memory only): an instantiation's growth of the
// compiler's memory (end - begin, when both were recorded); self memory
// leaves out its children's, never below 0.
//
// Cost: one pass over the slices, an open-addressing index per distinct
// function and call, and a counting sort of the calls by caller; 32 bytes
// per function, 40 per call, 24 per slice while building (a million
// Templight instantiations: about 0.3 s). Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_EXPORTERS_CALL_GRAPH_H_
#define ZT_SRC_PROCESSOR_EXPORTERS_CALL_GRAPH_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/processor/exporters/profile_output.h"
#include "src/processor/exporters/slice_profile.h"

namespace zt {
namespace processor {

class CallGraph {
 public:
  struct Function {
    StringId name = kNullStringId;
    StringId file = kNullStringId;  // Templight: the template's origin.
    uint32_t line = 0;
    StringId kind = kNullStringId;  // Templight: the first non-memoization kind seen.
    int64_t self_ns = 0;
    int64_t self_bytes = 0;
  };
  struct Call {
    uint32_t caller = 0;
    uint32_t callee = 0;
    StringId file = kNullStringId;  // Templight: the point of instantiation.
    uint32_t line = 0;
    uint64_t count = 0;
    int64_t inclusive_ns = 0;
    int64_t inclusive_bytes = 0;
  };

  explicit CallGraph(const SliceProfile& profile);

  const SliceProfile& profile() const { return profile_; }
  // 32 bytes each: a large Templight trace has a million.
  const std::vector<Function>& functions() const { return functions_; }
  // A track's root function (calling the track's top slices) has the
  // track's label; the others have none.
  bool is_root(uint32_t function) const {
    return function < is_root_.size() && is_root_[function];
  }
  std::string_view root_label(uint32_t function) const;
  // Grouped by caller, in the order of the callers' ids.
  const std::vector<Call>& calls() const { return calls_; }
  bool has_memory() const { return has_memory_; }
  bool is_templight() const { return profile_.has_templight(); }
  // The trace's time: the roots' inclusive time.
  int64_t total_ns() const { return total_ns_; }
  int64_t total_bytes() const { return total_bytes_; }

 private:
  const SliceProfile& profile_;
  std::vector<Function> functions_;
  std::vector<Call> calls_;
  // (root function, its track's label), in function order.
  std::vector<std::pair<uint32_t, std::string>> roots_;
  std::vector<bool> is_root_;  // Per function.
  bool has_memory_ = false;
  int64_t total_ns_ = 0;
  int64_t total_bytes_ = 0;
};

// kcachegrind's callgrind format. False with out->error() when the sink
// failed.
bool WriteCallgrind(const CallGraph& graph, ProfileOutput* out, std::vector<std::string>* notes);

// A graphviz digraph of the call graph.
bool WriteGraphviz(const CallGraph& graph, ProfileOutput* out, std::vector<std::string>* notes);

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_EXPORTERS_CALL_GRAPH_H_
