// What an exporter says it could not write: one note per kind of loss,
// with its count and its first example ("slices skipped: 3 (first: slice
// 12)"), never one line per event. Shared by the JSON and Perfetto
// exporters.

#ifndef ZT_SRC_PROCESSOR_EXPORTERS_EXPORT_NOTES_H_
#define ZT_SRC_PROCESSOR_EXPORTERS_EXPORT_NOTES_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "src/processor/storage/stats.h"

namespace zt {
namespace processor {

// Counts one kind of loss and keeps its first example.
class NoteCounter {
 public:
  explicit NoteCounter(std::string what) : what_(std::move(what)) {}
  void Add(const std::string& example) {
    if (count_++ == 0) example_ = example;
  }
  void AddTo(std::vector<std::string>* notes) const {
    if (count_ == 0) return;
    std::string note = what_ + ": " + std::to_string(count_);
    if (!example_.empty()) note += " (first: " + example_ + ")";
    notes->push_back(std::move(note));
  }

 private:
  std::string what_;
  uint64_t count_ = 0;
  std::string example_;
};

// One note for the stats table, which neither format holds: the data-loss
// and error stats by name (what a reader of the output alone would not know
// was lost), the info ones counted. Empty when every stat is zero.
std::string StatsNote(const StatsTable& stats);

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_EXPORTERS_EXPORT_NOTES_H_
