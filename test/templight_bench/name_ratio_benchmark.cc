// How much the name dictionary (seed 001; include/zt/processor/name_dictionary.h)
// saves, against the names uncompressed and against zlib, and what the
// processor holds for the names each way (issue 13). For each set of
// distinct names:
//   * plain: the names' bytes;
//   * zlib: every name joined by '\n' and deflated whole (default level),
//     the best a general-purpose compressor does on them;
//   * dictionary: the entries NameCompressor makes, as Templight writes
//     them (protobuf bytes) and as NameExpander holds them in memory;
//   * in the processor: the string pool holding every name (Intern), and
//     the batch expander holding the dictionary with every name expanded,
//     viewed by the pool (InternStable), which is what a Templight import
//     does; and the dictionary alone, unexpanded (what a pool that expanded
//     names on every read would hold).
// Sets: the names of each Templight file given, and generated
// TRACE_FUNCTION-style names (__PRETTY_FUNCTION__ of template code).
//
//   name_ratio_benchmark [--function-names N] [TEMPLIGHT_FILE...]

#include <zlib.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "src/processor/storage/string_pool.h"
#include "src/processor/importers/templight/templight_reader.h"
#include "test/templight_bench/template_names.h"
#include "zt/processor/mapped_trace_file.h"
#include "zt/processor/name_dictionary.h"

namespace {

using zt::processor::DictionaryEntry;
using zt::processor::NameCompressor;
using zt::processor::NameExpander;
using zt::processor::StringPool;

size_t VarIntSize(uint64_t value) {
  size_t size = 1;
  while (value >= 0x80) {
    value >>= 7;
    size++;
  }
  return size;
}

void Measure(const char* label, const std::vector<std::string>& names) {
  uint64_t plain = 0;
  std::string joined;
  for (const std::string& name : names) {
    plain += name.size();
    joined += name;
    joined += '\n';
  }
  uLongf zipped = compressBound(static_cast<uLong>(joined.size()));
  std::string buffer(zipped, '\0');
  compress2(reinterpret_cast<Bytef*>(&buffer[0]), &zipped,
            reinterpret_cast<const Bytef*>(joined.data()), static_cast<uLong>(joined.size()),
            Z_DEFAULT_COMPRESSION);

  // The dictionary, and its size as Templight's protobuf entries:
  // DictionaryEntry{marked_name = 1; marker_ids = 2 (unpacked)} in field 3.
  struct StoredEntry {
    std::string marked_name;  // DictionaryEntry's view lasts the call only.
    std::vector<uint32_t> marker_ids;
  };
  std::vector<StoredEntry> entries;
  NameCompressor compressor([&entries](const DictionaryEntry& entry) {
    entries.push_back(StoredEntry{std::string(entry.marked_name), entry.marker_ids});
  });
  std::vector<uint32_t> ids;
  for (const std::string& name : names)
    ids.push_back(compressor.Compress(name));
  uint64_t wire = 0;
  for (const StoredEntry& entry : entries) {
    size_t body = 1 + VarIntSize(entry.marked_name.size()) + entry.marked_name.size();
    for (uint32_t marker : entry.marker_ids)
      body += 1 + VarIntSize(marker);
    wire += 1 + VarIntSize(body) + body;
  }

  // In the processor: every name in the pool, or the dictionary expanded
  // by the batch method and viewed by the pool.
  StringPool copied;
  for (const std::string& name : names)
    copied.Intern(name);
  NameExpander expander(NameExpander::Method::kBatch);
  std::string error;
  for (const StoredEntry& entry : entries)
    expander.Add(entry.marked_name, entry.marker_ids, &error);
  const uint64_t dictionary_only = expander.memory_bytes();
  StringPool viewed;
  for (uint32_t id : ids) {
    std::string_view name;
    if (id != NameCompressor::kNoId && expander.Expand(id, &name, &error))
      viewed.InternStable(name);
  }
  const auto kb = [](uint64_t bytes) { return static_cast<double>(bytes) / 1e3; };
  printf("| %s | %zu | %.1f KB | %.1f KB (%.1fx) | %zu entries, %.1f KB (%.1fx) | %.1f KB | "
         "%.1f KB | %.1f KB |\n",
         label, names.size(), kb(plain), kb(zipped), static_cast<double>(plain) / zipped,
         entries.size(), kb(wire), static_cast<double>(plain) / static_cast<double>(wire),
         kb(copied.memory_bytes()), kb(expander.memory_bytes() + viewed.memory_bytes()),
         kb(dictionary_only));
}

}  // namespace

int main(int argc, char** argv) {
  long function_names = 20000;
  std::vector<std::string> files;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--function-names") == 0 && i + 1 < argc) {
      function_names = strtol(argv[++i], nullptr, 10);
    } else if (argv[i][0] == '-') {
      fprintf(stderr, "usage: %s [--function-names N] [TEMPLIGHT_FILE...]\n", argv[0]);
      return 2;
    } else {
      files.push_back(argv[i]);
    }
  }
  printf("| names | distinct | plain | zlib (whole) | dictionary (Templight's bytes) | "
         "in memory: pool of copies | in memory: dictionary, names expanded | dictionary alone |\n"
         "|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const std::string& path : files) {
    std::string error;
    std::unique_ptr<zt::processor::MappedTraceFile> file =
        zt::processor::MappedTraceFile::Open(path, &error);
    if (!file) {
      fprintf(stderr, "%s\n", error.c_str());
      return 1;
    }
    zt::processor::TemplightProfile profile;
    zt::processor::ReadTemplight(file->data(), file->size(),
                                 zt::processor::TemplightReadOptions(), &profile);
    std::vector<std::string> names(profile.names.begin(), profile.names.end());
    const char* base = strrchr(path.c_str(), '/');
    Measure(base ? base + 1 : path.c_str(), names);
  }
  // __PRETTY_FUNCTION__ of member functions of class templates.
  zt::test::NameMaker maker(7);
  std::unordered_set<std::string> seen;
  std::vector<std::string> pretty;
  for (long i = 0; i < function_names * 4 && static_cast<long>(pretty.size()) < function_names;
       i++) {
    std::string name = "void " + maker.Make(3) + "::process(const " + maker.Make(2) +
                       " &) [T = " + maker.Make(3) + "]";
    if (seen.insert(name).second)
      pretty.push_back(std::move(name));
  }
  Measure("generated TRACE_FUNCTION names", pretty);
  return 0;
}
