// The processor thread of `ztrace serve`: it owns the RpcSession (the
// trace, its tables, the request counters) and runs the clients' requests
// one at a time, in the order they were posted, as upstream's server does.
// Sockets stay on the I/O thread, which posts jobs here and gets bytes
// back through each job's own callbacks.
//
// While a job runs, the session's interrupt check reads that job's gate:
// a client that went away stops its query within a few thousand SQLite
// steps. /status is answered from a snapshot taken after each job, so the
// UI's 2-second probe is answered while a long import or query runs.
//
// Memory: the queue holds at most one job per connection (the transport
// reads a connection's next request only once its job has run), so it is
// bounded by the connection limit.
//
// Thread-safe.

#ifndef ZT_SRC_CMD_ZTRACE_SERVE_PROCESSOR_WORKER_H_
#define ZT_SRC_CMD_ZTRACE_SERVE_PROCESSOR_WORKER_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "src/cmd/ztrace/serve/output_gate.h"
#include "src/processor/rpc/rpc_session.h"

namespace zt {
namespace ztrace {
namespace serve {

class ProcessorWorker {
 public:
  using JobFn = std::function<void(processor::rpc::RpcSession* session)>;

  // Starts the thread. `import_progress` (optional) is told how far each
  // import has got, on the thread importing.
  explicit ProcessorWorker(
      std::function<void(uint64_t done, uint64_t total)> import_progress = nullptr);
  // Stop().
  ~ProcessorWorker();
  ProcessorWorker(const ProcessorWorker&) = delete;
  ProcessorWorker& operator=(const ProcessorWorker&) = delete;

  // Trace data sent by clients beyond this is refused (RpcSession). Call
  // before any Post().
  void set_max_trace_bytes(uint64_t bytes) { session_.set_max_trace_bytes(bytes); }

  // Imports `path` before serving (`ztrace serve TRACE`), on the calling
  // thread: call before any Post().
  bool LoadFile(const std::string& path, std::string* error);

  // Runs `job` on the processor thread after those posted before. `gate`
  // is the client's: when it closes, the job's query is interrupted; a
  // job whose gate closed before it began does not run (`skipped` runs
  // instead, on the processor thread, so the transport can let go).
  void Post(std::shared_ptr<OutputGate> gate, JobFn job, std::function<void()> skipped);

  // Runs no further job: waits for the one running, then drops those
  // waiting (their callbacks are destroyed here, on the calling thread,
  // before the transport that made them goes). Idempotent.
  void Stop();

  // Any thread: a StatusResult of the latest state between jobs.
  std::string StatusBytes() const;
  // Jobs waiting or running.
  size_t pending() const;

 private:
  struct Job {
    std::shared_ptr<OutputGate> gate;
    JobFn run;
    std::function<void()> skipped;
  };
  void Loop();
  void UpdateStatus();

  processor::rpc::RpcSession session_;
  // Processor thread only: the running job's gate.
  std::shared_ptr<OutputGate> current_gate_;

  mutable std::mutex mu_;
  std::condition_variable posted_;
  std::deque<Job> jobs_;
  bool running_job_ = false;
  bool stopping_ = false;
  std::mutex stop_mu_;  // Serializes Stop().
  std::string status_;

  std::thread thread_;  // Last: starts once the rest is built.
};

}  // namespace serve
}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_SERVE_PROCESSOR_WORKER_H_
