// Whom a client trusts to be the tracing service (service_identity.h).

#include "src/ipc/service_identity.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <string>

#include "src/base/scoped_file.h"
#include "zt/base/logging.h"

namespace zt {
namespace ipc {
namespace {

constexpr char kTrustedUidEnv[] = "ZT_TRUSTED_SERVICE_UID";

bool IsAbstract(const std::string& address) {
  return !address.empty() && address[0] == '@';
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// $ZT_TRUSTED_SERVICE_UID: a uid number or a user name.
bool ParseConfiguredUid(uid_t* uid) {
  const char* value = getenv(kTrustedUidEnv);
  if (!value || !*value)
    return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long number = strtoul(value, &end, 10);
  if (errno == 0 && end && *end == '\0' && number <= 0xfffffffful) {
    *uid = static_cast<uid_t>(number);
    return true;
  }
  struct passwd entry {};
  struct passwd* found = nullptr;
  char buffer[4096];
  if (getpwnam_r(value, &entry, buffer, sizeof(buffer), &found) == 0 && found) {
    *uid = found->pw_uid;
    return true;
  }
  ZT_ELOG("%s=%s is neither a uid nor a known user name: ignored", kTrustedUidEnv, value);
  return false;
}

std::string UidName(uid_t uid) {
  std::string text = "uid " + std::to_string(uid);
  struct passwd entry {};
  struct passwd* found = nullptr;
  char buffer[4096];
  if (getpwuid_r(uid, &entry, buffer, sizeof(buffer), &found) == 0 && found)
    text += " (" + std::string(found->pw_name) + ")";
  return text;
}

std::string WhomWeTrust(const ServiceTrustFacts& facts) {
  std::string text = "root, your own " + UidName(facts.self_uid);
  if (facts.has_dir && !facts.dir_writable_by_others)
    text += ", the directory's owner (" + UidName(facts.dir_owner) + ")";
  if (facts.has_configured_uid)
    text += ", " + UidName(facts.configured_uid) + " from $" + kTrustedUidEnv;
  else
    text += std::string(" or a uid named in $") + kTrustedUidEnv;
  return text;
}

}  // namespace

bool IsTrustedServiceUid(uid_t uid, const ServiceTrustFacts& facts) {
  if (uid == static_cast<uid_t>(-1))
    return false;
  if (uid == 0 || uid == facts.self_uid)
    return true;
  if (facts.has_dir && !facts.dir_writable_by_others && uid == facts.dir_owner)
    return true;
  return facts.has_configured_uid && uid == facts.configured_uid;
}

ServiceTrustFacts GatherServiceTrustFacts(const std::string& address) {
  ServiceTrustFacts facts;
  facts.self_uid = geteuid();
  facts.has_configured_uid = ParseConfiguredUid(&facts.configured_uid);
  if (!IsAbstract(address)) {
    struct stat dir {};
    if (stat(DirectoryOf(address).c_str(), &dir) == 0) {
      facts.has_dir = true;
      facts.dir_owner = dir.st_uid;
      facts.dir_writable_by_others = (dir.st_mode & (S_IWGRP | S_IWOTH)) != 0;
    }
  }
  return facts;
}

bool CheckServiceSocketFile(const std::string& address, std::string* error) {
  if (IsAbstract(address))
    return true;
  const ServiceTrustFacts facts = GatherServiceTrustFacts(address);
  if (!facts.has_dir || !facts.dir_writable_by_others)
    return true;  // Only trusted users could have put a file there.
  struct stat file {};
  if (lstat(address.c_str(), &file) != 0)
    return true;  // Nothing there: connect() says so.
  if (!S_ISSOCK(file.st_mode)) {
    *error = address + " is not a socket (in " + DirectoryOf(address) +
             ", which other users may write): refusing to use it";
    return false;
  }
  if (!IsTrustedServiceUid(file.st_uid, facts)) {
    *error = "the socket " + address + " belongs to " + UidName(file.st_uid) + ", in " +
             DirectoryOf(address) +
             ", which other users may write: it may be another user's impostor. "
             "Trusted are " + WhomWeTrust(facts);
    return false;
  }
  return true;
}

bool CheckServicePeer(const std::string& address, uid_t peer_uid, std::string* error) {
  const ServiceTrustFacts facts = GatherServiceTrustFacts(address);
  if (IsTrustedServiceUid(peer_uid, facts))
    return true;
  *error = "the process serving " + address + " runs as " +
           (peer_uid == static_cast<uid_t>(-1) ? std::string("an unknown uid")
                                               : UidName(peer_uid)) +
           ", not a trusted tracing service. Trusted are " + WhomWeTrust(facts);
  return false;
}

std::string DescribeServiceConnectFailure(const std::string& address) {
  std::string error;
  if (!CheckServiceSocketFile(address, &error))
    return error;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (address.empty() || address.size() >= sizeof(addr.sun_path))
    return "\"" + address + "\" is not a valid socket address";
  memcpy(addr.sun_path, address.data(), address.size());
  socklen_t size = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + address.size());
  if (IsAbstract(address))
    addr.sun_path[0] = '\0';
  else
    size++;  // The terminating NUL of a path.
  base::ScopedFile probe(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!probe)
    return "cannot create a socket: " + std::string(strerror(errno));
  int res;
  do {
    res = connect(probe.get(), reinterpret_cast<const sockaddr*>(&addr), size);
  } while (res != 0 && errno == EINTR);
  if (res != 0) {
    const int err = errno;
    switch (err) {
      case ENOENT:
        return "no socket at " + address + ": is ztraced running?";
      case ECONNREFUSED:
        return IsAbstract(address)
                   ? "nothing serves " + address + ": is ztraced running?"
                   : address + " exists but no process serves it (ztraced stopped?)";
      case EACCES:
      case EPERM:
        return "permission denied: " + UidName(geteuid()) + " may not connect to " +
               address + " (ask whoever runs ztraced for access, or use a socket of your own)";
      default:
        return "cannot connect to " + address + ": " + strerror(err);
    }
  }
  struct ucred cred {};
  socklen_t cred_size = sizeof(cred);
  const uid_t peer = getsockopt(probe.get(), SOL_SOCKET, SO_PEERCRED, &cred, &cred_size) == 0
                         ? cred.uid
                         : static_cast<uid_t>(-1);
  if (!CheckServicePeer(address, peer, &error))
    return error;
  return "the tracing service at " + address + " ended the connection";
}

}  // namespace ipc
}  // namespace zt
