// RunRecord: `ztrace record` as a process runs it (flags, output file,
// --background, SIGINT/SIGTERM, the task runner); the session itself is
// RecordCommand (record_command.cc).

#include "src/cmd/ztrace/record_command.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
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
#include "src/cmd/ztrace/record_config.h"
#include "src/cmd/ztrace/record_data_sources.h"
#include "zt/base/logging.h"
#include "zt/config/trace_config.pbzero.h"
#include "zt/protozero/proto_decoder.h"

namespace zt {
namespace ztrace {

namespace {

// How long a --background parent waits for the child's word that the
// session started (upstream's --background-wait waits as long).
constexpr int kBackgroundWaitMs = 30000;

// The command the stop signals go to, and how many came: a second one
// means "abort now". Atomics that are lock-free, so the handler may use them.
std::atomic<RecordCommand*> g_stop_target{nullptr};
std::atomic<int> g_stop_signals{0};
static_assert(std::atomic<RecordCommand*>::is_always_lock_free);
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void HandleStopSignal(int) {
  const int saved_errno = errno;
  if (g_stop_signals.fetch_add(1) > 0) {
    static const char kMessage[] = "\nztrace: aborted: the trace is incomplete\n";
    ssize_t res = write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
    (void)res;
    _exit(130);
  }
  if (RecordCommand* command = g_stop_target.load())
    command->RequestStop();
  errno = saved_errno;
}

// Points SIGINT and SIGTERM at |command| while alive, and SIGPIPE nowhere
// (a closed stdout pipe must be a write error, not a silent death).
class SignalScope {
 public:
  explicit SignalScope(RecordCommand* command) {
    g_stop_signals.store(0);
    g_stop_target.store(command);
    struct sigaction sa = {};
    sa.sa_handler = HandleStopSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
    struct sigaction ignore = {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, &old_pipe_);
  }
  ~SignalScope() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
    sigaction(SIGPIPE, &old_pipe_, nullptr);
    g_stop_target.store(nullptr);
  }
  SignalScope(const SignalScope&) = delete;
  SignalScope& operator=(const SignalScope&) = delete;

 private:
  struct sigaction old_int_ = {};
  struct sigaction old_term_ = {};
  struct sigaction old_pipe_ = {};
};

void RedirectToDevNull(int fd) {
  base::ScopedFile null(open("/dev/null", O_RDWR | O_CLOEXEC));
  if (null)
    dup2(null.get(), fd);
}

// --background: forks. In the child returns true with |*notify| the pipe
// its status byte goes to ('1' started, '0' failed). In the parent waits for
// that byte, prints the child's pid on success, and returns false with
// |*exit_code|.
bool Detach(base::ScopedFile* notify, int* exit_code) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    fprintf(stderr, "ztrace: --background: pipe: %s\n", strerror(errno));
    *exit_code = kExitFailure;
    return false;
  }
  base::ScopedFile read_end(fds[0]);
  base::ScopedFile write_end(fds[1]);
  fflush(stdout);
  fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "ztrace: --background: fork: %s\n", strerror(errno));
    *exit_code = kExitFailure;
    return false;
  }
  if (pid == 0) {
    // Out of the terminal's session, so that closing it (SIGHUP) or its
    // Ctrl-C leaves the recording alone; off the current directory, so
    // that it does not keep a mount busy. stderr stays until the status
    // is sent: an error before then still reaches the user.
    setsid();
    if (chdir("/") != 0) {
      // Harmless: the config and the output are already open.
    }
    RedirectToDevNull(STDIN_FILENO);
    *notify = std::move(write_end);
    return true;
  }
  write_end.reset();
  pollfd p{read_end.get(), POLLIN, 0};
  int ready;
  do {
    ready = poll(&p, 1, kBackgroundWaitMs);
  } while (ready < 0 && errno == EINTR);
  char status = 0;
  ssize_t n = 0;
  if (ready > 0) {
    do {
      n = read(read_end.get(), &status, 1);
    } while (n < 0 && errno == EINTR);
  }
  if (ready == 0) {
    printf("%d\n", static_cast<int>(pid));
    fprintf(stderr,
            "ztrace: warning: the session has not confirmed its start within "
            "%d s; pid %d keeps it in the background\n",
            kBackgroundWaitMs / 1000, static_cast<int>(pid));
    *exit_code = kExitOk;
  } else if (n == 1 && status == '1') {
    printf("%d\n", static_cast<int>(pid));
    *exit_code = kExitOk;
  } else if (n == 1) {
    *exit_code = kExitFailure;  // The child said why.
  } else {
    fprintf(stderr, "ztrace: the background process (pid %d) ended before the "
                    "session started\n", static_cast<int>(pid));
    *exit_code = kExitFailure;
  }
  fflush(stdout);
  return false;
}

std::string AbsolutePath(const std::string& path) {
  if (!path.empty() && path[0] == '/')
    return path;
  char cwd[4096];
  if (!getcwd(cwd, sizeof(cwd)))
    return "";  // Then it is never removed: better than the wrong file.
  return std::string(cwd) + "/" + path;
}

}  // namespace

int RunRecord(const std::vector<std::string>& args, const ConnectFn& connect,
              const std::string& service_address) {
  RecordFlags flags;
  std::string error;
  if (!ParseRecordFlags(args, &flags, &error)) {
    fprintf(stderr, "ztrace record: %s\nTry 'ztrace record --help'.\n", error.c_str());
    return kExitUsage;
  }
  if (flags.help) {
    fputs(RecordUsage().c_str(), stdout);
    return kExitOk;
  }
  RecordCommand::Options options;
  int exit_code = BuildRecordConfig(flags, &options.config, &error);
  if (exit_code != kExitOk) {
    fprintf(stderr, "%s: %s\n", exit_code == kExitUsage ? "ztrace record" : "ztrace",
            error.c_str());
    return exit_code;
  }
  bool created = false;
  options.output = OpenOutput(flags.out_path, flags.no_clobber, &error, &exit_code, &created);
  if (!options.output) {
    fprintf(stderr, "ztrace: %s\n", error.c_str());
    return exit_code;
  }
  const bool to_stdout = flags.out_path == "-";
  options.output_name = to_stdout ? "stdout" : flags.out_path;
  // Absolute: --background moves the process to "/" before it may remove it.
  options.remove_on_failure = created ? AbsolutePath(flags.out_path) : "";
  options.truncate_on_start = !to_stdout && !created;
  options.service_address = service_address;

  base::ScopedFile notify;
  if (flags.background) {
    if (!Detach(&notify, &exit_code))
      return exit_code;  // The parent.
    options.on_started = [&notify](bool ok) {
      const char status = ok ? '1' : '0';
      ssize_t res = write(notify.get(), &status, 1);
      (void)res;
      notify.reset();
      if (ok) {  // Nobody is watching any more.
        RedirectToDevNull(STDOUT_FILENO);
        RedirectToDevNull(STDERR_FILENO);
      }
    };
  } else {
    options.progress = isatty(STDERR_FILENO) == 1;
  }

  base::UnixTaskRunner runner;
  int result = kExitFailure;
  {
    RecordCommand command(&runner, connect, std::move(options));
    SignalScope signals(&command);
    command.Start([&runner, &result](int code) {
      result = code;
      runner.Quit();
    });
    runner.Run();
  }
  return result;
}

}  // namespace ztrace
}  // namespace zt
