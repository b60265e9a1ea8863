// `ztrace record`: records one tracing session into a file, as upstream's
// `perfetto` command does.
//
// RecordCommand is one session, as a Consumer of the tracing service:
//
//   connect -> EnableTracing(config) -> [the service stops the session at
//   duration_ms | RequestStop(): Flush, then DisableTracing] ->
//   OnTracingDisabled -> ReadBuffers until the last batch, each batch
//   written to the output as it comes (it is already trace-file bytes) ->
//   GetTraceStats -> the summary line, and a warning if data was lost.
//
// With write_into_file in the config the service writes the file itself
// (through a dup of the output fd given to EnableTracing) and nothing is
// read back. It reaches the service through a ConnectFn, so that its tests
// run it against an in-process TracingService; the program passes
// ConsumerIpcClient::Connect.
//
// RunRecord() is the whole command as a process runs it: flags, config,
// output file, --background, signals, a task runner on the calling thread.

#ifndef ZT_SRC_CMD_ZTRACE_RECORD_COMMAND_H_
#define ZT_SRC_CMD_ZTRACE_RECORD_COMMAND_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/base/scoped_file.h"
#include "zt/base/task_runner.h"
#include "zt/common/trace_stats.gen.h"
#include "zt/config/trace_config.gen.h"
#include "zt/ext/base/weak_ptr.h"
#include "zt/ext/tracing/core/tracing_service.h"

namespace zt {
namespace ztrace {

// Makes the consumer's endpoint; called on the runner, whose thread the
// endpoint is then used and destroyed on. Null means "could not connect"
// (as does an OnDisconnect() before OnConnect()).
using ConnectFn = std::function<std::unique_ptr<ConsumerEndpoint>(
    Consumer*, base::TaskRunner*)>;

class RecordCommand : public Consumer {
 public:
  struct Options {
    protos::gen::TraceConfig config;  // Validated (ValidateConfig).
    base::ScopedFile output;          // Where the trace goes; required.
    std::string output_name;          // In messages: a path, or "stdout".
    // Removed if the command fails before writing a byte (a refused
    // config leaves no empty file behind). Empty: never removed. Only for
    // a file the command created.
    std::string remove_on_failure;
    // An existing file given as the output: emptied when the session is
    // enabled, not before (what it held survives a failure to start).
    bool truncate_on_start = false;
    std::string service_address;  // In the "cannot connect" message.
    // The one-line progress display, rewritten with '\r' every
    // kProgressPeriodMs: for a terminal.
    bool progress = false;
    // Where messages go, one call per message (each ends with '\n', or
    // with nothing for a progress line). Null: standard error.
    std::function<void(std::string_view)> print;
    // Called once on the runner: true when every data source of the session
    // has started (or the session ended before they all said so), false
    // when the command fails first. What --background waits for.
    std::function<void(bool)> on_started;
  };

  static constexpr uint32_t kProgressPeriodMs = 500;
  // How long past duration_ms (plus the config's flush and stop timeouts)
  // the command waits for the service to end the session before it gives
  // up, as upstream's command does.
  static constexpr uint32_t kServiceGraceMs = 60000;
  // Past that deadline the command does not give up on a service that is
  // still writing the trace (a large buffer going into a slow reader takes
  // as long as the reader does): it asks for the session's stats every
  // kEndProgressCheckMs and waits on while the bytes read out of its
  // buffers grow. No answer, or no growth, and it gives up.
  static constexpr uint32_t kEndProgressCheckMs = 10000;
  // Once the session ended: how long the service may stay silent while the
  // trace (or its stats) is read before the command gives up on it.
  static constexpr uint32_t kServiceSilenceMs = 30000;

  // |runner| must outlive the command.
  RecordCommand(base::TaskRunner* runner, ConnectFn connect, Options options);
  // On the runner's thread (in a task, or on the thread that runs a
  // UnixTaskRunner once Run() returned): the endpoint, timers and fd watch
  // belong to it.
  ~RecordCommand() override;

  RecordCommand(const RecordCommand&) = delete;
  RecordCommand& operator=(const RecordCommand&) = delete;

  // Starts the command (posted: returns at once). |on_done(exit_code)| runs
  // on the runner once it is over (the endpoint already gone): 0 when the
  // trace was written, 1 otherwise (the reason has been printed). Once only.
  void Start(std::function<void(int)> on_done);

  // What SIGINT and SIGTERM do: asks the command to stop the session early
  // (flush, then stop, then write what was recorded). Async-signal-safe and
  // thread-safe: it only writes to an eventfd the runner watches. Before
  // the session is enabled it makes the command fail ("interrupted").
  void RequestStop();

  // After on_done (or on the runner): what was written by us (not counting
  // a file the service wrote), and the service's stats (if it gave them).
  uint64_t bytes_written() const { return bytes_written_; }
  uint64_t packets_written() const { return packets_written_; }
  const protos::gen::TraceStats& stats() const { return stats_; }

