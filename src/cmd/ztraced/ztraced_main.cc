// ztraced: the system-wide tracing service. Producers in any process
// connect to its producer socket, consumers (ztrace record, upstream's
// perfetto, SDK consumers) to its consumer socket; wire-compatible with
// upstream's traced (docs/wire.md, docs/design/ztraced.md).

#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "src/base/scoped_file.h"
#include "src/base/unix_task_runner.h"
#include "src/tracing/ipc/default_socket.h"
#include "src/tracing/ipc/service_ipc_host.h"
#include "zt/base/logging.h"

namespace zt {
namespace {

constexpr char kUsage[] =
    "Usage: ztraced [options]\n"
    "\n"
    "The zerotrace tracing service: collects traces from every process that\n"
    "connects to it and hands them to consumers (ztrace record, or any\n"
    "Perfetto client). Runs until SIGTERM or SIGINT.\n"
    "\n"
    "Options:\n"
    "  --producer-socket ADDR  where producers connect (a path, or @name for an\n"
    "                          abstract socket). Default: $PERFETTO_PRODUCER_SOCK_NAME,\n"
    "                          else /run/perfetto/traced-producer.sock if\n"
    "                          /run/perfetto/ exists, else /tmp/perfetto-producer\n"
    "  --consumer-socket ADDR  where consumers connect. Default:\n"
    "                          $PERFETTO_CONSUMER_SOCK_NAME, else\n"
    "                          /run/perfetto/traced-consumer.sock, else\n"
    "                          /tmp/perfetto-consumer\n"
    "  --background            detach once both sockets are listening (the\n"
    "                          command returns when the service is ready)\n"
    "  --log-file FILE         append logs to FILE instead of stderr\n"
  "\n"
  "Limits (what one local user may make the service hold; 0: none; a request\n"
  "over one is refused with an error naming it, and logged):\n"
  "  --max-data-sources-per-producer N  (default 1024)\n"
  "  --max-descriptor-bytes N           one data source's descriptor (262144)\n"
  "  --max-producers-per-uid N          producers connected at once (256)\n"
  "  --max-connections-per-uid N        connections to each socket (512)\n"
  "  --max-shm-bytes-per-uid N          their shared memory buffers (1073741824)\n"
  "  --max-sessions-per-uid N           tracing sessions at once (16)\n"
  "  --max-buffer-bytes-per-uid N       those sessions' buffers (4294967296)\n"
    "  -h, --help              this text\n"
    "  --version               the version\n"
    "\n"
    "Every local user may connect to the producer socket (mode 0666); the\n"
    "consumer socket is for the owner and the owner's group (mode 0660).\n"
    "Exit status: 0 after a clean stop, 1 if the service cannot start (for\n"
    "instance another instance serves the sockets), 2 for bad arguments.\n";

int g_quit_pipe_write = -1;

void OnQuitSignal(int) {
  const char byte = 'q';
  // Async-signal-safe; a full pipe already holds a wake-up.
  ssize_t ignored = write(g_quit_pipe_write, &byte, 1);
  (void)ignored;
}

// Producers may be any local user; consumers start traces and read them,
// so only the owner and its group.
bool SetSocketMode(const std::string& address, mode_t mode) {
  if (address.empty() || address[0] == '@')
    return true;  // Abstract sockets have no file mode.
  if (chmod(address.c_str(), mode) == 0)
    return true;
  ZT_PLOG("ztraced: chmod(%s, %o)", address.c_str(), mode);
  return false;
}

int Main(int argc, char** argv) {
  enum {
    kProducerSocket = 256,
    kConsumerSocket,
    kBackground,
    kLogFile,
    kVersion,
    kMaxDataSources,
    kMaxDescriptorBytes,
    kMaxProducersPerUid,
    kMaxConnectionsPerUid,
    kMaxShmBytesPerUid,
    kMaxSessionsPerUid,
    kMaxBufferBytesPerUid,
  };
  static const option kOptions[] = {
      {"producer-socket", required_argument, nullptr, kProducerSocket},
      {"consumer-socket", required_argument, nullptr, kConsumerSocket},
      {"background", no_argument, nullptr, kBackground},
      {"log-file", required_argument, nullptr, kLogFile},
      {"help", no_argument, nullptr, 'h'},
      {"version", no_argument, nullptr, kVersion},
      {"max-data-sources-per-producer", required_argument, nullptr, kMaxDataSources},
      {"max-descriptor-bytes", required_argument, nullptr, kMaxDescriptorBytes},
      {"max-producers-per-uid", required_argument, nullptr, kMaxProducersPerUid},
      {"max-connections-per-uid", required_argument, nullptr, kMaxConnectionsPerUid},
      {"max-shm-bytes-per-uid", required_argument, nullptr, kMaxShmBytesPerUid},
      {"max-sessions-per-uid", required_argument, nullptr, kMaxSessionsPerUid},
      {"max-buffer-bytes-per-uid", required_argument, nullptr, kMaxBufferBytesPerUid},
      {nullptr, 0, nullptr, 0}};
  std::string producer_socket = GetProducerSocket();
  std::string consumer_socket = GetConsumerSocket();
  std::string log_file;
  bool background = false;
  ServiceLimits limits;
  bool bad_limit = false;
  // A limit's value: a whole number, 0 for none.
  auto parse_limit = [&bad_limit](const char* name, const char* text, auto* out) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || text[0] == '-') {
      fprintf(stderr, "ztraced: --%s takes a whole number (0: no limit), not '%s'\n", name,
              text);
      bad_limit = true;
      return;
    }
    *out = static_cast<std::remove_pointer_t<decltype(out)>>(value);
  };
  for (;;) {
    const int opt = getopt_long(argc, argv, "h", kOptions, nullptr);
    if (opt == -1)
      break;
    switch (opt) {
      case kProducerSocket: producer_socket = optarg; break;
      case kConsumerSocket: consumer_socket = optarg; break;
      case kBackground: background = true; break;
      case kLogFile: log_file = optarg; break;
      case 'h': fputs(kUsage, stdout); return 0;
      case kVersion: printf("ztraced %s\n", ZT_VERSION); return 0;
      case kMaxDataSources:
        parse_limit("max-data-sources-per-producer", optarg,
                    &limits.max_data_sources_per_producer);
        break;
      case kMaxDescriptorBytes:
        parse_limit("max-descriptor-bytes", optarg, &limits.max_data_source_descriptor_bytes);
        break;
      case kMaxProducersPerUid:
        parse_limit("max-producers-per-uid", optarg, &limits.max_producers_per_uid);
        break;
      case kMaxConnectionsPerUid:
        parse_limit("max-connections-per-uid", optarg, &limits.max_connections_per_uid);
        break;
      case kMaxShmBytesPerUid:
        parse_limit("max-shm-bytes-per-uid", optarg, &limits.max_shm_bytes_per_uid);
        break;
      case kMaxSessionsPerUid:
        parse_limit("max-sessions-per-uid", optarg, &limits.max_sessions_per_uid);
        break;
      case kMaxBufferBytesPerUid:
        parse_limit("max-buffer-bytes-per-uid", optarg, &limits.max_buffer_bytes_per_uid);
        break;
      default: fputs("Try 'ztraced --help'.\n", stderr); return 2;
    }
  }
  if (bad_limit)
    return 2;
  if (optind < argc) {
    fprintf(stderr, "ztraced: unexpected argument '%s'\nTry 'ztraced --help'.\n", argv[optind]);
    return 2;
  }
  if (producer_socket == consumer_socket) {
    fprintf(stderr, "ztraced: the producer and consumer sockets must differ (both %s)\n",
            producer_socket.c_str());
    return 2;
  }
  if (!log_file.empty()) {
    base::ScopedFile log(open(log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640));
    if (!log) {
      fprintf(stderr, "ztraced: cannot open the log file %s: %s\n", log_file.c_str(),
              strerror(errno));
      return 1;
    }
    dup2(log.get(), STDERR_FILENO);
  }
  // A consumer that vanishes mid-reply must not kill the service; nor may
  // an output file that reaches the file size limit (RLIMIT_FSIZE): the
  // write fails with EFBIG instead, and only that session ends, saying so.
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN);

  // --background forks first (a task runner and its sockets do not survive
  // a fork), then the parent waits until the child listens or fails, so
  // that the command returning means the service is ready.
  base::ScopedFile ready_pipe;
  if (background) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      ZT_PLOG("ztraced: pipe2");
      return 1;
    }
    const pid_t pid = fork();
    if (pid < 0) {
      ZT_PLOG("ztraced: fork");
      return 1;
    }
    if (pid > 0) {
      close(fds[1]);
      char ready = 1;
      const bool ok = read(fds[0], &ready, 1) == 1 && ready == 0;
      close(fds[0]);
      if (!ok)
        return 1;  // The child said why on stderr, and exited.
      printf("%d\n", static_cast<int>(pid));
      return 0;
    }
    close(fds[0]);
    ready_pipe.reset(fds[1]);
    setsid();
  }

  int quit_pipe[2];
  if (pipe2(quit_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    ZT_PLOG("ztraced: pipe2");
    return 1;
  }
  base::ScopedFile quit_read(quit_pipe[0]);
  base::ScopedFile quit_write(quit_pipe[1]);
  g_quit_pipe_write = quit_write.get();
  struct sigaction action = {};
  action.sa_handler = OnQuitSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);

  base::UnixTaskRunner runner;
  std::unique_ptr<ServiceIpcHost> host =
      ServiceIpcHost::Listen(producer_socket, consumer_socket, &runner, limits);
  if (!host) {
    fprintf(stderr,
            "ztraced: cannot serve on %s and %s (see the log line above); if another "
            "ztraced or traced runs, stop it or choose other sockets with "
            "--producer-socket/--consumer-socket\n",
            producer_socket.c_str(), consumer_socket.c_str());
    return 1;
  }
  if (!SetSocketMode(producer_socket, 0666) || !SetSocketMode(consumer_socket, 0660))
    return 1;
  runner.AddFileDescriptorWatch(quit_read.get(), [&runner] {
    ZT_ILOG("ztraced: stopping (signal received)");
    runner.Quit();
  });

  if (background) {
    // Ready: the parent, waiting on the pipe, returns now. Output from here
    // on goes to the log file, or nowhere.
    base::ScopedFile null(open("/dev/null", O_RDWR | O_CLOEXEC));
    if (null) {
      dup2(null.get(), STDIN_FILENO);
      dup2(null.get(), STDOUT_FILENO);
      if (log_file.empty())
        dup2(null.get(), STDERR_FILENO);
    }
    const char ready = 0;
    ssize_t ignored = write(ready_pipe.get(), &ready, 1);
    (void)ignored;
    ready_pipe.reset();
  }
  ZT_ILOG("ztraced %s (pid %d): producers on %s, consumers on %s", ZT_VERSION,
          static_cast<int>(getpid()), producer_socket.c_str(), consumer_socket.c_str());
  runner.Run();
  const ProducerPortStats& commits = host->producer_port_stats();
  ZT_ILOG("ztraced: commits: %llu through commit queues (%llu wake-ups by doorbell, %llu by "
          "poll timer, %llu queues, %llu closed as corrupt with %llu bytes unread), %llu as "
          "CommitData messages",
          static_cast<unsigned long long>(commits.commits_by_queue),
          static_cast<unsigned long long>(commits.queue_wakeups),
          static_cast<unsigned long long>(commits.queue_poll_wakeups),
          static_cast<unsigned long long>(commits.queues_set_up),
          static_cast<unsigned long long>(commits.queues_closed),
          static_cast<unsigned long long>(commits.queue_bytes_lost),
          static_cast<unsigned long long>(commits.commits_by_message));
  const ServiceLimitStats refused = host->limit_stats();
  ZT_ILOG("ztraced: refused by the limits: %llu connections, %llu data sources, %llu "
          "producers, %llu sessions; %llu configs too large for their producer's connection "
          "not sent",
          static_cast<unsigned long long>(refused.connections_refused),
          static_cast<unsigned long long>(refused.data_sources_refused),
          static_cast<unsigned long long>(refused.producers_refused),
          static_cast<unsigned long long>(refused.sessions_refused),
          static_cast<unsigned long long>(commits.commands_too_large));
  host.reset();  // Sessions end; producers and consumers see the sockets close.
  for (const std::string& address : {producer_socket, consumer_socket}) {
    if (!address.empty() && address[0] != '@')
      unlink(address.c_str());
  }
  return 0;
}

}  // namespace
}  // namespace zt

int main(int argc, char** argv) {
  return zt::Main(argc, argv);
}
