// What ztrace's commands that talk to the tracing service share: a run of
// a command object on a UnixTaskRunner of the calling thread until it
// reports its exit code (RunUntilFinished), that report made once whatever
// comes first (CommandEnd: an answer, a lost connection, a timeout), and
// writing a whole buffer to the output (WriteAll).

#ifndef ZT_SRC_CMD_ZTRACE_COMMAND_RUNNER_H_
#define ZT_SRC_CMD_ZTRACE_COMMAND_RUNNER_H_

#include <stddef.h>
#include <stdint.h>

#include <functional>
#include <string>

#include "src/base/unix_task_runner.h"
#include "src/cmd/ztrace/exit_codes.h"

namespace zt {
namespace ztrace {

// Writes all of |data| to |fd|, retrying when interrupted and waiting
// (poll) when a non-blocking fd is full. Returns 0, or the errno of the
// failure (EIO for a write that wrote nothing). Blocks the calling thread.
int WriteAll(int fd, const uint8_t* data, size_t size);

// The end of a command run on a task runner: |finish(exit_code)| runs once,
// for the first of Fail() or Finish(); later calls do nothing. Runner
// thread only.
class CommandEnd {
 public:
  // |prefix| starts each failure message ("ztrace clone").
  CommandEnd(std::string prefix, std::function<void(int)> finish);

  // Prints "<prefix>: <message>" on stderr and finishes with kExitFailure,
  // unless finished already.
  void Fail(const std::string& message);
  void Finish(int exit_code);
  bool done() const { return done_; }

 private:
  const std::string prefix_;
  std::function<void(int)> finish_;
  bool done_ = false;
};

// Runs a command on a UnixTaskRunner of the calling thread: |make(runner,
// finish)| returns its owner (a unique_ptr), |start(owner)| runs as the
// runner's first task, and the loop runs until the command calls
// |finish(exit_code)|. The command is destroyed on this thread after the
// loop, before the runner. Returns that exit code.
template <typename Make, typename Start>
int RunUntilFinished(Make make, Start start) {
  base::UnixTaskRunner runner;
  int result = kExitFailure;
  {
    auto command = make(&runner, [&runner, &result](int exit_code) {
      result = exit_code;
      runner.Quit();
    });
    runner.PostTask([&command, &start] { start(command); });
    runner.Run();
  }
  return result;
}

}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_COMMAND_RUNNER_H_
