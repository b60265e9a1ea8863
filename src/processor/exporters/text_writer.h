// The buffered output of the text dumps (`ztrace convert --to text`): text
// goes to a sink in pieces of about 64 KiB, so that a dump of any size,
// and a string of any size in it, costs one piece of memory.
//
//   TextWriter out(sink);
//   out.Append("name: ");
//   out.Quoted(bytes, size);  // "escaped", as protobuf text format does.
//   out.Flush();              // At the end; out.failed() if the sink refused.
//
// Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_EXPORTERS_TEXT_WRITER_H_
#define ZT_SRC_PROCESSOR_EXPORTERS_TEXT_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace zt {
namespace processor {

// Receives the text in pieces; returns false to stop (a write error).
using TextSink = std::function<bool(std::string_view text)>;

class TextWriter {
 public:
  static constexpr size_t kFlushBytes = 64 * 1024;

  explicit TextWriter(const TextSink& sink) : sink_(sink) {}

  // True once the sink refused a piece: everything after is dropped.
  bool failed() const { return failed_; }

  void Append(std::string_view text) {
    buffer_.append(text.data(), text.size());
    if (buffer_.size() >= kFlushBytes)
      Flush();
  }
  void Indent(int depth) { buffer_.append(static_cast<size_t>(depth) * 2, ' '); }

  // Between double quotes, escaped as protobuf text format escapes bytes
  // (\" \\ \n, octal for other control and non-ASCII bytes); flushed as it
  // fills.
  void Quoted(const void* data, size_t size);

  void Flush() {
    if (!failed_ && !buffer_.empty() && !sink_(buffer_))
      failed_ = true;
    buffer_.clear();
  }

 private:
  const TextSink& sink_;
  std::string buffer_;
  bool failed_ = false;
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_EXPORTERS_TEXT_WRITER_H_
