// A tool that reads a trace through zerotrace's public processor API only:
// opens the trace given, runs one query, prints "<slices> slices, <names>
// names" and, for a file that is not a trace, the refusal (exit 1).

#include <cstdio>
#include <memory>
#include <string>

#include "zt/processor/trace_processor.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: slice_count TRACE\n");
    return 2;
  }
  std::string error;
  std::unique_ptr<zt::processor::TraceProcessor> tp =
      zt::processor::TraceProcessor::Open(argv[1], zt::processor::OpenOptions(), &error);
  if (!tp) {
    fprintf(stderr, "slice_count: %s\n", error.c_str());
    return 1;
  }
  zt::processor::QueryResult result =
      tp->Query("SELECT COUNT(*), COUNT(DISTINCT name) FROM slice");
  if (!result.ok() || result.rows.size() != 1) {
    fprintf(stderr, "slice_count: %s\n", result.error.c_str());
    return 1;
  }
  printf("%lld slices, %lld names\n", static_cast<long long>(result.rows[0][0].int_value),
         static_cast<long long>(result.rows[0][1].int_value));
  return 0;
}
