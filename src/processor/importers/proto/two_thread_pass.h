// Pass 2 of the import (parsing in time order) on two threads
// (docs/design/trace_processor.md, "Two threads").
//
// A worker thread merges the sorter's queues (made with hints: pass 1 on two
// threads) and turns each hinted event into a simple event
// (TrackEventParser::DecodeSimpleFromHint), which reads nothing that pass 2
// changes: the queues it owns and the sequences' interned generations.
// It sends each event to the calling thread as a 16-byte record (time,
// type, a track slot, name and category ids; or where a non-simple event
// is, for ParseFully()), and the input regions it is done with. The
// calling thread applies them in the order sent, so every table, stat and
// callback is touched by one thread, in the same order as the one-thread
// path, and the tables come out identical.

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_PROTO_TWO_THREAD_PASS_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_PROTO_TWO_THREAD_PASS_H_

#include <cstdint>
#include <functional>

#include "src/processor/importers/proto/packet_sorter.h"
#include "src/processor/importers/proto/proto_trace_reader.h"
#include "src/processor/importers/proto/track_event_parser.h"
#include "src/processor/importers/track_tracker.h"

namespace zt {
namespace processor {

struct PassTwoCounts {
  uint64_t events = 0;
  int64_t first_ts = 0;
  int64_t last_ts = 0;
};

// Drains `sorter` into `parser` as ImportTrace's one-thread loop does, and
// calls release_input (if set) for each input region once every event in
// it is applied. `slice_table` is the one `parser` fills, its columns
// reserved: the merging thread populates their pages ahead of use. Returns
// when both threads are done.
PassTwoCounts ParseOnTwoThreads(const uint8_t* base, const ProtoTraceReader& reader,
                                PacketSorter* sorter, TrackTracker* tracks,
                                TrackEventParser* parser, SliceTable* slice_table,
                                const std::function<void(uint64_t, uint64_t)>& release_input);

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_PROTO_TWO_THREAD_PASS_H_
