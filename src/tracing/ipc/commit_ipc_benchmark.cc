// What a commit batch pays for crossing the producer socket (issue 11,
// docs/benchmarks.md "System mode"): one CommitData of a typical batch (8
// chunks to move, 2 chunks to patch) from the client side through a real
// UNIX socket into the service, against the same CommitData handed to an
// in-process service's ProducerEndpoint. One thread does both ends: the
// client encodes (SerializeCommitData, as ProducerIpcClient does), wraps it
// in an IPCFrame and sends it; the same thread then pumps the runner until
// idle, so the host reads the frame, decodes it, dispatches it, and the
// port parses the CommitData and calls the service. No thread hand-off is
// measured: the wake-up of a sleeping daemon is the task runner's cost, not
// the transport's (docs/benchmarks.md "Ingest" measures it).
//
//   commit_ipc_benchmark                       Google Benchmark: ns per batch
//   commit_ipc_benchmark --zt_case=NAME --zt_iterations=N
//       N batches of one case without the harness, for callgrind's
//       instructions per batch: run two counts and divide the difference.
//   commit_ipc_benchmark --zt_list_cases
//
// The batch's chunks are free in the service's view (nobody wrote them), so
// the service counts them as discarded after the SMB check: the service's
// own per-chunk work (docs/benchmarks.md "Ingest", ~940 instructions per
// 4 KiB chunk) is the same in both cases and kept out of the difference.

#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "src/base/test/benchmark_cases.h"
#include <benchmark/benchmark.h>

#include "src/base/memfd_shared_memory.h"
#include "src/base/scoped_file.h"
#include "src/base/test/test_task_runner.h"
#include "src/base/test/wait.h"
#include "src/base/thread_task_runner.h"
#include "src/base/unix_socket.h"
#include "src/ipc/client.h"
#include "src/tracing/ipc/commit_queue.h"
#include "src/tracing/ipc/commit_record.h"
#include "src/tracing/ipc/service_ipc_host.h"
#include "src/tracing/test/null_producer.h"
#include "zt/base/logging.h"
#include "zt/ext/tracing/core/commit_data.h"
#include "zt/ext/tracing/core/commit_data_codec.h"
#include "zt/ext/tracing/core/tracing_service.h"
#include "zt/ipc/producer_port.gen.h"

namespace zt {
namespace {

// A typical batch: a quarter of the default 64-chunk SMB would be 16; 8
// chunks of one writer's run plus the 2 patches of packets that spanned
// chunks is what a busy writer's commit looks like between the two.
CommitData TypicalBatch() {
  CommitData data;
  for (uint32_t i = 0; i < 8; i++)
    data.chunks_to_move.push_back({/*page=*/i / 2, /*chunk=*/i % 2, /*target_buffer=*/1});
  for (uint32_t i = 0; i < 2; i++) {
    CommitData::ChunkToPatch patch;
    patch.target_buffer = 1;
    patch.writer_id = 1;
    patch.chunk_id = 100 + i;
    patch.patches.push_back({/*offset=*/16 + i * 8, {{0x81, 0x80, 0x80, 0x00}}});
    patch.has_more_patches = false;
    data.chunks_to_patch.push_back(patch);
  }
  return data;
}

// One case: Setup() once, Run() per batch, Check() at the end.
class Case {
 public:
  virtual ~Case() = default;
  virtual void Run() = 0;
  // Everything sent was received and applied.
  virtual bool Check() { return true; }
  // Figures of its own, per batch, once Check() has passed (name, value).
  virtual std::vector<std::pair<std::string, double>> Figures() { return {}; }
};

// ProducerEndpoint::CommitData on an in-process service: the reference.
class InProcessCase : public Case {
 public:
  InProcessCase() : service_(TracingService::Create(&runner_)), data_(TypicalBatch()) {
    TracingService::ProducerOptions options;
    options.name = "bench";
    endpoint_ = service_->ConnectProducer(&producer_, options);
    ZT_CHECK(endpoint_);
    runner_.RunUntilIdle();
  }
  ~InProcessCase() override {
    endpoint_.reset();
    runner_.RunUntilIdle();
  }
  void Run() override { endpoint_->CommitData(data_); }

