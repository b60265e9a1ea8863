// The output side of the service: the packets of a session handed to its
// consumer (ReadBuffers, one batch per task) or written into its file
// (write_into_file), with the service's own packets around them, and the
// session's TraceStats.

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "src/tracing/service/service_packets.h"
#include "src/tracing/service/tracing_service_endpoints.h"
#include "src/tracing/service/tracing_service_impl.h"
#include "src/tracing/service/trusted_fields.h"
#include "zt/base/logging.h"
#include "zt/common/trace_stats.pbzero.h"
#include "zt/protozero/packed_repeated_fields.h"
#include "zt/protozero/scattered_heap_buffer.h"

namespace zt {

namespace {

// Data packets stop this far before max_file_size_bytes, so that the
// closing TraceStats still fits in the file (a quarter of the limit for
// small limits).
constexpr uint64_t kFileStatsReserveBytes = 16 * 1024;

size_t FramedSize(size_t packet_size) {
  return 1 + protozero::proto_utils::VarIntSize(packet_size) + packet_size;
}

}  // namespace

bool TracingServiceImpl::CollectPackets(Session* s, size_t max_bytes,
                                        const PacketSink& sink) {
  if (s->waits_for_trigger())
    return false;  // Nothing at all until a trigger, as upstream.
  size_t emitted = 0;
  auto emit = [&](const std::vector<uint8_t>& packet, bool closing_stats = false) {
    const size_t framed = FramedSize(packet.size());
    if (!sink.admit(framed, closing_stats))
      return false;
    AppendAsTracePacketField(packet.data(), packet.size(), sink.out);
    emitted += framed;
    return sink.appended();
  };
  // The service's own packets first (snapshots, marker, config, uuid,
  // system info, lifecycle events), as upstream's readers expect them.
  if (!s->service_packets->EmitBeforeData(
          [&](const std::vector<uint8_t>& own) { return emit(own); })) {
    return true;
  }
  TraceBufferPacket packet;
  PacketStamper stamper;
  std::vector<uint8_t> joined;  // A fragmented packet, made contiguous.
  for (uint32_t buffer_id : s->buffer_ids) {
    TraceBuffer* buffer = BufferById(buffer_id);
    if (!buffer)
      continue;
    buffer->BeginRead();
    while (buffer->ReadNextTracePacket(&packet)) {
      TrustedPacketFields fields;
      auto identity = producer_identities_.find(packet.producer_id);
      if (identity != producer_identities_.end()) {
        fields.uid = identity->second.first;
        fields.pid = identity->second.second;
      }
      fields.sequence_id = SequenceIdFor(packet.producer_id, packet.writer_id);
      fields.previous_packet_dropped = packet.previous_packet_dropped;
      // Most packets are one fragment: stamped from where they lie in the
      // buffer, copied once, into the output.
      const uint8_t* bytes = nullptr;
      if (packet.slices.size() == 1) {
        bytes = packet.slices[0].data;
      } else {
        packet.CopyTo(&joined);
        bytes = joined.data();
      }
      if (!stamper.Plan(bytes, packet.size, fields)) {
        s->invalid_packets++;
        continue;
      }
      const size_t framed = FramedSize(stamper.stamped_size());
      if (!sink.admit(framed, /*closing_stats=*/false))
        return true;
      stamper.AppendFramed(sink.out);
      emitted += framed;
      if (!sink.appended())
        return true;
      if (max_bytes && emitted >= max_bytes)
        return true;
    }
  }
  // Everything was read.
  if (!s->service_packets->EmitAfterDrain(
          [&](const std::vector<uint8_t>& event) { return emit(event); })) {
    return true;
  }
  const bool stopped = s->state == SessionState::kStopped;
  if (s->service_packets->StatsDue(stopped) &&
      emit(MakeTraceStatsPacket(ComputeStats(*s), service_uid_), /*closing_stats=*/stopped)) {
    s->service_packets->OnStatsEmitted(stopped);
  }
  return false;
}

void TracingServiceImpl::ReadBuffers(ConsumerEndpointImpl* consumer) {
  Session* s = SessionOf(consumer);
  if (!s || s->fd >= 0) {  // A session writing into a file is read there.
    consumer->Post([](Consumer* c) { c->OnTraceData({}, false); });
    return;
  }
  if (s->read_in_progress) {
    s->reads_queued++;  // Answered by another chain after this one.
    return;
  }
  s->read_in_progress = true;
  ReadNextBatch(s->id);
}

void TracingServiceImpl::ReadNextBatch(uint64_t session_id) {
  Session* s = SessionById(session_id);
  if (!s)
    return;
  if (!s->consumer) {  // Freed meanwhile: nobody to read for.
    s->read_in_progress = false;
    s->reads_queued = 0;
    return;
  }
  if (s->read_paused) {  // The consumer holds enough: resumed by it.
    s->read_waits = true;
    return;
  }
  std::vector<uint8_t> batch;
  PacketSink sink;
  sink.out = &batch;
  sink.admit = [](size_t, bool) { return true; };
  sink.appended = [] { return true; };
  const bool more = CollectPackets(s, kReadBatchBytes, sink);
  s->consumer->Post([batch = std::move(batch), more](Consumer* c) mutable {
    c->OnTraceData(std::move(batch), more);
  });
  if (!more) {
    s->read_in_progress = false;
    if (s->reads_queued == 0)
      return;
    s->reads_queued--;
    s->read_in_progress = true;
  }
  // The next batch in a task of its own, behind the one just posted.
  PostDelayedIfAlive(0, [session_id](TracingServiceImpl* self) {
    self->ReadNextBatch(session_id);
  });
}

namespace {
constexpr uint32_t kDefaultFileWritePeriodMs = 5000;
constexpr uint32_t kMinFileWritePeriodMs = 100;

uint32_t FileWritePeriodMs(const protos::gen::TraceConfig& config) {
  const uint32_t period = config.file_write_period_ms();
  return std::max(period ? period : kDefaultFileWritePeriodMs, kMinFileWritePeriodMs);
}
}  // namespace

// static
TracingServiceImpl::FlushPlan TracingServiceImpl::PlanFlushes(
    const protos::gen::TraceConfig& config) {
  FlushPlan plan;
  const auto mode = config.write_flush_mode();
  if (!config.write_into_file() ||
      mode == protos::gen::TraceConfig_WriteFlushMode_WRITE_FLUSH_DISABLED) {
    plan.periodic_ms = config.flush_period_ms();
  } else if (mode == protos::gen::TraceConfig_WriteFlushMode_WRITE_FLUSH_ENABLED ||
             FileWritePeriodMs(config) > kDefaultFileWritePeriodMs) {
    plan.before_each_write = true;  // flush_period_ms is ignored, as upstream does.
  } else {
    plan.periodic_ms = kDefaultFileWritePeriodMs;
  }
  return plan;
}

void TracingServiceImpl::SetReadPaused(ConsumerEndpointImpl* consumer, bool paused) {
  Session* s = SessionOf(consumer);
  if (!s)
    return;
  s->read_paused = paused;
  if (paused || !s->read_waits)
    return;
  s->read_waits = false;
  const uint64_t session_id = s->id;
  PostDelayedIfAlive(0, [session_id](TracingServiceImpl* self) {
    self->ReadNextBatch(session_id);
  });
}

void TracingServiceImpl::SchedulePeriodicWrite(Session* s) {
  const uint32_t period = FileWritePeriodMs(s->config);
  const uint64_t session_id = s->id;
  PostDelayedIfAlive(period, [session_id](TracingServiceImpl* self) {
    Session* session = self->SessionById(session_id);
    if (!session || session->fd < 0 || session->state == SessionState::kStopped)
      return;
    auto write_and_reschedule = [self, session_id](bool) {
      Session* current = self->SessionById(session_id);
      if (!current || current->fd < 0 || current->state == SessionState::kStopped)
        return;  // Stopped meanwhile: its stop wrote the file to the end.
      self->WriteIntoFile(current);
      if (current->fd >= 0 && current->state != SessionState::kStopped)
        self->SchedulePeriodicWrite(current);
    };
    // As upstream's service does since v54 (and says so in SystemInfo,
    // which readers check): the file's writes are flushed as PlanFlushes()
    // says, before each write or on a timer of their own.
    const bool flush_first = session->state == SessionState::kStarted &&
                             PlanFlushes(session->config).before_each_write;
    if (flush_first)
      self->FlushSession(session, 0, nullptr, write_and_reschedule);
    else
      write_and_reschedule(true);
  });
}

// Never blocks: the trace goes into the fd one piece (the backlog) at a
// time, each as far as the fd takes it; when it takes no more, a writable
// watch resumes here, and a reader that takes nothing for
// output_stall_timeout_ms_ ends the session (CheckFileStalled). A regular
// file takes everything at once, as before.
void TracingServiceImpl::WriteIntoFile(Session* s, bool new_round) {
  FileOutput& f = s->file_out;
  // A round reads the buffers to their end; one asked for while another
  // waits for the fd extends it.
  if (new_round)
    f.more_to_collect = true;
  if (s->fd < 0 || f.watch_pending)
    return;  // No file, or the watch resumes the write.
  for (;;) {
    const int error = DrainFileBacklog(s);
    if (error == EAGAIN) {
      WaitForWritable(s);
      return;
    }
    if (error) {
      FailFile(s, std::string("write_into_file: write failed: ") + strerror(error));
      return;
    }
    if (!f.more_to_collect)
      break;
    f.more_to_collect = CollectFileChunk(s);
  }
  // Everything readable is in the file.
  const uint64_t limit = s->config.max_file_size_bytes();
  if (s->file_full && s->error.empty()) {
    s->error = "max_file_size_bytes (" + std::to_string(limit) +
               ") reached after " + std::to_string(s->file_bytes) +
               " bytes: tracing stopped; the rest of the trace was not written";
  }
  if (s->file_full && !s->stopping_or_stopped()) {
    // Reaching the limit stops the session; its stop comes back here
    // (FinishStop) for the closing stats.
    StopSession(s);
    return;
  }
  if (s->file_full && s->state == SessionState::kStopped &&
      s->service_packets->StatsDue(/*stopped=*/true)) {
    // The data did not fit: the stats still go last if they fit. The
    // stats say how much was left unread (bytes_written - bytes_read).
    const std::vector<uint8_t> stats = MakeTraceStatsPacket(ComputeStats(*s), service_uid_);
    if (s->file_bytes + FramedSize(stats.size()) <= limit) {
      AppendAsTracePacketField(stats.data(), stats.size(), &s->file_out.backlog);
      s->file_bytes += s->file_out.backlog.size();
      s->service_packets->OnStatsEmitted(/*stopped=*/true);
      WriteIntoFile(s, /*new_round=*/false);  // Drains the stats, at once or later.
      return;
    }
  }
  if (s->state == SessionState::kStopped && s->file_out.stop_waits) {
    // The file is complete: the stop goes on.
    CloseFile(s);
    s->file_out.stop_waits = false;
    CompleteStop(s);
  }
}

int TracingServiceImpl::DrainFileBacklog(Session* s) {
  FileOutput& f = s->file_out;
  // Where the backlog's whole packets start in a regular file: a write
  // that fails part way (a full disk, the file size limit) leaves a cut
  // packet after them, which is cut off again so that the file stays a
  // trace every reader takes.
  const off_t whole =
      f.kind == FileOutput::Kind::kRegular && f.backlog_left() ? lseek(s->fd, 0, SEEK_CUR) : -1;
  while (f.backlog_left() > 0) {
    const ssize_t n = f.WriteSome(s->fd, f.backlog.data() + f.backlog_offset, f.backlog_left());
    if (n < 0) {
      if (whole >= 0 && ftruncate(s->fd, whole) != 0)
        ZT_PLOG("write_into_file: cannot cut the file back to its last whole packet");
      return static_cast<int>(-n);
    }
    if (n == 0)
      return EAGAIN;
    f.backlog_offset += static_cast<size_t>(n);
    f.bytes_taken += static_cast<uint64_t>(n);
  }
  f.backlog.clear();
  f.backlog_offset = 0;
  return 0;
}

bool TracingServiceImpl::CollectFileChunk(Session* s) {
  // Once full, the file only waits for the closing stats: nothing more is
  // read out of the buffers (it would be dropped).
  if (s->file_full)
    return false;
  const uint64_t limit = s->config.max_file_size_bytes();
  const uint64_t data_limit =
      limit ? limit - std::min(kFileStatsReserveBytes, limit / 4) : 0;
  std::vector<uint8_t>& out = s->file_out.backlog;
  PacketSink sink;
  sink.out = &out;
  sink.admit = [&](size_t framed_size, bool closing_stats) {
    const uint64_t total = s->file_bytes + out.size() + framed_size;
    // The closing stats may use the reserve; data packets may not.
    if (limit && total > (closing_stats ? limit : data_limit)) {
      s->file_full = true;
      return false;
    }
    return true;
  };
  sink.appended = [&] { return out.size() < kFileWriteChunkBytes; };
  const bool stopped_early = CollectPackets(s, 0, sink);
  s->file_bytes += out.size();
  return stopped_early && !s->file_full;
}

void TracingServiceImpl::WaitForWritable(Session* s) {
  FileOutput& f = s->file_out;
  const uint64_t session_id = s->id;
  f.watch_pending = true;
  task_runner_->AddFileDescriptorWritableWatch(
      s->fd, [weak = weak_factory_.GetWeakPtr(), session_id] {
        if (!weak)
          return;
        Session* session = weak->SessionById(session_id);
        if (!session || session->fd < 0)
          return;
        session->file_out.watch_pending = false;
        weak->WriteIntoFile(session, /*new_round=*/false);
      });
  if (!f.stall_check_pending) {
    f.stall_check_pending = true;
    const uint64_t taken = f.bytes_taken;
    PostDelayedIfAlive(output_stall_timeout_ms_, [session_id, taken](TracingServiceImpl* self) {
      self->CheckFileStalled(session_id, taken);
    });
  }
}

void TracingServiceImpl::CheckFileStalled(uint64_t session_id, uint64_t bytes_taken_then) {
  Session* s = SessionById(session_id);
  if (!s || s->fd < 0)
    return;
  FileOutput& f = s->file_out;
  f.stall_check_pending = false;
  if (!f.watch_pending)
    return;  // Not waiting for the reader (any more).
  if (f.bytes_taken != bytes_taken_then) {
    // Slow but reading: looked at again one period from now.
    f.stall_check_pending = true;
    const uint64_t taken = f.bytes_taken;
    PostDelayedIfAlive(output_stall_timeout_ms_, [session_id, taken](TracingServiceImpl* self) {
      self->CheckFileStalled(session_id, taken);
    });
    return;
  }
  FailFile(s, "write_into_file: the reader of the output " +
                  std::string(f.kind == FileOutput::Kind::kSocket ? "socket" : "pipe") +
                  " took no data for " + std::to_string(output_stall_timeout_ms_) +
                  " ms (the limit; " + std::to_string(f.backlog_left()) +
                  " bytes waiting, " + std::to_string(f.bytes_taken) +
                  " written): tracing stopped, the rest of the trace was not written. "
                  "Read the output as it comes, or write the trace into a file.");
}

void TracingServiceImpl::FailFile(Session* s, std::string error) {
  // The file is gone, full or not read: stop the session rather than lose
  // data silently; the consumer hears why.
  s->error = std::move(error);
  ZT_ELOG("session %llu: %s", static_cast<unsigned long long>(s->id), s->error.c_str());
  CloseFile(s);
  if (s->file_out.stop_waits) {
    s->file_out.stop_waits = false;
    CompleteStop(s);
    return;
  }
  StopSession(s);
}

void TracingServiceImpl::CloseFile(Session* s) {
  if (s->fd < 0)
    return;
  if (s->file_out.watch_pending) {
    task_runner_->RemoveFileDescriptorWatch(s->fd);
    s->file_out.watch_pending = false;
  }
  s->file_out.Detach(s->fd);
  s->file_out.backlog.clear();
  s->file_out.backlog.shrink_to_fit();
  s->file_out.backlog_offset = 0;
  close(s->fd);
  s->fd = -1;
}

// Written straight into its encoding: the service never reads stats back,
// and the value class would be code every tracing program links for this
// one message (docs/benchmarks.md#build-cost). Fields in field-number order.
std::vector<uint8_t> TracingServiceImpl::ComputeStats(
    const Session& session) const {
  protozero::HeapBuffered<protos::pbzero::TraceStats> stats(512, 64 * 1024);
  for (uint32_t id : session.buffer_ids) {
    auto it = buffers_.find(id);
    if (it == buffers_.end())
      continue;
    const TraceBufferStats& b = it->second->stats();
    auto* out = stats->add_buffer_stats();
    out->set_bytes_written(b.bytes_written);
    out->set_chunks_written(b.chunks_written);
    out->set_chunks_overwritten(b.chunks_overwritten);
    out->set_write_wrap_count(b.write_wrap_count);
    out->set_patches_succeeded(b.patches_succeeded);
    out->set_patches_failed(b.patches_failed);
    out->set_readaheads_succeeded(b.readaheads_succeeded);
    out->set_readaheads_failed(b.readaheads_failed);
    out->set_abi_violations(b.abi_violations);
    out->set_chunks_rewritten(b.chunks_rewritten);
    out->set_chunks_committed_out_of_order(b.chunks_committed_out_of_order);
    out->set_buffer_size(b.buffer_size);
    out->set_bytes_overwritten(b.bytes_overwritten);
    out->set_bytes_read(b.bytes_read);
    out->set_padding_bytes_written(b.padding_bytes_written);
    out->set_padding_bytes_cleared(b.padding_bytes_cleared);
    out->set_chunks_read(b.chunks_read);
    out->set_chunks_discarded(b.chunks_discarded);
    // Packets whose writer abandoned them mid-way (the drop marker), as
    // upstream counts it; a writer's own "I dropped packets" marks reach
    // readers as previous_packet_dropped on its sequence instead.
    out->set_trace_writer_packet_loss(b.trace_writer_packet_loss);
    if (b.writer_packets_dropped)
      out->set_writer_packets_dropped(b.writer_packets_dropped);
  }
  // Service-wide, as upstream's are (readers compare them): producers,
  // data sources, sessions, buffers, and the chunks and patches refused
  // before any buffer took them (a bad move, a buffer the producer may not
  // write, a session gone), which belong to no session. Every other field
  // is this session's own. Readers must not take the service-wide ones for
  // this trace's losses (ztrace does not; docs/design/tracing_service.md).
  stats->set_producers_connected(static_cast<uint32_t>(producers_.size()));
  stats->set_producers_seen(producers_seen_);
  size_t registered = 0;
  for (const auto& p : producers_)
    registered += p.second->data_sources.size();
  stats->set_data_sources_registered(static_cast<uint32_t>(registered));
  stats->set_data_sources_seen(data_sources_seen_);
  stats->set_tracing_sessions(static_cast<uint32_t>(sessions_.size()));
  stats->set_total_buffers(static_cast<uint32_t>(buffers_.size()));
  stats->set_chunks_discarded(chunks_discarded_);
  stats->set_patches_discarded(patches_discarded_);
  stats->set_invalid_packets(session.invalid_packets);
  stats->set_flushes_requested(session.flushes_requested);
  stats->set_flushes_succeeded(session.flushes_succeeded);
  stats->set_flushes_failed(session.flushes_failed);
  if (session.final_flush_outcome) {
    stats->set_final_flush_outcome(
        static_cast<protos::pbzero::TraceStats_FinalFlushOutcome>(session.final_flush_outcome));
  }
  AddWriterStats(session, stats.get());
  return stats.SerializeAsArray();
}

void TracingServiceImpl::AddWriterStats(const Session& session,
                                        protos::pbzero::TraceStats* stats) const {
  // How full each writer's chunks were when read, per buffer (by its index
  // in the config, as readers expect): many small chunks mean a writer
  // flushed too often or an SMB too small. Every writer read has a
  // sequence id (its packets were emitted); one whose chunks held no packet
  // has none to report under.
  struct Row {
    uint32_t buffer_index;
    uint32_t sequence_id;
    const ChunkPayloadHistogram* histogram;
  };
  std::vector<Row> rows;
  for (size_t index = 0; index < session.buffer_ids.size(); index++) {
    auto buffer = buffers_.find(session.buffer_ids[index]);
    if (buffer == buffers_.end())
      continue;
    for (const auto& entry : buffer->second->writer_stats()) {
      auto seq = sequence_ids_.find(entry.first);
      if (seq != sequence_ids_.end())
        rows.push_back({static_cast<uint32_t>(index), seq->second, &entry.second});
    }
  }
  if (rows.empty())
    return;
  // The bucket bounds once, the overflow bucket implied.
  for (uint32_t bound : ChunkPayloadHistogram::kThresholds)
    stats->add_chunk_payload_histogram_def(bound);
  for (const Row& row : rows) {
    protozero::PackedVarInt counts;
    protozero::PackedVarInt sums;
    for (size_t b = 0; b < ChunkPayloadHistogram::kBuckets; b++) {
      counts.Append(row.histogram->counts[b]);
      sums.Append(row.histogram->sums[b]);
    }
    auto* out = stats->add_writer_stats();
    out->set_sequence_id(row.sequence_id);
    out->set_chunk_payload_histogram_counts(counts);
    out->set_chunk_payload_histogram_sum(sums);
    out->set_buffer(row.buffer_index);
  }
}

}  // namespace zt
