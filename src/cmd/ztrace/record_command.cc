#include "src/cmd/ztrace/record_command.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <utility>

#include "src/base/unix_task_runner.h"
#include "src/cmd/ztrace/command_runner.h"
#include "src/cmd/ztrace/record_config.h"
#include "src/cmd/ztrace/record_data_sources.h"
#include "src/ipc/service_identity.h"
#include "zt/base/logging.h"
#include "zt/config/trace_config.pbzero.h"
#include "zt/protozero/proto_decoder.h"

namespace zt {
namespace ztrace {
namespace {

constexpr char kClearLine[] = "\r\033[K";

std::string Format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string Format(const char* fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  vsnprintf(buf, sizeof(buf), fmt, args);
  va_end(args);
  return buf;
}

std::string HumanSize(uint64_t bytes) {
  if (bytes < 1024)
    return Format("%" PRIu64 " B", bytes);
  if (bytes < 1024 * 1024)
    return Format("%.1f KiB", static_cast<double>(bytes) / 1024);
  if (bytes < 1024ull * 1024 * 1024)
    return Format("%.1f MiB", static_cast<double>(bytes) / (1024 * 1024));
  return Format("%.2f GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
}

// The size of the regular file behind |fd|; false for pipes and terminals.
bool RegularFileSize(int fd, uint64_t* size) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    return false;
  *size = static_cast<uint64_t>(st.st_size);
  return true;
}

uint32_t OrDefault(uint32_t value, uint32_t fallback) { return value ? value : fallback; }

// How long after |base_ms| the service may take to end a session before the
// command gives up: the grace period plus the config's flush and stop
// timeouts (their defaults when unset); saturated at UINT32_MAX ms.
uint32_t StopDeadlineMs(const protos::gen::TraceConfig& cfg, uint64_t base_ms) {
  const uint64_t total = base_ms + RecordCommand::kServiceGraceMs +
                         OrDefault(cfg.flush_timeout_ms(), 5000) +
                         OrDefault(cfg.data_source_stop_timeout_ms(), 5000);
  return static_cast<uint32_t>(std::min<uint64_t>(total, UINT32_MAX));
}

}  // namespace

uint64_t CountTracePackets(const uint8_t* data, size_t size) {
  protozero::ProtoDecoder decoder(data, size);
  uint64_t packets = 0;
  for (auto field = decoder.ReadField(); field.valid(); field = decoder.ReadField()) {
    if (field.id() == 1)
      packets++;
  }
  return packets;
}

std::vector<std::string> DescribeLosses(const protos::gen::TraceStats& stats) {
  // Only this session's counters: TraceStats.chunks_discarded and
  // patches_discarded are service-wide (every session since the service
  // started, as upstream's are), so they say nothing about this trace.
  // Each line names its unit: chunks, packets, or loss events (a writer's
  // mark or a gap covers one or more packets; how many is not recorded).
  std::vector<std::string> lines;
  auto add = [&lines](uint64_t count, const std::string& prefix, const char* unit,
                      const char* what) {
    if (count)
      lines.push_back(prefix + std::to_string(count) + " " + unit + " " + what);
  };
  for (size_t i = 0; i < stats.buffer_stats().size(); i++) {
    const auto& b = stats.buffer_stats()[i];
    const std::string prefix = "buffer " + std::to_string(i) + ": ";
    add(b.chunks_overwritten(), prefix, "chunks",
        "overwritten: the ring buffer wrapped and its oldest data is "
        "gone (a bigger buffer, -b, keeps more)");
    add(b.chunks_discarded(), prefix, "chunks",
        "discarded: the buffer was full (a bigger buffer, or "
        "fill_policy RING_BUFFER, loses less)");
    add(b.trace_writer_packet_loss(), prefix, "loss events",
        "in producers' writers (each one or more packets, how many is not "
        "recorded: a shared memory buffer was full, or a packet was abandoned)");
    add(b.writer_packets_dropped(), prefix, "packets",
        "dropped by producers' writers: their shared memory was full (the service "
        "did not drain it in time)");
    add(b.abi_violations(), prefix, "malformed chunks", "from producers dropped");
    add(b.patches_failed(), prefix, "packets", "whose size could not be patched dropped");
  }
  add(stats.invalid_packets(), "", "packets", "invalid, dropped");
  add(stats.flushes_failed(), "", "flushes",
      "not completed in time: producers' latest data may be missing");
  if (stats.final_flush_outcome() ==
      protos::gen::TraceStats_FinalFlushOutcome_FINAL_FLUSH_FAILED) {
    lines.push_back("the final flush failed: producers' last data may be missing");
  }
  return lines;
}

std::string LossWarning(const protos::gen::TraceStats& stats, const std::string& what) {
  const std::vector<std::string> losses = DescribeLosses(stats);
  if (losses.empty())
    return "";
  std::string text = "ztrace: WARNING: THE " + what + " IS MISSING DATA:\n";
  for (const std::string& line : losses)
    text += "ztrace:   " + line + "\n";
  return text;
}

base::ScopedFile OpenOutput(const std::string& path, bool no_clobber,
                            std::string* error, int* exit_code, bool* created) {
  base::ScopedFile fd;
  if (created)
    *created = false;
  if (path == "-") {
    if (isatty(STDOUT_FILENO)) {
      *error = "refusing to write a binary trace to the terminal: redirect "
               "stdout, or give -o FILE";
      *exit_code = kExitUsage;
      return fd;
    }
    fd.reset(fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3));
    if (!fd) {
      *error = std::string("cannot use stdout: ") + strerror(errno);
      *exit_code = kExitFailure;
    }
    return fd;
  }
  // Created, or else (without --no-clobber) opened as it is: two tries, as
  // O_CREAT alone would not say which happened.
  fd.reset(open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (fd) {
    if (created)
      *created = true;
    return fd;
  }
  if (errno == EEXIST && !no_clobber)
    fd.reset(open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd) {
    *error = errno == EEXIST && no_clobber
                 ? path + " already exists (--no-clobber)"
                 : "cannot open " + path + " for writing: " + strerror(errno);
    *exit_code = kExitFailure;
  }
  return fd;
}

RecordCommand::RecordCommand(base::TaskRunner* runner, ConnectFn connect,
                             Options options)
    : runner_(runner), connect_(std::move(connect)), options_(std::move(options)) {
  stop_fd_.reset(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  ZT_CHECK(stop_fd_);
  ZT_CHECK(options_.output);
  if (!options_.print) {
    options_.print = [](std::string_view text) {
      WriteAll(STDERR_FILENO, reinterpret_cast<const uint8_t*>(text.data()),
               text.size());
    };
  }
}

RecordCommand::~RecordCommand() {
  if (stop_watched_)
    runner_->RemoveFileDescriptorWatch(stop_fd_.get());
  endpoint_.reset();
}

void RecordCommand::Start(std::function<void(int)> on_done) {
  runner_->PostTask([weak = weak_factory_.GetWeakPtr(), on_done = std::move(on_done)] {
    RecordCommand* self = weak.get();
    if (!self || self->state_ != State::kIdle)
      return;
    self->on_done_ = std::move(on_done);
    self->state_ = State::kConnecting;
    self->runner_->AddFileDescriptorWatch(self->stop_fd_.get(),
                                          [self] { self->OnStopSignal(); });
    self->stop_watched_ = true;
    if (self->options_.progress) {
      self->ShowProgress();
      self->ScheduleProgress();
    }
    self->endpoint_ = self->connect_(self, self->runner_);
    if (!self->endpoint_)
      self->OnDisconnect();  // As a connection that failed at once.
  });
}

void RecordCommand::RequestStop() {
  const uint64_t one = 1;
  // Async-signal-safe: one write(2). An eventfd counter cannot overflow
  // from signals, and a failed write has no one to report to.
  ssize_t res = write(stop_fd_.get(), &one, sizeof(one));
  (void)res;
}

void RecordCommand::OnStopSignal() {
  uint64_t count;
  ssize_t res = read(stop_fd_.get(), &count, sizeof(count));  // Re-arms it.
  (void)res;
  switch (state_) {
    case State::kIdle:
    case State::kConnecting:
      Fail("interrupted before tracing started");
      return;
    case State::kTracing: {
      state_ = State::kStopping;
      if (options_.progress)
        ShowProgress();
      // As upstream: commit what producers hold, then stop (which scrapes
      // the rest); a failed flush still stops, with a warning. Producers
      // are told why, as upstream's perfetto tells them.
      auto flushed = [weak = weak_factory_.GetWeakPtr()](bool ok) {
        RecordCommand* self = weak.get();
        if (!self || self->state_ != State::kStopping)
          return;
        // A session still waiting for its start trigger has nothing to
        // flush (the service says no).
        if (!ok && !self->waiting_for_start_trigger_) {
          self->Print(
              "ztrace: warning: the final flush did not complete: data "
              "producers still held may be missing\n");
        }
        self->endpoint_->DisableTracing();
      };
      endpoint_->FlushWithFlags(0, std::move(flushed),
                                flush_flags::kInitiatorPerfettoCmd |
                                    flush_flags::kReasonTraceStop);
      ArmEndDeadline(StopDeadlineMs(options_.config, 0), State::kStopping,
                     "the tracing service did not stop the session; giving up");
      return;
    }
    case State::kStopping:
    case State::kReading:
    case State::kStats:
      if (options_.progress)
        Print("ztrace: already stopping (Ctrl-C again aborts)\n");
      return;
    case State::kDone:
      return;
  }
}

void RecordCommand::OnConnect() {
  if (state_ != State::kConnecting)
    return;
  // A stop requested while connecting may not have been dispatched yet
  // (tasks and fd callbacks interleave): it wins over starting a session.
  uint64_t stops = 0;
  if (read(stop_fd_.get(), &stops, sizeof(stops)) == sizeof(stops)) {
    Fail("interrupted before tracing started");
    return;
  }
  if (options_.truncate_on_start) {
    struct stat st {};
    if (fstat(options_.output.get(), &st) == 0 && S_ISREG(st.st_mode) &&
        ftruncate(options_.output.get(), 0) != 0) {
      Fail("cannot empty " + options_.output_name + ": " + strerror(errno));
      return;
    }
  }
  int fd = -1;
  if (options_.config.write_into_file()) {
    fd = fcntl(options_.output.get(), F_DUPFD_CLOEXEC, 3);
    if (fd < 0) {
      Fail(std::string("cannot duplicate the output's fd: ") + strerror(errno));
      return;
    }
  }
  state_ = State::kTracing;
  enabled_at_ = std::chrono::steady_clock::now();
  endpoint_->EnableTracing(options_.config, fd);
  CheckDataSources(/*at_end=*/false, nullptr);
  // A session waiting for a start trigger reports no start until the
  // trigger: it is set up now, which is what --background waits for (the
  // trigger usually comes from another command run after this one).
  waiting_for_start_trigger_ =
      TriggerMode(options_.config) == protos::pbzero::TraceConfig_TriggerConfig::START_TRACING;
  if (waiting_for_start_trigger_)
    ReportStarted(true);
  // A failsafe for a service that never ends the session (upstream's too).
  if (const uint32_t duration = options_.config.duration_ms()) {
    ArmEndDeadline(StopDeadlineMs(options_.config, duration), State::kTracing,
                   "the tracing service did not end the session after its duration; giving up");
  }
}

int RecordCommand::TriggerMode(const protos::gen::TraceConfig& config) {
  if (!config.has_trigger_config())
    return 0;
  const std::string& raw = config.trigger_config_raw();
  protos::pbzero::TraceConfig_TriggerConfig_Decoder triggers(
      reinterpret_cast<const uint8_t*>(raw.data()), raw.size());
  return static_cast<int>(triggers.trigger_mode());
}

void RecordCommand::OnDisconnect() {
  switch (state_) {
    case State::kIdle:
    case State::kDone:
      return;
    case State::kStats:
      // The trace is complete; only the stats are lost (and the answers to
      // progress checks still due with them).
      end_probes_in_flight_ = 0;
      OnTraceStats(false, {});
      return;
    case State::kConnecting:
      Fail("cannot connect to the tracing service: " +
           ipc::DescribeServiceConnectFailure(options_.service_address) +
           " (set PERFETTO_CONSUMER_SOCK_NAME to use another socket)");
      return;
    default: {
      // With write_into_file the service wrote the file itself: what it
      // holds is whatever the service wrote before it went.
      uint64_t file_size = 0;
      const bool has_data = bytes_written_ > 0 ||
                            (RegularFileSize(options_.output.get(), &file_size) && file_size > 0);
      Fail(std::string("lost the connection to the tracing service") +
           (has_data ? ": the trace in " + options_.output_name +
                           " is incomplete (it holds what was written until then, without "
                           "the closing stats)"
                     : ""));
      return;
    }
  }
}

void RecordCommand::OnTracingDisabled(const std::string& error) {
  if (state_ != State::kTracing && state_ != State::kStopping)
    return;
  if (error.compare(0, 31, "the trace config cannot be sent") == 0) {
    // Refused before it left (over the service's frame limit): the error
    // gives the sizes.
    Fail(error + "; make the config smaller (fewer categories, data sources or filters)");
    return;
  }
  if (!error.empty()) {
    // A session that reached max_file_size_bytes (-s) ended as asked: its
    // file is complete up to the limit.
    if (options_.config.write_into_file() &&
        error.compare(0, 20, "max_file_size_bytes ") == 0) {
      session_note_ = error;
    } else {
      Fail("the tracing service ended the session: " + error);
      return;
    }
  }
  ReportStarted(true);
  WatchService(++service_activity_);
  if (options_.config.write_into_file()) {
    state_ = State::kStats;
    endpoint_->GetTraceStats();
    return;
  }
  state_ = State::kReading;
  if (options_.progress)
    ShowProgress();
  endpoint_->ReadBuffers();
}

void RecordCommand::OnAllDataSourcesStarted() {
  waiting_for_start_trigger_ = false;
  if (state_ == State::kTracing || state_ == State::kStopping)
    ReportStarted(true);
}

void RecordCommand::OnTraceData(std::vector<uint8_t> trace, bool has_more) {
  if (state_ != State::kReading)
    return;
  if (const int err = WriteAll(options_.output.get(), trace.data(), trace.size())) {
    Fail("cannot write the trace to " + options_.output_name + ": " + strerror(err) +
         (bytes_written_ ? " (what it holds is incomplete)" : ""));
    return;
  }
  bytes_written_ += trace.size();
  packets_written_ += CountTracePackets(trace.data(), trace.size());
  service_activity_++;
  if (has_more)
    return;
  state_ = State::kStats;
  endpoint_->GetTraceStats();
}

void RecordCommand::ArmEndDeadline(uint32_t delay_ms, State state, std::string give_up) {
  runner_->PostDelayedTask(
      [weak = weak_factory_.GetWeakPtr(), state, give_up = std::move(give_up)]() mutable {
        if (weak)
          weak->CheckEndProgress(state, std::move(give_up));
      },
      delay_ms);
}

void RecordCommand::CheckEndProgress(State state, std::string give_up) {
  if (state_ != state)
    return;  // The session ended (or the command moved on) meanwhile.
  if (end_probes_in_flight_ > 0)
    return Fail(give_up);  // The last check was never answered.
  end_give_up_ = give_up;
  end_probes_in_flight_++;
  endpoint_->GetTraceStats();
  ArmEndDeadline(kEndProgressCheckMs, state, std::move(give_up));
}

void RecordCommand::OnEndProgress(bool success, const std::vector<uint8_t>& stats) {
  protos::gen::TraceStats parsed;
  if (!success || !parsed.ParseFromArray(stats.data(), stats.size()))
    return Fail(end_give_up_);
  int64_t bytes_read = 0;
  for (const auto& buffer : parsed.buffer_stats())
    bytes_read += static_cast<int64_t>(buffer.bytes_read());
  // The first answer is where the wait starts from; later ones must show
  // the service still reading the buffers out (into the file it writes).
  if (end_bytes_read_ >= 0 && bytes_read <= end_bytes_read_)
    return Fail(end_give_up_);
  end_bytes_read_ = bytes_read;
}

void RecordCommand::OnTraceStats(bool success, std::vector<uint8_t> stats) {
  if (end_probes_in_flight_ > 0) {
    // The answer to a progress check, asked before any later request.
    end_probes_in_flight_--;
    if (state_ == State::kTracing || state_ == State::kStopping)
      OnEndProgress(success, stats);
    return;
  }
  if (state_ != State::kStats)
    return;
  if (!success || !stats_.ParseFromArray(stats.data(), stats.size())) {
    stats_ = protos::gen::TraceStats();
    Print("ztrace: warning: the service gave no stats: losses, if any, are not known\n");
  }
  CheckDataSources(/*at_end=*/true, [this] {
    PrintSummary();
    Finish(kExitOk);
  });
}

void RecordCommand::CheckDataSources(bool at_end, std::function<void()> then) {
  // At the end only the names missing at the start are asked about again:
  // a producer that provided one may have gone since, having written.
  if (at_end && missing_data_sources_.empty()) {
    then();
    return;
  }
  endpoint_->QueryServiceState([weak = weak_factory_.GetWeakPtr(), at_end,
                                then = std::move(then)](bool ok, std::vector<uint8_t> state) {
    RecordCommand* self = weak.get();
    if (!self || self->state_ == State::kDone)
      return;
    std::vector<std::string> missing;
    // A service that cannot say (an endpoint without the call) leaves the
    // list as it was: nothing is claimed missing without its word.
    if (ok && FindDataSourcesWithoutProducer(self->options_.config, state, &missing)) {
      if (at_end) {
        std::vector<std::string> still;
        for (const std::string& name : self->missing_data_sources_) {
          if (std::find(missing.begin(), missing.end(), name) != missing.end())
            still.push_back(name);
        }
        self->missing_data_sources_ = std::move(still);
      } else {
        self->missing_data_sources_ = std::move(missing);
        const auto& names = self->missing_data_sources_;
        if (!names.empty()) {
          self->Print("ztrace: warning: no connected producer provides " + JoinNames(names) +
                      (names.size() == 1 ? ": it" : ": they") +
                      " will record nothing unless a producer that does connects\n");
        }
      }
    }
    if (at_end && self->state_ == State::kStats)
      then();
  });
}

void RecordCommand::WatchService(uint64_t seen) {
  runner_->PostDelayedTask(
      [weak = weak_factory_.GetWeakPtr(), seen] {
        RecordCommand* self = weak.get();
        if (!self || (self->state_ != State::kReading && self->state_ != State::kStats))
          return;
        if (self->service_activity_ != seen) {
          self->WatchService(self->service_activity_);
          return;
        }
        const std::string silence =
            "the tracing service sent nothing for " +
            std::to_string(kServiceSilenceMs / 1000) + " s";
        if (self->state_ == State::kReading) {
          self->Fail(silence + ": " + self->options_.output_name + " is incomplete");
          return;
        }
        self->Print("ztrace: warning: " + silence + " instead of the session's stats\n");
        self->PrintSummary();
        self->Finish(kExitOk);
      },
      kServiceSilenceMs);
}

void RecordCommand::ReportStarted(bool ok) {
  if (started_reported_)
    return;
  started_reported_ = true;
  if (options_.on_started)
    options_.on_started(ok);
}

void RecordCommand::Print(const std::string& message) {
  if (progress_shown_) {
    options_.print(kClearLine);
    progress_shown_ = false;
  }
  options_.print(message);
}

void RecordCommand::ShowProgress() {
  std::string line;
  const double elapsed = ElapsedSeconds();
  uint64_t file_size = 0;
  const bool service_writes = options_.config.write_into_file() &&
                              RegularFileSize(options_.output.get(), &file_size);
  switch (state_) {
    case State::kConnecting:
      line = "ztrace: connecting to the tracing service...";
      break;
    case State::kTracing:
      if (const uint32_t duration = options_.config.duration_ms()) {
        line = Format("ztrace: recording %.1fs / %.1fs (Ctrl-C stops early)", elapsed,
                      duration / 1000.0);
      } else {
        line = Format("ztrace: recording %.1fs (Ctrl-C stops)", elapsed);
      }
      if (service_writes)
        line += ", " + HumanSize(file_size) + " written";
      break;
    case State::kStopping:
      line = Format("ztrace: stopping after %.1fs (Ctrl-C again aborts)...", elapsed);
      break;
    case State::kReading:
      line = "ztrace: reading the trace: " + HumanSize(bytes_written_) + ", " +
             std::to_string(packets_written_) + " packets";
      break;
    default:
      return;
  }
  options_.print(kClearLine + line);
  progress_shown_ = true;
}

void RecordCommand::ScheduleProgress() {
  runner_->PostDelayedTask(
      [weak = weak_factory_.GetWeakPtr()] {
        if (!weak || weak->state_ == State::kDone)
          return;
        weak->ShowProgress();
        weak->ScheduleProgress();
      },
      kProgressPeriodMs);
}

void RecordCommand::PrintSummary() {
  const double elapsed = ElapsedSeconds();
  if (options_.config.write_into_file()) {
    uint64_t size = 0;
    if (RegularFileSize(options_.output.get(), &size)) {
      Print(Format("ztrace: the service wrote %" PRIu64 " bytes to %s in %.1fs\n", size,
                   options_.output_name.c_str(), elapsed));
    } else {
      Print(Format("ztrace: the service wrote the trace to %s in %.1fs\n",
                   options_.output_name.c_str(), elapsed));
    }
  } else {
    Print(Format("ztrace: wrote %" PRIu64 " bytes (%" PRIu64 " packets) to %s in %.1fs\n",
                 bytes_written_, packets_written_, options_.output_name.c_str(),
                 elapsed));
  }
  if (!session_note_.empty())
    Print("ztrace: note: " + session_note_ + "\n");
  // Producers' data lands in the buffers; the service's own packets do not.
  // No chunk at all usually means nothing matched the config.
  uint64_t chunks = 0;
  for (const auto& b : stats_.buffer_stats())
    chunks += b.chunks_written();
  if (TriggerMode(options_.config) != 0 && packets_written_ == 0 &&
      !options_.config.write_into_file()) {
    // The service keeps a trace with triggers only once one arrives.
    Print("ztrace: no trigger of the config came, so the session kept nothing\n");
  } else if (!stats_.buffer_stats().empty() && chunks == 0) {
    Print("ztrace: warning: no data source wrote anything: is the traced "
          "program running, and does it provide the config's data sources?\n");
  }
  if (!missing_data_sources_.empty()) {
    Print("ztrace: no producer provided " + JoinNames(missing_data_sources_) +
          ": the trace holds nothing from " +
          (missing_data_sources_.size() == 1 ? "it" : "them") + "\n");
  }
  const std::string losses = LossWarning(stats_, "TRACE");
  if (!losses.empty())
    Print(losses);
}

void RecordCommand::Fail(const std::string& message) {
  if (state_ == State::kDone)
    return;
  Print("ztrace: " + message + "\n");
  Finish(kExitFailure);
}

void RecordCommand::Finish(int exit_code) {
  state_ = State::kDone;
  if (progress_shown_) {
    options_.print(kClearLine);
    progress_shown_ = false;
  }
  ReportStarted(exit_code == kExitOk);
  if (stop_watched_) {
    runner_->RemoveFileDescriptorWatch(stop_fd_.get());
    stop_watched_ = false;
  }
  uint64_t size = 0;
  if (exit_code != kExitOk && bytes_written_ == 0 && !options_.remove_on_failure.empty() &&
      RegularFileSize(options_.output.get(), &size) && size == 0) {
    unlink(options_.remove_on_failure.c_str());
  }
  // The endpoint goes in a task of its own: this may run inside one of its
  // callbacks.
  runner_->PostTask([weak = weak_factory_.GetWeakPtr(), exit_code] {
    RecordCommand* self = weak.get();
    if (!self)
      return;
    self->endpoint_.reset();
    if (self->on_done_) {
      auto on_done = std::move(self->on_done_);
      on_done(exit_code);
    }
  });
}

double RecordCommand::ElapsedSeconds() const {
  if (state_ == State::kIdle || state_ == State::kConnecting)
    return 0;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - enabled_at_)
      .count();
}

}  // namespace ztrace
}  // namespace zt
