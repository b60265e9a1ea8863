#include "src/processor/exporters/slice_profile.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

namespace zt {
namespace processor {

SliceProfile::SliceProfile(const TraceStorage& storage, SelfTimes self) : storage_(storage) {
  const SliceTable& slice = storage.slice;
  const size_t n = slice.size();
  end_.resize(n);
  if (self == SelfTimes::kComputed)
    self_.resize(n);
  if (n == 0)
    return;

  start_ns_ = slice.ts[0];
  end_ns_ = slice.ts[0];
  for (size_t i = 0; i < n; i++) {
    start_ns_ = std::min(start_ns_, slice.ts[i]);
    end_ns_ = std::max(end_ns_, slice.ts[i] + std::max<int64_t>(0, slice.dur[i]));
  }

  // Ends: an unfinished slice ends with the trace; a child within its
  // parent (rows are in time order, so a parent comes first).
  for (size_t i = 0; i < n; i++) {
    int64_t end = slice.dur[i] < 0 ? end_ns_ : slice.ts[i] + slice.dur[i];
    const uint32_t parent = slice.parent_id[i];
    if (parent != kNullId && parent < i)
      end = std::min(end, end_[parent]);
    end_[i] = std::max(end, slice.ts[i]);
  }
  if (!self_.empty()) {
    for (size_t i = 0; i < n; i++)
      self_[i] = end_[i] - slice.ts[i];
    for (size_t i = 0; i < n; i++) {
      const uint32_t parent = slice.parent_id[i];
      if (parent != kNullId && parent < i)
        self_[parent] -= end_[i] - slice.ts[i];
    }
    for (size_t i = 0; i < n; i++)
      self_[i] = std::max<int64_t>(0, self_[i]);
  }

  // Track ids are the track table's rows: dense, so indexed by a vector (a
  // hash map's node per slice was a tenth of a callgrind export).
  std::vector<uint32_t> index_of_track(storage.track.size(), kNullId);
  std::unordered_map<uint32_t, uint32_t> other_tracks;  // Past the table: none in a sound model.
  for (size_t i = 0; i < n; i++) {
    const uint32_t track = slice.track_id[i];
    uint32_t& index = track < index_of_track.size()
                          ? index_of_track[track]
                          : other_tracks.try_emplace(track, kNullId).first->second;
    if (index == kNullId) {
      index = static_cast<uint32_t>(tracks_.size());
      tracks_.push_back(slice.track_id[i]);
      slices_.emplace_back();
    }
    slices_[index].push_back(static_cast<uint32_t>(i));
  }

  const TemplightInstantiationTable& templight = storage.templight;
  if (templight.size() > 0) {
    templight_row_.assign(n, kNullId);
    for (uint32_t row = 0; row < templight.size(); row++) {
      if (templight.slice_id[row] < n)
        templight_row_[templight.slice_id[row]] = row;
    }
  }
}

std::string SliceProfile::TrackLabel(uint32_t track) const {
  const TraceStorage& s = storage_;
  const StringPool& strings = s.strings;
  auto text = [&strings](StringId id) {
    return id == kNullStringId ? std::string() : std::string(strings.Get(id));
  };
  for (const TemplightUnitRow& unit : s.templight_units) {
    if (unit.track_id == track)
      return unit.source_file == kNullStringId ? "translation unit" : text(unit.source_file);
  }
  if (track >= s.track.size())
    return "track " + std::to_string(track);
  const std::string name = text(s.track.name[track]);
  const uint32_t utid = s.track.utid[track];
  if (utid != kNullId && utid < s.thread.size()) {
    std::string label = "thread ";
    const std::string thread_name = text(s.thread.name[utid]);
    if (!thread_name.empty())
      label += thread_name + " ";
    label += std::to_string(s.thread.tid[utid]);
    if (!name.empty() && name != thread_name)
      label += ": " + name;
    return label;
  }
  const uint32_t upid = s.track.upid[track];
  if (upid != kNullId && upid < s.process.size()) {
    std::string label = "process ";
    const std::string process_name = text(s.process.name[upid]);
    if (!process_name.empty())
      label += process_name + " ";
    label += std::to_string(s.process.pid[upid]);
    if (!name.empty())
      label += ": " + name;
    return label;
  }
  return name.empty() ? "track " + std::to_string(track) : name;
}

}  // namespace processor
}  // namespace zt