 private:
  base::TestTaskRunner runner_;
  std::unique_ptr<TracingService> service_;
  NullProducer producer_;
  std::unique_ptr<ProducerEndpoint> endpoint_;
  const CommitData data_;
};

// The same batch through ipc::Client -> socketpair -> ipc::Host ->
// ProducerPort -> the service, on one runner pumped until idle; or, with
// |queue|, through the commit queue's ring and doorbell instead of a
// message (docs/design/commit_queue.md), as ProducerIpcClient commits to
// a zerotrace service.
class IpcCase : public Case {
 public:
  explicit IpcCase(bool encode = true, bool queue = false)
      : encode_(encode), data_(TypicalBatch()) {
    host_ = ServiceIpcHost::CreateUnbound(&runner_);
    int fds[2];
    ZT_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
    host_->producer_host()->AdoptClient(
        base::UnixSocket::AdoptConnected(base::ScopedFile(fds[1]), nullptr, &runner_));
    bool bound = false;
    client_ = ipc::Client::Adopt(
        base::UnixSocket::AdoptConnected(base::ScopedFile(fds[0]), nullptr, &runner_),
        "ProducerPort", &runner_, [&bound](bool ok) { bound = ok; }, nullptr);
    ZT_CHECK(runner_.RunUntil([&] { return bound; }));
    // Connected as the SDK's producer would be, the service making the SMB
    // (CommitData before InitializeConnection would be refused).
    protos::gen::InitializeConnectionRequest init;
    init.set_producer_name("bench");
    bool initialized = false;
    client_->Invoke("InitializeConnection", init.SerializeAsString(),
                    [&initialized](ipc::Client::Response r) { initialized = r.success; });
    ZT_CHECK(runner_.RunUntil([&] { return initialized; }));
    encoded_ = SerializeCommitData(data_);
    if (queue)
      SetUpQueue();
  }
  ~IpcCase() override {
    client_.reset();
    runner_.RunUntilIdle();
    host_.reset();
  }
  void Run() override {
    // What ProducerIpcClient::CommitData does (encoding into a string it
    // keeps), then the service's side.
    if (queue_) {
      // What ProducerIpcClient::CommitData does with a queue. Two socket
      // messages came before: InitializeConnection and the setup.
      EncodeCommitRecord(data_, &commit_bytes_);
      unsent_ += !queue_->Write(commit_bytes_.data(), commit_bytes_.size(), 2);
      runner_.RunUntilIdle();
      return;
    }
    if (encode_)
      SerializeCommitData(data_, &commit_bytes_);
    const bool sent = client_->Invoke("CommitData", encode_ ? commit_bytes_ : encoded_, nullptr,
                                      /*drop_reply=*/true);
    unsent_ += !sent;
    runner_.RunUntilIdle();
  }
  bool Check() override {
    // Requests are served in order: a last one answered means every
    // earlier one was parsed and applied (a malformed one is logged).
    bool answered = false;
    client_->Invoke("CommitData", encoded_,
                    [&answered](ipc::Client::Response r) { answered = r.success; });
    runner_.RunUntilIdle();
    return answered && unsent_ == 0 && client_->bound() &&
           host_->producer_host()->num_clients() == 1 && (!queue_ || queue_->Drained());
  }

 protected:
  base::TestTaskRunner runner_;

 private:
  std::unique_ptr<ServiceIpcHost> host_;
  std::unique_ptr<ipc::Client> client_;
  const bool encode_;
  const CommitData data_;
  std::string encoded_;
  std::string commit_bytes_;
  uint64_t unsent_ = 0;
  std::unique_ptr<base::MemfdSharedMemory> queue_shm_;
  base::ScopedFile doorbell_;
  std::unique_ptr<CommitQueueWriter> queue_;

