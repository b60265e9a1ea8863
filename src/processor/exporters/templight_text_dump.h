// `ztrace convert --to text` of a Templight trace: the file's messages, in
// file order, in protobuf text format with the field names of Templight's
// schema (docs/wire.md, "Templight traces"), and what the numbers stand
// for in comments: the name a dictionary entry or a `dict_id` expands to,
// the name a zlib `compressed_name` inflates to, the path of a `file_id`,
// the name of a `kind` (numbered as the file's clang release numbers it):
//
//   traces {  # byte 0: translation unit 0, kinds numbered as clang 8-9
//     header {
//       version: 1
//       source_file: "/src/app/main.cpp"
//     }
//     names {  # entry 0: "std"
//       marked_name: "std"
//     }
//     entries {
//       begin {
//         kind: 0  # TemplateInstantiation
//         name {
//           dict_id: 8  # "std::vector<int>"
//         }
//         ...
//
// Both layouts are read: Templight's (records back to back) and that of
// templight++ merging several units (each followed by '\n'). Fields the
// schema does not know print by number; a message that does not decode
// prints as bytes; a damaged file prints everything before the damage and
// then says where it is.
//
// Cost: O(file size) plus one copy of each dictionary entry's expansion
// (names are expanded as the file defines them); output is streamed to the
// sink in pieces (TextWriter). Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_EXPORTERS_TEMPLIGHT_TEXT_DUMP_H_
#define ZT_SRC_PROCESSOR_EXPORTERS_TEMPLIGHT_TEXT_DUMP_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "src/processor/exporters/text_writer.h"

namespace zt {
namespace processor {

struct TemplightTextResult {
  uint64_t units = 0;
  // Empty when the whole file decoded; else where and what the damage is
  // (also printed at the end of the text).
  std::string damage;
  bool sink_failed = false;  // The sink refused a piece: output incomplete.
};

TemplightTextResult DumpTemplightAsText(const void* data, size_t size, const TextSink& sink);

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_EXPORTERS_TEMPLIGHT_TEXT_DUMP_H_
