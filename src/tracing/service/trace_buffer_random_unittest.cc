// Randomized TraceBuffer tests: many writers' packets chunked as a
// TraceWriter would, committed interleaved, with patches arriving after the
// next chunk and reads at random points.

#include <algorithm>
#include <map>
#include <random>

#include <gtest/gtest.h>

#include "src/tracing/service/trace_buffer.h"
#include "src/tracing/service/trace_buffer_test_util.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace zt {
namespace {

using Packet = protos::pbzero::TracePacket;
using test::SimChunk;
using test::SimWriter;
using Policy = TraceBuffer::OverwritePolicy;

struct Commit {
  size_t writer;  // Index into the writers.
  size_t chunk;   // Index into its chunks.
  // The chunk before it comes next (late): no read in between, as the
  // service reads only after a flush has delivered everything committed.
  bool late_follows = false;
};

struct Scenario {
  std::vector<SimWriter> writers;
  // Interleaved, per writer in chunk order (but for late pairs).
  std::vector<Commit> order;
  size_t max_payload = 0;
};

size_t PickSize(std::mt19937* rng) {
  const uint32_t r = (*rng)() % 100;
  if (r < 65)
    return 1 + (*rng)() % 200;
  if (r < 95)
    return 1 + (*rng)() % 20000;
  return 1 + (*rng)() % (200 * 1024);
}

// With |late_chunks|, a writer's next two chunks are sometimes committed
// the other way round (as a scraped chunk overtakes the ones its writer had
// not committed yet).
Scenario MakeScenario(uint32_t seed, int num_writers, int packets,
                      bool late_chunks = false) {
  std::mt19937 rng(seed);
  Scenario sc;
  const size_t caps[] = {1012, 2036, 4084, 16376};
  for (int w = 0; w < num_writers; w++) {
    std::vector<size_t> sizes;
    for (int i = 0; i < packets; i++)
      sizes.push_back(PickSize(&rng));
    const size_t cap = caps[rng() % 4];
    sc.max_payload = std::max(sc.max_payload, cap);
    sc.writers.push_back(test::SimulateWriter(static_cast<uint16_t>(w + 1),
                                              rng() % 1000, sizes, cap, &rng));
  }
  std::vector<size_t> next(sc.writers.size(), 0);
  for (;;) {
    std::vector<size_t> live;
    for (size_t w = 0; w < sc.writers.size(); w++) {
      if (next[w] < sc.writers[w].chunks.size())
        live.push_back(w);
    }
    if (live.empty())
      break;
    const size_t w = live[rng() % live.size()];
    if (late_chunks && next[w] + 1 < sc.writers[w].chunks.size() &&
        rng() % 4 == 0) {
      sc.order.push_back({w, next[w] + 1, true});
      sc.order.push_back({w, next[w], false});
      next[w] += 2;
      continue;
    }
    sc.order.push_back({w, next[w]++});
  }
  return sc;
}

struct Got {
  size_t index;      // Packet index within its writer.
  uint32_t dropped;  // previous_packet_dropped (DataLossReason bits).
};

// Feeds the scenario, reading at random points, and maps every packet read
// back to its writer's packet index (failing on any unknown content).
std::map<uint16_t, std::vector<Got>> Feed(const Scenario& sc, TraceBuffer* tb,
                                          uint32_t seed) {
  std::mt19937 rng(seed);
  std::map<uint16_t, std::vector<Got>> got;
  std::map<uint16_t, size_t> cursor;  // Next candidate index per writer.
  auto read = [&] {
    tb->BeginRead();
    TraceBufferPacket slices;
    while (tb->ReadNextTracePacket(&slices)) {
      const test::ReadPacket p = test::CopyOut(slices);
      ASSERT_GE(p.writer_id, 1u);
      ASSERT_LE(p.writer_id, sc.writers.size());
      const SimWriter& w = sc.writers[p.writer_id - 1u];
      size_t& c = cursor[p.writer_id];
      // Packets come in order: search forward only.
      while (c < w.packets.size() && w.packets[c].data != p.data)
        c++;
      ASSERT_LT(c, w.packets.size()) << "torn, duplicate or reordered packet";
      got[p.writer_id].push_back({c, p.previous_packet_dropped});
      c++;
    }
  };
  // Patches go out after the next chunk of the same writer, as a writer's
  // size field is finalized after it switched chunks.
  std::map<size_t, const SimChunk*> pending_patch;
  for (const Commit& cm : sc.order) {
    const SimWriter& w = sc.writers[cm.writer];
    const SimChunk& ch = w.chunks[cm.chunk];
    TraceBufferChunk copy;
    copy.producer_id = 1;
    copy.writer_id = ch.writer;
    copy.chunk_id = ch.id;
    copy.packet_count = ch.count;
    copy.flags = ch.flags;
    copy.payload = ch.payload.data();
    copy.size = ch.payload.size();
    tb->CopyChunkUntrusted(copy);
    auto it = pending_patch.find(cm.writer);
    if (it != pending_patch.end()) {
      tb->TryPatchChunkContents(1, it->second->writer, it->second->id,
                                {it->second->patch}, false);
      pending_patch.erase(it);
    }
    if (ch.has_patch)
      pending_patch[cm.writer] = &ch;
    if (rng() % 16 == 0 && !cm.late_follows)
      read();
  }
  for (const auto& it : pending_patch)
    tb->TryPatchChunkContents(1, it.second->writer, it.second->id,
                              {it.second->patch}, false);
  read();
  return got;
}

class TraceBufferRandomTest : public ::testing::TestWithParam<uint32_t> {};

void CheckDiscardReturnsEverythingOnce(uint32_t seed, bool late_chunks) {
  const Scenario sc = MakeScenario(seed, 6, 60, late_chunks);
  size_t total = 0;
  for (const SimWriter& w : sc.writers)
    total += w.chunks.size() * (sc.max_payload + 24);
  auto tb = TraceBuffer::Create(total, Policy::kDiscard);
  ASSERT_TRUE(tb);
  auto got = Feed(sc, tb.get(), seed + 1);
  for (const SimWriter& w : sc.writers) {
    const auto& g = got[w.id];
    ASSERT_EQ(g.size(), w.packets.size()) << "writer " << w.id;
    for (size_t i = 0; i < g.size(); i++) {
      EXPECT_EQ(g[i].index, i);
      EXPECT_EQ(g[i].dropped, 0u);
    }
  }
  const TraceBufferStats& st = tb->stats();
  EXPECT_EQ(st.chunks_discarded, 0u);
  EXPECT_EQ(st.abi_violations, 0u);
  EXPECT_EQ(st.trace_writer_packet_loss, 0u);
  EXPECT_EQ(st.patches_failed, 0u);
  EXPECT_EQ(st.chunks_read, st.chunks_written);
  EXPECT_EQ(st.chunks_committed_out_of_order > 0, late_chunks);
  // Everything read: read and written are in the same unit.
  EXPECT_EQ(st.bytes_read, st.bytes_written);
}

void CheckOverwriteKeepsNewestInOrder(uint32_t seed, bool late_chunks) {
  const Scenario sc = MakeScenario(seed, 5, 60, late_chunks);
  const size_t size = 96 * 1024;
  auto tb = TraceBuffer::Create(size, Policy::kOverwrite);
  ASSERT_TRUE(tb);
  auto got = Feed(sc, tb.get(), seed + 7);

  // The newest commits whose records fit in the ring minus a wrap's waste
  // cannot have been overwritten: every packet entirely inside them must
  // have come back.
  const size_t record_max = sc.max_payload + 24;
  size_t budget = size - 2 * record_max;
  std::vector<std::vector<bool>> kept(sc.writers.size());
  for (size_t w = 0; w < sc.writers.size(); w++)
    kept[w].assign(sc.writers[w].chunks.size(), false);
  for (auto it = sc.order.rbegin(); it != sc.order.rend(); ++it) {
    const size_t rec =
        sc.writers[it->writer].chunks[it->chunk].payload.size() + 24;
    if (rec > budget)
      break;
    budget -= rec;
    kept[it->writer][it->chunk] = true;
  }

  for (size_t wi = 0; wi < sc.writers.size(); wi++) {
    const SimWriter& w = sc.writers[wi];
    const auto& g = got[w.id];
    std::vector<bool> returned(w.packets.size(), false);
    for (size_t i = 0; i < g.size(); i++) {
      const bool gap =
          i == 0 ? g[i].index != 0 : g[i].index != g[i - 1].index + 1;
      // The only loss here is the ring's: exactly OVERWRITE at each gap.
      const uint32_t want = gap ? uint32_t{Packet::DATA_LOSS_PRESENT |
                                           Packet::DATA_LOSS_OVERWRITE}
                                : 0u;
      EXPECT_EQ(g[i].dropped, want)
          << "writer " << w.id << " packet " << g[i].index;
      returned[g[i].index] = true;
    }
    for (size_t k = 0; k < w.packets.size(); k++) {
      bool inside = true;
      for (size_t c = w.packets[k].first_chunk; c <= w.packets[k].last_chunk;
           c++) {
        inside = inside && kept[wi][c];
      }
      if (inside) {
        EXPECT_TRUE(returned[k]) << "writer " << w.id << " newest packet " << k;
      }
    }
  }
  const TraceBufferStats& st = tb->stats();
  EXPECT_GT(st.chunks_overwritten, 0u);
  EXPECT_EQ(st.chunks_committed_out_of_order > 0, late_chunks);
  EXPECT_EQ(st.abi_violations, 0u);
  EXPECT_EQ(st.trace_writer_packet_loss, 0u);
  EXPECT_EQ(st.chunks_discarded, 0u);
}

TEST_P(TraceBufferRandomTest, DiscardBufferReturnsEverythingOnce) {
  CheckDiscardReturnsEverythingOnce(GetParam(), /*late_chunks=*/false);
}
TEST_P(TraceBufferRandomTest, DiscardBufferReturnsEverythingOnceLateChunks) {
  CheckDiscardReturnsEverythingOnce(GetParam(), /*late_chunks=*/true);
}
TEST_P(TraceBufferRandomTest, OverwriteBufferKeepsNewestInOrder) {
  CheckOverwriteKeepsNewestInOrder(GetParam(), /*late_chunks=*/false);
}
TEST_P(TraceBufferRandomTest, OverwriteBufferKeepsNewestInOrderLateChunks) {
  CheckOverwriteKeepsNewestInOrder(GetParam(), /*late_chunks=*/true);
}

INSTANTIATE_TEST_SUITE_P(Seeds, TraceBufferRandomTest,
                         ::testing::Values(1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u));

}  // namespace
}  // namespace zt
