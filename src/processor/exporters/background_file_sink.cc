#include "src/processor/exporters/background_file_sink.h"

#include <cerrno>
#include <cstring>
#include <utility>

namespace zt {
namespace processor {

BackgroundFileSink::BackgroundFileSink(FILE* file) : file_(file) {
  thread_ = std::thread([this] { Run(); });
}

BackgroundFileSink::~BackgroundFileSink() { Stop(); }

void BackgroundFileSink::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    queued_.wait(lock, [this] { return !queue_.empty() || stopping_; });
    if (queue_.empty())
      return;  // Stopping, and everything queued is written.
    std::string buffer;
    buffer.swap(queue_.front());
    queue_.pop_front();
    const bool skip = failed_;
    lock.unlock();
    std::string error;
    if (!skip && !buffer.empty() && fwrite(buffer.data(), 1, buffer.size(), file_) != buffer.size())
      error = strerror(errno);
    buffer.clear();
    lock.lock();
    if (!error.empty() && !failed_) {
      failed_ = true;
      error_ = std::move(error);
    }
    if (spare_.size() < kMaxQueued)
      spare_.push_back(std::move(buffer));
    written_.notify_one();
  }
}

bool BackgroundFileSink::WaitForRoom(std::unique_lock<std::mutex>* lock, std::string* error) {
  written_.wait(*lock, [this] { return queue_.size() < kMaxQueued || failed_; });
  if (failed_) {
    *error = error_;
    return false;
  }
  return true;
}

bool BackgroundFileSink::Take(std::string* buffer, std::string* error) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!WaitForRoom(&lock, error)) {
    buffer->clear();
    return false;
  }
  if (buffer->empty())
    return true;
  std::string next;  // Empty; a written buffer's capacity when there is one.
  if (!spare_.empty()) {
    next.swap(spare_.back());
    spare_.pop_back();
  }
  queue_.emplace_back();
  queue_.back().swap(*buffer);
  buffer->swap(next);
  lock.unlock();
  queued_.notify_one();
  return true;
}

bool BackgroundFileSink::Write(const char* data, size_t size, std::string* error) {
  std::string copy(data, size);
  return Take(&copy, error);
}

void BackgroundFileSink::Stop() {
  if (stopped_)
    return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  queued_.notify_one();
  thread_.join();
  stopped_ = true;
}

bool BackgroundFileSink::Finish(std::string* error) {
  Stop();
  // The thread has ended: what it left is read without the lock's help.
  if (failed_) {
    *error = error_;
    return false;
  }
  if (fflush(file_) != 0 || ferror(file_)) {
    *error = strerror(errno);
    return false;
  }
  return true;
}

}  // namespace processor
}  // namespace zt
