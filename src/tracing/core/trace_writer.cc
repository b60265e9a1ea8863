#include "zt/ext/tracing/core/trace_writer.h"

#include <cstring>
#include <utility>

#include "zt/ext/tracing/core/patch_list.h"
#include "zt/ext/tracing/core/shared_memory_arbiter.h"

namespace zt {

using protozero::ContiguousMemoryRange;
using protozero::proto_utils::kMessageLengthFieldSize;
using protozero::proto_utils::WriteRedundantVarInt;
using protozero::proto_utils::WriteRedundantVarInt4;
using ABI = SharedMemoryABI;

TraceWriter::TraceWriter(SharedMemoryArbiter* arbiter, uint16_t writer_id,
                         uint32_t target_buffer, BufferExhaustedPolicy policy,
                         std::atomic<uint64_t>* published_drops)
    : arbiter_(arbiter),
      published_drops_(published_drops),
      writer_id_(writer_id),
      target_buffer_(target_buffer),
      policy_(policy),
      stream_writer_(this),
      packet_(&stream_writer_) {
  packet_.Finalize();  // No packet open until NewTracePacket().
}

void TraceWriter::FatalPacketOpen(const char* what) {
  ZT_FATAL("TraceWriter::%s called while a packet is still open: finish the "
           "packet first (let its handle go out of scope, or call Finish())",
           what);
}

TraceWriter::~TraceWriter() {
  if (in_packet_)
    FatalPacketOpen("~TraceWriter()");
  Flush();
  arbiter_->ReleaseWriterId(writer_id_);
}

void TraceWriter::PublishDrops() {
  if (published_drops_->load(std::memory_order_relaxed) == stats_.packets_dropped)
    return;
  published_drops_->store(stats_.packets_dropped, std::memory_order_relaxed);
  arbiter_->NoteDrops();
}

void TraceWriter::Flush() {
  if (in_packet_)
    FatalPacketOpen("Flush()");
  WriteLossMarkIfPending();
  PublishDrops();  // Reported with the commit below.
  if (cur_chunk_.is_valid())
    ReturnCurrentChunk();
  // The next packet asks for a chunk again (drop mode keeps its state).
  stream_writer_.Reset(ContiguousMemoryRange{});
  cur_packets_word_ = 0;
  if (has_pending_patches_)
    SendFilledPatches();
  arbiter_->FlushPendingCommitData();
}

void TraceWriter::WriteLossMarkIfPending() {
  if (!dropping_ && !mark_previous_dropped_)
    return;
  if (dropping_) {
    // Never stalls: in drop mode the arbiter is asked with kDrop.
    const ContiguousMemoryRange range = AcquireNextRange();
    if (dropping_)
      return;  // Still no chunk: the next packet that gets one says so.
    stream_writer_.Reset(range);
  }
  NewTracePacket();  // Empty but for the mark; finished at once.
}

void TraceWriter::MaterializeReservedPacket() {
  if (!count_reserved_)
    return;
  // An empty packet: a 4-byte varint of 0. Room for it was checked when it
  // was reserved, and nothing was written since.
  WriteRedundantVarInt4(0, stream_writer_.write_ptr());
  stream_writer_.set_write_ptr(stream_writer_.write_ptr() + ABI::kPacketHeaderSize);
  count_reserved_ = false;
}

void TraceWriter::ReturnCurrentChunk() {
  MaterializeReservedPacket();
  arbiter_->ReturnCompletedChunk(std::move(cur_chunk_), target_buffer_,
                                 writer_id_, patch_list_.get());
  cur_chunk_ = ABI::Chunk();
  has_pending_patches_ = patch_list_ && !patch_list_->empty();
}

void TraceWriter::SendFilledPatches() {
  if (patch_list_->front().is_filled()) {
    arbiter_->SendPatches(target_buffer_, writer_id_, patch_list_.get());
    has_pending_patches_ = !patch_list_->empty();
  }
}

size_t TraceWriter::pending_patches() const {
  return patch_list_ ? patch_list_->size() : 0;
}

ContiguousMemoryRange TraceWriter::GarbageRange() {
  if (!garbage_)
    garbage_.reset(new uint8_t[kGarbageSize]);
  return ContiguousMemoryRange{garbage_.get(), garbage_.get() + kGarbageSize};
}

TraceWriter::TracePacketHandle TraceWriter::NewTracePacketSlowPath() {
  OpenPacketSlow(/*new_chunk=*/false);
  return TracePacketHandle(this);
}

uint8_t* TraceWriter::BeginRawPacketSlow(size_t max_size) {
  uint8_t* const start = stream_writer_.write_ptr();
  const bool open_and_empty =
      in_packet_ && start == fragment_start_ && cur_fragment_size_field_ != nullptr &&
      cur_count() < count_limit_ && !has_pending_patches_ && !dropping_ &&
      max_size <= kMaxRawPacketSize && cur_chunk_.is_valid();
  if (!open_and_empty)
    return nullptr;
  const bool room_is_short =
      stream_writer_.end() - start < static_cast<ptrdiff_t>(max_size + kMinRoomForPacket);
  if (!room_is_short) {
    // The count's bound was met in a large chunk: computed again from here.
    UpdateRawStart();
    return BeginRawPacket(max_size);
  }
  // The empty packet: its size, 0, and nothing else of it.
  WriteRedundantVarInt4(0, cur_fragment_size_field_);
  cur_fragment_size_field_ = nullptr;
  packet_.Finalize();
  in_packet_ = false;
  fragment_start_ = nullptr;
  OpenPacketSlow(/*new_chunk=*/true);
  return BeginRawPacket(max_size);
}

void TraceWriter::OpenPacketSlow(bool new_chunk) {
  if (new_chunk || stream_writer_.bytes_available() < kMinRoomForPacket ||
      cur_count() >= ABI::kMaxPacketCount || dropping_) {
    stream_writer_.Reset(AcquireNextRange());
  }
  // In drop mode this lands in the garbage range.
  BeginPacket(stream_writer_.ReserveBytes(ABI::kPacketHeaderSize));
  if (ZT_LIKELY(!dropping_)) {
    CountOpenedPacket();
    if (mark_previous_dropped_) {
      mark_previous_dropped_ = false;
      // The cause bits of TracePacket.DataLossReason, as upstream's readers
      // count them: no chunk was free, or the caller gave packets up.
      packet_.set_previous_packet_dropped(loss_reasons_);
      loss_reasons_ = 0;
    }
    // Readers tell "nothing before this" from "what was before was lost" by
    // it. The writer's first packet always comes here (no chunk yet).
    if (ZT_UNLIKELY(first_packet_)) {
      first_packet_ = false;
      packet_.set_first_packet_on_sequence(true);
    }
  } else {
    stats_.packets_dropped++;
    first_packet_ = false;  // Dropped: the first that survives says so.
  }
  UpdateCountLimit();
  UpdateRawStart();
  PublishDrops();
}

void TraceWriter::MarkPacketLost() {
  stats_.packets_dropped++;
  PublishDrops();
  mark_previous_dropped_ = true;
  loss_reasons_ |= TracePacket::DATA_LOSS_PRESENT;
  UpdateCountLimit();
  raw_start_ = NoRawStart();  // The mark goes on the next packet begun.
}

ContiguousMemoryRange TraceWriter::GetNewBuffer() {
  raw_start_ = NoRawStart();
  // In drop mode a packet runs to its end in the garbage range: its start is
  // lost already. A new chunk is tried again when the next packet starts.
  if (dropping_)
    return GarbageRange();
  const ContiguousMemoryRange range = AcquireNextRange();
  PublishDrops();
  return range;
}

uint8_t* TraceWriter::AnnotatePatch(uint8_t* patch_addr) {
  if (!in_packet_ || dropping_ || !cur_chunk_.is_valid() ||
      patch_addr < cur_chunk_.payload_begin() ||
      patch_addr + kMessageLengthFieldSize > cur_chunk_.end()) {
    return nullptr;
  }
  PendingPatch patch;
  patch.chunk_id = next_chunk_id_ - 1;  // The current chunk's.
  patch.offset = static_cast<uint16_t>(patch_addr - cur_chunk_.payload_begin());
  if (!patch_list_)
    patch_list_.reset(new PatchList());
  patch_list_->push_back(patch);
  has_pending_patches_ = true;
  c_abi_patch_in_chunk_ = true;
  raw_start_ = NoRawStart();
  return patch_list_->back().data;
}

ContiguousMemoryRange TraceWriter::AcquireNextRange() {
  raw_start_ = NoRawStart();
  ABI::ChunkHeaderValues header;
  header.writer_id = writer_id_;
  header.chunk_id = next_chunk_id_;
  if (in_packet_) {
    // The new chunk opens with the rest of the current packet.
    header.packet_count = 1;
    header.flags = ABI::kFirstPacketContinuesFromPrevChunk;
  }
  // A writer already dropping does not stall again for every packet.
  const BufferExhaustedPolicy policy =
      dropping_ ? BufferExhaustedPolicy::kDrop : policy_;
  ABI::Chunk next = arbiter_->GetNewChunk(header, policy, &stats_.stall_ns);

  if (!next.is_valid()) {
    if (cur_chunk_.is_valid()) {
      if (in_packet_) {
        // The packet cannot be finished: tell the service to discard its
        // fragments with the drop size, and forget size fields in this chunk
        // (the service owns its bytes once it is returned).
        WriteRedundantVarInt(ABI::kPacketSizeDropPacket,
                             cur_fragment_size_field_);
        for (protozero::Message* m = packet_.nested_message(); m;
             m = m->nested_message()) {
          uint8_t* f = m->size_field();
          if (f >= cur_chunk_.payload_begin() && f < cur_chunk_.end())
            m->set_size_field(nullptr);
        }
        stats_.packets_dropped++;
      }
      ReturnCurrentChunk();
    } else if (in_packet_) {
      stats_.packets_dropped++;
    }
    cur_fragment_size_field_ = nullptr;
    cur_packets_word_ = 0;
    c_abi_patch_in_chunk_ = false;  // Its chunk went back with the packet dropped.
    if (!dropping_)
      stats_.drop_episodes++;
    dropping_ = true;
    UpdateCountLimit();
    return GarbageRange();
  }

  stats_.chunks_used++;
  if (in_packet_) {
    ZT_CHECK(cur_chunk_.is_valid());
    const uint32_t fragment_size =
        static_cast<uint32_t>(stream_writer_.write_ptr() - fragment_start_);
    WriteRedundantVarInt4(fragment_size, cur_fragment_size_field_);
    uint8_t flags = ABI::kLastPacketContinuesOnNextChunk;
    if (c_abi_patch_in_chunk_)
      flags |= ABI::kChunkNeedsPatching;
    // Open nested messages whose size field is in this chunk will know their
    // size only later: give them a patch slot instead.
    for (protozero::Message* m = packet_.nested_message(); m;
         m = m->nested_message()) {
      uint8_t* f = m->size_field();
      if (f >= cur_chunk_.payload_begin() &&
          f + kMessageLengthFieldSize <= cur_chunk_.end()) {
        PendingPatch patch;
        patch.chunk_id = next_chunk_id_ - 1;
        patch.offset = static_cast<uint16_t>(f - cur_chunk_.payload_begin());
        // What a patch overwrites is zero, as upstream's service checks in
        // its debug builds (its writers zero reserved size fields).
        memset(f, 0, kMessageLengthFieldSize);
        if (!patch_list_)
          patch_list_.reset(new PatchList());
        patch_list_->push_back(patch);
        m->set_size_field(patch_list_->back().data);
        has_pending_patches_ = true;
        flags |= ABI::kChunkNeedsPatching;
      }
    }
    cur_packets_word_ =
        static_cast<uint16_t>(cur_packets_word_ | (uint16_t{flags} << 10));
    cur_chunk_.SetFlags(flags);
  }
  if (cur_chunk_.is_valid())
    ReturnCurrentChunk();

  if (dropping_) {
    dropping_ = false;
    mark_previous_dropped_ = true;
    loss_reasons_ |= TracePacket::DATA_LOSS_PRESENT | TracePacket::DATA_LOSS_SMB_FULL;
  }
  UpdateCountLimit();
  c_abi_patch_in_chunk_ = false;
  next_chunk_id_++;
  cur_packets_word_ = header.packed_packets();
  cur_chunk_ = std::move(next);
  uint8_t* begin = cur_chunk_.payload_begin();
  if (in_packet_) {
    // Counted in the header word: the packet continued here.
    memset(begin, 0, ABI::kPacketHeaderSize);
    cur_fragment_size_field_ = begin;
    begin += ABI::kPacketHeaderSize;
    fragment_start_ = begin;
  }
  return ContiguousMemoryRange{begin, cur_chunk_.end()};
}

}  // namespace zt
