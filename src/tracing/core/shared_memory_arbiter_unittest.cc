// SharedMemoryArbiter's commit batching while writers stall on a full SMB
// (its chunk search and writer ids are exercised through TraceWriter's
// tests).

#include "zt/ext/tracing/core/shared_memory_arbiter.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "src/tracing/core/test_service.h"
#include "zt/ext/tracing/core/trace_writer.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace zt {
namespace {

using ABI = SharedMemoryABI;

// |pages| one-chunk pages, commits in batches of two, the service played
// by the test (TestService::Drain) when it chooses.
struct Rig {
  Rig(size_t pages, std::chrono::milliseconds stall_timeout)
      : size(pages * 4096),
        mem(static_cast<uint8_t*>(aligned_alloc(4096, size))),
        service_abi(mem, size, 4096),
        service(&service_abi) {
    memset(mem, 0, size);
    SharedMemoryArbiter::Options options;
    options.commit_batch_chunks = 2;
    options.stall_timeout = stall_timeout;
    arbiter.reset(new SharedMemoryArbiter(mem, size, 4096, &service, options));
  }
  ~Rig() {
    arbiter.reset();
    free(mem);
  }
  std::vector<size_t> batch_sizes() const {
    std::vector<size_t> sizes;
    for (const CommitData& c : service.history())
      sizes.push_back(c.chunks_to_move.size());
    return sizes;
  }

  const size_t size;
  uint8_t* mem;
  ABI service_abi;
  TestService service;
  std::unique_ptr<SharedMemoryArbiter> arbiter;
};

// One packet per chunk: 4-byte size + 2-byte tag + 2-byte length + 4064
// bytes leaves less room than a packet needs in a 4080-byte payload.
void WriteChunkSizedPacket(TraceWriter* w, uint8_t fill) {
  std::vector<uint8_t> bytes(4064, fill);
  w->NewTracePacket()->AppendBytes(900, bytes.data(), bytes.size());
}

// Bounded: fails the test instead of hanging.
bool WaitUntil(const std::function<bool()>& done) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::yield();
  }
  return true;
}

// Chunks 0 and 1 go out as a batch the service does not start on yet;
// chunk 2 is returned, chunk 3 written, and the writer stalls. It must not
// send chunk 2 alone (a batch, a task and a wake-up per chunk is what makes
// a busy service slower): once the service has started on the first batch,
// chunks 2 and 3 go out together.
TEST(SharedMemoryArbiterTest,
     StalledWriterWaitsForTheServiceToStartOnTheLastBatch) {
  Rig rig(4, std::chrono::seconds(10));  // Bounds the test if it never ends.
  std::atomic<uint64_t> dropped{~uint64_t{0}};
  std::thread writer([&] {
    auto w = rig.arbiter->CreateTraceWriter(
        0, BufferExhaustedPolicy::kStallThenDrop);
    for (uint8_t i = 0; i < 5; i++)
      WriteChunkSizedPacket(w.get(), i);
    w->Flush();
    dropped = w->stats().packets_dropped;
  });
  const bool held_back = WaitUntil([&] {
    const SharedMemoryArbiter::Stats st = rig.arbiter->stats();
    return st.stalls == 1 && st.commits_held_back > 0;
  });
  EXPECT_TRUE(held_back) << "the writer never stalled, or sent chunk 2 alone";
  EXPECT_EQ(rig.service.pending_commits(), 1u) << "chunk 2 sent alone";
  rig.service.Drain();  // Frees chunks 0 and 1: the writer goes on.
  writer.join();
  rig.service.Finish();
  EXPECT_EQ(dropped.load(), 0u);
  // What goes out once the service has started (2 and 3 together if the
  // writer got a chunk first, 2 alone if the service had only begun) is
  // timing; what matters was checked above: nothing while it had not.
  const std::vector<size_t> sizes = rig.batch_sizes();
  ASSERT_GE(sizes.size(), 2u);
  EXPECT_EQ(sizes[0], 2u);
  size_t total = 0;
  for (size_t n : sizes)
    total += n;
  EXPECT_EQ(total, 5u);
  EXPECT_EQ(rig.service.packets().size(), 5u);
}

// While the service has not started on a batch, the next one grows past
// the batch size instead of queueing behind it.
TEST(SharedMemoryArbiterTest, ABatchGrowsWhileTheServiceHasNotStartedTheLast) {
  Rig rig(8, std::chrono::seconds(10));
  auto w =
      rig.arbiter->CreateTraceWriter(0, BufferExhaustedPolicy::kStallThenDrop);
  // Chunks 0 and 1 go out; 2..6 are returned while the service has not
  // started on them; 7 is being written.
  for (uint8_t i = 0; i < 8; i++)
    WriteChunkSizedPacket(w.get(), i);
  EXPECT_EQ(rig.service.pending_commits(), 1u);
  EXPECT_GT(rig.arbiter->stats().commits_held_back, 0u);
  EXPECT_EQ(rig.arbiter->stats().stalls, 0u);
  rig.service.Drain();
  w->Flush();  // Started (and done): 2..7 go out together.
  rig.service.Finish();
  EXPECT_EQ(rig.batch_sizes(), (std::vector<size_t>{2, 6}));
  EXPECT_EQ(rig.service.packets().size(), 8u);
}

