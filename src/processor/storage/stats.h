// What the processor counts while it imports a trace: the `stats` table.
// Names, severities and sources follow upstream Perfetto's trace processor
// where it has the same stat, so that queries and the Perfetto UI's
// "problems" panel read them the same way; stats upstream does not have
// are marked "zt" in their description. Severity `data_loss` and `error`
// mean the trace lost or garbled something (what the UI flags); `info` is
// bookkeeping.

#ifndef ZT_SRC_PROCESSOR_STORAGE_STATS_H_
#define ZT_SRC_PROCESSOR_STORAGE_STATS_H_

#include <cstddef>
#include <cstdint>
#include <map>

namespace zt {
namespace processor {
namespace stats {

enum Severity : uint8_t { kInfo, kError, kDataLoss };
enum Source : uint8_t { kTrace, kAnalysis };
enum Type : uint8_t { kSingle, kIndexed };

// F(name, type, severity, source, description)
#define ZT_PROCESSOR_STATS(F)                                                    \
  F(trace_damage_bytes_skipped, kSingle, kDataLoss, kTrace,                      \
    "zt: bytes at the end of the file that are not well-formed TracePacket "     \
    "records (a cut or corrupt file); nothing after the damage was read")        \
  F(trace_unknown_top_level_fields, kSingle, kInfo, kTrace,                      \
    "zt: well-formed records of fields other than Trace.packet, skipped")        \
  F(packets_malformed, kSingle, kError, kTrace,                                  \
    "zt: TracePackets that are not valid protobuf, skipped whole")               \
  F(tokenizer_skipped_packets, kSingle, kInfo, kAnalysis,                       \
    "packets that need incremental state their sequence never had in the "      \
    "trace (its start overwritten or not recorded), not imported; `ztrace "      \
    "stats --strict` fails on it")                                               \
  F(incremental_state_lost_packets, kSingle, kDataLoss, kAnalysis,               \
    "zt: packets after a previous_packet_dropped mark that needed state the "   \
    "loss took (a time on an incremental clock; or any interned data, with "     \
    "upstream's strict reading, --drop-after-loss), skipped until the next clear") \
  F(incremental_state_recovered_packets, kSingle, kInfo, kAnalysis,             \
    "zt: packets after a previous_packet_dropped mark that needed interned "    \
    "data, kept (upstream skips them): names interned before the loss still "   \
    "hold, an id interned nowhere is NULL (interned_data_missing_iid)")         \
  F(traced_buf_sequence_packet_loss, kIndexed, kDataLoss, kAnalysis,             \
    "previous_packet_dropped marks: groups of consecutive packets lost on a "    \
    "sequence, indexed by the sequence's buffer when TraceStats names it")       \
  F(sequences_without_first_packet, kSingle, kInfo, kAnalysis,                   \
    "zt: sequences whose first packet read lacks first_packet_on_sequence: "     \
    "what their writer wrote before may have been lost")                         \
  F(interned_data_tokenizer_errors, kSingle, kInfo, kAnalysis, "")               \
  F(interned_data_missing_iid, kSingle, kError, kAnalysis,                       \
    "zt: events naming an interned id their sequence never defined")            \
  F(invalid_clock_snapshots, kSingle, kError, kAnalysis, "")                     \
  F(clock_sync_failure, kSingle, kError, kAnalysis, "")                          \
  F(track_event_parser_errors, kSingle, kInfo, kAnalysis, "")                    \
  F(track_event_tokenizer_errors, kSingle, kInfo, kAnalysis, "")                 \
  F(track_event_missing_track, kSingle, kError, kAnalysis,                       \
    "zt: events whose track could not be resolved (no track_uuid, no "           \
    "default, no thread descriptor), skipped")                                   \
  F(counter_events_without_counter_track, kSingle, kError, kAnalysis,            \
    "zt: counter values on a track whose descriptor has no `counter`")           \
  F(misplaced_end_event, kSingle, kDataLoss, kAnalysis, "")                      \
  F(slices_unterminated, kSingle, kInfo, kAnalysis,                              \
    "zt: slices still open at the end of the trace (dur = -1)")                  \
  F(flow_duplicate_id, kSingle, kError, kTrace, "")                              \
  F(flow_no_enclosing_slice, kSingle, kError, kTrace, "")                        \
  F(flow_end_without_start, kSingle, kInfo, kTrace, "")                          \
  F(traced_buf_buffer_size, kIndexed, kInfo, kTrace, "")                         \
  F(traced_buf_bytes_written, kIndexed, kInfo, kTrace, "")                       \
  F(traced_buf_bytes_overwritten, kIndexed, kInfo, kTrace, "")                   \
  F(traced_buf_bytes_read, kIndexed, kInfo, kTrace, "")                          \
  F(traced_buf_chunks_written, kIndexed, kInfo, kTrace, "")                      \
  F(traced_buf_chunks_discarded, kIndexed, kInfo, kTrace,                       \
    "chunks a full DISCARD buffer refused (its newest data is not in the "       \
    "trace); `ztrace stats --strict` fails on it")                               \
  F(traced_buf_chunks_overwritten, kIndexed, kInfo, kTrace,                     \
    "chunks a RING_BUFFER overwrote unread (its oldest data is not in the "      \
    "trace); `ztrace stats --strict` fails on it")                               \
  F(traced_buf_patches_failed, kIndexed, kDataLoss, kTrace, "")                  \
  F(traced_buf_abi_violations, kIndexed, kDataLoss, kTrace, "")                  \
  F(traced_buf_trace_writer_packet_loss, kIndexed, kDataLoss, kTrace,           \
    "loss events in producers' writers (a drop mark or a gap: each one or "     \
    "more packets, how many is not recorded)")                                   \
  F(traced_buf_writer_packets_dropped, kIndexed, kDataLoss, kTrace,              \
    "zt: packets producers' writers dropped because their shared memory was "   \
    "full, as they reported them (TraceStats.BufferStats field 1001)")           \
  F(templight_problems, kSingle, kDataLoss, kTrace,                                \
    "zt: malformed parts of a Templight trace (a corrupt message, a bad "       \
    "dictionary reference, an end without a begin), skipped; `ztrace stats` "    \
    "lists the first ones with their offsets")                                   \
  F(templight_unknown_fields, kSingle, kInfo, kTrace,                            \
    "zt: well-formed fields a Templight trace holds that zerotrace does not "    \
    "read")                                                                      \
  F(json_tokenizer_failure, kSingle, kError, kTrace,                            \
    "JSON trace events that could not be read (not an object, no ph, a bad "    \
    "ts, dur, tts or tdur), skipped; `ztrace stats` lists the first ones")      \
  F(json_parser_failure, kSingle, kError, kTrace,                               \
    "JSON trace events missing what their phase needs (X without dur, C "       \
    "without args, async without id or pid, ...), skipped")                     \
  F(json_display_time_unit, kSingle, kInfo, kTrace,                             \
    "the JSON trace sets displayTimeUnit: a display hint, which changes no "    \
    "timestamp (ts and dur are microseconds either way, as upstream reads them)") \
  F(json_trace_truncated, kSingle, kDataLoss, kTrace,                           \
    "zt: the JSON trace ends inside its events (a writer that died); the "      \
    "events before the cut were imported, the bytes of the cut one are counted") \
  F(gzip_stream_damaged, kSingle, kDataLoss, kTrace,                            \
    "zt: the gzip-compressed input is cut or corrupt; what decompressed before " \
    "the damage was imported")                                                   \
  F(flow_step_without_start, kSingle, kInfo, kTrace, "")                        \
  F(flow_invalid_id, kSingle, kError, kTrace, "")                               \
  F(flow_without_direction, kSingle, kError, kTrace, "")                        \
  F(trace_sorter_negative_timestamp_dropped, kSingle, kError, kTrace,           \
    "events with a negative timestamp, dropped (as upstream drops them)")       \
  F(slice_negative_duration, kSingle, kError, kAnalysis,                        \
    "complete events with a negative duration, dropped")                        \
  F(slice_spill_overlapping_complete_event, kSingle, kError, kAnalysis,         \
    "complete events that overlap a slice of their thread without nesting in "  \
    "it, moved to an overflow track of the thread rather than dropped")         \
  F(slice_drop_overlapping_complete_event, kSingle, kError, kAnalysis,         \
    "complete events dropped for overlapping a slice without nesting (as "      \
    "upstream's importers other than JSON do; zerotrace's never drop: 0)")       \
  F(slice_max_depth_exceeded, kSingle, kError, kAnalysis,                       \
    "slices dropped because they would nest deeper than 512 levels")            \
  F(traced_producers_connected, kSingle, kInfo, kTrace, "")                      \
  F(traced_producers_seen, kSingle, kInfo, kTrace, "")                           \
  F(traced_data_sources_registered, kSingle, kInfo, kTrace, "")                  \
  F(traced_data_sources_seen, kSingle, kInfo, kTrace, "")                        \
  F(traced_tracing_sessions, kSingle, kInfo, kTrace, "")                         \
  F(traced_total_buffers, kSingle, kInfo, kTrace, "")                            \
  F(traced_chunks_discarded, kSingle, kInfo, kTrace,                            \
    "service-wide (every session since the service started, as upstream): "     \
    "chunks refused (bad moves, buffers the producer may not write)")            \
  F(traced_patches_discarded, kSingle, kInfo, kTrace,                           \
    "service-wide (every session since the service started, as upstream): "     \
    "patches refused")                                                           \
  F(traced_flushes_requested, kSingle, kInfo, kTrace, "")                        \
  F(traced_flushes_succeeded, kSingle, kInfo, kTrace, "")                        \
  F(traced_flushes_failed, kSingle, kDataLoss, kTrace, "")                       \
  F(traced_final_flush_failed, kSingle, kDataLoss, kTrace, "")                  \
  F(heap_graph_non_finalized_graph, kSingle, kDataLoss, kTrace,                 \
    "Java heap graphs cut before their last packet (upstream's stat: zerotrace " \
    "does not import heap graphs, so always 0; Perfetto UI reads it)")

#define ZT_PROCESSOR_STATS_ENUM(name, ...) name,
enum Key : uint16_t { ZT_PROCESSOR_STATS(ZT_PROCESSOR_STATS_ENUM) kNumKeys };
#undef ZT_PROCESSOR_STATS_ENUM

struct Descriptor {
  const char* name;
  Type type;
  Severity severity;
  Source source;
  const char* description;
};

const Descriptor& Describe(Key key);
const char* SeverityName(Severity severity);  // "info", "error", "data_loss".
const char* SourceName(Source source);        // "trace", "analysis".

}  // namespace stats

// The counts. Single stats have one value; indexed ones one per index
// (a buffer, a sequence).
class StatsTable {
 public:
  void Increment(stats::Key key, int64_t by = 1) { single_[key] += by; }
  void Set(stats::Key key, int64_t value) { single_[key] = value; }
  void IncrementIndexed(stats::Key key, int index, int64_t by = 1) {
    indexed_[key][index] += by;
  }
  void SetIndexed(stats::Key key, int index, int64_t value) {
    indexed_[key][index] = value;
  }
  int64_t Get(stats::Key key) const { return single_[key]; }
  // Sum over indices for an indexed stat.
  int64_t GetIndexedTotal(stats::Key key) const;
  const std::map<int, int64_t>& GetIndexed(stats::Key key) const {
    return indexed_[key];
  }

 private:
  int64_t single_[stats::kNumKeys] = {};
  std::map<int, int64_t> indexed_[stats::kNumKeys];
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_STORAGE_STATS_H_
