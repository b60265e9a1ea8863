// The server over real sockets: what a browser and a program get at the
// HTTP level (statuses, CORS, limits) and how clients that hang up, stop
// reading or hold connections are dealt with. The protocol's requests and
// answers are tested by test/serve's clients.

#include "src/cmd/ztrace/serve/rpc_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "zt/trace_processor/trace_processor.pb.h"

namespace zt {
namespace ztrace {
namespace serve {
namespace {

const std::string kTrace = std::string(ZT_TEST_DATA_DIR) + "/perfetto_v14/inprocess_small.pftrace";

// A blocking client socket whose reads give up after 20 s, so that a
// server that never answers fails the test instead of hanging it.
class Client {
 public:
  explicit Client(uint16_t port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    timeval timeout{20, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~Client() { Close(); }
  void Close() {
    if (fd_ >= 0)
      close(fd_);
    fd_ = -1;
  }
  bool connected() const { return connected_; }
  int fd() const { return fd_; }

  bool Send(const std::string& bytes) {
    return send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
  }
  // Everything until the server closes (or the timeout: then "TIMEOUT").
  std::string ReadAll() {
    std::string out;
    char buffer[65536];
    for (;;) {
      const ssize_t n = recv(fd_, buffer, sizeof(buffer), 0);
      if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK ? out + "TIMEOUT" : out;
      if (n == 0)
        return out;
      out.append(buffer, static_cast<size_t>(n));
    }
  }
  // Whether the server closed the connection (a read sees its end).
  bool ClosedByServer() {
    char byte;
    return recv(fd_, &byte, 1, 0) == 0;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

std::string Request(const std::string& method, const std::string& path, uint16_t port,
                    const std::string& extra_headers = "", const std::string& body = "") {
  return method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
         "\r\nConnection: close\r\n" + extra_headers +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string QueryBody(const std::string& sql) {
  protos::QueryArgs args;
  args.set_sql_query(sql);
  return args.SerializeAsString();
}

// The body of a chunked response, unchunked.
std::string Unchunk(const std::string& response) {
  size_t pos = response.find("\r\n\r\n");
  if (pos == std::string::npos)
    return "";
  pos += 4;
  std::string body;
  for (;;) {
    const size_t line_end = response.find("\r\n", pos);
    if (line_end == std::string::npos)
      return body;
    const size_t size = std::stoul(response.substr(pos, line_end - pos), nullptr, 16);
    if (size == 0)
      return body;
    body += response.substr(line_end + 2, size);
    pos = line_end + 2 + size + 2;
  }
}

std::string Body(const std::string& response) {
  const size_t pos = response.find("\r\n\r\n");
  return pos == std::string::npos ? "" : response.substr(pos + 4);
}

class RpcServerTest : public ::testing::Test {
 protected:
  void Start(ServeOptions options = ServeOptions(), bool load = true) {
    worker_ = std::make_unique<ProcessorWorker>();
    std::string error;
    if (load) {
      ASSERT_TRUE(worker_->LoadFile(kTrace, &error)) << error;
    }
    options.port = 0;
    options.handle_signals = false;
    server_ = RpcServer::Create(options, worker_.get(), &error);
    ASSERT_TRUE(server_) << error;
    port_ = server_->port();
    thread_ = std::thread([this] { server_->Run(); });
  }
  void TearDown() override {
    if (server_) {
      server_->Stop();
      thread_.join();
    }
  }

  // One request on its own connection; the whole response.
  std::string Exchange(const std::string& request) {
    Client client(port_);
    EXPECT_TRUE(client.connected());
    EXPECT_TRUE(client.Send(request));
    return client.ReadAll();
  }

  std::unique_ptr<ProcessorWorker> worker_;
  std::unique_ptr<RpcServer> server_;
  std::thread thread_;
  uint16_t port_ = 0;
};

TEST_F(RpcServerTest, StatusSaysTheApiVersionAndTheLoadedTrace) {
  Start();
  const std::string response = Exchange(Request("GET", "/status", port_));
  ASSERT_EQ(response.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << response;
  protos::StatusResult status;
  ASSERT_TRUE(status.ParseFromString(Body(response)));
  EXPECT_EQ(status.api_version(), 14);
  EXPECT_NE(status.loaded_trace_name().find("inprocess_small.pftrace ("), std::string::npos)
      << status.loaded_trace_name();
}

TEST_F(RpcServerTest, AQueryStreamsItsBatchesChunked) {
  Start();
  const std::string response =
      Exchange(Request("POST", "/query", port_, "", QueryBody("SELECT 1 AS one, 'x' AS s")));
  ASSERT_NE(response.find("Transfer-Encoding: chunked"), std::string::npos) << response;
  protos::QueryResult result;
  ASSERT_TRUE(result.ParseFromString(Unchunk(response)));
  EXPECT_EQ(result.error(), "");
  ASSERT_EQ(result.column_names_size(), 2);
  EXPECT_EQ(result.column_names(1), "s");
  ASSERT_GE(result.batch_size(), 1);
  EXPECT_TRUE(result.batch(result.batch_size() - 1).is_last_batch());
  EXPECT_EQ(result.batch(0).string_cells(), std::string("x") + '\0');
}

TEST_F(RpcServerTest, BrowsersFromOtherPagesAreRefused) {
  Start();
  const std::string foreign =
      Exchange(Request("GET", "/status", port_, "Origin: https://evil.example\r\n"));
  EXPECT_EQ(foreign.rfind("HTTP/1.1 403", 0), 0u) << foreign;
  EXPECT_NE(foreign.find("Origin not allowed"), std::string::npos);
  EXPECT_EQ(foreign.find("Access-Control-Allow-Origin"), std::string::npos);

  const std::string ui =
      Exchange(Request("GET", "/status", port_, "Origin: https://ui.perfetto.dev\r\n"));
  EXPECT_EQ(ui.rfind("HTTP/1.1 200", 0), 0u) << ui;
  EXPECT_NE(ui.find("Access-Control-Allow-Origin: https://ui.perfetto.dev\r\n"),
            std::string::npos);

  const std::string preflight =
      Exchange(Request("OPTIONS", "/query", port_, "Origin: https://ui.perfetto.dev\r\n"));
  EXPECT_EQ(preflight.rfind("HTTP/1.1 204", 0), 0u) << preflight;
  EXPECT_NE(preflight.find("Access-Control-Allow-Private-Network: true"), std::string::npos);

  // DNS rebinding: the page's own name in Host.
  const std::string rebound = Exchange(
      "GET /status HTTP/1.1\r\nHost: evil.example:" + std::to_string(port_) + "\r\n\r\n");
  EXPECT_EQ(rebound.rfind("HTTP/1.1 403", 0), 0u) << rebound;

  // A websocket from a program without an Origin.
  const std::string websocket = Exchange(
      "GET /websocket HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port_) +
      "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n");
  EXPECT_EQ(websocket.rfind("HTTP/1.1 403", 0), 0u) << websocket;
}

TEST_F(RpcServerTest, OversizedAndUnknownRequestsGetTheirStatus) {
  ServeOptions options;
  options.max_body_bytes = 1024;
  options.max_header_fields = 8;
  Start(options);
  const std::string big =
      Exchange(Request("POST", "/parse", port_, "", std::string(2048, 'x')));
  EXPECT_EQ(big.rfind("HTTP/1.1 413", 0), 0u) << big;

  std::string many;
  for (int i = 0; i < 9; i++)
    many += "X-Field-" + std::to_string(i) + ": 1\r\n";
  const std::string fields = Exchange(Request("GET", "/status", port_, many));
  EXPECT_EQ(fields.rfind("HTTP/1.1 431", 0), 0u) << fields;

  const std::string huge_header =
      Exchange(Request("GET", "/status", port_, "X-Big: " + std::string(70000, 'y') + "\r\n"));
  EXPECT_EQ(huge_header.rfind("HTTP/1.1 431", 0), 0u) << huge_header.substr(0, 100);

  const std::string unknown = Exchange(Request("GET", "/nothing_here", port_));
  EXPECT_EQ(unknown.rfind("HTTP/1.1 404", 0), 0u) << unknown;

  const std::string garbage = Exchange("\x16\x03\x01 not http at all\r\n\r\n");
  EXPECT_EQ(garbage.rfind("HTTP/1.1 400", 0), 0u) << garbage;

  // Still serving.
  EXPECT_EQ(Exchange(Request("GET", "/status", port_)).rfind("HTTP/1.1 200", 0), 0u);
}

// A query that would run forever: only an interrupt ends it.
const char kEndless[] =
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT COUNT(*) FROM n";

TEST_F(RpcServerTest, AClientThatHangsUpInterruptsItsQuery) {
  Start();
  {
    Client quitter(port_);
    ASSERT_TRUE(quitter.Send(Request("POST", "/query", port_, "", QueryBody(kEndless))));
    // The query is running once /status (answered on the I/O thread) says
    // one job is pending; then the client goes.
    for (int i = 0; i < 2000 && worker_->pending() == 0; i++)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_EQ(worker_->pending(), 1u);
  }
  // The next client's query runs only once the endless one was stopped.
  const std::string response = Exchange(Request("POST", "/query", port_, "", QueryBody("SELECT 7")));
  protos::QueryResult result;
  ASSERT_TRUE(result.ParseFromString(Unchunk(response))) << response.substr(0, 200);
  EXPECT_EQ(result.error(), "");
  ASSERT_EQ(result.batch_size(), 1);
  EXPECT_EQ(result.batch(0).varint_cells(0), 7);
}

TEST_F(RpcServerTest, AClientThatStopsReadingIsCutOffAfterTheStall) {
  ServeOptions options;
  options.max_queued_output_bytes = 64 * 1024;
  options.output_stall = std::chrono::milliseconds(300);
  Start(options);
  Client stalled(port_);
  // Some hundreds of MB of rows, never read.
  ASSERT_TRUE(stalled.Send(Request(
      "POST", "/query", port_, "",
      QueryBody("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < "
                "10000000) SELECT i, 'a fairly long string to fill the socket' FROM n"))));
  const std::string response = Exchange(Request("POST", "/query", port_, "", QueryBody("SELECT 8")));
  protos::QueryResult result;
  ASSERT_TRUE(result.ParseFromString(Unchunk(response))) << response.substr(0, 200);
  ASSERT_EQ(result.batch_size(), 1);
  EXPECT_EQ(result.batch(0).varint_cells(0), 8);
}

TEST_F(RpcServerTest, AtTheConnectionLimitTheIdlestConnectionMakesRoom) {
  ServeOptions options;
  options.max_connections = 2;
  Start(options);
  Client first(port_);
  Client second(port_);
  ASSERT_TRUE(first.connected() && second.connected());
  for (int i = 0; i < 2000 && server_->connections() < 2; i++)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(server_->connections(), 2u);
  // A third client is served; the connection idle longest was closed.
  const std::string response = Exchange(Request("GET", "/status", port_));
  EXPECT_EQ(response.rfind("HTTP/1.1 200", 0), 0u) << response;
  EXPECT_TRUE(first.ClosedByServer());
}

TEST_F(RpcServerTest, APageOfAnotherSiteCannotTouchTheTrace) {
  Start();
  // An <img src=".../parse"> or a link: no Origin, Sec-Fetch-Site says
  // where it came from.
  for (const char* path : {"/parse", "/notify_eof", "/restore_initial_tables", "/status"}) {
    const std::string reply =
        Exchange(Request("GET", path, port_, "Sec-Fetch-Site: cross-site\r\n"));
    EXPECT_EQ(reply.rfind("HTTP/1.1 403", 0), 0u) << path << ": " << reply;
  }
  // An empty piece from an older browser (no Sec-Fetch-Site) unloads nothing.
  EXPECT_EQ(Exchange(Request("GET", "/parse", port_)).rfind("HTTP/1.1 200", 0), 0u);
  protos::StatusResult status;
  ASSERT_TRUE(status.ParseFromString(Body(Exchange(Request("GET", "/status", port_)))));
  EXPECT_NE(status.loaded_trace_name(), "");
}

TEST_F(RpcServerTest, ABodyTheClientWaitsToSendIsAskedFor) {
  Start();
  Client client(port_);
  const std::string body = QueryBody("SELECT 3");
  ASSERT_TRUE(client.Send("POST /query HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port_) +
                          "\r\nConnection: close\r\nExpect: 100-continue\r\nContent-Length: " +
                          std::to_string(body.size()) + "\r\n\r\n"));
  char buffer[64];
  const ssize_t n = recv(client.fd(), buffer, sizeof(buffer), 0);
  ASSERT_GT(n, 0) << "no 100 Continue";
  EXPECT_EQ(std::string(buffer, static_cast<size_t>(n)).rfind("HTTP/1.1 100 Continue", 0), 0u);
  ASSERT_TRUE(client.Send(body));
  const std::string rest = client.ReadAll();
  EXPECT_NE(rest.find("HTTP/1.1 200 OK"), std::string::npos) << rest;
}

TEST_F(RpcServerTest, ClientsThatNeverFinishABodyLeaveRoomForOthers) {
  ServeOptions options;
  options.max_connections = 2;
  Start(options);
  std::vector<std::unique_ptr<Client>> stuck;
  for (int i = 0; i < 2; i++) {
    stuck.push_back(std::make_unique<Client>(port_));
    ASSERT_TRUE(stuck.back()->Send("POST /parse HTTP/1.1\r\nHost: 127.0.0.1:" +
                                   std::to_string(port_) +
                                   "\r\nContent-Length: 1000\r\n\r\nabc"));
  }
  for (int i = 0; i < 2000 && server_->connections() < 2; i++)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const std::string reply = Exchange(Request("GET", "/status", port_));
  EXPECT_EQ(reply.rfind("HTTP/1.1 200", 0), 0u) << reply;
}

TEST_F(RpcServerTest, AnAnswerNobodyReadsIsDroppedAfterTheStall) {
  ServeOptions options;
  options.output_stall = std::chrono::milliseconds(300);
  Start(options);
  Client reader(port_);
  const int small = 4096;
  setsockopt(reader.fd(), SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
  // Some MB of rows: less than the queue's 8 MiB, more than the sockets hold.
  ASSERT_TRUE(reader.Send(Request(
      "POST", "/query", port_, "",
      QueryBody("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < "
                "150000) SELECT i, 'some text to make the rows longer' FROM n"))));
  // The server gives up on the client (it reads nothing) and closes.
  const auto start = std::chrono::steady_clock::now();
  while (server_->connections() == 0 &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(20))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(server_->connections(), 1u);
  while (server_->connections() > 0 &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(20))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(server_->connections(), 0u);
  // What it got is not a whole answer.
  const std::string got = reader.ReadAll();
  EXPECT_EQ(got.find("\r\n0\r\n\r\n"), std::string::npos);
}

TEST_F(RpcServerTest, ASteadySlowReaderDoesNotHoldOthersBack) {
  ServeOptions options;
  options.output_stall = std::chrono::milliseconds(500);
  options.max_queued_output_bytes = 64 * 1024;
  Start(options);
  Client slow(port_);
  ASSERT_TRUE(slow.Send(Request(
      "POST", "/query", port_, "",
      QueryBody("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < "
                "2000000) SELECT i, 'some text to make the rows longer' FROM n"))));
  std::atomic<bool> done{false};
  const int slow_fd = slow.fd();  // Read by the thread; closed after it ends.
  std::thread drip([slow_fd, &done] {
    char buffer[2048];
    while (!done && recv(slow_fd, buffer, sizeof(buffer), 0) > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  });
  for (int i = 0; i < 2000 && worker_->pending() == 0; i++)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  // Answered once the slow reader has held the processor thread for the
  // stall limit, not when its 70 MB are read.
  const std::string response = Exchange(Request("POST", "/query", port_, "", QueryBody("SELECT 9")));
  done = true;
  shutdown(slow_fd, SHUT_RDWR);  // Wakes the reader; the socket is closed once it is done.
  drip.join();
  slow.Close();
  protos::QueryResult result;
  ASSERT_TRUE(result.ParseFromString(Unchunk(response))) << response.substr(0, 200);
  ASSERT_EQ(result.batch_size(), 1);
  EXPECT_EQ(result.batch(0).varint_cells(0), 9);
}

}  // namespace
}  // namespace serve
}  // namespace ztrace
}  // namespace zt
