// Cuts a Chrome JSON trace, fed in pieces of any size, into its events:
// each element of the `traceEvents` array (or of a bare top-level array)
// is handed over as one complete JSON text, so that a 2 GB trace is read
// with only one event's worth of bytes ever copied. The other top-level
// keys (displayTimeUnit, metadata, ...) are handed over whole when small,
// skipped (and reported) when large (systemTraceEvents can be hundreds of
// megabytes of ftrace text).
//
//   JsonTraceSplitter splitter(&handler);
//   splitter.Feed(piece, size);  // Repeatedly.
//   splitter.Finish();
//
// Forms accepted, as Chrome and Perfetto write them: {"traceEvents": [...],
// ...}, a bare array [...], and either cut off at the end (a trace whose
// writer died: Chrome's own format allows the missing "]"). Only the
// structure around events is checked here; each event's own JSON is
// checked by whoever parses it.
// Cost: one pass over the bytes; an event cut by a piece boundary is
// copied once. Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_JSON_JSON_TRACE_SPLITTER_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_JSON_JSON_TRACE_SPLITTER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace zt {
namespace processor {

class JsonTraceSplitter {
 public:
  class Handler {
   public:
    virtual ~Handler() = default;
    // An element of the events array: an object's text (or, for a
    // non-object element, its text too: the handler reports it). `offset`
    // is its first byte's position in the input.
    virtual void OnEvent(std::string_view json, uint64_t offset) = 0;
    // A top-level key other than traceEvents, with its value's text.
    virtual void OnTopLevelKey(std::string_view key, std::string_view value_json) = 0;
    // A top-level value or an event larger than the limit, skipped.
    virtual void OnSkipped(std::string_view key, uint64_t bytes, uint64_t offset) = 0;
  };

  // Values above this size are not held in memory: skipped and reported.
  static constexpr size_t kMaxEventBytes = 64u << 20;
  static constexpr size_t kMaxTopLevelValueBytes = 16u << 20;

  explicit JsonTraceSplitter(Handler* handler) : handler_(handler) {}

  // False once the structure is broken (error() says how and where);
  // further input is then ignored.
  bool Feed(const char* data, size_t size);
  // End of input. A trace cut inside its events array is accepted
  // (truncated() then says so, and the part-event is dropped and counted
  // in cut_event_bytes()); false for input that is not a JSON trace at all.
  bool Finish();

  const std::string& error() const { return error_; }
  bool truncated() const { return truncated_; }
  uint64_t cut_event_bytes() const { return cut_event_bytes_; }
  uint64_t bytes_fed() const { return fed_; }
  // Bytes after the closing bracket that are not whitespace (ignored).
  uint64_t trailing_bytes() const { return trailing_bytes_; }

 private:
  enum class State {
    kBegin,
    kObjectKey,    // Expecting a key, ',' or '}' of the top-level object.
    kObjectColon,  // Expecting ':' after a key.
    kObjectValue,  // Expecting the value of `key_`.
    kEvents,       // In the events array: an element, ',' or ']'.
    kDone,
    kFailed,
  };
  // A value being scanned, possibly across pieces.
  struct Scan {
    bool active = false;
    bool capture = false;  // Keep its bytes (else only measure them).
    char kind = 0;         // '"' string, '{' container, '0' scalar.
    int depth = 0;
    bool in_string = false;
    bool escape = false;
    uint64_t start_offset = 0;
    uint64_t bytes = 0;
  };
  enum class Target { kEvent, kKey, kTopLevelValue };

  bool Fail(const std::string& what);
  // Scans from p; returns the bytes it consumed and sets *done when the
  // value ended within them.
  size_t Continue(const char* p, const char* end, bool* done);
  void StartScan(char first, Target target, bool capture);
  void Deliver(std::string_view text);

  Handler* const handler_;
  State state_ = State::kBegin;
  bool top_level_is_array_ = false;
  bool key_is_events_ = false;
  Scan scan_;
  Target target_ = Target::kEvent;
  std::string carry_;  // The bytes of a value cut by a piece boundary.
  std::string key_;
  std::string error_;
  uint64_t fed_ = 0;
  bool truncated_ = false;
  uint64_t cut_event_bytes_ = 0;
  uint64_t trailing_bytes_ = 0;
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_JSON_JSON_TRACE_SPLITTER_H_
