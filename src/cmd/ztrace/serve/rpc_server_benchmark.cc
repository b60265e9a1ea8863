// `ztrace serve`'s two figures (issue 29), end to end over a loopback
// socket, each beside what it is made of, measured in the same run:
//
//  * a query of many rows x 4 columns (id, ts, dur, name of `slice`):
//    the engine alone (rows produced, dropped; the direct scan, and the
//    same rows through SQLite as any other shape gets them), the engine and the batch
//    writer (QueryResult messages made, dropped), and the whole /query over
//    HTTP (read by a client): MB/s of QueryResult bytes;
//  * the trace sent through /parse (32 MiB pieces, as the UI sends them)
//    and /notify_eof, against importing the file as `ztrace stats` does.
//
//   rpc_server_benchmark TRACE [--rows N] [--parse-runs N]
//
// Prints one line per figure; results go to docs/benchmarks.md.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "src/cmd/ztrace/serve/rpc_server.h"
#include "src/processor/importers/trace_importer.h"
#include "src/processor/rpc/query_result_writer.h"
#include "src/processor/rpc/query_runner.h"
#include "src/processor/rpc/wire_writer.h"
#include "src/processor/sql/query_engine.h"

namespace zt {
namespace ztrace {
namespace serve {
namespace {

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

[[noreturn]] void Die(const std::string& why) {
  fprintf(stderr, "rpc_server_benchmark: %s\n", why.c_str());
  exit(1);
}

int Connect(uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  timeval timeout{120, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  // A request's head and body go out in two sends: not held for an ACK.
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0)
    Die("cannot connect to the server");
  return fd;
}

void SendAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
    if (n <= 0)
      Die("send failed");
    data += n;
    size -= static_cast<size_t>(n);
  }
}

std::string RequestHead(const char* method, const char* path, uint16_t port, size_t body) {
  return std::string(method) + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" +
         std::to_string(port) + "\r\nContent-Length: " + std::to_string(body) + "\r\n\r\n";
}

// Reads one response: with Content-Length, or chunked to its last chunk.
// Returns the bytes read (head included).
uint64_t ReadResponse(int fd) {
  static std::vector<char> buffer(1 << 20);
  std::string head;
  uint64_t total = 0;
  std::string tail;  // The last bytes, for the chunked terminator.
  size_t content_length = std::string::npos;
  bool chunked = false;
  size_t body_read = 0;
  for (;;) {
    const ssize_t n = recv(fd, buffer.data(), buffer.size(), 0);
    if (n <= 0)
      Die("the server closed or timed out mid-response");
    total += static_cast<uint64_t>(n);
    if (content_length == std::string::npos && !chunked) {
      head.append(buffer.data(), static_cast<size_t>(n));
      const size_t end = head.find("\r\n\r\n");
      if (end == std::string::npos)
        continue;
      chunked = head.find("Transfer-Encoding: chunked") != std::string::npos;
      const size_t at = head.find("Content-Length: ");
      if (!chunked && at != std::string::npos)
        content_length = std::stoul(head.substr(at + 16));
      body_read = head.size() - (end + 4);
      tail = head.substr(end + 4);
    } else {
      body_read += static_cast<size_t>(n);
      tail.append(buffer.data(), static_cast<size_t>(n));
    }
    if (tail.size() > 16)
      tail.erase(0, tail.size() - 16);
    if (chunked) {
      if (tail.size() >= 7 && tail.compare(tail.size() - 7, 7, "\r\n0\r\n\r\n") == 0)
        return total;
      if (tail == "0\r\n\r\n")
        return total;
    } else if (content_length != std::string::npos && body_read >= content_length) {
      return total;
    }
  }
}

std::string QueryArgs(const std::string& sql) {
  std::string out;
  processor::rpc::wire::AppendBytesField(1, sql, &out);
  return out;
}

void Run(const std::string& trace, size_t rows, int parse_runs) {
  const std::string sql =
      "SELECT id, ts, dur, name FROM slice LIMIT " + std::to_string(rows);
  printf("trace %s, query: %s\n", trace.c_str(), sql.c_str());

  // The parts, in this process.
  processor::ImportResult import_result;
  std::string error;
  auto start = std::chrono::steady_clock::now();
  std::unique_ptr<processor::TraceStorage> storage =
      processor::ImportTraceFile(trace, processor::ImportOptions(), &import_result, &error);
  if (!storage)
    Die(error);
  printf("import of the file %.3f s\n", Seconds(start));
  auto engine = processor::sql::QueryEngine::Create(storage.get(), &error);
  if (!engine)
    Die(error);

  size_t produced = 0;
  start = std::chrono::steady_clock::now();
  if (!engine->Execute(sql, nullptr,
                       [&produced](const std::vector<processor::SqlValue>&) {
                         produced++;
                         return true;
                       },
                       &error))
    Die(error);
  const double engine_seconds = Seconds(start);

  // The same rows through SQLite (the path of any other query shape).
  engine->set_direct_scan_fast_path(false);
  start = std::chrono::steady_clock::now();
  if (!engine->Execute(sql, nullptr, [](const std::vector<processor::SqlValue>&) { return true; },
                       &error))
    Die(error);
  const double sqlite_seconds = Seconds(start);
  engine->set_direct_scan_fast_path(true);

  uint64_t message_bytes = 0;
  start = std::chrono::steady_clock::now();
  {
    processor::rpc::QueryResultWriter writer(
        [&message_bytes](std::string message) { message_bytes += message.size(); });
    processor::rpc::RunQuery(engine.get(), sql, &writer);
  }
  const double writer_seconds = Seconds(start);
  engine.reset();
  storage.reset();

  // The server.
  ProcessorWorker worker;
  if (!worker.LoadFile(trace, &error))
    Die(error);
  ServeOptions options;
  options.port = 0;
  options.handle_signals = false;
  std::unique_ptr<RpcServer> server = RpcServer::Create(options, &worker, &error);
  if (!server)
    Die(error);
  std::thread io([&server] { server->Run(); });
  const uint16_t port = server->port();

  const int fd = Connect(port);
  const std::string body = QueryArgs(sql);
  const std::string request = RequestHead("POST", "/query", port, body.size()) + body;
  SendAll(fd, request.data(), request.size());  // Once to warm up.
  ReadResponse(fd);
  start = std::chrono::steady_clock::now();
  SendAll(fd, request.data(), request.size());
  const uint64_t http_bytes = ReadResponse(fd);
  const double http_seconds = Seconds(start);

  const double mb = static_cast<double>(message_bytes) / 1e6;
  printf("rows %zu x 4 columns: %.1f MB of QueryResult messages\n", produced, mb);
  printf("  engine alone       %7.3f s  (through SQLite: %.3f s)\n", engine_seconds,
         sqlite_seconds);
  printf("  engine + batches   %7.3f s  %7.1f MB/s\n", writer_seconds, mb / writer_seconds);
  printf("  /query over HTTP   %7.3f s  %7.1f MB/s  (%.1f MB on the socket)\n", http_seconds,
         mb / http_seconds, static_cast<double>(http_bytes) / 1e6);

  // /parse: the whole trace in 32 MiB pieces, then its end.
  std::string bytes;
  if (parse_runs > 0) {
    std::ifstream in(trace, std::ios::binary | std::ios::ate);
    bytes.resize(static_cast<size_t>(in.tellg()));
    in.seekg(0);
    in.read(&bytes[0], static_cast<std::streamsize>(bytes.size()));
  }
  // Each /parse is followed by an import of the file, and the figure is
  // the median of the pairs' ratios: this machine's speed drifts by a
  // third over minutes, more than the difference measured.
  std::vector<double> ratios;
  for (int run = 0; run < parse_runs; run++) {
    start = std::chrono::steady_clock::now();
    constexpr size_t kPiece = size_t{32} << 20;
    for (size_t at = 0; at < bytes.size(); at += kPiece) {
      const size_t n = std::min(kPiece, bytes.size() - at);
      const std::string head = RequestHead("POST", "/parse", port, n);
      SendAll(fd, head.data(), head.size());
      SendAll(fd, bytes.data() + at, n);
      ReadResponse(fd);
    }
    const double sent = Seconds(start);
    const std::string eof = RequestHead("GET", "/notify_eof", port, 0);
    SendAll(fd, eof.data(), eof.size());
    ReadResponse(fd);
    const double parse = Seconds(start);

    start = std::chrono::steady_clock::now();
    processor::ImportResult r;
    if (!processor::ImportTraceFile(trace, processor::ImportOptions(), &r, &error))
      Die(error);
    const double file = Seconds(start);
    ratios.push_back(parse / file);
    printf("  /parse run %d: pieces sent in %.3f s, imported %.3f s later: %.3f s; "
           "the file: %.3f s (pass 1 %.3f s, pass 2 %.3f s): %.2fx\n",
           run, sent, parse - sent, parse, file, r.pass1_seconds, r.pass2_seconds,
           parse / file);
  }
  close(fd);
  server->Stop();
  io.join();
  if (parse_runs > 0) {
    std::sort(ratios.begin(), ratios.end());
    printf("trace of %.1f MB: /parse + /notify_eof against an import of the file: %.2fx "
           "(median of %d pairs; %.2fx to %.2fx)\n",
           static_cast<double>(bytes.size()) / 1e6, ratios[ratios.size() / 2], parse_runs,
           ratios.front(), ratios.back());
  }
}

}  // namespace
}  // namespace serve
}  // namespace ztrace
}  // namespace zt

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help") {
    fprintf(stderr, "Usage: rpc_server_benchmark TRACE [--rows N] [--parse-runs N]\n");
    return 2;
  }
  size_t rows = 1000000;
  int parse_runs = 5;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--rows") {
      rows = static_cast<size_t>(atoll(argv[i + 1]));
    } else if (std::string(argv[i]) == "--parse-runs") {
      parse_runs = atoi(argv[i + 1]);
    }
  }
  signal(SIGPIPE, SIG_IGN);
  zt::ztrace::serve::Run(argv[1], rows, parse_runs);
  return 0;
}
