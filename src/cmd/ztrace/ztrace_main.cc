// ztrace: the command-line consumer of the tracing service (ztraced, or
// Perfetto's traced). Only the dispatch lives here; each command is a
// library function its tests can run (record: record_command.h).

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "src/cmd/ztrace/clone_command.h"
#include <unistd.h>

#include "src/cmd/ztrace/convert_command.h"
#include "src/cmd/ztrace/export_db_command.h"
#include "src/cmd/ztrace/query_command.h"
#include "src/cmd/ztrace/record_command.h"
#include "src/cmd/ztrace/record_config.h"
#include "src/cmd/ztrace/serve/serve_command.h"
#include "src/cmd/ztrace/stats_command.h"
#include "src/cmd/ztrace/trigger_command.h"
#include "src/tracing/ipc/consumer_ipc_client.h"
#include "src/tracing/ipc/default_socket.h"
#include "src/tracing/ipc/producer_ipc_client.h"

namespace {

constexpr char kUsage[] = R"(Usage: ztrace COMMAND [ARGS...]

Commands:
  record    record a trace into a file (ztrace record --help)
  clone     write a snapshot of a running session into a file (ztrace clone --help)
  trigger   activate triggers that start or stop sessions (ztrace trigger --help)
  stats     summarize a trace: events, data losses, top slices (ztrace stats --help)
  query     SQL over a trace or many, or a prompt (ztrace query --help)
  export-db write a trace's tables into an SQLite file (ztrace export-db --help)
  convert   rewrite a trace: JSON, pftrace, text, Templight, folded, callgrind,
            speedscope, graphviz, html (ztrace convert --help)
  report    write a trace as one HTML file to open in a browser (ztrace report --help)
  serve     serve a trace to Perfetto UI and upstream's Python API (ztrace serve --help)

The tracing service's sockets are $PERFETTO_CONSUMER_SOCK_NAME (record, clone) and
$PERFETTO_PRODUCER_SOCK_NAME (trigger) if set, else
/run/perfetto/traced-{consumer,producer}.sock or /tmp/perfetto-{consumer,producer}.
)";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fputs(kUsage, stderr);
    return zt::ztrace::kExitUsage;
  }
  const std::string command = argv[1];
  if (command == "-h" || command == "--help" || command == "help") {
    fputs(kUsage, stdout);
    return zt::ztrace::kExitOk;
  }
  if (command == "record") {
    const std::vector<std::string> args(argv + 2, argv + argc);
    const std::string address = zt::GetConsumerSocket();
    return zt::ztrace::RunRecord(
        args,
        [address](zt::Consumer* consumer, zt::base::TaskRunner* runner) {
          return zt::ConsumerIpcClient::Connect(address, consumer, runner);
        },
        address);
  }
  if (command == "clone") {
    const std::vector<std::string> args(argv + 2, argv + argc);
    const std::string address = zt::GetConsumerSocket();
    return zt::ztrace::RunClone(
        args,
        [address](zt::Consumer* consumer, zt::base::TaskRunner* runner) {
          return zt::ConsumerIpcClient::Connect(address, consumer, runner);
        },
        address);
  }
  if (command == "query")
    return zt::ztrace::RunQuery({argv + 2, argv + argc}, stdin, stdout, stderr);
  if (command == "export-db")
    return zt::ztrace::RunExportDb({argv + 2, argv + argc}, stdout, stderr);
  if (command == "stats") {
    return zt::ztrace::RunStats(std::vector<std::string>(argv + 2, argv + argc), stdout,
                                stderr);
  }
  if (command == "trigger") {
    const std::vector<std::string> args(argv + 2, argv + argc);
    const std::string address = zt::GetProducerSocket();
    return zt::ztrace::RunTrigger(
        args,
        [address](zt::Producer* producer, zt::base::TaskRunner* runner,
                  const zt::TracingService::ProducerOptions& options) {
          // No shared memory: the command writes nothing.
          return zt::ProducerIpcClient::Connect(address, producer, runner, options,
                                                /*provide_smb=*/false);
        },
        address);
  }
  if (command == "serve")
    return zt::ztrace::RunServe({argv + 2, argv + argc}, stdout, stderr);
  if (command == "report") {
    zt::ztrace::ConvertStreams streams;
    streams.err_is_terminal = isatty(fileno(stderr)) == 1;
    return zt::ztrace::RunReport(std::vector<std::string>(argv + 2, argv + argc),
                                 zt::processor::ImportTraceFile, streams);
  }
  if (command == "convert") {
    return zt::ztrace::RunConvert(std::vector<std::string>(argv + 2, argv + argc),
                                  zt::processor::ImportTraceFile);
  }
  fprintf(stderr, "ztrace: unknown command \"%s\"\n\n%s", command.c_str(), kUsage);
  return zt::ztrace::kExitUsage;
}
