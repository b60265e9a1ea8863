// The smallest complete program: declare a category, record a few slices
// into hello.pftrace (in the current folder), open it at
// https://ui.perfetto.dev.

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

#include "zt/config/trace_config.gen.h"
#include "zt/tracing/track_event.h"
#include "zt/tracing/tracing.h"

ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(0), zt::Category{"app"});
ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(0));

int main() {
  zt::Tracing::Initialize(zt::TracingInitArgs());
  zt::protos::gen::TraceConfig config;
  config.add_buffers()->set_size_kb(1024);
  config.add_data_sources()->mutable_config()->set_name("track_event");
  int fd = open("hello.pftrace", O_CREAT | O_TRUNC | O_WRONLY, 0644);
  auto session = zt::Tracing::NewTrace();
  session->Setup(config, fd);
  session->StartBlocking();
  {
    TRACE_EVENT("app", "main");
    for (int i = 0; i < 3; i++) {
      TRACE_EVENT("app", "step", "i", i);
    }
  }
  session->StopBlocking();
  printf("wrote hello.pftrace (%lld bytes): open it at https://ui.perfetto.dev\n",
         static_cast<long long>(lseek(fd, 0, SEEK_END)));
  close(fd);
  return 0;
}
