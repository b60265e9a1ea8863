#include "test/system/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

extern char** environ;

namespace zt {
namespace test {

std::unique_ptr<Subprocess> Subprocess::Start(const std::vector<std::string>& argv,
                                              const std::vector<std::string>& extra_env) {
  std::unique_ptr<Subprocess> p(new Subprocess());
  char stderr_path[] = "/tmp/zt_subprocess_stderr_XXXXXX";
  const int stderr_fd = mkstemp(stderr_path);
  int out[2];
  if (stderr_fd < 0 || pipe2(out, O_CLOEXEC) != 0) {
    fprintf(stderr, "Subprocess: %s\n", strerror(errno));
    return nullptr;
  }
  p->stderr_path_ = stderr_path;
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; e++)
    env_strings.push_back(*e);
  for (const std::string& e : extra_env)
    env_strings.push_back(e);
  std::vector<char*> args, env;
  for (const std::string& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const std::string& e : env_strings)
    env.push_back(const_cast<char*>(e.c_str()));
  env.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "Subprocess: fork: %s\n", strerror(errno));
    return nullptr;
  }
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    dup2(stderr_fd, STDERR_FILENO);
    execve(args[0], args.data(), env.data());
    fprintf(stderr, "Subprocess: exec %s: %s\n", args[0], strerror(errno));
    _exit(127);
  }
  close(out[1]);
  close(stderr_fd);
  p->pid_ = pid;
  p->stdout_fd_ = out[0];
  return p;
}

Subprocess::~Subprocess() {
  if (!exited_ && pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);  // SIGKILL cannot be ignored: bounded.
  }
  if (stdout_fd_ >= 0)
    close(stdout_fd_);
  if (!stderr_path_.empty())
    unlink(stderr_path_.c_str());
}

bool Subprocess::WaitForLine(const std::string& line, uint32_t timeout_ms) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    size_t newline;
    while ((newline = pending_.find('\n')) != std::string::npos) {
      const std::string got = pending_.substr(0, newline);
      pending_.erase(0, newline + 1);
      if (got == line)
        return true;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return false;
    pollfd pfd = {stdout_fd_, POLLIN, 0};
    if (poll(&pfd, 1, static_cast<int>(left.count())) <= 0)
      continue;  // Timeout (checked above) or EINTR.
    char buf[4096];
    const ssize_t n = read(stdout_fd_, buf, sizeof(buf));
    if (n == 0)
      return false;  // The child closed its output (exited).
    if (n > 0)
      pending_.append(buf, static_cast<size_t>(n));
  }
}

bool Subprocess::Signal(int sig) {
  return !exited_ && kill(pid_, sig) == 0;
}

bool Subprocess::WaitExit(uint32_t timeout_ms, int* status) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    int raw = 0;
    const pid_t r = exited_ ? pid_ : waitpid(pid_, &raw, WNOHANG);
    if (r == pid_) {
      if (!exited_ && status)
        *status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
      exited_ = true;
      return true;
    }
    if (std::chrono::steady_clock::now() >= deadline)
      return false;
    // Polling a child's exit: there is no fd to wait on short of a
    // SIGCHLD handler; 2 ms steps keep this cheap and prompt.
    poll(nullptr, 0, 2);
  }
}

std::string Subprocess::ReadAllStderr() const {
  std::ifstream in(stderr_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool CanConnect(const std::string& path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return ok;
}

}  // namespace test
}  // namespace zt
