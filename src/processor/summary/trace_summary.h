// What `ztrace stats` prints: a human summary of an imported trace. Its
// size and packets, sequences, time span, events by type, every data loss
// with where it happened and why, the stats that flag a problem, and the
// slices that took the most time (total and self).
//
// Cost: one pass over the slice table plus a sort of the distinct names.
// Pure function of its inputs; thread-safe on a finished storage.

#ifndef ZT_SRC_PROCESSOR_SUMMARY_TRACE_SUMMARY_H_
#define ZT_SRC_PROCESSOR_SUMMARY_TRACE_SUMMARY_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "src/processor/importers/trace_importer.h"
#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {

struct SliceTotals {
  StringId name = kNullStringId;
  uint64_t count = 0;
  int64_t total_ns = 0;  // Sum of dur of ended slices.
  int64_t self_ns = 0;   // total minus the time of direct children.
};

// Per slice name, sorted by total time (largest first); instants and
// unterminated slices count but add no time.
std::vector<SliceTotals> ComputeSliceTotals(const TraceStorage& storage);

// printf into the end of *out (a line of at most 1 KiB).
void AppendF(std::string* out, const char* format, ...) __attribute__((format(printf, 2, 3)));

// "512 bytes", "1.5 KiB", "80.2 MiB".
std::string FormatBytes(uint64_t bytes);

// "1.234 s", "56.789 ms", "12.000 us", "17 ns".
std::string FormatDuration(int64_t ns);

// One line per DataLossReason bit set ("overwritten in the ring buffer",
// ...), joined with ", ".
std::string DescribeLossReasons(uint64_t reasons);

// What the trace says it left out without a loss mark inside it: chunks a
// ring buffer overwrote or a full buffer refused (TraceStats, per buffer)
// and packets skipped at import because their sequence's interned data or
// state was never in the trace (tokenizer_skipped_packets: typically the
// start of the sequence was overwritten). Counts in their own units.
struct IncompleteData {
  int64_t chunks_overwritten = 0;
  int64_t chunks_discarded = 0;
  int64_t packets_skipped = 0;
  bool any() const { return chunks_overwritten || chunks_discarded || packets_skipped; }
};
IncompleteData CountIncompleteData(const TraceStorage& storage);
// The lines FormatSummary prints for it ("overwritten buffer 0: ..."), or "".
std::string DescribeIncompleteness(const TraceStorage& storage);

struct SummaryOptions {
  std::string trace_name;  // Printed in the first line.
  size_t top_slices = 10;
};

std::string FormatSummary(const TraceStorage& storage, const ImportResult& result,
                          const SummaryOptions& options);

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_SUMMARY_TRACE_SUMMARY_H_
