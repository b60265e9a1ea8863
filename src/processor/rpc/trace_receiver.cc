#include "src/processor/rpc/trace_receiver.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "src/processor/importers/trace_format.h"
#include "zt/base/logging.h"

namespace zt {
namespace processor {
namespace rpc {

namespace {

// GuessTraceFormat decides from this many bytes (fewer if that is all).
constexpr uint64_t kSniffBytes = 4096;
// Address space is cheap but not free of limits (RLIMIT_AS): a trace
// beyond this is imported whole after its end.
constexpr uint64_t kMaxReservedBytes = uint64_t{1} << 40;

// Every `from` in `text` replaced by `to`.
std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

}  // namespace

std::unique_ptr<TraceReceiver> TraceReceiver::Create(const ImportOptions& options,
                                                     uint64_t max_bytes, std::string* error,
                                                     uint64_t stream_from_bytes) {
  std::unique_ptr<StreamedTrace> trace = StreamedTrace::Create(error);
  if (!trace)
    return nullptr;
  return std::unique_ptr<TraceReceiver>(
      new TraceReceiver(std::move(trace), options, max_bytes, stream_from_bytes));
}

TraceReceiver::TraceReceiver(std::unique_ptr<StreamedTrace> trace, const ImportOptions& options,
                             uint64_t max_bytes, uint64_t stream_from_bytes)
    : trace_(std::move(trace)),
      options_(options),
      max_bytes_(max_bytes),
      stream_from_bytes_(stream_from_bytes) {}

void TraceReceiver::StartImportThread() {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t reserve = (std::min(std::max<uint64_t>(max_bytes_, 1), kMaxReservedBytes) +
                            page - 1) / page * page;
  // A shared mapping of the file beyond its end: pages are readable once
  // the file has grown over them. NORESERVE: nothing is charged for what
  // is not written.
  void* map = mmap(nullptr, static_cast<size_t>(reserve), PROT_READ, MAP_SHARED | MAP_NORESERVE,
                   trace_->fd(), 0);
  if (map != MAP_FAILED) {
    map_ = static_cast<const uint8_t*>(map);
    map_bytes_ = static_cast<size_t>(reserve);
  }
  thread_ = std::thread([this] {
    Import();
    bool ended;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      imported_ = true;
      ended = ended_;
    }
    imported_cv_.notify_all();
    // Once the input has ended, its bytes are not read again: they go now,
    // on this thread, rather than when the receiver is destroyed on the
    // session's, while its client waits (0.1-0.2 s for a 1 GB trace).
    if (ended)
      FreeInput();
  });
}

void TraceReceiver::FreeInput() {
  if (map_)
    munmap(const_cast<uint8_t*>(map_), map_bytes_);
  map_ = nullptr;
  trace_->FreeBytes();
}

TraceReceiver::~TraceReceiver() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    abandoned_ = true;
  }
  more_.notify_all();
  if (thread_.joinable())
    thread_.join();
  storage_.reset();
  FreeInput();
}

bool TraceReceiver::Append(const void* data, size_t size, std::string* error) {
  ZT_CHECK(!finished_);
  if (size > max_bytes_ - std::min(max_bytes_, trace_->size())) {
    *error = "the trace is larger than this server takes (" + std::to_string(max_bytes_ >> 20) +
             " MiB; ztrace serve --max-trace-mb sets it): the rest is refused";
    return false;
  }
  if (!trace_->Append(data, size, error))
    return false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    published_ = trace_->size();
  }
  more_.notify_all();
  if (!thread_.joinable() && trace_->size() >= stream_from_bytes_)
    StartImportThread();
  return true;
}

GrowingInput TraceReceiver::WaitForMore(uint64_t have) {
  std::unique_lock<std::mutex> lock(mutex_);
  more_.wait(lock, [&] { return published_ > have || ended_ || abandoned_; });
  GrowingInput input;
  input.available = published_;
  input.ended = ended_;
  input.abandoned = abandoned_;
  return input;
}

void TraceReceiver::ReleasePages(uint64_t offset, uint64_t length) const {
  // Only the mapping's pages go: the file keeps the bytes (a shared
  // mapping's pages are read back from it when touched again).
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t first = (offset + page - 1) / page * page;
  const uint64_t last = (offset + length) / page * page;
  if (last > first && last <= map_bytes_)
    madvise(const_cast<uint8_t*>(map_) + first, last - first, MADV_DONTNEED);
}

void TraceReceiver::Import() {
  GrowingInput head = WaitForMore(0);
  while (head.available < kSniffBytes && !head.ended && !head.abandoned)
    head = WaitForMore(head.available);
  if (head.abandoned)
    return;
  const bool fits = map_ && head.available <= map_bytes_;
  if (fits && GuessTraceFormat(map_, std::min(head.available, kSniffBytes)) == TraceFormat::kProto) {
    streamed_ = true;
    storage_.reset(new TraceStorage());
    ImportOptions options = options_;
    if (!options.release_input)
      options.release_input = [this](uint64_t offset, uint64_t length) {
        ReleasePages(offset, length);
      };
    bool overflowed = false;
    result_ = ImportGrowingProtoTrace(
        map_,
        [this, &overflowed](uint64_t have) {
          GrowingInput input = WaitForMore(have);
          if (input.available > map_bytes_) {
            overflowed = true;  // Read whole after its end.
            input.abandoned = true;
          }
          return input;
        },
        storage_.get(), options);
    if (!result_.unreadable.empty() && !overflowed)
      return;  // Abandoned.
    // The whole decides the format, as for a file: a Templight trace
    // whose start looked like a Perfetto one is read again, as one.
    if (overflowed || GuessTraceFormat(map_, result_.input_bytes) != TraceFormat::kProto) {
      storage_.reset();
      result_ = ImportResult();
      streamed_ = false;
    }
  }
  if (storage_)
    return;
  GrowingInput end = head;
  while (!end.ended && !end.abandoned)
    end = WaitForMore(end.available);
  if (end.abandoned)
    return;
  const std::string path = trace_->path();
  storage_ = ImportTraceFile(path, options_, &result_, &error_);
  // The client knows no path: the sentence names "the trace", and a
  // command it suggests (gunzip -c PATH) takes TRACE for the file.
  if (!storage_ && error_.compare(0, path.size(), path) == 0)
    error_ = "the trace" + ReplaceAll(error_.substr(path.size()), path, "TRACE");
}

std::unique_ptr<TraceStorage> TraceReceiver::Finish(ImportResult* result, std::string* error) {
  ZT_CHECK(!finished_);
  finished_ = true;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ended_ = true;
  }
  more_.notify_all();
  if (thread_.joinable()) {
    std::unique_lock<std::mutex> lock(mutex_);
    imported_cv_.wait(lock, [this] { return imported_; });
  } else {
    // Too small to have gained from a thread: read here, whole.
    Import();
    FreeInput();
  }
  if (!storage_) {
    *error = error_;
    return nullptr;
  }
  if (result)
    *result = result_;
  return std::move(storage_);
}

}  // namespace rpc
}  // namespace processor
}  // namespace zt
