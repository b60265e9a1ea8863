#include "src/processor/importers/proto/clock_tracker.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace zt {
namespace processor {
namespace {

constexpr uint32_t kNoClock = ~0u;

int64_t WrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) -
                              static_cast<uint64_t>(b));
}

// a - b, clamped to the int64 range.
int64_t SaturatingSub(int64_t a, int64_t b) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (b > 0 && a < kMin + b)
    return kMin;
  if (b < 0 && a > kMax + b)
    return kMax;
  return a - b;
}

}  // namespace

ClockTracker::ClockTracker() = default;
ClockTracker::~ClockTracker() = default;

ClockTracker::SnapshotStatus ClockTracker::AddSnapshot(
    const std::vector<ClockValue>& clocks) {
  if (clocks.empty())
    return SnapshotStatus::kEmpty;

  // Everything is checked before anything changes: a refused snapshot
  // leaves no partial state behind.
  std::vector<ClockId> ids;
  ids.reserve(clocks.size());
  for (const ClockValue& clock : clocks)
    ids.push_back(clock.id);
  std::sort(ids.begin(), ids.end());
  if (std::adjacent_find(ids.begin(), ids.end()) != ids.end()) {
    ++invalid_snapshots_;
    return SnapshotStatus::kDuplicateClock;
  }
  // Monotonicity is judged against the previous snapshot of the same set of
  // clocks, as upstream does: snapshots of different sets come from
  // different writers (each sequence snapshots its own clocks), and the
  // file holds them in the order they were read out, not taken.
  std::vector<int64_t>& last_of_set = last_values_by_set_[ids];
  const bool set_seen = !last_of_set.empty();
  std::vector<int64_t> values_by_id(ids.size());
  for (const ClockValue& clock : clocks) {
    const size_t k = static_cast<size_t>(
        std::lower_bound(ids.begin(), ids.end(), clock.id) - ids.begin());
    values_by_id[k] = clock.ts_ns;
    if (set_seen && clock.id == trace_clock_ && clock.ts_ns < last_of_set[k]) {
      ++invalid_snapshots_;
      return SnapshotStatus::kTraceClockWentBack;
    }
  }

  std::vector<uint32_t> index;
  index.reserve(clocks.size());
  for (const ClockValue& value : clocks) {
    const uint32_t i = ClockIndex(value.id);
    Clock& clock = clocks_[i];
    const size_t k = static_cast<size_t>(
        std::lower_bound(ids.begin(), ids.end(), value.id) - ids.begin());
    if (set_seen && value.ts_ns < last_of_set[k] && !clock.non_monotonic) {
      // It can no longer be a hop's source: paths through it are void.
      clock.non_monotonic = true;
      ++graph_generation_;
    }
    clock.last_ns = value.ts_ns;
    index.push_back(i);
  }
  last_of_set = std::move(values_by_id);

  for (size_t i = 0; i < clocks.size(); ++i) {
    for (size_t j = i + 1; j < clocks.size(); ++j) {
      const bool swap = index[i] > index[j];
      const size_t first = swap ? j : i;
      const size_t second = swap ? i : j;
      Edge& edge = edges_[EdgeIndex(index[first], index[second])];
      std::vector<int64_t>& a = edge.values[0];
      std::vector<int64_t>& b = edge.values[1];
      if (a.empty() || clocks[first].ts_ns >= a.back()) {
        a.push_back(clocks[first].ts_ns);
        b.push_back(clocks[second].ts_ns);
      } else {
        // Two sets share this pair and were read out of order: keep the
        // series sorted (after equal values, as if it came last).
        const size_t at = static_cast<size_t>(
            std::upper_bound(a.begin(), a.end(), clocks[first].ts_ns) - a.begin());
        a.insert(a.begin() + static_cast<std::ptrdiff_t>(at), clocks[first].ts_ns);
        b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), clocks[second].ts_ns);
      }
    }
  }
  InvalidateFastRanges();
  return SnapshotStatus::kOk;
}

bool ClockTracker::SetTraceClock(ClockId id) {
  if (id == trace_clock_)
    return true;
  if (id < 128 && IsSequenceScoped(static_cast<uint32_t>(id)))
    return false;
  if (conversion_happened_)
    return false;
  epoch_++;
  trace_clock_ = id;
  routes_.clear();
  last_route_ = nullptr;
  return true;
}

bool ClockTracker::IsNonMonotonic(ClockId id) const {
  auto it = clock_index_.find(id);
  return it != clock_index_.end() && clocks_[it->second].non_monotonic;
}

