// The command line our benchmarks share besides Google Benchmark's: a case
// run on its own, N times, for callgrind's instruction counts
// (tools/track_event_callgrind takes any binary that accepts it).
//
//   BINARY --zt_list_cases                       prints the case names
//   BINARY --zt_case=NAME --zt_iterations=N      runs one case N times
//
// Header-only, for benchmark binaries.

#ifndef ZT_SRC_BASE_TEST_BENCHMARK_CASES_H_
#define ZT_SRC_BASE_TEST_BENCHMARK_CASES_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace zt {
namespace base {

struct BenchmarkCaseArgs {
  std::string case_name;  // Empty: run the Google Benchmark harness.
  int64_t iterations = 0;
  bool list_cases = false;
};

inline BenchmarkCaseArgs ParseBenchmarkCaseArgs(int argc, char** argv) {
  BenchmarkCaseArgs args;
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    if (arg.rfind("--zt_case=", 0) == 0)
      args.case_name = arg.substr(strlen("--zt_case="));
    else if (arg.rfind("--zt_iterations=", 0) == 0)
      args.iterations = strtoll(arg.c_str() + strlen("--zt_iterations="), nullptr, 10);
    else if (arg == "--zt_list_cases")
      args.list_cases = true;
  }
  return args;
}

// Prints the keys of |cases| (a map of case names) one per line.
template <typename Cases>
void PrintBenchmarkCases(const Cases& cases) {
  for (const auto& kv : cases)
    printf("%s\n", kv.first.c_str());
}

}  // namespace base
}  // namespace zt

#endif  // ZT_SRC_BASE_TEST_BENCHMARK_CASES_H_
