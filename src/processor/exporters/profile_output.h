// The profile formats' buffered output (profile_formats.h): text appended
// to a buffer that goes to the sink every 64 KiB; after a failed write the
// rest is dropped and the sink's message kept. Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_EXPORTERS_PROFILE_OUTPUT_H_
#define ZT_SRC_PROCESSOR_EXPORTERS_PROFILE_OUTPUT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "src/processor/exporters/json_writer.h"

namespace zt {
namespace processor {

class ProfileOutput {
 public:
  explicit ProfileOutput(JsonSink* sink) : sink_(sink) {}

  std::string& buffer() { return buffer_; }
  void Append(std::string_view text) {
    buffer_.append(text.data(), text.size());
    MaybeFlush();
  }
  void AppendInt(int64_t value) { buffer_ += std::to_string(value); }
  void MaybeFlush() {
    if (buffer_.size() >= kFlushBytes)
      FlushToSink(sink_, &buffer_, &failed_, &error_, &bytes_);
  }
  // The last piece, then the sink's own flush; false with error() on failure.
  bool Finish() {
    FlushToSink(sink_, &buffer_, &failed_, &error_, &bytes_);
    if (!failed_ && !sink_->Finish(&error_))
      failed_ = true;
    return !failed_;
  }
  bool failed() const { return failed_; }
  const std::string& error() const { return error_; }

 private:
  static constexpr size_t kFlushBytes = 64 * 1024;
  JsonSink* const sink_;
  std::string buffer_;
  bool failed_ = false;
  std::string error_;
  uint64_t bytes_ = 0;
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_EXPORTERS_PROFILE_OUTPUT_H_
