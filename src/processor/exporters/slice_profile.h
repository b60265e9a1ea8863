// A trace's slices as call stacks, for the profile formats (`ztrace convert
// --to folded|callgrind|speedscope|graphviz`, docs/design/profile_formats.md):
// which tracks hold slices, each track's slices in time order, and each
// slice's end and self time.
//
//   SliceProfile profile(storage);
//   for (size_t t = 0; t < profile.tracks().size(); t++)
//     for (uint32_t slice : profile.slices_of(t))
//       Use(profile.end(slice), profile.self_ns(slice));
//
// A slice never ended (dur -1) ends at the end of the trace; every slice is
// clamped to its parent's end, so stacks nest even on damaged input. Self
// time is a slice's time less its children's, never negative.
//
// Cost: three passes over the slices; 20 bytes per slice (12 without self
// times). The storage must outlive the profile and not change.
// Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_EXPORTERS_SLICE_PROFILE_H_
#define ZT_SRC_PROCESSOR_EXPORTERS_SLICE_PROFILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {

class SliceProfile {
 public:
  enum class SelfTimes { kComputed, kSkipped };  // Skipped: self_ns() may not be called.
  explicit SliceProfile(const TraceStorage& storage, SelfTimes self = SelfTimes::kComputed);

  const TraceStorage& storage() const { return storage_; }
  // Tracks holding slices, in the order of their first slice.
  const std::vector<uint32_t>& tracks() const { return tracks_; }
  // The slices of tracks()[index], in time order (parents before children).
  const std::vector<uint32_t>& slices_of(size_t index) const { return slices_[index]; }
  // The earliest slice's start and the latest end (0, 0 without slices).
  int64_t start_ns() const { return start_ns_; }
  int64_t end_ns() const { return end_ns_; }

  int64_t end(uint32_t slice) const { return end_[slice]; }
  int64_t self_ns(uint32_t slice) const { return self_[slice]; }

  // A name for a track: "thread NAME TID", "process NAME PID: TRACK", the
  // track's own name, or a Templight unit's source file.
  std::string TrackLabel(uint32_t track) const;

  // The slice's templight_instantiation row, or kNullId (not Templight).
  uint32_t templight_row(uint32_t slice) const {
    return templight_row_.empty() ? kNullId : templight_row_[slice];
  }
  bool has_templight() const { return !templight_row_.empty(); }

 private:
  const TraceStorage& storage_;
  std::vector<uint32_t> tracks_;
  std::vector<std::vector<uint32_t>> slices_;
  std::vector<int64_t> end_;
  std::vector<int64_t> self_;
  std::vector<uint32_t> templight_row_;
  int64_t start_ns_ = 0;
  int64_t end_ns_ = 0;
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_EXPORTERS_SLICE_PROFILE_H_
