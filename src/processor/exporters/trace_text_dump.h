// `ztrace convert --to text`: every packet of a trace, in file order, in
// protobuf text format, field names from zerotrace's schemas (the same
// .proto files as upstream's), with interned ids resolved in comments:
//
//   packet {  # byte 1234, sequence 3
//     timestamp: 1200
//     track_event {
//       type: TYPE_SLICE_BEGIN
//       name_iid: 2  # "Outer"
//       category_iids: 1  # "conf"
//     }
//     ...
//   }
//
// Interned ids resolve against the packet's sequence as it stands at that
// point of the file (cleared on SEQ_INCREMENTAL_STATE_CLEARED); an id its
// sequence never defined says so. Fields the schema does not know print by
// number; a sub-message that does not decode prints as bytes. A damaged
// file prints everything before the damage and then says where it is.
//
// Cost: O(trace size); output is streamed to the sink in pieces of about
// 64 KiB, never held whole (a string of any size included): memory is the
// sequences' interned names plus one piece. Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_EXPORTERS_TRACE_TEXT_DUMP_H_
#define ZT_SRC_PROCESSOR_EXPORTERS_TRACE_TEXT_DUMP_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

#include "src/processor/exporters/text_writer.h"
#include "zt/processor/trace_tokenizer.h"

namespace zt {
namespace processor {

struct TextDumpResult {
  TokenizerStats tokenizer;
  bool sink_failed = false;  // The sink refused a piece: output incomplete.
};

// Told, after each packet, how many bytes of the trace are behind: none of
// them is read again (a mapped file's pages there may be released).
using TextDumpProgress = std::function<void(uint64_t bytes_done)>;

TextDumpResult DumpTraceAsText(const void* data, size_t size, const TextSink& sink,
                               const TextDumpProgress& progress = nullptr);

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_EXPORTERS_TRACE_TEXT_DUMP_H_
