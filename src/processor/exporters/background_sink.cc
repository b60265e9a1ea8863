#include "src/processor/exporters/background_sink.h"

#include <algorithm>
#include <utility>

namespace zt {
namespace processor {

BackgroundSink::BackgroundSink(JsonSink* inner) : inner_(inner), thread_([this] { Run(); }) {}

BackgroundSink::~BackgroundSink() {
  if (!filling_.empty()) {
    std::string ignored;
    HandOff(&ignored);
  }
  Stop();
}

bool BackgroundSink::Write(const char* data, size_t size, std::string* error) {
  while (size > 0) {
    if (filling_.capacity() < kChunkBytes)
      filling_.reserve(kChunkBytes);
    const size_t n = std::min(size, kChunkBytes - filling_.size());
    filling_.append(data, n);
    data += n;
    size -= n;
    if (filling_.size() >= kChunkBytes && !HandOff(error))
      return false;
  }
  return true;
}

bool BackgroundSink::Finish(std::string* error) {
  const bool handed_off = filling_.empty() || HandOff(error);
  Stop();  // Every chunk is written (or dropped after a failure) once it returns.
  if (!handed_off)
    return false;
  if (failed_) {
    *error = error_;
    return false;
  }
  return inner_->Finish(error);
}

bool BackgroundSink::HandOff(std::string* error) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return failed_ || pending_.size() < kMaxPendingChunks; });
  if (failed_) {
    *error = error_;
    filling_.clear();
    return false;
  }
  pending_.push_back(std::move(filling_));
  if (!spare_.empty()) {
    filling_ = std::move(spare_.back());
    spare_.pop_back();
  } else {
    filling_ = std::string();
  }
  filling_.clear();
  lock.unlock();
  changed_.notify_all();
  return true;
}

void BackgroundSink::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stop_ || !pending_.empty(); });
    if (pending_.empty())
      return;  // Stopped, and everything is written.
    std::string chunk = std::move(pending_.front());
    pending_.pop_front();
    const bool skip = failed_;  // Nothing is written after a failure.
    lock.unlock();
    changed_.notify_all();  // Room in pending_: a waiting HandOff goes on meanwhile.
    std::string error;
    const bool ok = skip || inner_->Write(chunk.data(), chunk.size(), &error);
    lock.lock();
    if (!ok && !failed_) {
      failed_ = true;
      error_ = std::move(error);
    }
    chunk.clear();
    if (spare_.size() < kMaxPendingChunks)
      spare_.push_back(std::move(chunk));
    changed_.notify_all();
  }
}

void BackgroundSink::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

}  // namespace processor
}  // namespace zt