std::optional<int64_t> ClockTracker::ToTraceTimeSlow(ClockId id,
                                                     int64_t ts_ns) {
  auto cached = routes_.find(id);
  if (cached == routes_.end() ||
      cached->second.graph_generation != graph_generation_) {
    auto known = clock_index_.find(id);
    if (known == clock_index_.end()) {
      // Not cached: a hostile trace could name any number of unknown clocks.
      ++conversion_failures_;
      return std::nullopt;
    }
    cached = routes_.emplace(id, Route()).first;
    FindPath(known->second, &cached->second);
  }
  Route& route = cached->second;
  if (!route.reachable) {
    ++conversion_failures_;
    return std::nullopt;
  }

  // `value` is the timestamp in the clock the current hop starts from;
  // `offset` what the hops so far added to ts_ns. [range_min, range_end) is
  // the range of ts_ns for which every hop so far picks the same snapshot.
  int64_t value = ts_ns;
  int64_t offset = 0;
  int64_t range_min = kMin;
  int64_t range_end = kMax;
  for (Hop& hop : route.hops) {
    const Edge& edge = edges_[hop.edge];
    const std::vector<int64_t>& from = edge.values[hop.from];
    const std::vector<int64_t>& to = edge.values[1 - hop.from];
    const size_t n = from.size();
    // Snapshot k serves values in [from[k], from[k + 1]), the first one
    // also everything before, the last one everything after.
    auto serves = [&](size_t k) {
      return (k == 0 || from[k] <= value) &&
             (k + 1 == n || value < from[k + 1]);
    };
    size_t k = hop.index;
    if (!serves(k)) {
      if (k + 1 < n && serves(k + 1)) {
        ++k;
      } else {
        k = static_cast<size_t>(
            std::upper_bound(from.begin(), from.end(), value) - from.begin());
        if (k > 0)
          --k;
      }
    }
    hop.index = k;
    if (k > 0)
      range_min = std::max(range_min, SaturatingSub(from[k], offset));
    if (k + 1 < n)
      range_end = std::min(range_end, SaturatingSub(from[k + 1], offset));
    const int64_t step = WrapSub(to[k], from[k]);
    value = WrapAdd(value, step);
    offset = WrapAdd(offset, step);
  }
  route.fast_min = range_min;
  route.fast_end = range_end;
  route.fast_offset = offset;
  last_source_ = id;
  last_route_ = &route;
  return value;
}

void ClockTracker::FindPath(uint32_t source, Route* route) {
  route->graph_generation = graph_generation_;
  route->reachable = false;
  route->hops.clear();
  route->fast_min = kMax;
  route->fast_end = kMin;
  auto target_it = clock_index_.find(trace_clock_);
  if (target_it == clock_index_.end())
    return;
  const uint32_t target = target_it->second;

  // Breadth-first, from the source; a non-monotonic clock is reached but
  // never left.
  std::vector<uint32_t> came_from(clocks_.size(), kNoClock);
  std::vector<uint32_t> via_edge(clocks_.size(), 0);
  std::vector<uint32_t> queue{source};
  came_from[source] = source;
  bool found = source == target;
  for (size_t head = 0; head < queue.size() && !found; ++head) {
    const Clock& clock = clocks_[queue[head]];
    if (clock.non_monotonic)
      continue;
    for (const Neighbor& next : clock.neighbors) {
      if (came_from[next.clock] != kNoClock)
        continue;
      came_from[next.clock] = queue[head];
      via_edge[next.clock] = next.edge;
      if (next.clock == target) {
        found = true;
        break;
      }
      queue.push_back(next.clock);
    }
  }
  if (!found)
    return;
  for (uint32_t at = target; at != source; at = came_from[at]) {
    const uint32_t edge = via_edge[at];
    const uint8_t from = edges_[edge].clock[0] == came_from[at] ? 0 : 1;
    route->hops.push_back(Hop{edge, from, 0});
  }
  std::reverse(route->hops.begin(), route->hops.end());
  route->reachable = true;
}

uint32_t ClockTracker::ClockIndex(ClockId id) {
  auto inserted =
      clock_index_.emplace(id, static_cast<uint32_t>(clocks_.size()));
  if (inserted.second)
    clocks_.push_back(Clock{id, 0, false, {}});
  return inserted.first->second;
}

uint32_t ClockTracker::EdgeIndex(uint32_t a, uint32_t b) {
  const uint64_t key = (static_cast<uint64_t>(a) << 32) | b;
  auto inserted =
      edge_index_.emplace(key, static_cast<uint32_t>(edges_.size()));
  if (inserted.second) {
    Edge edge;
    edge.clock[0] = a;
    edge.clock[1] = b;
    edges_.push_back(std::move(edge));
    clocks_[a].neighbors.push_back(Neighbor{b, inserted.first->second});
    clocks_[b].neighbors.push_back(Neighbor{a, inserted.first->second});
    ++graph_generation_;
  }
  return inserted.first->second;
}

void ClockTracker::InvalidateFastRanges() {
  epoch_++;
  for (auto& entry : routes_) {
    entry.second.fast_min = kMax;
    entry.second.fast_end = kMin;
  }
  last_route_ = nullptr;
}

}  // namespace processor
}  // namespace zt
