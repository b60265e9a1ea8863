// Built against an installed zerotrace (run.sh): a program that asks for
// the system backend must get it from zerotrace::tracing_system or
// `pkg-config zerotrace-system`. With no daemon listening, Initialize still
// succeeds and a session on the system backend exists (it ends with an
// error when it finds no daemon).
#include <cstdio>
#include <cstdlib>

#include "zt/tracing/tracing.h"

int main() {
  // Sockets no daemon serves.
  setenv("PERFETTO_PRODUCER_SOCK_NAME", "@zt-downstream-no-such-producer", 1);
  setenv("PERFETTO_CONSUMER_SOCK_NAME", "@zt-downstream-no-such-consumer", 1);
  zt::TracingInitArgs args;
  args.backends = zt::kSystemBackend;
  if (!zt::Tracing::Initialize(args)) {
    fprintf(stderr, "system backend: Initialize failed\n");
    return 1;
  }
  if (!zt::Tracing::NewTrace(zt::kSystemBackend)) {
    fprintf(stderr, "system backend: not linked\n");
    return 1;
  }
  printf("system backend linked\n");
  zt::Tracing::Shutdown();
  return 0;
}
