// Whom clients trust to be the tracing service: the rule, the socket file
// check, and the peer check end to end against a listener run by another
// uid (these need root, to switch uid and chown; skipped otherwise).

#include "src/ipc/service_identity.h"

#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "src/base/scoped_file.h"
#include "src/base/test/test_task_runner.h"
#include "src/ipc/client.h"

namespace zt {
namespace ipc {
namespace {

constexpr uid_t kNobody = 65534;

TEST(ServiceTrustRuleTest, RootSelfTheOwnerOfAPrivateDirectoryAndTheConfiguredUid) {
  ServiceTrustFacts facts;
  facts.self_uid = 1000;
  EXPECT_TRUE(IsTrustedServiceUid(0, facts));
  EXPECT_TRUE(IsTrustedServiceUid(1000, facts));
  EXPECT_FALSE(IsTrustedServiceUid(1001, facts));
  EXPECT_FALSE(IsTrustedServiceUid(static_cast<uid_t>(-1), facts));  // Unknown.

  facts.has_dir = true;
  facts.dir_owner = 444;  // /run/perfetto owned by a `traced` user...
  EXPECT_TRUE(IsTrustedServiceUid(444, facts));
  facts.dir_writable_by_others = true;  // ...but not a directory anyone writes.
  EXPECT_FALSE(IsTrustedServiceUid(444, facts));

  facts.has_configured_uid = true;
  facts.configured_uid = 1001;
  EXPECT_TRUE(IsTrustedServiceUid(1001, facts));
  EXPECT_FALSE(IsTrustedServiceUid(1002, facts));
}

// A directory like /tmp: everyone may write it, the sticky bit set.
class SharedDirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/zt-identity-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    ASSERT_EQ(chmod(dir_.c_str(), 01777), 0);
    unsetenv("ZT_TRUSTED_SERVICE_UID");
  }
  void TearDown() override {
    unsetenv("ZT_TRUSTED_SERVICE_UID");
    unlink(path_.c_str());
    rmdir(dir_.c_str());
  }

  // A listening socket file at path_, owned by us.
  base::ScopedFile ListenAtPath() {
    base::ScopedFile fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    strncpy(addr.sun_path, path_.c_str(), sizeof(addr.sun_path) - 1);
    if (bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        listen(fd.get(), 4) != 0) {
      ADD_FAILURE() << "cannot listen at " << path_ << ": " << strerror(errno);
    }
    return fd;
  }

  std::string dir_;
  std::string path_ = "";
};

TEST_F(SharedDirectoryTest, ASocketFileOfAnotherUserIsRefusedBeforeConnecting) {
  path_ = dir_ + "/perfetto-consumer";
  std::string error;
  EXPECT_TRUE(CheckServiceSocketFile(path_, &error)) << "nothing there: connect() says so";
  base::ScopedFile listener = ListenAtPath();
  EXPECT_TRUE(CheckServiceSocketFile(path_, &error)) << error;  // Ours.
  if (geteuid() != 0)
    GTEST_SKIP() << "giving the socket file to another uid needs root";
  ASSERT_EQ(lchown(path_.c_str(), kNobody, kNobody), 0);
  EXPECT_FALSE(CheckServiceSocketFile(path_, &error));
  EXPECT_NE(error.find("belongs to uid 65534"), std::string::npos) << error;
  EXPECT_NE(error.find("ZT_TRUSTED_SERVICE_UID"), std::string::npos) << error;
  // The same file is fine once that uid is named as the service's.
  setenv("ZT_TRUSTED_SERVICE_UID", "65534", 1);
  EXPECT_TRUE(CheckServiceSocketFile(path_, &error)) << error;
}

TEST_F(SharedDirectoryTest, AFileThatIsNotASocketIsRefused) {
  path_ = dir_ + "/perfetto-producer";
  base::ScopedFile file(open(path_.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
  ASSERT_TRUE(file);
  std::string error;
  EXPECT_FALSE(CheckServiceSocketFile(path_, &error));
  EXPECT_NE(error.find("is not a socket"), std::string::npos) << error;
}

TEST_F(SharedDirectoryTest, ConnectFailuresAreToldApart) {
  path_ = dir_ + "/perfetto-consumer";
  EXPECT_NE(DescribeServiceConnectFailure(path_).find("is ztraced running?"),
            std::string::npos);
  {
    base::ScopedFile listener = ListenAtPath();
  }  // Closed: the file stays, no one serves it.
  EXPECT_NE(DescribeServiceConnectFailure(path_).find("exists but no process serves it"),
            std::string::npos)
      << DescribeServiceConnectFailure(path_);
}

// Forks a child that drops to |uid| and runs |body|; returns its exit code
// (or -1), waiting at most 10 s.
template <typename Body>
int RunAs(uid_t uid, Body body) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (setgid(uid) != 0 || setuid(uid) != 0)
      _exit(100);
    _exit(body());
  }
  for (int i = 0; i < 1000; i++) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid)
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    usleep(10 * 1000);  // Polling a child's exit: bounded, no state to wait on.
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  ADD_FAILURE() << "the child did not finish in 10 s";
  return -1;
}

