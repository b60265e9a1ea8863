// Subprocess: a child process for multi-process tests, with bounded waits
// on what it prints and on its exit. Its stdout is a pipe the test reads
// line by line; its stderr goes to a file (so a chatty child never blocks
// on a full pipe) that ReadAllStderr() returns for failure messages.
// The destructor kills (SIGKILL) and reaps a child still running.
// Test support; single-threaded use.
#ifndef ZT_TEST_SYSTEM_SUBPROCESS_H_
#define ZT_TEST_SYSTEM_SUBPROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace zt {
namespace test {

class Subprocess {
 public:
  // Runs argv[0] (a path) with the environment plus |extra_env|
  // ("NAME=value"). Null, with a message on stderr, if it cannot start.
  static std::unique_ptr<Subprocess> Start(const std::vector<std::string>& argv,
                                           const std::vector<std::string>& extra_env);
  ~Subprocess();

  // Waits until the child printed |line| (a whole line) after the lines
  // earlier calls consumed. False after |timeout_ms| or at end of output.
  bool WaitForLine(const std::string& line, uint32_t timeout_ms);
  bool Signal(int sig);
  // Waits for the exit; |status| (if not null) gets the exit code, or 128 +
  // the signal that ended it. False after |timeout_ms|.
  bool WaitExit(uint32_t timeout_ms, int* status);
  std::string ReadAllStderr() const;
  pid_t pid() const { return pid_; }

 private:
  Subprocess() = default;

  pid_t pid_ = -1;
  bool exited_ = false;
  int stdout_fd_ = -1;
  std::string stderr_path_;
  std::string pending_;  // Stdout read but not yet consumed as lines.
};

// Whether a UNIX stream socket at |path| accepts a connection now (a
// daemon serving it): what tests wait for after starting ztraced.
bool CanConnect(const std::string& path);

}  // namespace test
}  // namespace zt

#endif  // ZT_TEST_SYSTEM_SUBPROCESS_H_