  void SetUpQueue() {
    queue_shm_ = base::MemfdSharedMemory::Create(kCommitQueueBytes);
    ZT_CHECK(queue_shm_);
    protos::gen::ZtSetupCommitQueueRequest req;
    req.set_size_bytes(kCommitQueueBytes);
    req.set_record_version(kCommitRecordVersion);
    bool done = false;
    client_->Invoke(
        "ZtSetupCommitQueue", req.SerializeAsString(),
        [&](ipc::Client::Response r) {
          done = true;
          doorbell_ = std::move(r.fd);
        },
        /*drop_reply=*/false, queue_shm_->fd());
    ZT_CHECK(runner_.RunUntil([&] { return done; }));
    ZT_CHECK(doorbell_);
    queue_.reset(new CommitQueueWriter(queue_shm_->start(), queue_shm_->size(), doorbell_.get()));
  }
};

// The harness's own floor: one RunUntilIdle() of the Ipc case's runner
// with nothing to read (a poll of both sockets). Part of the Ipc figure but
// not of the transport: a daemon blocked in epoll_wait pays a wake-up
// instead.
class IdlePumpCase : public IpcCase {
 public:
  void Run() override { runner_.RunUntilIdle(); }
};

// The speed of light of the transport on this machine: the frame's bytes
// (a typical batch's ~150) sent on one end of a socketpair, the readiness
// seen with one epoll_wait, read on the other end; no user-space work at
// all. The system calls every batch needs whatever the code around them.
class SocketFloorCase : public Case {
 public:
  SocketFloorCase() {
    ZT_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds_) == 0);
    epoll_ = epoll_create1(EPOLL_CLOEXEC);
    ZT_CHECK(epoll_ >= 0);
    epoll_event ev = {};
    ev.events = EPOLLIN;
    ZT_CHECK(epoll_ctl(epoll_, EPOLL_CTL_ADD, fds_[1], &ev) == 0);
  }
  ~SocketFloorCase() override {
    close(fds_[0]);
    close(fds_[1]);
    close(epoll_);
  }
  void Run() override {
    char out[150] = {};
    char in[4096];
    ok_ &= send(fds_[0], out, sizeof(out), MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof(out));
    epoll_event ev;
    ok_ &= epoll_wait(epoll_, &ev, 1, 0) == 1;
    ok_ &= recv(fds_[1], in, sizeof(in), 0) == static_cast<ssize_t>(sizeof(out));
  }
  bool Check() override { return ok_; }

 private:
  int fds_[2] = {-1, -1};
  int epoll_ = -1;
  bool ok_ = true;
};

// The commit queue as it runs in system mode: the service on a thread of
// its own, blocked in epoll_wait when it has nothing to do, and a producer
// committing batch after batch from another thread (as fast as it can, or
// one every |interval_ns|). What the single-thread Queue case cannot show:
// how often the service is woken (a busy service drains the next batch
// without a doorbell), and what both sides' CPU time per batch adds up to.
// Figures per batch: the producer's and the service's CPU time, doorbells
// rung, wake-ups, and the share of a core the service used.
class QueueStreamCase : public Case {
 public:
  explicit QueueStreamCase(uint64_t interval_ns = 0)
      : interval_ns_(interval_ns), data_(TypicalBatch()), daemon_("zt-bench-svc"),
        client_runner_("zt-bench-cli") {
    int fds[2];
    ZT_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
    daemon_.PostTaskAndWait([&] {
      host_ = ServiceIpcHost::CreateUnbound(&daemon_);
      host_->producer_host()->AdoptClient(
          base::UnixSocket::AdoptConnected(base::ScopedFile(fds[1]), nullptr, &daemon_));
      ZT_CHECK(pthread_getcpuclockid(pthread_self(), &daemon_clock_) == 0);
    });
    std::atomic<bool> bound{false}, initialized{false}, set_up{false};
    queue_shm_ = base::MemfdSharedMemory::Create(kCommitQueueBytes);
    ZT_CHECK(queue_shm_);
    client_runner_.PostTaskAndWait([&] {
      client_ = ipc::Client::Adopt(
          base::UnixSocket::AdoptConnected(base::ScopedFile(fds[0]), nullptr, &client_runner_),
          "ProducerPort", &client_runner_, [&bound](bool ok) { bound = ok; }, nullptr);
    });
    ZT_CHECK(base::WaitFor([&] { return bound.load(); }));
    client_runner_.PostTaskAndWait([&] {
      protos::gen::InitializeConnectionRequest init;
      init.set_producer_name("bench");
      client_->Invoke("InitializeConnection", init.SerializeAsString(),
                      [&initialized](ipc::Client::Response r) { initialized = r.success; });
    });
    ZT_CHECK(base::WaitFor([&] { return initialized.load(); }));
    client_runner_.PostTaskAndWait([&] {
      protos::gen::ZtSetupCommitQueueRequest req;
      req.set_size_bytes(kCommitQueueBytes);
      req.set_record_version(kCommitRecordVersion);
      client_->Invoke(
          "ZtSetupCommitQueue", req.SerializeAsString(),
          [&](ipc::Client::Response r) {
            doorbell_ = std::move(r.fd);
            set_up = true;
          },
          /*drop_reply=*/false, queue_shm_->fd());
    });
    ZT_CHECK(base::WaitFor([&] { return set_up.load(); }));
    ZT_CHECK(doorbell_);
    queue_.reset(new CommitQueueWriter(queue_shm_->start(), queue_shm_->size(), doorbell_.get()));
    start_ = Now(CLOCK_MONOTONIC);
    producer_cpu_start_ = Now(CLOCK_THREAD_CPUTIME_ID);
    daemon_cpu_start_ = Now(daemon_clock_);
    next_ = start_;
  }
  ~QueueStreamCase() override {
    client_runner_.PostTaskAndWait([&] { client_.reset(); });
    daemon_.PostTaskAndWait([&] { host_.reset(); });
  }
  void Run() override {
    if (interval_ns_) {
      next_ += interval_ns_;
      while (Now(CLOCK_MONOTONIC) < next_) {
      }
    }
    EncodeCommitRecord(data_, &commit_bytes_);
    // A full ring would send the batch as a message; here the producer
    // waits for room instead, so that every batch is a ring record.
    while (!queue_->Write(commit_bytes_.data(), commit_bytes_.size(), 2)) {
      ring_full_++;
      sched_yield();
    }
    batches_++;
  }
  bool Check() override {
    if (!base::WaitFor([&] { return queue_->Drained(); }))
      return false;
    const uint64_t end = Now(CLOCK_MONOTONIC);
    const uint64_t producer_cpu = Now(CLOCK_THREAD_CPUTIME_ID) - producer_cpu_start_;
    ProducerPortStats stats;
    uint64_t daemon_cpu = 0;
    daemon_.PostTaskAndWait([&] {
      stats = host_->producer_port_stats();
      daemon_cpu = Now(daemon_clock_) - daemon_cpu_start_;
    });
    const double n = static_cast<double>(batches_ ? batches_ : 1);
    figures_ = {
        {"producer_cpu_ns", static_cast<double>(producer_cpu) / n},
        {"service_cpu_ns", static_cast<double>(daemon_cpu) / n},
        {"doorbells", static_cast<double>(queue_->doorbells_rung()) / n},
        {"wakeups", static_cast<double>(stats.queue_wakeups + stats.queue_poll_wakeups) / n},
        {"poll_wakeups", static_cast<double>(stats.queue_poll_wakeups) / n},
        {"service_cores", static_cast<double>(daemon_cpu) / static_cast<double>(end - start_)},
        {"ring_full", static_cast<double>(ring_full_) / n},
    };
    return stats.commits_by_queue == batches_;
  }
  std::vector<std::pair<std::string, double>> Figures() override { return figures_; }

