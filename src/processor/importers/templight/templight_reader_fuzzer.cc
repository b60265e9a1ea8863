// libFuzzer target: any bytes as a Templight file through ReadTemplight(),
// with both name expansion methods.
//
// Beyond "no crash, no out-of-bounds read, no endless loop", it checks the
// profile's invariants (every index in range, nesting consistent, problems
// inside the file) and that the methods agree: a name the sequential method
// expands, the batch method expands to the same bytes (the batch method
// also accepts forward references, so it may name more).

#include <cstdint>
#include <cstdlib>

#include "src/processor/importers/templight/templight_reader.h"

namespace {

using zt::processor::NameExpander;
using zt::processor::ReadTemplight;
using zt::processor::TemplightInstantiation;
using zt::processor::TemplightLocation;
using zt::processor::TemplightProfile;
using zt::processor::TemplightReadOptions;

void Check(bool cond) {
  if (!cond)
    abort();
}

void CheckInvariants(const TemplightProfile& profile, size_t size) {
  for (size_t i = 0; i < profile.instantiations.size(); i++) {
    const TemplightInstantiation& inst = profile.instantiations[i];
    Check(inst.unit < profile.units.size());
    Check(inst.name == TemplightInstantiation::kNoName || inst.name < profile.names.size());
    Check(inst.location.file == TemplightLocation::kNoFile ||
          inst.location.file < profile.files.size());
    Check(inst.origin.file == TemplightLocation::kNoFile ||
          inst.origin.file < profile.files.size());
    if (inst.parent < 0) {
      Check(inst.depth == 0);
    } else {
      Check(static_cast<size_t>(inst.parent) < i);
      Check(profile.instantiations[inst.parent].depth + 1 == inst.depth);
      Check(profile.instantiations[inst.parent].unit == inst.unit);
    }
  }
  for (const auto& problem : profile.problems)
    Check(problem.offset <= size && !problem.what.empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  TemplightReadOptions options;
  options.max_name_bytes = 4096;
  TemplightProfile sequential;
  options.method = NameExpander::Method::kSequential;
  const bool read_sequential = ReadTemplight(data, size, options, &sequential);
  TemplightProfile batch;
  options.method = NameExpander::Method::kBatch;
  const bool read_batch = ReadTemplight(data, size, options, &batch);
  Check(read_sequential == read_batch);
  CheckInvariants(sequential, size);
  CheckInvariants(batch, size);
  Check(sequential.instantiations.size() == batch.instantiations.size());
  for (size_t i = 0; i < sequential.instantiations.size(); i++) {
    const uint32_t name = sequential.instantiations[i].name;
    if (name != TemplightInstantiation::kNoName) {
      const uint32_t other = batch.instantiations[i].name;
      Check(other != TemplightInstantiation::kNoName &&
            batch.names[other] == sequential.names[name]);
    }
  }
  return 0;
}
