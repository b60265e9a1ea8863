// Makes a large Templight trace for the benchmark (issue 13): N template
// instantiations with names built like a template-heavy C++ program's
// (nested standard and project templates, shared arguments), nested up to
// 8 deep (or MAX_DEPTH; a MAX_DEPTH of at least N makes one chain, each
// inside the one before), with locations in a few hundred headers, times and memory; written
// with Templight's dictionary compression by WriteTemplight.
//
//   make_templight_trace OUT.trace.pbf [INSTANTIATIONS=1000000] [SEED=1] [MAX_DEPTH=8]

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "src/processor/exporters/templight_writer.h"
#include "test/templight_bench/template_names.h"

namespace {

using zt::test::NameMaker;
using zt::processor::TemplightInstantiation;
using zt::processor::TemplightNameMode;
using zt::processor::TemplightProfile;
using zt::processor::TemplightUnit;

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 5 || argv[1][0] == '-') {  // "--help" is not a path to write.
    fprintf(stderr, "usage: %s OUT [INSTANTIATIONS=1000000] [SEED=1] [MAX_DEPTH=8]\n", argv[0]);
    return 2;
  }
  const long count = argc > 2 ? strtol(argv[2], nullptr, 10) : 1000000;
  const uint32_t seed = argc > 3 ? static_cast<uint32_t>(strtoul(argv[3], nullptr, 10)) : 1;
  const long max_depth = argc > 4 ? strtol(argv[4], nullptr, 10) : 8;
  if (count <= 0 || max_depth <= 0) {
    fprintf(stderr, "make_templight_trace: INSTANTIATIONS and MAX_DEPTH must be positive\n");
    return 2;
  }
  const bool chain = max_depth >= count;
  NameMaker maker(seed);
  std::mt19937& random = maker.random();

  TemplightProfile profile;
  for (int i = 0; i < 300; i++)
    profile.files.push_back("/usr/include/project/header_" + std::to_string(i) + ".h");
  // A pool of distinct names, drawn from with a skew: real profiles repeat
  // the same instantiations (memoization entries) many times.
  std::vector<std::string> pool;
  for (long i = 0; i < count / 5 + 1; i++)
    pool.push_back(maker.Make(4));
  for (const std::string& name : pool) {
    profile.name_storage.emplace_back(new std::string(name));
    profile.names.push_back(*profile.name_storage.back());
  }

  profile.units.emplace_back();
  TemplightUnit& unit = profile.units.back();
  unit.version = 1;
  unit.source_file = "/src/app/main.cpp";
  std::vector<size_t> open;  // Stack of instantiation indices.
  int64_t now = 1000000;
  uint64_t memory = 64 << 20;
  for (long i = 0; i < count; i++) {
    // Close a few, then open one at the resulting depth.
    while (!open.empty() &&
           (open.size() >= static_cast<size_t>(max_depth) || (!chain && random() % 2 == 0))) {
      TemplightInstantiation& done = profile.instantiations[open.back()];
      now += random() % 2000;
      done.end_ns = now;
      done.memory_end = memory += random() % 512;
      open.pop_back();
    }
    TemplightInstantiation instantiation;
    const double u = std::uniform_real_distribution<double>(0, 1)(random);
    instantiation.name = static_cast<uint32_t>(u * u * static_cast<double>(pool.size()));
    instantiation.kind = static_cast<uint32_t>(random() % 12);
    instantiation.location.file = static_cast<uint32_t>(random() % profile.files.size());
    instantiation.location.line = 1 + static_cast<uint32_t>(random() % 3000);
    instantiation.location.column = 1 + static_cast<uint32_t>(random() % 80);
    if (random() % 2 == 0) {
      instantiation.origin.file = static_cast<uint32_t>(random() % profile.files.size());
      instantiation.origin.line = 1 + static_cast<uint32_t>(random() % 3000);
      instantiation.origin.column = 1 + static_cast<uint32_t>(random() % 80);
    }
    now += random() % 1000;
    instantiation.begin_ns = now;
    instantiation.memory_begin = memory;
    instantiation.depth = static_cast<uint32_t>(open.size());
    instantiation.parent = open.empty() ? -1 : static_cast<int64_t>(open.back());
    open.push_back(profile.instantiations.size());
    profile.instantiations.push_back(instantiation);
  }
  while (!open.empty()) {
    now += random() % 2000;
    profile.instantiations[open.back()].end_ns = now;
    profile.instantiations[open.back()].memory_end = memory;
    open.pop_back();
  }
  unit.instantiation_count = profile.instantiations.size();

  const std::string bytes = WriteTemplight(profile, TemplightNameMode::kDictionary);
  FILE* out = fopen(argv[1], "wb");
  if (!out || fwrite(bytes.data(), 1, bytes.size(), out) != bytes.size() || fclose(out) != 0) {
    fprintf(stderr, "make_templight_trace: cannot write %s\n", argv[1]);
    return 1;
  }
  printf("%s: %ld instantiations, %zu distinct names, %.1f MB\n", argv[1], count, pool.size(),
         static_cast<double>(bytes.size()) / 1e6);
  return 0;
}
