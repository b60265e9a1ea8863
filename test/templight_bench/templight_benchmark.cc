// The Templight import measurement (issue 13): imports a Templight trace
// into the processor's model (ImportTraceFile, what `ztrace stats`, `query`
// and `convert` do) with one name expansion method in a fresh process and
// reports time, instantiations/s and peak RSS; then rebuilds the profile
// from the model and writes it back in each name mode (speed and size),
// and compares the sizes with zlib. A one-shot program: peak RSS needs a
// fresh process per method.
//
//   templight_benchmark TRACE sequential|batch
//
// Run by test/templight_bench/run_templight_benchmark.sh.

#include <zlib.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "src/processor/exporters/templight_profile_builder.h"
#include "src/processor/exporters/templight_writer.h"
#include "src/processor/importers/trace_importer.h"
#include "test/common/peak_rss.h"

namespace {

using zt::processor::NameExpander;
using zt::processor::TemplightNameMode;

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || (strcmp(argv[2], "sequential") != 0 && strcmp(argv[2], "batch") != 0)) {
    fprintf(stderr, "usage: %s TRACE sequential|batch\n", argv[0]);
    return 2;
  }
  zt::processor::ImportOptions options;
  options.format = zt::processor::ImportOptions::Format::kTemplight;
  options.templight_method = strcmp(argv[2], "batch") == 0 ? NameExpander::Method::kBatch
                                                           : NameExpander::Method::kSequential;
  std::string error;
  zt::processor::ImportResult result;
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<zt::processor::TraceStorage> storage =
      zt::processor::ImportTraceFile(argv[1], options, &result, &error);
  const double read_s = Seconds(std::chrono::steady_clock::now() - start);
  const uint64_t rss = zt::test::PeakRss();
  if (!storage) {
    fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  const double mb = static_cast<double>(result.input_bytes) / 1e6;
  const size_t count = storage->templight.size();
  printf("trace            %.1f MB, %zu instantiations, %zu strings, %" PRId64 " problems\n", mb,
         count, storage->strings.size(),
         storage->stats.Get(zt::processor::stats::templight_problems));
  printf("import (%s) %.3f s  %.2f M instantiations/s  %.0f MB/s\n",
         argv[2], read_s, static_cast<double>(count) / read_s / 1e6, mb / read_s);
  printf("peak RSS         %.1f MB = %.2f x the trace (string pool %.1f MB)\n",
         static_cast<double>(rss) / 1e6, static_cast<double>(rss) / 1e6 / mb,
         static_cast<double>(storage->strings.memory_bytes()) / 1e6);

  const auto build_start = std::chrono::steady_clock::now();
  zt::processor::TemplightProfile profile;
  if (!zt::processor::BuildTemplightProfile(*storage, &profile, &error)) {
    fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  printf("profile from the model %.3f s\n", Seconds(std::chrono::steady_clock::now() - build_start));
  uint64_t name_bytes = 0;
  for (const auto& instantiation : profile.instantiations)
    name_bytes += profile.names[instantiation.name].size();

  // Writing, in each name mode; sizes against the names themselves and zlib.
  struct Mode {
    const char* label;
    TemplightNameMode mode;
  };
  std::string plain;
  for (const Mode& mode : {Mode{"dictionary", TemplightNameMode::kDictionary},
                           Mode{"zlib names", TemplightNameMode::kZlib},
                           Mode{"plain names", TemplightNameMode::kPlain}}) {
    const auto write_start = std::chrono::steady_clock::now();
    std::string bytes = WriteTemplight(profile, mode.mode);
    const double write_s = Seconds(std::chrono::steady_clock::now() - write_start);
    printf("write %-11s %.3f s  %.1f MB\n", mode.label, write_s,
           static_cast<double>(bytes.size()) / 1e6);
    if (mode.mode == TemplightNameMode::kPlain)
      plain = std::move(bytes);
  }
  uLongf zipped = compressBound(static_cast<uLong>(plain.size()));
  std::string buffer(zipped, '\0');
  compress2(reinterpret_cast<Bytef*>(&buffer[0]), &zipped,
            reinterpret_cast<const Bytef*>(plain.data()), static_cast<uLong>(plain.size()),
            Z_DEFAULT_COMPRESSION);
  printf("names            %.1f MB of names in the instantiations; plain-names file zlib'd "
         "whole: %.1f MB\n",
         static_cast<double>(name_bytes) / 1e6, static_cast<double>(zipped) / 1e6);
  return 0;
}
