// Test support for the `ztrace record` tests (record_command_unittest.cc,
// record_command_end_unittest.cc, record_command_helpers_unittest.cc,
// record_process_unittest.cc): a temporary output file read back by path, a
// scripted service endpoint, and what a complete trace file must hold.
// Test-only.

#ifndef ZT_SRC_CMD_ZTRACE_RECORD_TEST_SUPPORT_H_
#define ZT_SRC_CMD_ZTRACE_RECORD_TEST_SUPPORT_H_

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <functional>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "src/base/scoped_file.h"
#include "zt/base/task_runner.h"
#include "zt/ext/tracing/core/tracing_service.h"
#include "src/tracing/test/fake_consumer.h"
#include "src/tracing/test/trace_checks.h"

namespace zt {
namespace ztrace {

// A file for the command's output, read back by path.
class OutputFile {
 public:
  OutputFile() {
    char path[] = "/tmp/zt_ztrace_out_XXXXXX";
    const int fd = mkstemp(path);
    EXPECT_GE(fd, 0);
    close(fd);
    path_ = path;
  }
  ~OutputFile() { unlink(path_.c_str()); }
  base::ScopedFile Open() const {
    return base::ScopedFile(open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  }
  bool Exists() const {
    struct stat st;
    return stat(path_.c_str(), &st) == 0;
  }
  std::string Contents() const {
    std::string bytes;
    const int fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return bytes;
    char buf[4096];
    for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;)
      bytes.append(buf, static_cast<size_t>(n));
    close(fd);
    return bytes;
  }
  test::Packets ReadPackets() const {
    const std::string bytes = Contents();
    return test::SplitTrace(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A scripted service for the command to talk to, without a real one: every
// request is ignored unless a subclass answers it, and answers reach the
// consumer through the task runner (as a real endpoint's do), never after
// the endpoint is gone (the command deletes it when done).
class ScriptedConsumerEndpoint : public ConsumerEndpoint {
 public:
  ScriptedConsumerEndpoint(Consumer* consumer, base::TaskRunner* runner)
      : consumer_(consumer), runner_(runner), alive_(std::make_shared<bool>(true)) {
    Post([](Consumer* c) { c->OnConnect(); });
  }
  ~ScriptedConsumerEndpoint() override { *alive_ = false; }

  void EnableTracing(const protos::gen::TraceConfig&, int fd) override {
    if (fd >= 0)
      close(fd);
  }
  void StartTracing() override {}
  void DisableTracing() override {}
  void Flush(uint32_t, std::function<void(bool)>) override {}
  void ReadBuffers() override {}
  void FreeBuffers() override {}
  void GetTraceStats() override {}

 protected:
  void Post(std::function<void(Consumer*)> call) {
    runner_->PostTask([consumer = consumer_, alive = alive_, call = std::move(call)] {
      if (*alive)
        call(consumer);
    });
  }

 private:
  Consumer* const consumer_;
  base::TaskRunner* const runner_;
  std::shared_ptr<bool> alive_;
};

// What a complete trace file must hold: the producer's packets, exactly,
// among the service's own, which follow upstream's readers' rules.
inline void ExpectCompleteTrace(const test::Packets& packets, size_t producer_packets) {
  EXPECT_EQ(test::CountServicePackets(packets).producer_packets, producer_packets);
  for (const std::string& problem : test::CheckServicePackets(packets))
    ADD_FAILURE() << problem;
}

}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_RECORD_TEST_SUPPORT_H_
