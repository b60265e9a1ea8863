#include "src/tracing/sdk/process_identity.h"

#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "zt/trace/track_event/process_descriptor.pbzero.h"
#include "zt/tracing/track.h"

namespace zt {
namespace internal {
namespace {

// The process name and command line, from /proc/self/cmdline.
struct ProcessInfo {
  std::string name;
  std::vector<std::string> cmdline;
};

const ProcessInfo& GetProcessInfo() {
  static const ProcessInfo* info = [] {
    auto* result = new ProcessInfo();
    FILE* f = fopen("/proc/self/cmdline", "rb");
    if (f) {
      std::string all;
      char buf[4096];
      for (size_t n; (n = fread(buf, 1, sizeof(buf), f)) > 0;)
        all.append(buf, n);
      fclose(f);
      for (size_t pos = 0; pos < all.size();) {
        size_t end = all.find('\0', pos);
        if (end == std::string::npos)
          end = all.size();
        result->cmdline.push_back(all.substr(pos, end - pos));
        pos = end + 1;
      }
    }
    if (!result->cmdline.empty())
      result->name = result->cmdline[0];
    return result;
  }();
  return *info;
}

}  // namespace

uint64_t CurrentTid() { return static_cast<uint64_t>(syscall(SYS_gettid)); }

uint64_t ProcessUuid() {
  static const uint64_t uuid = [] {
    uint64_t value = 0;
    if (getrandom(&value, sizeof(value), 0) != sizeof(value) || value == 0) {
      timespec now;
      clock_gettime(CLOCK_BOOTTIME, &now);
      value = MixUuid(static_cast<uint64_t>(getpid()),
                      static_cast<uint64_t>(now.tv_sec) * 1000000000u +
                          static_cast<uint64_t>(now.tv_nsec));
    }
    return value;
  }();
  return uuid;
}

void FillProcessDescriptor(protos::pbzero::TrackDescriptor* track) {
  track->set_uuid(ProcessUuid());
  auto* process = track->set_process();
  process->set_pid(static_cast<int32_t>(getpid()));
  const ProcessInfo& info = GetProcessInfo();
  for (const std::string& arg : info.cmdline)
    process->add_cmdline(arg);
  if (!info.name.empty())
    process->set_process_name(info.name);
}

}  // namespace internal
}  // namespace zt