  // Consumer (runner thread).
  void OnConnect() override;
  void OnDisconnect() override;
  void OnTracingDisabled(const std::string& error) override;
  void OnAllDataSourcesStarted() override;
  void OnTraceData(std::vector<uint8_t> trace, bool has_more) override;
  void OnTraceStats(bool success, std::vector<uint8_t> stats) override;

 private:
  // The config's trigger_config.trigger_mode (0: none).
  static int TriggerMode(const protos::gen::TraceConfig& config);
  enum class State { kIdle, kConnecting, kTracing, kStopping, kReading, kStats, kDone };

  void OnStopSignal();
  void Print(const std::string& message);
  void ShowProgress();
  void ClearProgress();
  void ScheduleProgress();
  void ReportStarted(bool ok);
  // Checks every kServiceSilenceMs that reading made progress since |seen|.
  void WatchService(uint64_t seen);
  // Gives the service |delay_ms| to end the session while the command is in
  // |state|, then checks its progress (kEndProgressCheckMs) and fails with
  // |give_up| once there is none.
  void ArmEndDeadline(uint32_t delay_ms, State state, std::string give_up);
  void CheckEndProgress(State state, std::string give_up);
  void OnEndProgress(bool success, const std::vector<uint8_t>& stats);
  // Asks the service which of the config's data sources no producer
  // provides; at the start they are named at once, at the end those still
  // missing go into the summary, then |then| runs.
  void CheckDataSources(bool at_end, std::function<void()> then);
  void PrintSummary();
  void Fail(const std::string& message);
  void Finish(int exit_code);
  double ElapsedSeconds() const;

  base::TaskRunner* const runner_;
  ConnectFn connect_;
  Options options_;
  base::ScopedFile stop_fd_;  // An eventfd: RequestStop() -> the runner.
  std::function<void(int)> on_done_;
  std::unique_ptr<ConsumerEndpoint> endpoint_;
  State state_ = State::kIdle;
  bool stop_watched_ = false;
  bool started_reported_ = false;
  // EnableTracing sent for a START_TRACING session, not started yet.
  bool waiting_for_start_trigger_ = false;
  bool progress_shown_ = false;
  std::string session_note_;  // Why the service ended the session, if it said.
  // The config's data sources no connected producer provided: at the
  // start, then (once asked again at the end) those still without one.
  std::vector<std::string> missing_data_sources_;
  std::chrono::steady_clock::time_point enabled_at_;
  uint64_t bytes_written_ = 0;
  uint64_t packets_written_ = 0;
  uint64_t service_activity_ = 0;  // Bumped by each answer while reading.
  // The end's progress checks: GetTraceStats replies still to come for
  // them (they come in order, before any asked for later), and the bytes
  // the session's buffers had given out at the last (-1: none yet).
  uint32_t end_probes_in_flight_ = 0;
  int64_t end_bytes_read_ = -1;
  std::string end_give_up_;  // What a check without progress fails with.
  protos::gen::TraceStats stats_;
  base::WeakPtrFactory<RecordCommand> weak_factory_{this};  // Last member.
};

// How many packets a batch of ReadBuffers() output (a `Trace` message)
// holds: its field 1 entries, up to the first malformed byte.
uint64_t CountTracePackets(const uint8_t* data, size_t size);

// What |stats| say this session lost, one human-readable line each, its
// unit named ("buffer 0: 12 chunks overwritten (...)", "3 loss events");
// empty when nothing was. The service-wide counters (chunks_discarded,
// patches_discarded: every session's, as upstream's) are left out.
std::vector<std::string> DescribeLosses(const protos::gen::TraceStats& stats);

// DescribeLosses as ztrace prints it on stderr: "ztrace: WARNING: THE
// <what> IS MISSING DATA:" then one indented line per loss; empty when
// nothing was lost.
std::string LossWarning(const protos::gen::TraceStats& stats, const std::string& what);

// Opens the trace output: "-" is a dup of stdout (refused when it is a
// terminal); a path is created (mode 0600 as upstream's: traces hold
// private data), or, unless |no_clobber|, opened as it is: an existing file
// is NOT truncated here, so that a command failing before its session
// starts (no daemon, a refused config) leaves it intact; the command
// truncates it once the service took the session (Options::
// truncate_on_start). |*created| (optional) tells whether the file is new.
// Returns the fd, or none with |*error| and |*exit_code| (kExitUsage for a
// terminal, kExitFailure otherwise).
base::ScopedFile OpenOutput(const std::string& path, bool no_clobber,
                            std::string* error, int* exit_code,
                            bool* created = nullptr);

// The whole `ztrace record ARGS...` command, as main() runs it: parses
// |args| (those after "record"), builds the config, opens the output,
// detaches with --background (fork: the parent prints the child's pid once
// the session started and exits; the child carries on, its standard
// streams on /dev/null), ignores SIGPIPE, installs SIGINT/SIGTERM handlers
// that call RequestStop() (a second signal exits at once, status 130),
// runs a UnixTaskRunner on the calling thread until the command is done,
// and restores the handlers. Returns the exit status. The calling process
// must have no other thread when |args| ask for --background.
int RunRecord(const std::vector<std::string>& args, const ConnectFn& connect,
              const std::string& service_address);

}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_RECORD_COMMAND_H_
