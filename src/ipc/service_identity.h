// Whom a client trusts to be the tracing service (docs/design/ipc.md,
// "Who serves the socket").
//
// The default sockets may live in /tmp, where any local user can create
// /tmp/perfetto-consumer before the daemon does. A client hands the service
// its trace (an output fd), and maps the shared memory it gets back, so a
// client must not talk to an impostor. A service is trusted when the
// process serving the socket (SO_PEERCRED, which the peer cannot forge)
// runs as:
//   * root;
//   * the client's own effective uid;
//   * the owner of the socket's directory, when no one else may write that
//     directory (an administrator's /run/perfetto owned by a `traced`
//     user);
//   * the uid in $ZT_TRUSTED_SERVICE_UID (a number or a user name).
// Before connecting, a socket file in a directory that everyone may write
// (/tmp) must itself belong to a trusted uid; anything but a socket there
// is refused. Abstract sockets ("@name") have no file: only the peer check
// applies.
//
// Thread-safe (reads the environment and the filesystem on each call).
// Costs: a few stat(2) calls per connection attempt.

#ifndef ZT_SRC_IPC_SERVICE_IDENTITY_H_
#define ZT_SRC_IPC_SERVICE_IDENTITY_H_

#include <sys/types.h>

#include <string>

namespace zt {
namespace ipc {

// What the trust rule above needs, gathered for one socket address. Split
// from the gathering so that the rule can be tested with any uids.
struct ServiceTrustFacts {
  uid_t self_uid = 0;
  bool has_dir = false;  // A filesystem socket whose directory was stat'ed.
  uid_t dir_owner = 0;
  bool dir_writable_by_others = false;  // Group- or world-writable.
  bool has_configured_uid = false;
  uid_t configured_uid = 0;
};

// True if a service running as |uid| is trusted under |facts|.
bool IsTrustedServiceUid(uid_t uid, const ServiceTrustFacts& facts);

// The facts for |address| now (the environment, the directory's owner and
// mode). A malformed $ZT_TRUSTED_SERVICE_UID is logged and ignored.
ServiceTrustFacts GatherServiceTrustFacts(const std::string& address);

// Before connecting: false, with the reason in |*error|, if |address| is a
// file in a directory others may write that is not a socket or belongs to
// an untrusted uid. A missing file passes (connect then fails as usual).
bool CheckServiceSocketFile(const std::string& address, std::string* error);

// After connecting: false, with the reason in |*error|, if the peer's
// |peer_uid| (SO_PEERCRED; -1 if unknown) is not trusted for |address|.
bool CheckServicePeer(const std::string& address, uid_t peer_uid,
                      std::string* error);

// Why a connection to the service at |address| failed, probed again now,
// for a user-facing message: no socket there (is the daemon running?), no
// permission, nothing serving the file, or an untrusted owner. Never empty.
std::string DescribeServiceConnectFailure(const std::string& address);

}  // namespace ipc
}  // namespace zt

#endif  // ZT_SRC_IPC_SERVICE_IDENTITY_H_