 private:
  static uint64_t Now(clockid_t clock) {
    timespec ts;
    ZT_CHECK(clock_gettime(clock, &ts) == 0);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
  }

  const uint64_t interval_ns_;
  const CommitData data_;
  base::ThreadTaskRunner daemon_;
  base::ThreadTaskRunner client_runner_;
  std::unique_ptr<ServiceIpcHost> host_;   // On daemon_.
  std::unique_ptr<ipc::Client> client_;    // On client_runner_.
  clockid_t daemon_clock_ = CLOCK_MONOTONIC;
  std::unique_ptr<base::MemfdSharedMemory> queue_shm_;
  base::ScopedFile doorbell_;
  std::unique_ptr<CommitQueueWriter> queue_;
  std::string commit_bytes_;
  uint64_t batches_ = 0;
  uint64_t ring_full_ = 0;
  uint64_t start_ = 0, next_ = 0, producer_cpu_start_ = 0, daemon_cpu_start_ = 0;
  std::vector<std::pair<std::string, double>> figures_;
};

// The cheapest wake-up any design could give a daemon per batch, for the
// "fewer system calls" question: a commit queue in shared memory would
// still ring a doorbell when the daemon sleeps. The cheapest doorbell is an
// eventfd written by the producer and seen by an edge-triggered epoll_wait
// (each write is a new edge, so nothing has to be read back): two system
// calls, no bytes copied.
class DoorbellFloorCase : public Case {
 public:
  DoorbellFloorCase() {
    event_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    ZT_CHECK(event_ >= 0);
    epoll_ = epoll_create1(EPOLL_CLOEXEC);
    ZT_CHECK(epoll_ >= 0);
    epoll_event ev = {};
    ev.events = EPOLLIN | EPOLLET;
    ZT_CHECK(epoll_ctl(epoll_, EPOLL_CTL_ADD, event_, &ev) == 0);
  }
  ~DoorbellFloorCase() override {
    close(event_);
    close(epoll_);
  }
  void Run() override {
    const uint64_t one = 1;
    ok_ &= write(event_, &one, sizeof(one)) == static_cast<ssize_t>(sizeof(one));
    epoll_event ev;
    ok_ &= epoll_wait(epoll_, &ev, 1, 0) == 1;
  }
  bool Check() override { return ok_; }

