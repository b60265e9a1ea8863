// Writes a TemplightProfile (templight_reader.h) back as a Templight trace
// file, the way Templight's own writer lays it out (docs/design/templight.md,
// "Writing"): one TemplightTrace per unit, begins and ends in stack order,
// file names given once with a new id and by id after, and names compressed
// into the dictionary (NameCompressor), each entry written just before the
// first entry that needs it.
//
//   std::string bytes = WriteTemplight(profile, TemplightNameMode::kDictionary);
//
// What round-trips: every name, kind, location, memory value and time (to
// the nanosecond, the profile's unit), and the nesting. Begins that were
// still open stay open (no end is written for them).
//
// Cost: linear in the profile; the output is built in memory, or one
// translation unit at a time.

#ifndef ZT_SRC_PROCESSOR_EXPORTERS_TEMPLIGHT_WRITER_H_
#define ZT_SRC_PROCESSOR_EXPORTERS_TEMPLIGHT_WRITER_H_

#include <functional>
#include <string>
#include <string_view>

#include "src/processor/importers/templight/templight_reader.h"

namespace zt {
namespace processor {

enum class TemplightNameMode {
  kPlain,       // TemplateName.name (Templight's mode 0).
  kZlib,        // TemplateName.compressed_name, each name deflated (mode 1).
  kDictionary,  // TemplateName.dict_id (mode 2, Templight's default).
};

std::string WriteTemplight(const TemplightProfile& profile, TemplightNameMode mode);

// The same, handed to `write` a piece at a time (each translation unit is
// built in memory, then handed over: its length comes first); stops and
// returns false when `write` does.
bool WriteTemplight(const TemplightProfile& profile, TemplightNameMode mode,
                    const std::function<bool(std::string_view)>& write);

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_EXPORTERS_TEMPLIGHT_WRITER_H_
