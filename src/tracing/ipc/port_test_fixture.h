// A fixture for tests of the service's ports over real sockets: a
// ServiceIpcHost without listening sockets, on virtual time, whose clients
// are raw ipc::Clients over socketpairs, so that a test sends exactly the
// frames a peer (ours or upstream's) would. Test support only.
#ifndef ZT_SRC_TRACING_IPC_PORT_TEST_FIXTURE_H_
#define ZT_SRC_TRACING_IPC_PORT_TEST_FIXTURE_H_

#include <sys/socket.h>

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/scoped_file.h"
#include "src/base/test/test_task_runner.h"
#include "src/base/unix_socket.h"
#include "src/ipc/client.h"
#include "src/tracing/ipc/service_ipc_host.h"

namespace zt {

class PortTest : public ::testing::Test {
 protected:
  void SetUp() override {
    host_ = ServiceIpcHost::CreateUnbound(&runner_);
    ASSERT_TRUE(host_);
  }
  void TearDown() override {
    clients_.clear();
    host_.reset();
    runner_.RunUntilIdle();
  }

  // A client of |service| on |host|, bound (the test fails if it is not).
  ipc::Client* Bind(ipc::Host* host, const char* service) {
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    host->AdoptClient(
        base::UnixSocket::AdoptConnected(base::ScopedFile(fds[0]), nullptr, &runner_));
    bool bound = false;
    clients_.push_back(ipc::Client::Adopt(
        base::UnixSocket::AdoptConnected(base::ScopedFile(fds[1]), nullptr, &runner_), service,
        &runner_, [&bound](bool ok) { bound = ok; }, [] {}));
    EXPECT_TRUE(runner_.RunUntil([&] { return bound; })) << service << " was never bound";
    return clients_.back().get();
  }

  // Invokes |method| and waits (bounded) for its last reply; every reply's
  // bytes go to |replies|, the last one's fd to |fd|.
  bool CallAndWait(ipc::Client* client, const std::string& method, const std::string& args,
                   std::vector<std::string>* replies = nullptr, int fd = -1,
                   base::ScopedFile* reply_fd = nullptr) {
    bool done = false, success = false;
    client->Invoke(
        method, args,
        [&](ipc::Client::Response r) {
          if (replies)
            replies->push_back(r.reply_proto);
          if (r.has_more)
            return;
          done = true;
          success = r.success;
          if (reply_fd)
            *reply_fd = std::move(r.fd);
        },
        /*drop_reply=*/false, fd);
    EXPECT_TRUE(runner_.RunUntil([&] { return done; })) << method << " never answered";
    return success;
  }

  base::TestTaskRunner runner_;
  std::unique_ptr<ServiceIpcHost> host_;
  std::vector<std::unique_ptr<ipc::Client>> clients_;
};

}  // namespace zt

#endif  // ZT_SRC_TRACING_IPC_PORT_TEST_FIXTURE_H_
