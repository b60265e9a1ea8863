// Rebuilds a TemplightProfile (templight_reader.h) from the model's
// Templight tables, so that a trace imported from Templight can be written
// back with WriteTemplight (`ztrace convert --to templight`).
//
//   TemplightProfile profile;
//   std::string error;
//   if (!BuildTemplightProfile(storage, &profile, &error)) Fail(error);
//   std::string bytes = WriteTemplight(profile, TemplightNameMode::kDictionary);
//
// One unit per templight_units row, its instantiations in the order of
// their slices (time, then the order they began), with their nesting,
// names, kinds, locations, origins, times (a slice's end is ts + dur; dur
// -1 stays open) and memory values. The profile's names and files view the
// storage's string pool: the storage must outlive the profile.
// Cost: linear in the Templight rows. Thread-safe on a finished storage.

#ifndef ZT_SRC_PROCESSOR_EXPORTERS_TEMPLIGHT_PROFILE_BUILDER_H_
#define ZT_SRC_PROCESSOR_EXPORTERS_TEMPLIGHT_PROFILE_BUILDER_H_

#include <string>

#include "src/processor/importers/templight/templight_reader.h"
#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {

// False with *error when the storage holds no Templight translation unit
// (the trace was not read from a Templight file).
bool BuildTemplightProfile(const TraceStorage& storage, TemplightProfile* profile,
                           std::string* error);

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_EXPORTERS_TEMPLIGHT_PROFILE_BUILDER_H_
