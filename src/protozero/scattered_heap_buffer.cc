#include "zt/protozero/scattered_heap_buffer.h"

#include <algorithm>
#include <cstring>

namespace zt {
namespace protozero {

ScatteredHeapBuffer::Slice::Slice(size_t size)
    : buffer_(new uint8_t[size]), size_(size), unused_bytes_(size) {}

ContiguousMemoryRange ScatteredHeapBuffer::Slice::GetTotalRange() const {
  return {buffer_.get(), buffer_.get() + size_};
}

ContiguousMemoryRange ScatteredHeapBuffer::Slice::GetUsedRange() const {
  return {buffer_.get(), buffer_.get() + size_ - unused_bytes_};
}

ScatteredHeapBuffer::ScatteredHeapBuffer(size_t initial_slice_size_bytes,
                                         size_t maximum_slice_size_bytes)
    : next_slice_size_(std::max(initial_slice_size_bytes,
                                ScatteredStreamWriter::kMaxReserveSize)),
      initial_slice_size_(next_slice_size_),
      maximum_slice_size_(
          std::max(maximum_slice_size_bytes, next_slice_size_)) {}

ScatteredHeapBuffer::~ScatteredHeapBuffer() = default;

ContiguousMemoryRange ScatteredHeapBuffer::GetNewBuffer() {
  AdjustUsedSizeOfCurrentSlice();
  slices_.emplace_back(next_slice_size_);
  next_slice_size_ = std::min(maximum_slice_size_, next_slice_size_ * 2);
  return slices_.back().GetTotalRange();
}

void ScatteredHeapBuffer::AdjustUsedSizeOfCurrentSlice() {
  if (slices_.empty() || writer_ == nullptr)
    return;
  // Only the slice the writer is in can have changed since the last call.
  Slice& last = slices_.back();
  if (last.GetTotalRange().begin == writer_->cur_range().begin)
    last.set_unused_bytes(writer_->bytes_available());
}

const std::vector<ScatteredHeapBuffer::Slice>& ScatteredHeapBuffer::GetSlices() {
  AdjustUsedSizeOfCurrentSlice();
  return slices_;
}

std::vector<ContiguousMemoryRange> ScatteredHeapBuffer::GetRanges() {
  AdjustUsedSizeOfCurrentSlice();
  std::vector<ContiguousMemoryRange> ranges;
  ranges.reserve(slices_.size());
  for (const Slice& s : slices_)
    ranges.push_back(s.GetUsedRange());
  return ranges;
}

size_t ScatteredHeapBuffer::GetTotalSize() {
  AdjustUsedSizeOfCurrentSlice();
  size_t total = 0;
  for (const Slice& s : slices_)
    total += s.size() - s.unused_bytes();
  return total;
}

std::vector<uint8_t> ScatteredHeapBuffer::StitchSlices() {
  std::vector<uint8_t> out(GetTotalSize());
  uint8_t* pos = out.data();
  for (const Slice& s : slices_) {
    ContiguousMemoryRange used = s.GetUsedRange();
    if (used.size()) {
      memcpy(pos, used.begin, used.size());
      pos += used.size();
    }
  }
  return out;
}

std::string ScatteredHeapBuffer::StitchSlicesAsString() {
  std::string out;
  out.reserve(GetTotalSize());
  for (const Slice& s : slices_) {
    ContiguousMemoryRange used = s.GetUsedRange();
    out.append(reinterpret_cast<const char*>(used.begin), used.size());
  }
  return out;
}

void ScatteredHeapBuffer::Reset() {
  slices_.clear();
  next_slice_size_ = initial_slice_size_;
}

}  // namespace protozero
}  // namespace zt
