// Which tracks the Perfetto trace describes, and their descriptors
// (export_pftrace_exporter.h).

#include "src/processor/exporters/export_pftrace_exporter.h"

#include <algorithm>

#include "zt/trace/track_event/counter_descriptor.pbzero.h"
#include "zt/trace/track_event/process_descriptor.pbzero.h"
#include "zt/trace/track_event/thread_descriptor.pbzero.h"

namespace zt {
namespace processor {
namespace pftrace {

void Exporter::ChooseTracks() {
  const TrackTable& tr = s_.track;
  const size_t n = tr.size();
  auto valid_utid = [&](uint32_t utid) { return utid < s_.thread.size(); };
  auto valid_upid = [&](uint32_t upid) { return upid < s_.process.size(); };
  std::vector<uint8_t> needed(n, 0);
  for (uint32_t i = 0; i < s_.slice.size(); ++i) {
    if (s_.slice.track_id[i] < n) needed[s_.slice.track_id[i]] = 1;
  }
  for (uint32_t i = 0; i < s_.counter.size(); ++i) {
    const uint32_t t = s_.counter.track_id[i];
    if (t < n && tr.kind[t] == TrackKind::kCounter) needed[t] = 1;
  }
  // Each thread's ThreadDescriptor goes on one track: its first unnamed
  // parentless thread track (the one the importer makes), else its first
  // parentless one, else its first.
  thread_track_.assign(s_.thread.size(), kNullId);
  for (int pass = 0; pass < 3; ++pass) {
    for (uint32_t t = 0; t < n; ++t) {
      const uint32_t utid = tr.utid[t];
      if (tr.kind[t] != TrackKind::kThread || !valid_utid(utid)) continue;
      if (thread_track_[utid] != kNullId) continue;
      if (pass < 2 && tr.parent_id[t] < n) continue;
      if (pass == 0 && !s_.strings.IsNull(tr.name[t])) continue;
      thread_track_[utid] = t;
    }
  }
  // A process's ProcessDescriptor goes on its first parentless process
  // track, else on a descriptor of its own.
  process_track_.assign(s_.process.size(), kNullId);
  for (uint32_t t = 0; t < n; ++t) {
    const uint32_t upid = tr.upid[t];
    if (tr.kind[t] == TrackKind::kProcess && valid_upid(upid) && tr.parent_id[t] >= n &&
        process_track_[upid] == kNullId) {
      process_track_[upid] = t;
    }
  }
  // Parents, and what each needs, until nothing changes (parents come
  // before children in the track table only by convention).
  parent_uuid_.assign(n, 0);
  std::vector<uint32_t> parent(n, kNullId);
  process_needed_.assign(s_.process.size(), 0);
  auto process_of = [&](uint32_t t) -> uint32_t {
    uint32_t upid = tr.upid[t];
    if (!valid_upid(upid) && valid_utid(tr.utid[t])) upid = s_.thread.upid[tr.utid[t]];
    // Row 0 is the "no process" placeholder (pid 0).
    if (!valid_upid(upid) || (upid == 0 && s_.process.pid[0] == 0)) return kNullId;
    return upid;
  };
  for (uint32_t t = 0; t < n; ++t) {
    const uint32_t utid = tr.utid[t];
    if (tr.parent_id[t] < n && tr.parent_id[t] != t) {
      parent[t] = tr.parent_id[t];
      continue;
    }
    switch (tr.kind[t]) {
      case TrackKind::kThread:
        if (valid_utid(utid) && thread_track_[utid] != t) parent[t] = thread_track_[utid];
        break;
      case TrackKind::kProcess:
        if (valid_upid(tr.upid[t]) && process_track_[tr.upid[t]] != t &&
            process_track_[tr.upid[t]] != kNullId) {
          parent[t] = process_track_[tr.upid[t]];
        }
        break;
      case TrackKind::kCounter:
        if (valid_utid(utid) && thread_track_[utid] != kNullId) {
          parent[t] = thread_track_[utid];
        } else if (valid_utid(utid) && needed[t]) {
          notes_unplaced_counters_.Add(std::string(s_.strings.Get(tr.name[t])));
        }
        break;
      case TrackKind::kGlobal:
        break;
    }
  }
  // Mark what is needed through parent chains (bounded: a cycle stops).
  for (uint32_t t = 0; t < n; ++t) {
    if (!needed[t]) continue;
    uint32_t cur = t;
    for (size_t steps = 0; steps <= n && parent[cur] != kNullId; ++steps) {
      cur = parent[cur];
      if (needed[cur]) break;
      needed[cur] = 1;
    }
  }
  track_written_ = needed;
  auto mark_process = [&](uint32_t upid) {
    process_needed_[upid] = 1;
    // Its track carries the ProcessDescriptor: written even without events.
    if (process_track_[upid] != kNullId) track_written_[process_track_[upid]] = 1;
  };
  for (uint32_t t = 0; t < n; ++t) {
    if (!needed[t]) continue;
    if (parent[t] != kNullId) {
      parent_uuid_[t] = TrackUuid(parent[t]);
      continue;
    }
    // Parentless: under its process's descriptor, unless it is that
    // descriptor's track or a thread's own track (which names its pid).
    const uint32_t upid = process_of(t);
    if (upid == kNullId) continue;
    mark_process(upid);
    if (process_track_[upid] == t) continue;
    const bool is_thread_track =
        tr.kind[t] == TrackKind::kThread && valid_utid(tr.utid[t]) && thread_track_[tr.utid[t]] == t;
    // Thread tracks hang from their process too, as our SDK writes them.
    if (is_thread_track || tr.kind[t] != TrackKind::kGlobal) parent_uuid_[t] = ProcessUuid(upid);
  }
  // Threads and processes left out.
  std::vector<uint8_t> thread_seen(s_.thread.size(), 0);
  for (uint32_t t = 0; t < n; ++t) {
    if (needed[t] && valid_utid(tr.utid[t])) thread_seen[tr.utid[t]] = 1;
  }
  for (uint32_t utid = 1; utid < s_.thread.size(); ++utid) {
    if (!thread_seen[utid]) notes_not_written_.Add("tid " + std::to_string(s_.thread.tid[utid]));
  }
  for (uint32_t upid = 1; upid < s_.process.size(); ++upid) {
    if (!process_needed_[upid]) {
      notes_not_written_.Add("pid " + std::to_string(s_.process.pid[upid]));
    }
  }
}

void Exporter::WriteProcessDescriptor(uint32_t upid, TrackDescriptor* d) {
  const int64_t pid = s_.process.pid[upid];
  if (pid > std::numeric_limits<int32_t>::max() || pid < std::numeric_limits<int32_t>::min()) {
    notes_big_ids_.Add("pid " + std::to_string(pid));
  }
  auto* process = d->set_process();
  process->set_pid(static_cast<int32_t>(pid));
  if (!s_.strings.IsNull(s_.process.cmdline[upid])) {
    process->add_cmdline(s_.strings.Get(s_.process.cmdline[upid]));
  }
  if (!s_.strings.IsNull(s_.process.name[upid])) {
    process->set_process_name(s_.strings.Get(s_.process.name[upid]));
  }
}

void Exporter::WriteDescriptor(uint32_t t) {
  const TrackTable& tr = s_.track;
  BeginPacket(/*needs_state=*/false);
  TrackDescriptor* d = packet_->set_track_descriptor();
  d->set_uuid(TrackUuid(t));
  if (!s_.strings.IsNull(tr.name[t])) d->set_name(s_.strings.Get(tr.name[t]));
  if (parent_uuid_[t] != 0) d->set_parent_uuid(parent_uuid_[t]);
  const uint32_t utid = tr.utid[t];
  const uint32_t upid = tr.upid[t];
  if (tr.kind[t] == TrackKind::kThread && utid < thread_track_.size() &&
      thread_track_[utid] == t) {
    const uint32_t thread_upid = s_.thread.upid[utid];
    const int64_t pid = thread_upid < s_.process.size() ? s_.process.pid[thread_upid] : 0;
    const int64_t tid = s_.thread.tid[utid];
    for (int64_t id : {pid, tid}) {
      if (id > std::numeric_limits<int32_t>::max() || id < std::numeric_limits<int32_t>::min()) {
        notes_big_ids_.Add(std::to_string(id));
      }
    }
    auto* thread = d->set_thread();
    thread->set_pid(static_cast<int32_t>(pid));
    thread->set_tid(static_cast<int32_t>(tid));
    if (!s_.strings.IsNull(s_.thread.name[utid])) {
      thread->set_thread_name(s_.strings.Get(s_.thread.name[utid]));
    }
  } else if (tr.kind[t] == TrackKind::kProcess && upid < process_track_.size() &&
             process_track_[upid] == t) {
    WriteProcessDescriptor(upid, d);
  } else if (tr.kind[t] == TrackKind::kCounter) {
    auto* counter = d->set_counter();
    if (!s_.strings.IsNull(tr.unit[t])) counter->set_unit_name(s_.strings.Get(tr.unit[t]));
  }
  EndPacket();
}

void Exporter::WriteDescriptors() {
  // Bare process descriptors first: every track of theirs may hang from them.
  for (uint32_t upid = 0; upid < process_needed_.size(); ++upid) {
    if (!process_needed_[upid] || process_track_[upid] != kNullId) continue;
    BeginPacket(/*needs_state=*/false);
    TrackDescriptor* d = packet_->set_track_descriptor();
    d->set_uuid(ProcessUuid(upid));
    WriteProcessDescriptor(upid, d);
    EndPacket();
  }
  // Then tracks, each after its parent.
  const size_t n = s_.track.size();
  std::vector<uint8_t> done(n, 0);
  std::vector<uint32_t> chain;
  for (uint32_t t = 0; t < n; ++t) {
    if (!track_written_[t] || done[t]) continue;
    chain.clear();
    for (uint32_t cur = t; cur < n && !done[cur] && track_written_[cur] && chain.size() <= n;) {
      chain.push_back(cur);
      done[cur] = 1;
      const uint64_t parent_uuid = parent_uuid_[cur];
      if (parent_uuid == 0 || parent_uuid > n) break;
      cur = static_cast<uint32_t>(parent_uuid - 1);
    }
    for (auto it = chain.rbegin(); it != chain.rend() && !failed_; ++it) WriteDescriptor(*it);
  }
}

}  // namespace pftrace
}  // namespace processor
}  // namespace zt
