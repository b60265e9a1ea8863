#include "src/cmd/ztrace/clone_command.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <utility>

#include "src/base/scoped_file.h"
#include "src/cmd/ztrace/command_runner.h"
#include "src/cmd/ztrace/exit_codes.h"
#include "src/ipc/service_identity.h"
#include "zt/common/trace_stats.gen.h"

namespace zt {
namespace ztrace {
namespace {

// The clone waits for the session's flush (5 s by default) and a copy of
// its buffers; the read then streams. Both bounded.
constexpr uint32_t kCloneTimeoutMs = 30000;
constexpr uint32_t kReadTimeoutMs = 120000;

class CloneConsumer : public Consumer {
 public:
  CloneConsumer(base::TaskRunner* runner, ConsumerEndpoint::CloneSessionArgs args,
                base::ScopedFile output, std::string output_name, std::string address,
                std::function<void(int)> finish)
      : runner_(runner),
        args_(std::move(args)),
        output_(std::move(output)),
        output_name_(std::move(output_name)),
        address_(std::move(address)),
        end_("ztrace clone", std::move(finish)) {}

  void Start(const ConnectFn& connect) {
    endpoint_ = connect(this, runner_);
    if (!endpoint_)
      return Fail("cannot connect to the tracing service: " +
                  ipc::DescribeServiceConnectFailure(address_));
    runner_->PostDelayedTask(
        [this] {
          if (!cloned_)
            Fail("the tracing service at " + address_ + " did not clone the session within " +
                 std::to_string(kCloneTimeoutMs / 1000) + " s");
        },
        kCloneTimeoutMs);
  }

  void OnConnect() override {
    endpoint_->CloneSession(args_, [this](const ConsumerEndpoint::CloneSessionResult& r) {
      if (end_.done())
        return;
      if (!r.success)
        return Fail(r.error.empty() ? "the tracing service refused the clone" : r.error);
      cloned_ = true;
      // The file is emptied only now that there is a snapshot to put in it
      // (whether OpenOutput truncated it already or leaves that to us).
      struct stat st {};
      if (fstat(output_.get(), &st) == 0 && S_ISREG(st.st_mode) &&
          ftruncate(output_.get(), 0) != 0) {
        return Fail("cannot empty " + output_name_ + ": " + strerror(errno));
      }
      runner_->PostDelayedTask(
          [this] {
            if (!read_done_)
              Fail("the snapshot was not read within " +
                   std::to_string(kReadTimeoutMs / 1000) + " s");
          },
          kReadTimeoutMs);
      endpoint_->ReadBuffers();
    });
  }
  void OnDisconnect() override {
    Fail(cloned_ ? "lost the connection to the tracing service while reading the snapshot"
                 : "cannot connect to the tracing service: " +
                       ipc::DescribeServiceConnectFailure(address_));
  }
  void OnTracingDisabled(const std::string&) override {}
  void OnAllDataSourcesStarted() override {}
  void OnTraceData(std::vector<uint8_t> trace, bool has_more) override {
    if (end_.done() || read_done_)
      return;
    if (const int err = WriteAll(output_.get(), trace.data(), trace.size()))
      return Fail("cannot write " + output_name_ + ": " + strerror(err));
    bytes_ += trace.size();
    if (has_more)
      return;
    read_done_ = true;
    endpoint_->GetTraceStats();
  }
  void OnTraceStats(bool success, std::vector<uint8_t> encoded) override {
    if (end_.done())
      return;
    fprintf(stderr, "ztrace: wrote %llu bytes to %s\n", static_cast<unsigned long long>(bytes_),
            output_name_.c_str());
    protos::gen::TraceStats stats;
    if (!success || !stats.ParseFromArray(encoded.data(), encoded.size())) {
      fprintf(stderr, "ztrace: warning: the service gave no stats: losses, if any, are not known\n");
    } else {
      fputs(LossWarning(stats, "SNAPSHOT").c_str(), stderr);
    }
    endpoint_->FreeBuffers();
    end_.Finish(kExitOk);
  }

