// The pieces of JSON output the exporters share: where the bytes go (a
// sink that may fail, as a full disk or a closed pipe does), and exact
// writers for strings (any bytes), integers, doubles and nanoseconds as
// microseconds. Stateless functions; a sink is used by one thread.

#ifndef ZT_SRC_PROCESSOR_EXPORTERS_JSON_WRITER_H_
#define ZT_SRC_PROCESSOR_EXPORTERS_JSON_WRITER_H_

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace zt {
namespace processor {

// Where the JSON goes. Write() takes all bytes or fails with a message.
class JsonSink {
 public:
  virtual ~JsonSink();
  virtual bool Write(const char* data, size_t size, std::string* error) = 0;
  // Takes *buffer's bytes and leaves it empty (its capacity may change):
  // Write() then clear(), unless the sink can keep the string itself
  // instead of copying it (BackgroundFileSink).
  virtual bool Take(std::string* buffer, std::string* error);
  // Called once after the last Write(); pushes out buffered bytes.
  virtual bool Finish(std::string* error);
};

// Hands *buffer to `sink` and empties it; after a failed write (*failed
// set, *error the sink's message) later buffers are dropped. *bytes counts
// what the sink took. The exporters' buffered output.
void FlushToSink(JsonSink* sink, std::string* buffer, bool* failed, std::string* error,
                 uint64_t* bytes);

// To a stdio stream the caller owns (and closes). A write that fails
// (EPIPE, ENOSPC, ...) fails the export with strerror's text; Finish()
// flushes, so a full disk is reported even when it shows only then.
class FileJsonSink : public JsonSink {
 public:
  explicit FileJsonSink(FILE* file) : file_(file) {}
  bool Write(const char* data, size_t size, std::string* error) override;
  bool Finish(std::string* error) override;

 private:
  FILE* file_;
};

// Appends to a string (tests, small traces).
class StringJsonSink : public JsonSink {
 public:
  explicit StringJsonSink(std::string* out) : out_(out) {}
  bool Write(const char* data, size_t size, std::string* error) override;

 private:
  std::string* out_;
};

// Appends `text` as a JSON string literal (quotes included): `"` and `\`
// escaped, control characters as \n, \t, ... or \u00XX, valid UTF-8 copied,
// each maximal invalid subsequence replaced by U+FFFD. Exposed for tests.
void AppendJsonString(std::string_view text, std::string* out);

// Appends nanoseconds as microseconds with three decimals ("-1.500").
void AppendMicros(int64_t ns, std::string* out);

// Appends an integer in decimal.
template <typename T>
void AppendJsonInt(T value, std::string* out) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof(buf), value);
  out->append(buf, static_cast<size_t>(res.ptr - buf));
}

// Appends the shortest text that reads back as the same double; false (and
// nothing appended) when JSON has no number for it (NaN, infinities).
bool AppendJsonDouble(double value, std::string* out);

// "NaN", "Infinity" or "-Infinity", quoted: what to write instead.
const char* JsonNonFiniteName(double value);

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_EXPORTERS_JSON_WRITER_H_
