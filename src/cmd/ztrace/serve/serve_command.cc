#include "src/cmd/ztrace/serve/serve_command.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>

#include "src/cmd/ztrace/exit_codes.h"
#include "src/cmd/ztrace/serve/processor_worker.h"
#include "src/cmd/ztrace/serve/rpc_server.h"

namespace zt {
namespace ztrace {

std::string ServeUsage() {
  return R"(Usage: ztrace serve [TRACE] [OPTIONS]

Serves zerotrace's processor to Perfetto UI and to upstream's Python API over
their protocol (TraceProcessorRpc, as `trace_processor_shell --httpd`). With
TRACE, it is imported first and clients see it as loaded; without, clients
send one (the UI's "Open trace file", the Python API's TraceProcessor(trace=...)).

  Perfetto UI:  open https://ui.perfetto.dev; it finds the server on port 9001
                and offers to use the loaded trace
  Python:       TraceProcessor(addr="127.0.0.1:9001")

Options:
  --port N, --http-port N           port to listen on (default 9001; 0: any free one)
  --ip-address ADDR, --http-ip-address ADDR
                                    address to listen on (default 127.0.0.1;
                                    0.0.0.0 exposes the trace to the network)
  --additional-cors-origins O1,O2   pages besides Perfetto UI's allowed to call
                                    the server from a browser (scheme://host:port)
  --max-trace-mb N                  the largest trace clients may send (default:
                                    the machine's memory; kept in memory until
                                    imported)
  -h, --help                        this text

Stops on Ctrl-C (SIGINT) or SIGTERM. Exit codes: 0 stopped, 1 the trace or the
address failed, 2 bad usage.
)";
}

namespace {

std::vector<std::string> SplitCommas(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = list.find(',', start);
    const size_t end = comma == std::string::npos ? list.size() : comma;
    if (end > start)
      out.push_back(list.substr(start, end - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return out;
}

// Imports print their progress as lines (the server's stderr is often a
// log), one per tenth of a large trace.
std::function<void(uint64_t, uint64_t)> LogProgress(FILE* err) {
  auto last_tenth = std::make_shared<int>(-1);
  return [err, last_tenth](uint64_t done, uint64_t total) {
    if (total < (256u << 20))
      return;
    if (done == 0)
      *last_tenth = -1;  // A new import.
    const int tenth = static_cast<int>(done * 10 / total);
    if (tenth <= *last_tenth)
      return;
    *last_tenth = tenth;
    fprintf(err, "ztrace serve: importing: %d%% of %.1f MiB\n", tenth * 10,
            static_cast<double>(total) / (1 << 20));
    fflush(err);
  };
}

}  // namespace

int RunServe(const std::vector<std::string>& args, FILE* out, FILE* err) {
  std::string trace;
  serve::ServeOptions options;
  // By default what the machine has: a bigger trace could not be imported.
  uint64_t max_trace_bytes = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                             static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& arg = args[i];
    const bool has_value = i + 1 < args.size();
    if (arg == "-h" || arg == "--help") {
      fputs(ServeUsage().c_str(), out);
      return kExitOk;
    }
    if (arg == "--port" || arg == "--http-port") {
      char* end = nullptr;
      const long port = has_value ? strtol(args[i + 1].c_str(), &end, 10) : -1;
      if (port < 0 || port > 65535 || !end || *end != '\0' || args[i + 1].empty()) {
        fprintf(err, "ztrace serve: %s needs a port number (0-65535)\n\n%s", arg.c_str(),
                ServeUsage().c_str());
        return kExitUsage;
      }
      options.port = static_cast<uint16_t>(port);
      i++;
    } else if (arg == "--ip-address" || arg == "--http-ip-address") {
      if (!has_value || args[i + 1].empty()) {
        fprintf(err, "ztrace serve: %s needs an address\n\n%s", arg.c_str(),
                ServeUsage().c_str());
        return kExitUsage;
      }
      options.ip_address = args[++i];
    } else if (arg == "--additional-cors-origins" || arg == "--http-additional-cors-origins") {
      if (!has_value) {
        fprintf(err, "ztrace serve: %s needs a list of origins\n\n%s", arg.c_str(),
                ServeUsage().c_str());
        return kExitUsage;
      }
      for (const std::string& origin : SplitCommas(args[++i]))
        options.additional_origins.push_back(origin);
    } else if (arg == "--max-trace-mb") {
      char* end = nullptr;
      const long long mb = has_value ? strtoll(args[i + 1].c_str(), &end, 10) : -1;
      if (mb <= 0 || !end || *end != '\0' || mb > (1ll << 40)) {
        fprintf(err, "ztrace serve: --max-trace-mb needs a number of MiB\n\n%s",
                ServeUsage().c_str());
        return kExitUsage;
      }
      max_trace_bytes = static_cast<uint64_t>(mb) << 20;
      i++;
    } else if (!arg.empty() && arg[0] == '-') {
      fprintf(err, "ztrace serve: unknown option '%s'\n\n%s", arg.c_str(), ServeUsage().c_str());
      return kExitUsage;
    } else if (trace.empty()) {
      trace = arg;
    } else {
      fprintf(err, "ztrace serve: one trace per server ('%s' is extra)\n\n%s", arg.c_str(),
              ServeUsage().c_str());
      return kExitUsage;
    }
  }

  // A client that goes away mid-answer is an error on its socket, not a
  // signal that ends the server.
  signal(SIGPIPE, SIG_IGN);

  serve::ProcessorWorker worker(LogProgress(err));
  worker.set_max_trace_bytes(max_trace_bytes);
  if (!trace.empty()) {
    std::string error;
    const auto start = std::chrono::steady_clock::now();
    if (!worker.LoadFile(trace, &error)) {
      fprintf(err, "ztrace serve: %s\n", error.c_str());
      return kExitFailure;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fprintf(err, "ztrace serve: loaded %s in %.1f s\n", trace.c_str(), seconds);
  }

  std::string error;
  std::unique_ptr<serve::RpcServer> server = serve::RpcServer::Create(options, &worker, &error);
  if (!server) {
    fprintf(err, "ztrace serve: %s\n", error.c_str());
    return kExitFailure;
  }
  const std::string host = options.ip_address.find(':') != std::string::npos
                               ? "[" + options.ip_address + "]"
                               : options.ip_address;
  fprintf(out, "Serving on http://%s:%u\n", host.c_str(), server->port());
  fflush(out);
  if (options.ip_address != "127.0.0.1" && options.ip_address != "::1") {
    fprintf(err,
            "ztrace serve: warning: listening on %s: anyone who can reach it can read the "
            "trace\n",
            options.ip_address.c_str());
  }
  if (server->port() == 9001)
    fprintf(err, "ztrace serve: Perfetto UI (https://ui.perfetto.dev) finds it on port 9001\n");
  fprintf(err, "ztrace serve: Python: TraceProcessor(addr=\"%s:%u\"); Ctrl-C stops it\n",
          host.c_str(), server->port());
  server->Run();
  fprintf(err, "ztrace serve: stopped\n");
  return kExitOk;
}

}  // namespace ztrace
}  // namespace zt
