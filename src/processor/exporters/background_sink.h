// A JsonSink that hands what it is given to a thread of its own, which
// writes it to the wrapped sink: the exporter goes on formatting while the
// kernel copies the last chunk (writing a 185 MB callgrind file costs
// about a tenth of the export's time on the exporting thread otherwise).
//
//   processor::FileJsonSink file(out);
//   processor::BackgroundSink sink(&file);
//   ExportProfile(storage, format, &sink);  // Write()s, then Finish().
//
// Bytes reach the wrapped sink in order. Memory is bounded: writes are
// gathered into chunks of 1 MiB, and at most kMaxPendingChunks wait; a
// Write() past them waits until the thread has written one. The wrapped
// sink's first error is returned by the next Write() or by Finish(), and
// nothing is written after it. Finish() waits for every chunk, then calls
// the wrapped sink's Finish(). Destroying the sink without Finish() writes
// what is pending and stops the thread (no wrapped Finish()).
//
// Write() and Finish() are called from one thread (the exporter's); the
// wrapped sink is called from the sink's thread only, until Finish()
// returns or the destructor does.

#ifndef ZT_SRC_PROCESSOR_EXPORTERS_BACKGROUND_SINK_H_
#define ZT_SRC_PROCESSOR_EXPORTERS_BACKGROUND_SINK_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "src/processor/exporters/json_writer.h"

namespace zt {
namespace processor {

class BackgroundSink : public JsonSink {
 public:
  static constexpr size_t kChunkBytes = size_t{1} << 20;
  static constexpr size_t kMaxPendingChunks = 4;

  explicit BackgroundSink(JsonSink* inner);
  ~BackgroundSink() override;
  BackgroundSink(const BackgroundSink&) = delete;
  BackgroundSink& operator=(const BackgroundSink&) = delete;

  bool Write(const char* data, size_t size, std::string* error) override;
  bool Finish(std::string* error) override;

 private:
  void Run();
  // Queues filling_ (not empty), waiting while kMaxPendingChunks wait.
  // False with *error once the wrapped sink failed.
  bool HandOff(std::string* error);
  void Stop();

  JsonSink* const inner_;
  std::string filling_;  // The chunk being gathered (exporter's thread only).

  std::mutex mutex_;
  std::condition_variable changed_;  // A chunk queued or written, or stop.
  std::deque<std::string> pending_;  // Oldest first.
  std::vector<std::string> spare_;   // Written chunks, their memory kept.
  bool stop_ = false;
  bool failed_ = false;
  std::string error_;  // The wrapped sink's first error.

  std::thread thread_;
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_EXPORTERS_BACKGROUND_SINK_H_
