// The output side of the service: the packets of a session handed to its
// consumer (ReadBuffers) or written into its file (write_into_file), with
// the service's own packets around them, and the session's TraceStats.

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "src/tracing/service/service_packets.h"
#include "src/tracing/service/tracing_service_impl.h"
#include "src/tracing/service/trusted_fields.h"

namespace zt {

void TracingServiceImpl::CollectPackets(
    Session* s, const std::function<bool(std::vector<uint8_t>)>& sink) {
  if (!s->preamble_emitted) {
    s->preamble_emitted = true;
    if (!sink(MakeTraceConfigPacket(s->config, service_uid_)) ||
        !sink(MakeClockSnapshotPacket(service_uid_))) {
      return;
    }
  }
  TraceBufferPacket packet;
  for (uint32_t buffer_id : s->buffer_ids) {
    TraceBuffer* buffer = BufferById(buffer_id);
    if (!buffer)
      continue;
    buffer->BeginRead();
    while (buffer->ReadNextTracePacket(&packet)) {
      TrustedPacketFields fields;
      fields.uid = packet.producer_uid;
      fields.pid = packet.producer_pid;
      fields.sequence_id = SequenceIdFor(packet.producer_id, packet.writer_id);
      fields.previous_packet_dropped = packet.previous_packet_dropped;
      std::vector<uint8_t> out;
      bool writer_lost = false;
      if (!StampTrustedFields(packet.data.data(), packet.data.size(), fields,
                              &out, &writer_lost)) {
        s->invalid_packets++;
        continue;
      }
      // A writer that dropped packets (SMB full) says so on its next one:
      // the buffer never saw them, so they are counted here.
      if (writer_lost)
        s->writer_loss_marks[buffer_id]++;
      if (!sink(std::move(out)))
        return;
    }
  }
  if (s->disabled && !s->stats_emitted) {
    s->stats_emitted = sink(MakeTraceStatsPacket(ComputeStats(*s), service_uid_));
  }
}

void TracingServiceImpl::SchedulePeriodicWrite(Session* s) {
  uint32_t period = s->config.file_write_period_ms();
  if (period == 0)
    period = 5000;
  period = std::max<uint32_t>(period, 100);
  const uint64_t session_id = s->id;
  PostDelayedIfAlive(period, [session_id](TracingServiceImpl* self) {
    auto it = self->sessions_.find(session_id);
    if (it == self->sessions_.end() || it->second->fd < 0)
      return;
    self->WriteIntoFile(session_id);
    // Writing may end (or free) the session: look it up again.
    it = self->sessions_.find(session_id);
    if (it != self->sessions_.end() && it->second->fd >= 0)
      self->SchedulePeriodicWrite(it->second.get());
  });
}

void TracingServiceImpl::WriteIntoFile(uint64_t session_id) {
  auto it = sessions_.find(session_id);
  if (it == sessions_.end() || it->second->fd < 0)
    return;
  Session* s = it->second.get();
  const uint64_t max_bytes = s->config.max_file_size_bytes();
  std::vector<uint8_t> out;
  CollectPackets(s, [&](std::vector<uint8_t> packet) {
    std::vector<uint8_t> field;
    AppendAsTracePacketField(packet, &field);
    if (max_bytes && s->file_bytes + out.size() + field.size() > max_bytes) {
      s->file_full = true;
      return false;
    }
    out.insert(out.end(), field.begin(), field.end());
    return true;
  });
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = write(s->fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      // The file is gone or full: stop the session rather than lose data
      // silently; the consumer hears why.
      s->error = std::string("write_into_file: write failed: ") +
                 (n < 0 ? strerror(errno) : "nothing written");
      CloseFile(s);
      if (!s->stopping)
        DisableTracing(s->consumer);
      return;
    }
    done += static_cast<size_t>(n);
  }
  s->file_bytes += out.size();
  if (s->file_full && !s->stopping)
    DisableTracing(s->consumer);
}

void TracingServiceImpl::CloseFile(Session* s) {
  if (s->fd >= 0) {
    close(s->fd);
    s->fd = -1;
  }
}

protos::gen::TraceStats TracingServiceImpl::ComputeStats(
    const Session& session) const {
  protos::gen::TraceStats stats;
  stats.set_producers_connected(static_cast<uint32_t>(producers_.size()));
  stats.set_producers_seen(producers_seen_);
  size_t registered = 0;
  for (const auto& p : producers_)
    registered += p.second->data_sources.size();
  stats.set_data_sources_registered(static_cast<uint32_t>(registered));
  stats.set_data_sources_seen(data_sources_seen_);
  stats.set_tracing_sessions(static_cast<uint32_t>(sessions_.size()));
  stats.set_total_buffers(static_cast<uint32_t>(buffers_.size()));
  stats.set_chunks_discarded(chunks_discarded_);
  stats.set_patches_discarded(patches_discarded_);
  stats.set_invalid_packets(session.invalid_packets);
  stats.set_flushes_requested(session.flushes_requested);
  stats.set_flushes_succeeded(session.flushes_succeeded);
  stats.set_flushes_failed(session.flushes_failed);
  for (uint32_t id : session.buffer_ids) {
    auto it = buffers_.find(id);
    if (it == buffers_.end())
      continue;
    const TraceBufferStats& b = it->second->stats();
    auto* out = stats.add_buffer_stats();
    out->set_buffer_size(b.buffer_size);
    out->set_bytes_written(b.bytes_written);
    out->set_bytes_overwritten(b.bytes_overwritten);
    out->set_bytes_read(b.bytes_read);
    out->set_padding_bytes_written(b.padding_bytes_written);
    out->set_padding_bytes_cleared(b.padding_bytes_cleared);
    out->set_chunks_written(b.chunks_written);
    out->set_chunks_rewritten(b.chunks_rewritten);
    out->set_chunks_overwritten(b.chunks_overwritten);
    out->set_chunks_discarded(b.chunks_discarded);
    out->set_chunks_read(b.chunks_read);
    out->set_chunks_committed_out_of_order(b.chunks_committed_out_of_order);
    out->set_write_wrap_count(b.write_wrap_count);
    out->set_patches_succeeded(b.patches_succeeded);
    out->set_patches_failed(b.patches_failed);
    out->set_readaheads_succeeded(b.readaheads_succeeded);
    out->set_readaheads_failed(b.readaheads_failed);
    out->set_abi_violations(b.abi_violations);
    auto marks = session.writer_loss_marks.find(id);
    out->set_trace_writer_packet_loss(
        b.trace_writer_packet_loss +
        (marks == session.writer_loss_marks.end() ? 0 : marks->second));
  }
  return stats;
}

}  // namespace zt
