// Reads Templight trace files (clang's template instantiation profiles,
// docs/design/templight.md, docs/wire.md "Templight traces") into a flat
// list of instantiations: what the processor's model and the converters
// are built from.
//
//   TemplightProfile profile;
//   ReadTemplight(bytes, size, TemplightReadOptions(), &profile);
//   for (const TemplightInstantiation& i : profile.instantiations)
//     Use(profile.names[i.name], i.begin_ns, i.end_ns, i.depth);
//   for (const TemplightProblem& p : profile.problems)
//     Warn(p.offset, p.what);
//
// Any bytes are accepted: what is malformed (a truncated or corrupt
// message, a dictionary entry that refers forward, out of range or in a
// cycle, an unknown file id, an end without a begin) is reported in
// `problems` with the file offset where it was met, and everything valid
// is kept. Each `TemplightTrace` (one translation unit) is read on its
// own; a file may hold several, and files concatenated are read as one.
//
// Cost: one pass over the bytes; names are expanded once per dictionary
// entry (sequential method) or once per entry reached (batch method) and
// stored once. Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_TEMPLIGHT_TEMPLIGHT_READER_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_TEMPLIGHT_TEMPLIGHT_READER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zt/processor/name_dictionary.h"

namespace zt {
namespace processor {

struct TemplightLocation {
  static constexpr uint32_t kNoFile = UINT32_MAX;
  uint32_t file = kNoFile;  // Index into TemplightProfile::files.
  uint32_t line = 0;
  uint32_t column = 0;
};

struct TemplightInstantiation {
  uint32_t unit = 0;  // Index into TemplightProfile::units.
  // Index into TemplightProfile::names; kNoName when the entry's name could
  // not be read (a problem says why).
  static constexpr uint32_t kNoName = UINT32_MAX;
  uint32_t name = kNoName;
  uint32_t kind = 0;  // As recorded: its meaning depends on the clang version.
  TemplightLocation location;
  TemplightLocation origin;  // file == kNoFile: none recorded.
  int64_t begin_ns = 0;      // Time stamps: seconds in the file.
  int64_t end_ns = -1;       // -1: still open at the end of its unit.
  uint64_t memory_begin = 0;  // Bytes; 0 when not recorded.
  uint64_t memory_end = 0;
  int64_t parent = -1;  // Index of the enclosing instantiation, -1 at the top.
  uint32_t depth = 0;
};

// One TemplightTrace: a translation unit.
struct TemplightUnit {
  uint32_t version = 0;
  std::string source_file;
  size_t first_instantiation = 0;
  size_t instantiation_count = 0;
  size_t dictionary_entries = 0;
};

struct TemplightProblem {
  uint64_t offset = 0;  // In the file.
  std::string what;
};

struct TemplightProfile {
  std::vector<TemplightUnit> units;
  std::vector<TemplightInstantiation> instantiations;  // In begin order.
  std::vector<std::string> files;                      // Each distinct path once.
  std::vector<std::string_view> names;  // Into name_storage or an expander.
  // OpenIndex::HashText of each name (the reader's; a profile built
  // otherwise may leave it empty): the model's string pool takes it, so
  // that a name is hashed once.
  std::vector<uint32_t> name_hashes;
  // The first kMaxKeptProblems problems; problem_count counts them all (a
  // damaged file can hold millions: a corrupt entry is one each).
  static constexpr size_t kMaxKeptProblems = 1000;
  std::vector<TemplightProblem> problems;
  uint64_t problem_count = 0;
  void AddProblem(uint64_t offset, std::string what) {
    problem_count++;
    if (problems.size() < kMaxKeptProblems)
      problems.push_back(TemplightProblem{offset, std::move(what)});
  }
  uint64_t unknown_fields = 0;  // Well-formed fields this reader does not know.

  // Owners of the names' bytes.
  std::vector<std::unique_ptr<NameExpander>> expanders;
  std::vector<std::unique_ptr<std::string>> name_storage;
};

// Takes the instantiations as they are read, in place of
// TemplightProfile::instantiations (which then stays empty): the importer
// fills the model's columns this way without a second copy. Indices count
// from the profile's instantiations.size() at the call, in begin order.
class TemplightInstantiationSink {
 public:
  virtual ~TemplightInstantiationSink();
  // A begin: its name is TemplightInstantiation::kNoName until OnName.
  virtual void OnBegin(const TemplightInstantiation& instantiation) = 0;
  virtual void OnEnd(size_t index, int64_t end_ns, uint64_t memory_end) = 0;
  virtual void OnName(size_t index, uint32_t name) = 0;
  // After a unit's last instantiation and name; profile->units[unit] is
  // complete.
  virtual void OnUnitEnd(uint32_t unit) = 0;
  // Before a unit is read: about `rows` begins follow (half its begin and
  // end entries, counted on a first pass over its fields), for a sink that
  // sizes its storage ahead. An estimate: more or fewer may come.
  virtual void OnRowsExpected(size_t rows);
};

struct TemplightReadOptions {
  // Batch: faster, and keeps only the names asked for (docs/benchmarks.md).
  NameExpander::Method method = NameExpander::Method::kBatch;
  size_t max_name_bytes = NameExpander::kDefaultMaxNameBytes;
  // Null: instantiations go to the profile.
  TemplightInstantiationSink* sink = nullptr;
  // Called with byte ranges of the input that will not be read again (the
  // reader copies what it keeps); may be empty.
  std::function<void(uint64_t offset, uint64_t length)> release_input;
};

// Inflates a zlib-compressed name (TemplateName.compressed_name) into
// *out, refusing more than `max_bytes` of output (a few bytes can inflate
// to gigabytes); false with *why on failure.
bool InflateTemplightName(const void* data, size_t size, size_t max_bytes, std::string* out,
                          std::string* why);

// templight++ given several sources writes each unit's file followed by a
// '\n' into one output. True when `data` is exactly that (every unit's
// record followed by '\n'), with each TemplightTrace's bytes in *traces;
// false for Templight's own layout (records back to back) or anything else.
bool SplitTemplightDriverOutput(const void* data, size_t size,
                                std::vector<std::string_view>* traces);

// Appends what `data` holds to *profile. False when nothing could be read
// (not a Templight file: no trace in it); problems are recorded either way.
bool ReadTemplight(const void* data, size_t size, const TemplightReadOptions& options,
                   TemplightProfile* profile);

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_TEMPLIGHT_TEMPLIGHT_READER_H_
