// An exporter's byte sink that writes to a stdio stream on a thread of its
// own, so that the export's formatting and the kernel's copying of the
// output (write(2) into the page cache: a fifth of a 185 MB callgrind
// export, a third of an 818 MB folded one) run on two cores at once.
//
//   FILE* file = fopen(path, "wb");
//   BackgroundFileSink sink(file);
//   ExportProfile(storage, ProfileFormat::kCallgrind, &sink);  // Ends in Finish().
//   fclose(file);  // Only after Finish() or the sink's destruction.
//
// Take() hands over the exporter's whole buffer without copying it (the
// strings are swapped for an empty one of the pool's); Write() copies.
// At most kMaxQueued buffers wait for the thread, each about the exporter's
// flush size (64 KiB): when all wait, Take() and Write() block until the
// thread has written one, so memory stays bounded whatever the output's
// speed (a stalled pipe stalls the export, as a direct write would).
//
// Errors: the first failed fwrite's strerror text is kept; the buffers
// after it are dropped, and every later Take(), Write() and Finish()
// returns false with that text, so the exporter stops at its next flush.
// Finish() waits for everything queued, then fflush()es: a full disk is
// reported even when it shows only there.
//
// Thread-compatible: one exporting thread calls the methods; the stream
// belongs to the sink's thread from construction to Finish() (or the
// destructor, which also waits for what was queued).

#ifndef ZT_SRC_PROCESSOR_EXPORTERS_BACKGROUND_FILE_SINK_H_
#define ZT_SRC_PROCESSOR_EXPORTERS_BACKGROUND_FILE_SINK_H_

#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "src/processor/exporters/json_writer.h"

namespace zt {
namespace processor {

class BackgroundFileSink : public JsonSink {
 public:
  static constexpr size_t kMaxQueued = 4;

  explicit BackgroundFileSink(FILE* file);
  ~BackgroundFileSink() override;
  BackgroundFileSink(const BackgroundFileSink&) = delete;
  BackgroundFileSink& operator=(const BackgroundFileSink&) = delete;

  bool Write(const char* data, size_t size, std::string* error) override;
  bool Take(std::string* buffer, std::string* error) override;
  bool Finish(std::string* error) override;

 private:
  void Run();  // The writing thread.
  // Waits for room in the queue; false (with *error) once a write failed.
  bool WaitForRoom(std::unique_lock<std::mutex>* lock, std::string* error);
  void Stop();  // Waits for the queue to drain and the thread to end.

  FILE* const file_;
  std::mutex mutex_;
  std::condition_variable queued_;   // The thread waits for work here.
  std::condition_variable written_;  // The exporter waits for room here.
  std::deque<std::string> queue_;    // Guarded by mutex_.
  std::vector<std::string> spare_;   // Written buffers for reuse; guarded.
  bool stopping_ = false;            // Guarded.
  bool failed_ = false;              // Guarded.
  std::string error_;                // Guarded; set once, with failed_.
  bool stopped_ = false;             // The exporting thread's own.
  std::thread thread_;               // Last: started once the rest exists.
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_EXPORTERS_BACKGROUND_FILE_SINK_H_
