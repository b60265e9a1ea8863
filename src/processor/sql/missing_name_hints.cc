#include "src/processor/sql/missing_name_hints.h"

#include <cstring>

namespace zt {
namespace processor {
namespace sql {

namespace {

struct Hint {
  const char* name;
  const char* explanation;
};

// Upstream's tables filled from data zerotrace does not import (no
// importer of ours reads ftrace, logcat, profiles or GPU data).
constexpr const char* kKernelData = "ftrace (Linux kernel) data";
constexpr const char* kProfileData = "heap or CPU profile data";
constexpr const char* kAndroidData = "Android system data";
constexpr const char* kGpuData = "GPU data";
constexpr struct {
  const char* table;
  const char* data;
} kTablesOfOtherData[] = {
    {"sched", kKernelData},
    {"sched_slice", kKernelData},
    {"thread_state", kKernelData},
    {"raw", kKernelData},
    {"cpu", kKernelData},
    {"cpu_track", kKernelData},
    {"cpu_counter_track", kKernelData},
    {"cpu_frequency_counters", kKernelData},
    {"irq_counter_track", kKernelData},
    {"android_logs", kAndroidData},
    {"package_list", kAndroidData},
    {"heap_profile_allocation", kProfileData},
    {"heap_graph_object", kProfileData},
    {"stack_profile_callsite", kProfileData},
    {"stack_profile_frame", kProfileData},
    {"stack_profile_mapping", kProfileData},
    {"perf_sample", kProfileData},
    {"cpu_profile_stack_sample", kProfileData},
    {"instruments_sample", kProfileData},
    {"gpu_slice", kGpuData},
    {"gpu_track", kGpuData},
    {"gpu_counter_track", kGpuData},
};

// Columns upstream renamed: a query written for the older name.
constexpr Hint kRenamedColumns[] = {
    {"classification",
     "if it is track's: track.classification was upstream v48's name of track.type (renamed in v49); "
     "zerotrace has v58.2's columns: use type"},
    {"dimensions",
     "if it is track's: track.dimensions was upstream v48's name of track.dimension_arg_set_id (renamed in "
     "v49); zerotrace has v58.2's columns: use dimension_arg_set_id"},
};

// The name after "<prefix>", without a schema or table qualifier.
bool NameAfter(const std::string& message, const char* prefix, std::string* name) {
  const size_t length = strlen(prefix);
  if (message.compare(0, length, prefix) != 0)
    return false;
  *name = message.substr(length);
  const size_t dot = name->rfind('.');
  if (dot != std::string::npos)
    *name = name->substr(dot + 1);
  return true;
}

}  // namespace

std::string ExplainMissingName(const std::string& sqlite_message) {
  std::string name;
  if (NameAfter(sqlite_message, "no such table: ", &name)) {
    for (const auto& table : kTablesOfOtherData) {
      if (name == table.table) {
        return sqlite_message + " (" + name + " is upstream's table of " + table.data +
               ", which zerotrace does not import; docs/sql.md lists what is here)";
      }
    }
  } else if (NameAfter(sqlite_message, "no such column: ", &name)) {
    for (const Hint& hint : kRenamedColumns) {
      if (name == hint.name)
        return sqlite_message + " (" + hint.explanation + ")";
    }
  }
  return sqlite_message;
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