 private:
  void Fail(const std::string& message) { end_.Fail(message); }

  base::TaskRunner* const runner_;
  const ConsumerEndpoint::CloneSessionArgs args_;
  base::ScopedFile output_;
  const std::string output_name_;
  const std::string address_;
  CommandEnd end_;
  std::unique_ptr<ConsumerEndpoint> endpoint_;
  bool cloned_ = false;
  bool read_done_ = false;
  uint64_t bytes_ = 0;
};

}  // namespace

std::string CloneUsage() {
  return R"(Usage: ztrace clone -o FILE SESSION

Writes a snapshot of a session the tracing service (ztraced, or Perfetto's
traced v30+) is running into FILE ('-': stdout), as 'perfetto --clone'
does: the service flushes the session's producers, copies its buffers, and
the copy is read; the session goes on untouched. SESSION is its id (a
number, as 'ztrace record' or QueryServiceState show it) or its
unique_session_name. Only the session's own uid, or root, may clone it; a
session that writes into a file cannot be cloned (read its file).

Exit status: 0 once the snapshot is written (losses it records are listed
on stderr), 1 if the service is not reachable, refuses the clone (its
reason is printed) or FILE cannot be written, 2 on a bad command line. The
service's socket is $PERFETTO_CONSUMER_SOCK_NAME if set.
)";
}

int RunClone(const std::vector<std::string>& args, const ConnectFn& connect,
             const std::string& service_address) {
  std::string output_path;
  std::string session;
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      fputs(CloneUsage().c_str(), stdout);
      return kExitOk;
    }
    if (arg == "-o" && i + 1 < args.size()) {
      output_path = args[++i];
    } else if (!arg.empty() && arg[0] == '-') {
      fprintf(stderr, "ztrace clone: unknown option \"%s\"\n\n%s", arg.c_str(),
              CloneUsage().c_str());
      return kExitUsage;
    } else if (session.empty()) {
      session = arg;
    } else {
      fprintf(stderr, "ztrace clone: one session at a time (\"%s\" is extra)\n\n%s",
              arg.c_str(), CloneUsage().c_str());
      return kExitUsage;
    }
  }
  if (output_path.empty() || session.empty()) {
    fprintf(stderr, "ztrace clone: %s\n\n%s",
            output_path.empty() ? "an output file is required (-o FILE)" : "which session?",
            CloneUsage().c_str());
    return kExitUsage;
  }
  ConsumerEndpoint::CloneSessionArgs clone_args;
  char* end = nullptr;
  const unsigned long long id = strtoull(session.c_str(), &end, 10);
  if (end && *end == '\0' && id > 0)
    clone_args.session_id = id;
  else
    clone_args.unique_session_name = session;
  std::string error;
  int code = kExitFailure;
  bool created = false;
  base::ScopedFile output =
      OpenOutput(output_path, /*no_clobber=*/false, &error, &code, &created);
  if (!output) {
    fprintf(stderr, "ztrace: %s\n", error.c_str());
    return code;
  }
  const std::string output_name = output_path == "-" ? "stdout" : output_path;
  const int result = RunUntilFinished(
      [&](base::TaskRunner* runner, std::function<void(int)> finish) {
        return std::make_unique<CloneConsumer>(runner, clone_args, std::move(output),
                                               output_name, service_address, std::move(finish));
      },
      [&connect](std::unique_ptr<CloneConsumer>& consumer) { consumer->Start(connect); });
  // A file the command created for a snapshot it never got goes again (an
  // existing one was not touched before the clone succeeded).
  struct stat st {};
  if (result != kExitOk && created && stat(output_path.c_str(), &st) == 0 && st.st_size == 0)
    unlink(output_path.c_str());
  return result;
}

}  // namespace ztrace
}  // namespace zt
