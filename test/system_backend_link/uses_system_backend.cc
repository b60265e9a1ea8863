// A program that asks for the system backend, in each way code ported from
// Perfetto names it. Linked with zerotrace::tracing_system it builds;
// linked with zerotrace::tracing alone it must not (run.sh).

#include <cstdio>

#include "zt/tracing/tracing.h"

int main(int argc, char**) {
  zt::TracingInitArgs args;
  args.backends = zt::kSystemBackend;
  if (argc > 1)
    args.backends = zt::kInProcessBackend | zt::kSystemBackend;
  args.backends |= zt::kSystemBackend;
  const zt::BackendType backend = zt::kSystemBackend;
  // Only the conversions are checked: this program never connects.
  if (argc > 2 && zt::Tracing::Initialize(args))
    zt::Tracing::NewTrace(zt::kSystemBackend);
  std::printf("backends 0x%x, %s\n", args.backends,
              backend == zt::kSystemBackend ? "system" : "other");
  return args.backends == 3u || args.backends == 2u ? 0 : 1;
}
