// The daemon's socket addresses (default_socket.h).

#include "src/tracing/ipc/default_socket.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "zt/base/logging.h"

namespace zt {
namespace {

constexpr char kRunDir[] = "/run/perfetto/";

// Whether the daemon's sockets live under /run/perfetto/: the directory
// exists and we may enter it (search permission is what connect() needs
// to reach a socket inside). A directory that exists but refuses us is
// worth a line in the log: tracing then looks for a daemon under /tmp/ and
// most likely finds none.
bool UseRunDir() {
  int res;
  do {
    res = access(kRunDir, X_OK);
  } while (res != 0 && errno == EINTR);
  if (res == 0)
    return true;
  if (errno != ENOENT)
    ZT_PLOG("%s exists but cannot be entered; looking for the daemon under /tmp/", kRunDir);
  return false;
}

// |env| if set to something; otherwise the default by the rule above.
std::string Resolve(const char* env, const char* run_path, const char* tmp_path) {
  const char* name = getenv(env);
  if (name && *name)
    return name;
  return UseRunDir() ? run_path : tmp_path;
}

}  // namespace

std::string GetProducerSocket() {
  return Resolve("PERFETTO_PRODUCER_SOCK_NAME", "/run/perfetto/traced-producer.sock",
                 "/tmp/perfetto-producer");
}

std::string GetConsumerSocket() {
  return Resolve("PERFETTO_CONSUMER_SOCK_NAME", "/run/perfetto/traced-consumer.sock",
                 "/tmp/perfetto-consumer");
}

}  // namespace zt