TEST_F(SharedDirectoryTest, PermissionDeniedIsSaidAsSuch) {
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root, to run a client as another uid";
  path_ = dir_ + "/perfetto-consumer";
  base::ScopedFile listener = ListenAtPath();
  ASSERT_EQ(chmod(path_.c_str(), 0600), 0);  // Root's, and only root's.
  const std::string path = path_;
  const int rc = RunAs(kNobody, [&path] {
    const std::string text = DescribeServiceConnectFailure(path);
    return text.find("permission denied") != std::string::npos ? 0 : 1;
  });
  EXPECT_EQ(rc, 0) << "as nobody: " << DescribeServiceConnectFailure(path_);
}

// The client refuses a service run by an untrusted uid before sending it a
// byte, and talks to it once that uid is configured as trusted.
class ImpostorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0)
      GTEST_SKIP() << "needs root, to serve a socket as another uid";
    unsetenv("ZT_TRUSTED_SERVICE_UID");
  }
  void TearDown() override { unsetenv("ZT_TRUSTED_SERVICE_UID"); }

  // Serves an abstract socket as nobody, accepts one connection and exits
  // with 1 if the client sent anything within 5 s, 0 if not. Returns
  // whether the client bound.
  bool ConnectToImpostor(int* child_rc) {
    const std::string address =
        "@zt-impostor-" + std::to_string(getpid()) + "-" + std::to_string(++counter_);
    int ready[2];
    if (pipe(ready) != 0)
      return false;
    const pid_t pid = fork();
    if (pid == 0) {
      close(ready[0]);
      if (setgid(kNobody) != 0 || setuid(kNobody) != 0)
        _exit(100);
      const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
      sockaddr_un addr{};
      addr.sun_family = AF_UNIX;
      memcpy(addr.sun_path + 1, address.data() + 1, address.size() - 1);
      const socklen_t size =
          static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + address.size());
      if (bind(fd, reinterpret_cast<sockaddr*>(&addr), size) != 0 || listen(fd, 1) != 0)
        _exit(101);
      if (write(ready[1], "r", 1) != 1)
        _exit(102);
      const int conn = accept(fd, nullptr, nullptr);
      if (conn < 0)
        _exit(103);
      pollfd p{conn, POLLIN, 0};
      char byte;
      _exit(poll(&p, 1, 5000) == 1 && read(conn, &byte, 1) == 1 ? 1 : 0);
    }
    close(ready[1]);
    char byte;
    pollfd p{ready[0], POLLIN, 0};
    const bool listening = poll(&p, 1, 10000) == 1 && read(ready[0], &byte, 1) == 1;
    close(ready[0]);
    EXPECT_TRUE(listening) << "the impostor did not start listening in 10 s";

    int bound = -1;
    base::TestTaskRunner runner;
    std::unique_ptr<Client> client = Client::Connect(
        address, "ConsumerPort", &runner, [&bound](bool ok) { bound = ok; }, [] {});
    // The impostor never answers a bind: a refused client says so at once,
    // a trusting one sends the bind and waits.
    runner.RunUntil([&] { return bound != -1; }, /*timeout_ms=*/300);
    client.reset();
    int status = 0;
    for (int i = 0; i < 1000 && waitpid(pid, &status, WNOHANG) != pid; i++)
      usleep(10 * 1000);
    *child_rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return bound == 1;
  }

  int counter_ = 0;
};

TEST_F(ImpostorTest, AServiceRunByAnotherUidIsRefusedBeforeAnyByte) {
  int child_rc = -1;
  EXPECT_FALSE(ConnectToImpostor(&child_rc));
  EXPECT_EQ(child_rc, 0) << "the impostor received bytes from the client";
}

TEST_F(ImpostorTest, TheSameServiceIsUsedOnceItsUidIsConfigured) {
  setenv("ZT_TRUSTED_SERVICE_UID", "nobody", 1);
  int child_rc = -1;
  ConnectToImpostor(&child_rc);
  EXPECT_EQ(child_rc, 1) << "the client should have sent its bind request";
}

}  // namespace
}  // namespace ipc
}  // namespace zt