 private:
  int event_ = -1;
  int epoll_ = -1;
  bool ok_ = true;
};

// What entering the kernel costs here at all (getppid does nothing else):
// the unit the floors above are made of on this VM.
class NullSyscallCase : public Case {
 public:
  void Run() override { ok_ &= syscall(SYS_getppid) > 0; }
  bool Check() override { return ok_; }

 private:
  bool ok_ = true;
};

// The codec alone, both directions (client encode + port parse), into the
// reused string and CommitData the client and the port keep.
class CodecCase : public Case {
 public:
  void Run() override {
    SerializeCommitData(data_, &bytes_);
    ok_ &= ParseCommitData(reinterpret_cast<const uint8_t*>(bytes_.data()), bytes_.size(),
                           &parsed_);
    benchmark::DoNotOptimize(parsed_);
  }
  bool Check() override { return ok_ && parsed_ == data_; }

 private:
  const CommitData data_ = TypicalBatch();
  std::string bytes_;
  CommitData parsed_;
  bool ok_ = true;
};

const std::map<std::string, std::function<std::unique_ptr<Case>()>>& Cases() {
  static const auto* cases = new std::map<std::string, std::function<std::unique_ptr<Case>()>>{
      {"InProcess", [] { return std::make_unique<InProcessCase>(); }},
      {"Ipc", [] { return std::make_unique<IpcCase>(); }},
      {"IpcPreEncoded", [] { return std::make_unique<IpcCase>(/*encode=*/false); }},
      {"Queue", [] { return std::make_unique<IpcCase>(/*encode=*/true, /*queue=*/true); }},
      {"QueueStream", [] { return std::make_unique<QueueStreamCase>(); }},
      // A million batches a second, one per microsecond.
      {"QueueStream1M", [] { return std::make_unique<QueueStreamCase>(1000); }},
      {"Codec", [] { return std::make_unique<CodecCase>(); }},
      {"IdlePump", [] { return std::make_unique<IdlePumpCase>(); }},
      {"SocketFloor", [] { return std::make_unique<SocketFloorCase>(); }},
      {"DoorbellFloor", [] { return std::make_unique<DoorbellFloorCase>(); }},
      {"NullSyscall", [] { return std::make_unique<NullSyscallCase>(); }},
  };
  return *cases;
}

void RunBenchmark(benchmark::State& state, const std::function<std::unique_ptr<Case>()>& make) {
  std::unique_ptr<Case> c = make();
  for (auto _ : state)
    c->Run();
  if (!c->Check()) {
    state.SkipWithError("a batch was not received or applied");
    return;
  }
  for (const auto& figure : c->Figures())
    state.counters[figure.first] = figure.second;
}

int RunOneCase(const std::string& name, int64_t iterations) {
  auto it = Cases().find(name);
  if (it == Cases().end()) {
    fprintf(stderr, "commit_ipc_benchmark: no case %s (--zt_list_cases)\n", name.c_str());
    return 2;
  }
  std::unique_ptr<Case> c = it->second();
  for (int64_t i = 0; i < iterations; i++)
    c->Run();
  if (!c->Check()) {
    fprintf(stderr, "commit_ipc_benchmark: %s: a batch was not received or applied\n",
            name.c_str());
    return 1;
  }
  for (const auto& figure : c->Figures())
    printf("%s %s %.3f\n", name.c_str(), figure.first.c_str(), figure.second);
  return 0;
}

}  // namespace
}  // namespace zt

int main(int argc, char** argv) {
  const zt::base::BenchmarkCaseArgs args = zt::base::ParseBenchmarkCaseArgs(argc, argv);
  if (args.list_cases) {
    zt::base::PrintBenchmarkCases(zt::Cases());
    return 0;
  }
  if (!args.case_name.empty())
    return zt::RunOneCase(args.case_name, args.iterations);
  for (const auto& kv : zt::Cases()) {
    benchmark::RegisterBenchmark(kv.first.c_str(), [&make = kv.second](benchmark::State& s) {
      zt::RunBenchmark(s, make);
    });
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
