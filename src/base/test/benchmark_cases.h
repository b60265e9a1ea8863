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

// The shared memory buffer's size, in KiB, a benchmark asks for:
// $ZT_BENCH_SMB_KB when set, else |default_kb|. tools/track_event_callgrind
// sets it to the largest (32 MiB): under valgrind the threads take turns,
// so the service may not run before a 256 KiB buffer fills, and the
// writer's stalls (a scan of every page per retry, yields) would be counted
// as its own instructions, more or fewer by the scheduler's whim (issue 32:
// +6 to +28 instructions per op from one day to the next).
inline uint32_t BenchmarkSmbKb(uint32_t default_kb) {
  const char* kb = getenv("ZT_BENCH_SMB_KB");
  return kb && *kb ? static_cast<uint32_t>(strtoul(kb, nullptr, 10)) : default_kb;
}

// Prints the keys of |cases| (a map of case names) one per line.
template <typename Cases>
void PrintBenchmarkCases(const Cases& cases) {
  for (const auto& kv : cases)
    printf("%s\n", kv.first.c_str());
}

// Runs case |name| of |cases| (a map of names to structs with
// `run(int64_t)` and `needs_session`) |iterations| times, inside a session
// from |start_session(iterations)| (a unique_ptr whose StopBlocking() ends
// it) when the case needs one. 2 if there is no such case.
template <typename Cases, typename StartSession>
int RunBenchmarkCase(const Cases& cases, const std::string& name, int64_t iterations,
                     StartSession start_session) {
  auto it = cases.find(name);
  if (it == cases.end()) {
    fprintf(stderr, "unknown case '%s' (--zt_list_cases lists them)\n", name.c_str());
    return 2;
  }
  decltype(start_session(iterations)) session;
  if (it->second.needs_session)
    session = start_session(iterations);
  for (int64_t i = 0; i < iterations; i++)
    it->second.run(i);
  if (session)
    session->StopBlocking();
  return 0;
}

}  // namespace base
}  // namespace zt

#endif  // ZT_SRC_BASE_TEST_BENCHMARK_CASES_H_
