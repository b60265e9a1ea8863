// Concurrent writers against a service thread draining the SMB into the
// reference reader. Labelled `tsan`: run under ThreadSanitizer in CI.

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "src/tracing/core/test_packets.h"
#include "src/tracing/core/test_service.h"
#include "zt/ext/tracing/core/shared_memory_arbiter.h"
#include "zt/ext/tracing/core/trace_writer.h"

namespace zt {
namespace {

using ABI = SharedMemoryABI;

struct Config {
  size_t page_size;
  size_t num_pages;
  ABI::PageLayout layout;
  int writers;
  int packets_per_writer;
  BufferExhaustedPolicy policy;
  int service_sleep_us;  // Slows the service down to force drops.
  uint32_t seed;
};

// Sizes: mostly small, some medium, a few up to 1 MiB.
size_t PickSize(std::mt19937* rng, int index) {
  if (index == 3)
    return 1u << 20;  // Every writer writes one 1 MiB packet.
  const uint32_t r = (*rng)() % 100;
  if (r < 70)
    return 1 + (*rng)() % 200;
  if (r < 97)
    return 1 + (*rng)() % 20000;
  return 1 + (*rng)() % (1u << 18);
}

struct WriterResult {
  uint16_t id = 0;
  std::vector<size_t> sizes;
  // Per packet: whether the writer dropped it (its drop count grew while
  // the packet was written).
  std::vector<bool> dropped;
  // For each mark-only packet a Flush() wrote, in order: how many packets
  // had been begun before it.
  std::vector<size_t> marks_after;
  TraceWriter::Stats stats;
};

struct Outcome {
  std::vector<WriterResult> writers;
  std::vector<ReassembledPacket> packets;
  ReassemblerStats reader;
  SharedMemoryArbiter::Stats arbiter;
  size_t bad_moves = 0;
};

Outcome RunStress(const Config& cfg) {
  const size_t smb_size = cfg.page_size * cfg.num_pages;
  std::unique_ptr<uint8_t, decltype(&free)> mem(
      static_cast<uint8_t*>(aligned_alloc(4096, smb_size)), &free);
  memset(mem.get(), 0, smb_size);
  ABI service_abi(mem.get(), smb_size, cfg.page_size);
  TestService service(&service_abi);
  SharedMemoryArbiter::Options opt;
  opt.layout = cfg.layout;
  opt.stall_timeout = std::chrono::seconds(60);
  SharedMemoryArbiter arbiter(mem.get(), smb_size, cfg.page_size, &service, opt);

  Outcome out;
  out.writers.resize(static_cast<size_t>(cfg.writers));
  std::atomic<int> writers_done{0};
  std::thread service_thread([&] {
    while (writers_done.load(std::memory_order_acquire) < cfg.writers) {
      service.WaitForCommit(2);
      if (cfg.service_sleep_us)
        std::this_thread::sleep_for(std::chrono::microseconds(cfg.service_sleep_us));
      service.Drain();
    }
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < cfg.writers; t++) {
    threads.emplace_back([&, t] {
      WriterResult& res = out.writers[static_cast<size_t>(t)];
      std::mt19937 rng(cfg.seed * 1000 + static_cast<uint32_t>(t));
      auto w = arbiter.CreateTraceWriter(static_cast<uint32_t>(t % 3), cfg.policy);
      res.id = w->writer_id();
      auto flush = [&] {
        const uint64_t started = w->stats().packets_started;
        w->Flush();
        if (w->stats().packets_started > started)
          res.marks_after.push_back(res.sizes.size());
      };
      // Packet i of `size` bytes, noting whether the writer dropped it.
      auto write_packet = [&](int i, size_t size, bool flush_after) {
        res.sizes.push_back(size);
        const uint64_t dropped_before = w->stats().packets_dropped;
        {
          auto p = w->NewTracePacket();
          test::WriteTestPacket(p.get(), static_cast<uint32_t>(t), static_cast<uint64_t>(i),
                                test::TestPayload(static_cast<uint32_t>(t),
                                                  static_cast<uint64_t>(i), size));
        }
        res.dropped.push_back(w->stats().packets_dropped > dropped_before);
        if (flush_after)
          flush();
      };
      for (int i = 0; i < cfg.packets_per_writer; i++) {
        const size_t size = PickSize(&rng, i);
        const bool flush_after = rng() % 200 == 0;
        write_packet(i, size, flush_after);
      }
      flush();
      // A writer whose last packets were dropped is still in drop mode: once
      // the service has drained, one more packet gets through and carries
      // the loss mark, so every drop episode ends visibly.
      for (int i = cfg.packets_per_writer; w->is_dropping(); i++) {
        service.WaitForDrainAfter(service.drains());
        write_packet(i, 1 + rng() % 64, /*flush_after=*/true);
      }
      res.stats = w->stats();
      w.reset();
      writers_done.fetch_add(1, std::memory_order_release);
    });
  }
  for (auto& t : threads)
    t.join();
  service_thread.join();
  service.Finish();
  out.packets = std::move(service.packets());
  out.reader = service.reassembler().stats();
  out.arbiter = arbiter.stats();
  out.bad_moves = service.bad_moves();
  return out;
}

// Checks content and order; returns per-writer delivered counts.
void Verify(const Config& cfg, const Outcome& out, bool expect_no_drops) {
  std::map<uint16_t, size_t> index_of;
  for (size_t i = 0; i < out.writers.size(); i++)
    index_of[out.writers[i].id] = i;
  std::vector<int64_t> last_seq(out.writers.size(), -1);
  std::vector<uint64_t> delivered(out.writers.size(), 0);
  // A writer's Flush() in drop mode, once it gets a chunk again, writes an
  // empty packet carrying only the loss mark, so that a loss at the end
  // is marked too: the gap after it is then already announced.
  std::vector<bool> announced(out.writers.size(), false);
  std::vector<uint64_t> mark_packets(out.writers.size(), 0);
  // Where the last mark-only packet came: the first packet begun after it.
  std::vector<size_t> mark_position(out.writers.size(), 0);
  uint64_t marked = 0, gaps = 0;
  for (const ReassembledPacket& p : out.packets) {
    auto it = index_of.find(p.writer_id);
    ASSERT_NE(it, index_of.end()) << "unknown writer " << p.writer_id;
    const size_t w = it->second;
    std::vector<uint8_t> data = p.data;
    const bool prev_dropped = test::StripPreviousDropped(&data);
    const bool first_on_sequence = test::StripFirstOnSequence(&data);
    if (data.empty()) {
      ASSERT_TRUE(prev_dropped) << "an empty packet from writer " << w;
      ASSERT_FALSE(first_on_sequence) << "writer " << w;
      announced[w] = true;
      const std::vector<size_t>& marks = out.writers[w].marks_after;
      mark_position[w] = mark_packets[w] < marks.size() ? marks[mark_packets[w]]
                                                        : out.writers[w].sizes.size();
      mark_packets[w]++;
      marked++;
      continue;
    }
    const uint64_t seq = test::SeqOf(data);
    // Only a writer's very first packet says so (it may have been dropped).
    ASSERT_EQ(first_on_sequence, seq == 0) << "writer " << w << " seq " << seq;
    ASSERT_LT(seq, out.writers[w].sizes.size());
    ASSERT_GT(static_cast<int64_t>(seq), last_seq[w]) << "order, writer " << w;
    const bool gap = static_cast<int64_t>(seq) != last_seq[w] + 1;
    // A loss is never silent: the first packet after it says so (or the
    // mark-only packet before it did).
    ASSERT_EQ(gap, prev_dropped || announced[w]) << "writer " << w << " seq " << seq;
    // A mark-only packet announced the loss before it; this packet may
    // mark again only for a new loss after that packet (the chunk the
    // mark went in was returned at the flush, and the next packet found no
    // other), never for the same one.
    if (announced[w] && prev_dropped) {
      bool lost_after_mark = false;
      for (size_t j = mark_position[w]; j < seq; j++)
        lost_after_mark = lost_after_mark || out.writers[w].dropped[j];
      ASSERT_TRUE(lost_after_mark) << "marked twice for one loss, writer " << w << " seq " << seq;
    }
    announced[w] = false;
    gaps += gap;
    marked += prev_dropped;
    ASSERT_EQ(data, test::ExpectedPacket(static_cast<uint32_t>(w), seq,
                                         out.writers[w].sizes[seq]))
        << "content, writer " << w << " seq " << seq;
    last_seq[w] = static_cast<int64_t>(seq);
    delivered[w]++;
  }
  uint64_t dropped_total = 0;
  for (size_t w = 0; w < out.writers.size(); w++) {
    const auto& st = out.writers[w].stats;
    EXPECT_GE(st.packets_started, static_cast<uint64_t>(cfg.packets_per_writer));
    // The writer's own mark-only packets count as started, and delivered.
    EXPECT_EQ(st.packets_started, out.writers[w].sizes.size() + mark_packets[w]);
    EXPECT_EQ(delivered[w] + mark_packets[w] + st.packets_dropped, st.packets_started)
        << "writer " << w << ": every packet delivered or counted as dropped";
    dropped_total += st.packets_dropped;
  }
  EXPECT_EQ(out.bad_moves, 0u);
  EXPECT_EQ(out.reader.sizes_out_of_bounds + out.reader.bad_size_varints +
                out.reader.count_flag_mismatches + out.reader.sequence_gaps +
                out.reader.fragments_without_start + out.reader.unpatched_chunks +
                out.reader.incomplete_chunks_abandoned + out.reader.chunks_rejected +
                out.reader.patches_rejected,
            0u)
      << "an honest producer never trips the reader";
  if (expect_no_drops) {
    EXPECT_EQ(dropped_total, 0u);
    EXPECT_EQ(marked, 0u);
  } else {
    EXPECT_GT(dropped_total, 0u) << "the config was meant to overflow the SMB";
    EXPECT_GT(marked, 0u);
  }
  (void)gaps;
}

class TraceWriterStressTest : public testing::TestWithParam<uint32_t> {};

TEST_P(TraceWriterStressTest, AllPacketsExactlyOnceInOrder) {
  std::mt19937 rng(GetParam());
  const size_t page_sizes[] = {4096, 8192, 16384, 32768};
  Config cfg;
  cfg.page_size = page_sizes[rng() % 4];
  cfg.num_pages = 4 + rng() % 12;
  cfg.layout = static_cast<ABI::PageLayout>(1 + rng() % 5);
  cfg.writers = 4 + static_cast<int>(rng() % 5);
  cfg.packets_per_writer = 300;
  cfg.policy = BufferExhaustedPolicy::kStallThenDrop;
  cfg.service_sleep_us = 0;
  cfg.seed = GetParam();
  SCOPED_TRACE(testing::Message()
               << "page " << cfg.page_size << " pages " << cfg.num_pages
               << " layout " << cfg.layout << " writers " << cfg.writers);
  Outcome out = RunStress(cfg);
  Verify(cfg, out, /*expect_no_drops=*/true);
  EXPECT_GT(out.reader.patches_applied, 0u);
}

INSTANTIATE_TEST_SUITE_P(Seeds, TraceWriterStressTest,
                         testing::Values(1u, 2u, 3u, 4u));

TEST(TraceWriterStressDropTest, TinySmbDropsAreCountedAndMarked) {
  Config cfg;
  cfg.page_size = 4096;
  cfg.num_pages = 2;
  cfg.layout = ABI::kPageDiv4;
  cfg.writers = 4;
  cfg.packets_per_writer = 400;
  cfg.policy = BufferExhaustedPolicy::kDrop;
  cfg.service_sleep_us = 500;
  cfg.seed = 99;
  Outcome out = RunStress(cfg);
  Verify(cfg, out, /*expect_no_drops=*/false);
  EXPECT_GT(out.arbiter.chunks_unavailable, 0u);
}

}  // namespace
}  // namespace zt
