// Where the daemon's two sockets are, as Perfetto's clients look for them
// (docs/wire.md): $PERFETTO_PRODUCER_SOCK_NAME / $PERFETTO_CONSUMER_SOCK_NAME
// if set and not empty; otherwise /run/perfetto/traced-{producer,consumer}.sock
// when /run/perfetto/ exists and we may search it, else
// /tmp/perfetto-{producer,consumer}. An address starting with '@' is a Linux
// abstract socket name.
//
// Thread-safe (reads the environment and the filesystem on each call).
#ifndef ZT_SRC_TRACING_IPC_DEFAULT_SOCKET_H_
#define ZT_SRC_TRACING_IPC_DEFAULT_SOCKET_H_

#include <string>

namespace zt {

std::string GetProducerSocket();
std::string GetConsumerSocket();

}  // namespace zt

#endif  // ZT_SRC_TRACING_IPC_DEFAULT_SOCKET_H_