// Once the service has started on a batch (its first chunk is no longer
// Complete), the next one goes out at the batch size and waits behind it,
// so that the service finds it queued when it is done.
TEST(SharedMemoryArbiterTest, ABatchGoesOutOnceTheServiceStartedTheLast) {
  Rig rig(8, std::chrono::seconds(10));
  auto w =
      rig.arbiter->CreateTraceWriter(0, BufferExhaustedPolicy::kStallThenDrop);
  for (uint8_t i = 0; i < 4; i++)  // Chunks 0 and 1 go out, 2 waits.
    WriteChunkSizedPacket(w.get(), i);
  EXPECT_EQ(rig.service.pending_commits(), 1u);
  // The service takes chunk 0 of the batch, not yet chunk 1.
  ABI::Chunk first = rig.service_abi.TryAcquireChunkForReading(0, 0);
  ASSERT_TRUE(first.is_valid());
  ASSERT_TRUE(rig.service_abi.ReleaseChunkAsFree(std::move(first)));
  WriteChunkSizedPacket(w.get(), 4);  // Returns chunk 3: 2 and 3 go out.
  EXPECT_EQ(rig.service.pending_commits(), 2u);
  EXPECT_EQ(rig.arbiter->stats().commits_held_back, 0u);
}

// A service that never takes the batch: the writer gives up at its stall
// timeout, and then sends what it held back (the chunks are complete: a
// service that comes back later reads them).
TEST(SharedMemoryArbiterTest, GivingUpSendsWhatWasHeldBack) {
  Rig rig(4, std::chrono::milliseconds(30));
  auto w =
      rig.arbiter->CreateTraceWriter(0, BufferExhaustedPolicy::kStallThenDrop);
  for (uint8_t i = 0; i < 5; i++)
    WriteChunkSizedPacket(w.get(), i);
  const SharedMemoryArbiter::Stats st = rig.arbiter->stats();
  EXPECT_EQ(st.stall_timeouts, 1u);
  EXPECT_GT(st.commits_held_back, 0u);
  EXPECT_EQ(w->stats().packets_dropped, 1u);
  EXPECT_EQ(rig.service.pending_commits(), 2u);
  rig.service.Finish();
  EXPECT_EQ(rig.batch_sizes(), (std::vector<size_t>{2, 1}));
  EXPECT_EQ(rig.service.packets().size(), 3u);
}

// The time a writer waited is counted, for it and for the arbiter: here
// one wait that lasted at least its timeout.
TEST(SharedMemoryArbiterTest, TheTimeSpentStallingIsCounted) {
  Rig rig(4, std::chrono::milliseconds(30));
  auto w =
      rig.arbiter->CreateTraceWriter(0, BufferExhaustedPolicy::kStallThenDrop);
  for (uint8_t i = 0; i < 3; i++)
    WriteChunkSizedPacket(w.get(), i);
  EXPECT_EQ(w->stats().stall_ns, 0u) << "counted a wait before the SMB was full";
  for (uint8_t i = 3; i < 5; i++)
    WriteChunkSizedPacket(w.get(), i);
  ASSERT_EQ(rig.arbiter->stats().stall_timeouts, 1u);
  EXPECT_GE(w->stats().stall_ns, 30u * 1000 * 1000);
  EXPECT_EQ(rig.arbiter->stats().stall_ns, w->stats().stall_ns);
}

// Liveness: writers that keep stalling on a small SMB (16 chunks: each of
// the 4 writers holds one and needs a second to return it), a service
// thread taking batches as they come. Holding chunks back must never leave them
// waiting for a batch nobody will take: every packet arrives, none dropped
// (a writer held back for good would hit its 10 s stall timeout and drop).
TEST(SharedMemoryArbiterTest, StallingWritersAndABusyServiceLoseNothing) {
  Rig rig(16, std::chrono::seconds(10));
  std::atomic<bool> stop{false};
  std::thread service([&] {
    while (!stop.load()) {
      rig.service.WaitForCommit(5);
      rig.service.Drain();
    }
  });
  constexpr int kWriters = 4, kPackets = 200;
  std::atomic<uint64_t> dropped{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < kWriters; t++) {
    writers.emplace_back([&, t] {
      auto w = rig.arbiter->CreateTraceWriter(
          0, BufferExhaustedPolicy::kStallThenDrop);
      for (int i = 0; i < kPackets; i++)
        WriteChunkSizedPacket(w.get(), static_cast<uint8_t>(t));
      w->Flush();
      dropped += w->stats().packets_dropped;
    });
  }
  for (auto& t : writers)
    t.join();
  stop = true;
  service.join();
  rig.service.Finish();
  EXPECT_EQ(dropped.load(), 0u);
  EXPECT_EQ(rig.service.packets().size(), size_t{kWriters} * kPackets);
  EXPECT_EQ(rig.arbiter->stats().stall_timeouts, 0u);
}

}  // namespace
}  // namespace zt
