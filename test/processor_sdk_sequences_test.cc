// Traces recorded in-process by our SDK, imported by the trace processor:
// interning resets (new sessions, periodic clears), several threads at
// once, sequences stored out of time order, and losses reported where they
// happened (a writer's own drop, a DISCARD buffer too small, a ring buffer
// overwritten after a read, a full shared memory buffer). Helpers:
// processor_sdk_trace_util.h.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "test/processor_sdk_trace_util.h"

namespace zt {
namespace sdk_trace_test {
namespace {

// Interned names of one sequence across resets: three sessions one after
// another (a new sequence and fresh interning each), read alone and as one
// concatenated file; every name resolves, nothing is missing.
TEST_F(ProcessorSdkTraceTest, InterningAcrossSessions) {
  std::vector<char> all;
  for (int session = 0; session < 3; session++) {
    SCOPED_TRACE(session);
    const std::vector<char> trace = RecordSimple([&] {
      // The same literals each time, so each session interns them afresh
      // with the same small ids; then a name new to this session.
      TRACE_EVENT_BEGIN("test", "outer", TraceTimestamp{kBase * (session + 1) + 1});
      TRACE_EVENT_INSTANT("gfx", "inner", TraceTimestamp{kBase * (session + 1) + 2},
                          "session", session);
      TRACE_EVENT_END("test", TraceTimestamp{kBase * (session + 1) + 3});
      if (session == 1)
        TRACE_EVENT_INSTANT("net", "only in 1", TraceTimestamp{kBase * 2 + 4});
    });
    Imported imp(trace);
    EXPECT_EQ(imp.Problems(), (std::map<std::string, int64_t>{}));
    EXPECT_EQ(imp.s().slice.size(), session == 1 ? 3u : 2u);
    all.insert(all.end(), trace.begin(), trace.end());
  }
  Imported imp(all);
  EXPECT_EQ(imp.Problems(), (std::map<std::string, int64_t>{}));
  imp.CheckConsistent();
  std::vector<std::string> rows;
  for (uint32_t i = 0; i < imp.s().slice.size(); i++) {
    rows.push_back(imp.Row(i) + " " +
                   (imp.s().slice.arg_set_id[i] == kNullId
                        ? ""
                        : imp.Args(imp.s().slice.arg_set_id[i])[0]));
  }
  auto at = [](int session, int offset) { return std::to_string(kBase * session + offset); };
  EXPECT_EQ(rows, (std::vector<std::string>{
                      "outer test ts=" + at(1, 1) + " dur=2 depth=0 parent=- ",
                      "inner gfx ts=" + at(1, 2) +
                          " dur=0 depth=1 parent=outer debug.session debug.session int 0",
                      "outer test ts=" + at(2, 1) + " dur=2 depth=0 parent=- ",
                      "inner gfx ts=" + at(2, 2) +
                          " dur=0 depth=1 parent=outer debug.session debug.session int 1",
                      "only in 1 net ts=" + at(2, 4) + " dur=0 depth=0 parent=- ",
                      "outer test ts=" + at(3, 1) + " dur=2 depth=0 parent=- ",
                      "inner gfx ts=" + at(3, 2) +
                          " dur=0 depth=1 parent=outer debug.session debug.session int 2",
                  }));
}

// The service clears incremental state every 2 ms (clear_period_ms, which
// the SDK honours by writing its reset packets again): across many
// generations, every event keeps its own name, category and argument.
TEST_F(ProcessorSdkTraceTest, PeriodicIncrementalStateClears) {
  RecordOptions options;
  options.clear_period_ms = 2;
  RawFacts raw_before_stop;
  int emitted = 0;
  const std::vector<char> trace = Record(options, [&](TracingSession*, std::vector<char>*) {
    // Emit until at least 5 clears were answered (a reset costs one cleared
    // packet per sequence); bounded by a deadline.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    for (int i = 0; std::chrono::steady_clock::now() < deadline; i++) {
      switch (i % 3) {
        case 0:
          TRACE_EVENT_BEGIN("test", "alpha", "i", i);
          break;
        case 1:
          TRACE_EVENT_INSTANT("gfx", "beta", "i", i);
          break;
        case 2:
          TRACE_EVENT_END("test");
          break;
      }
      emitted = i + 1;
      if (i % 300 == 299) {
        std::this_thread::sleep_for(std::chrono::milliseconds(3));  // Let clears come.
        if (i >= 6000 && emitted % 3 == 0)
          break;
      }
    }
  });
  const RawFacts raw = ReadRaw(trace);
  ASSERT_GE(raw.cleared_packets, 5u) << "the service's clears did not reach the trace";
  ASSERT_EQ(emitted % 3, 0) << "ended within a slice (deadline hit?)";
  Imported imp(trace);
  EXPECT_EQ(imp.Problems(), (std::map<std::string, int64_t>{}));
  EXPECT_EQ(imp.s().stats.Get(pstats::interned_data_missing_iid), 0);
  imp.CheckConsistent();
  const auto& slice = imp.s().slice;
  ASSERT_EQ(slice.size(), static_cast<size_t>(emitted / 3 * 2));
  for (uint32_t id = 0; id < slice.size(); id++) {
    const int i = static_cast<int>(id / 2 * 3 + id % 2);
    const bool is_alpha = id % 2 == 0;
    ASSERT_EQ(imp.Str(slice.name[id]), is_alpha ? "alpha" : "beta") << id;
    ASSERT_EQ(imp.Str(slice.category[id]), is_alpha ? "test" : "gfx") << id;
    ASSERT_EQ(imp.Args(slice.arg_set_id[id]),
              std::vector<std::string>{"debug.i debug.i int " + std::to_string(i)})
        << id;
    ASSERT_EQ(slice.depth[id], is_alpha ? 0u : 1u) << id;
    if (is_alpha) {
      ASSERT_GE(slice.dur[id], 0) << id;
    }
  }
}

// Four threads write nested slices with interleaved explicit times: each
// thread's slices are on its own track with its tid, nested right, and the
// table is in ts order across threads.
TEST_F(ProcessorSdkTraceTest, ThreadsWritingAtOnce) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 500;
  std::vector<int64_t> tids(kThreads);
  const std::vector<char> trace = RecordSimple([&] {
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++) {
      threads.emplace_back([&, t] {
        char name[16];
        snprintf(name, sizeof(name), "zt-writer-%d", t);
        pthread_setname_np(pthread_self(), name);
        tids[static_cast<size_t>(t)] = Tid();
        ready.fetch_add(1);
        // Start together (bounded: the others are already running).
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (ready.load() < kThreads && std::chrono::steady_clock::now() < deadline) {
        }
        for (int r = 0; r < kRounds; r++) {
          const uint64_t base = kBase + static_cast<uint64_t>(r) * 100 + static_cast<uint64_t>(t);
          TRACE_EVENT_BEGIN("test", "outer", TraceTimestamp{base}, "t", t);
          TRACE_EVENT_BEGIN("gfx", "inner", TraceTimestamp{base + 10}, "r", r);
          TRACE_EVENT_END("gfx", TraceTimestamp{base + 20});
          TRACE_EVENT_END("test", TraceTimestamp{base + 50});
        }
      });
    }
    for (auto& thread : threads)
      thread.join();
    ASSERT_EQ(ready.load(), kThreads);
  });
  Imported imp(trace);
  EXPECT_EQ(imp.Problems(), (std::map<std::string, int64_t>{}));
  imp.CheckConsistent();
  const auto& slice = imp.s().slice;
  ASSERT_EQ(slice.size(), static_cast<size_t>(kThreads * kRounds * 2));
  std::map<uint32_t, int> thread_of_track;
  for (int t = 0; t < kThreads; t++) {
    const uint32_t utid = imp.UtidOf(tids[static_cast<size_t>(t)]);
    ASSERT_NE(utid, kNullId);
    EXPECT_EQ(imp.Str(imp.s().thread.name[utid]), "zt-writer-" + std::to_string(t));
    EXPECT_EQ(imp.s().thread.upid[utid], imp.UpidOf(getpid()));
    thread_of_track[imp.ThreadTrackOf(tids[static_cast<size_t>(t)])] = t;
  }
  ASSERT_EQ(thread_of_track.size(), static_cast<size_t>(kThreads));
  // Rows in ts order: round r, thread t's outer at r*100+t, its inner at
  // r*100+t+10; outers of a round first (ts r*100+0..3), then inners.
  for (uint32_t id = 0; id < slice.size(); id++) {
    const int r = static_cast<int>(id / (2 * kThreads));
    const int k = static_cast<int>(id % (2 * kThreads));
    const int t = k % kThreads;
    const bool outer = k < kThreads;
    ASSERT_EQ(thread_of_track.at(slice.track_id[id]), t) << imp.Row(id);
    ASSERT_EQ(imp.Str(slice.name[id]), outer ? "outer" : "inner") << id;
    ASSERT_EQ(slice.ts[id] - static_cast<int64_t>(kBase), r * 100 + t + (outer ? 0 : 10));
    ASSERT_EQ(slice.dur[id], outer ? 50 : 10) << id;
    ASSERT_EQ(slice.depth[id], outer ? 0u : 1u) << id;
    ASSERT_EQ(imp.Args(slice.arg_set_id[id]),
              std::vector<std::string>{outer ? "debug.t debug.t int " + std::to_string(t)
                                             : "debug.r debug.r int " + std::to_string(r)})
        << id;
  }
}

// Four threads at "now", scoped slices nested three deep, each thread on
// its own sequence and its own clock 64: per thread track, the slices'
// ts and dur are exactly what that sequence's packets say (begins in
// order; each end closes the innermost open begin), and all is consistent.
TEST_F(ProcessorSdkTraceTest, ThreadsAtNowExactPerSequence) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 2000;
  std::vector<int64_t> tids(kThreads);
  const std::vector<char> trace = RecordSimple([&] {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++) {
      threads.emplace_back([&, t] {
        tids[static_cast<size_t>(t)] = Tid();
        for (int r = 0; r < kRounds; r++) {
          TRACE_EVENT("test", "a");
          TRACE_EVENT("gfx", "b", "r", r);
          { TRACE_EVENT("net", "c"); }
          TRACE_COUNTER("test", "progress", r);
        }
      });
    }
    for (auto& thread : threads)
      thread.join();
  });
  const RawFacts raw = ReadRaw(trace);
  ASSERT_EQ(raw.loss_marks, 0u);
  // Expected (ts, dur) per sequence, in begin order.
  std::map<uint32_t, std::vector<std::pair<int64_t, int64_t>>> expected;
  std::map<uint32_t, std::vector<size_t>> open;
  for (const RawEvent& e : RawEvents(trace)) {
    auto& rows = expected[e.sequence];
    if (e.type == 1) {
      open[e.sequence].push_back(rows.size());
      rows.emplace_back(e.ts, -1);
    } else if (e.type == 2) {
      ASSERT_FALSE(open[e.sequence].empty());
      auto& row = rows[open[e.sequence].back()];
      row.second = e.ts - row.first;
      open[e.sequence].pop_back();
    }
  }
  Imported imp(trace);
  EXPECT_EQ(imp.Problems(), (std::map<std::string, int64_t>{}));
  imp.CheckConsistent();
  const auto& slice = imp.s().slice;
  ASSERT_EQ(slice.size(), static_cast<size_t>(kThreads * kRounds * 3));
  for (int t = 0; t < kThreads; t++) {
    const int64_t tid = tids[static_cast<size_t>(t)];
    ASSERT_TRUE(raw.sequence_of_tid.count(tid));
    const uint32_t track = imp.ThreadTrackOf(tid);
    std::vector<std::pair<int64_t, int64_t>> actual;
    int depth_of[3] = {0, 0, 0};
    for (uint32_t id = 0; id < slice.size(); id++) {
      if (slice.track_id[id] != track)
        continue;
      actual.emplace_back(slice.ts[id], slice.dur[id]);
      depth_of[slice.depth[id]]++;
      const std::string name = imp.Str(slice.name[id]);
      ASSERT_EQ(name, slice.depth[id] == 0 ? "a" : slice.depth[id] == 1 ? "b" : "c") << id;
    }
    EXPECT_EQ(actual, expected[raw.sequence_of_tid.at(tid)]) << "thread " << t;
    EXPECT_EQ(depth_of[0], kRounds);
    EXPECT_EQ(depth_of[1], kRounds);
    EXPECT_EQ(depth_of[2], kRounds);
  }
  // The counter: one track, every value of every thread.
  const uint32_t progress = imp.TrackNamed("progress");
  ASSERT_NE(progress, kNullId);
  EXPECT_EQ(imp.s().counter.size(), static_cast<size_t>(kThreads * kRounds));
  std::map<double, int> values;
  for (size_t i = 0; i < imp.s().counter.size(); i++) {
    EXPECT_EQ(imp.s().counter.track_id[i], progress);
    values[imp.s().counter.value[i]]++;
    if (i > 0) {
      EXPECT_GE(imp.s().counter.ts[i], imp.s().counter.ts[i - 1]);
    }
  }
  ASSERT_EQ(values.size(), static_cast<size_t>(kRounds));
  for (const auto& v : values)
    EXPECT_EQ(v.second, kThreads) << v.first;
}

// Two sequences at "now" whose packets are in the file out of time order:
// a worker thread that starts after the main thread and exits first has its
// chunk (and its clock snapshot) stored before the main thread's. Every
// event converts through its own sequence's snapshot, none is dropped.
TEST_F(ProcessorSdkTraceTest, SequencesStoredOutOfTimeOrder) {
  uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0;
  const int64_t main_tid = Tid();
  int64_t worker_tid = 0;
  const std::vector<char> trace = RecordSimple([&] {
    t0 = BootTimeNs();
    TRACE_EVENT_INSTANT("test", "main first");
    t1 = BootTimeNs();
    worker_tid = OnNamedThread("zt-late", [] {
      for (int i = 0; i < 10; i++)
        TRACE_EVENT_INSTANT("test", "worker", "i", i);
    });  // Its chunk goes to the service at its exit.
    t2 = BootTimeNs();
    TRACE_EVENT_INSTANT("test", "main last");
    t3 = BootTimeNs();
  });
  const RawFacts raw = ReadRaw(trace);
  ASSERT_EQ(raw.sequences.size(), 2u);
  Imported imp(trace);
  EXPECT_EQ(imp.Problems(), (std::map<std::string, int64_t>{}));
  EXPECT_EQ(imp.s().stats.Get(pstats::invalid_clock_snapshots), 0);
  imp.CheckConsistent();
  const auto& slice = imp.s().slice;
  ASSERT_EQ(slice.size(), 12u);
  const uint32_t first = imp.Slice("main first");
  const uint32_t last = imp.Slice("main last");
  ASSERT_NE(last, kNullId);
  EXPECT_GE(slice.ts[first], static_cast<int64_t>(t0));
  EXPECT_LE(slice.ts[first], static_cast<int64_t>(t1));
  EXPECT_GE(slice.ts[last], static_cast<int64_t>(t2));
  EXPECT_LE(slice.ts[last], static_cast<int64_t>(t3));
  EXPECT_EQ(slice.track_id[first], imp.ThreadTrackOf(main_tid));
  const std::vector<uint32_t> worker = imp.Slices("worker");
  ASSERT_EQ(worker.size(), 10u);
  for (uint32_t id : worker) {
    EXPECT_GE(slice.ts[id], static_cast<int64_t>(t1));
    EXPECT_LE(slice.ts[id], static_cast<int64_t>(t2));
    EXPECT_EQ(slice.track_id[id], imp.ThreadTrackOf(worker_tid));
  }
}

// An event emitted inside another event's callback is not recorded: the
// SDK marks the loss on the sequence's next packet and starts its
// incremental state again there. The importer reports the mark on that
// sequence, at that packet's time, with the writer's reasons, and reads
// everything around it with the right names.
TEST_F(ProcessorSdkTraceTest, LossMarkedWhereItHappened) {
  uint64_t t0 = 0, t1 = 0, t2 = 0;
  const int64_t tid = Tid();
  const std::vector<char> trace = RecordSimple([&] {
    TRACE_EVENT_INSTANT("test", "before", TraceTimestamp{kBase + 10}, "k", 1);
    t0 = BootTimeNs();
    TRACE_EVENT_BEGIN("test", "outer", TraceTimestamp{kBase + 20}, [](EventContext&) {
      TRACE_EVENT_INSTANT("gfx", "lost");  // Not recorded: marked.
    });
    t1 = BootTimeNs();
    // The sequence's next event starts it again (the reset packet, with the
    // mark, at the time of this event).
    TRACE_EVENT_INSTANT("test", "after", TraceTimestamp{kBase + 30}, "k", 2);
    t2 = BootTimeNs();
    TRACE_EVENT_INSTANT("test", "before", TraceTimestamp{kBase + 35});
    TRACE_EVENT_END("test", TraceTimestamp{kBase + 40});
  });
  const RawFacts raw = ReadRaw(trace);
  ASSERT_EQ(raw.loss_marks, 1u);
  ASSERT_TRUE(raw.sequence_of_tid.count(tid));
  const uint32_t sequence = raw.sequence_of_tid.at(tid);
  EXPECT_EQ(raw.lossy_sequences, std::vector<uint32_t>{sequence});

  Imported imp(trace);
  imp.CheckConsistent();
  std::vector<std::string> rows;
  for (uint32_t i = 0; i < imp.s().slice.size(); i++)
    rows.push_back(imp.Row(i));
  auto at = [](int offset) { return std::to_string(kBase + offset); };
  EXPECT_EQ(rows, (std::vector<std::string>{
                      "before test ts=" + at(10) + " dur=0 depth=0 parent=-",
                      "outer test ts=" + at(20) + " dur=20 depth=0 parent=-",
                      "after test ts=" + at(30) + " dur=0 depth=1 parent=outer",
                      "before test ts=" + at(35) + " dur=0 depth=1 parent=outer",
                  }));
  EXPECT_EQ(imp.Args(imp.s().slice.arg_set_id[2]),
            std::vector<std::string>{"debug.k debug.k int 2"});
  EXPECT_EQ(imp.s().stats.Get(pstats::interned_data_missing_iid), 0);
  EXPECT_EQ(imp.s().stats.Get(pstats::incremental_state_lost_packets), 0);
  EXPECT_EQ(imp.s().stats.Get(pstats::incremental_state_recovered_packets), 0);
  // The loss: one mark, on the thread's sequence, at the reset's time
  // (after the lost event, at the next one), with the writer's causes.
  ASSERT_EQ(imp.s().data_losses.size(), 1u);
  const DataLossMark& mark = imp.s().data_losses[0];
  EXPECT_EQ(mark.sequence_id, sequence);
  EXPECT_EQ(mark.reasons, raw.loss_reasons[0]);
  EXPECT_NE(mark.reasons & 1, 0u) << mark.reasons;  // DATA_LOSS_PRESENT.
  EXPECT_GE(mark.ts, static_cast<int64_t>(t1));
  EXPECT_LE(mark.ts, static_cast<int64_t>(t2));
  EXPECT_GE(mark.ts, static_cast<int64_t>(t0));
  EXPECT_GT(mark.offset, 0u);
  EXPECT_LT(mark.offset, trace.size());
  EXPECT_EQ(imp.s().stats.GetIndexed(pstats::traced_buf_sequence_packet_loss),
            (std::map<int, int64_t>{{0, 1}}));
  // The same loss, where (the mark: one loss event) and how much (the
  // writer's count of the packets it dropped: one).
  EXPECT_EQ(imp.Problems(),
            (std::map<std::string, int64_t>{{"traced_buf_sequence_packet_loss", 1},
                                            {"traced_buf_writer_packets_dropped", 1}}));
}

// A DISCARD buffer far too small: it keeps a prefix of the sequence and
// refuses the rest. The service's stats say so; what is kept reads exactly
// (names, args, times), nested right, the one slice whose end was refused
// left open.
TEST_F(ProcessorSdkTraceTest, DiscardBufferTooSmall) {
  constexpr int kSlices = 20000;
  RecordOptions options;
  options.buffer_kb = 16;
  const std::vector<char> trace = Record(options, [&](TracingSession*, std::vector<char>*) {
    for (int i = 0; i < kSlices; i++) {
      const uint64_t ts = kBase + static_cast<uint64_t>(i) * 10;
      TRACE_EVENT_BEGIN("test", "work", TraceTimestamp{ts}, "i", i);
      TRACE_EVENT_INSTANT("gfx", "step", TraceTimestamp{ts + 2});
      TRACE_EVENT_END("test", TraceTimestamp{ts + 5});
    }
  });
  Imported imp(trace);
  imp.CheckConsistent();
  EXPECT_GT(imp.s().stats.GetIndexedTotal(pstats::traced_buf_chunks_discarded), 0);
  EXPECT_EQ(imp.s().stats.Get(pstats::interned_data_missing_iid), 0);
  const auto& slice = imp.s().slice;
  ASSERT_GT(slice.size(), 10u);
  ASSERT_LT(slice.size(), static_cast<size_t>(kSlices));
  // A prefix: work i, then its step, in order, nothing skipped.
  for (uint32_t id = 0; id < slice.size(); id++) {
    const int i = static_cast<int>(id / 2);
    const int64_t ts = static_cast<int64_t>(kBase) + i * 10;
    if (id % 2 == 0) {
      ASSERT_EQ(imp.Str(slice.name[id]), "work") << id;
      ASSERT_EQ(slice.ts[id], ts) << id;
      ASSERT_EQ(imp.Args(slice.arg_set_id[id]),
                std::vector<std::string>{"debug.i debug.i int " + std::to_string(i)});
      if (id + 2 < slice.size()) {
        ASSERT_EQ(slice.dur[id], 5) << id;
      }
    } else {
      ASSERT_EQ(imp.Str(slice.name[id]), "step") << id;
      ASSERT_EQ(slice.ts[id], ts + 2) << id;
      ASSERT_EQ(slice.parent_id[id], id - 1) << id;
    }
  }
  // The last kept "work" may have lost its end: then it is open.
  const uint32_t last_work = static_cast<uint32_t>((slice.size() - 1) / 2 * 2);
  EXPECT_EQ(imp.s().stats.Get(pstats::slices_unterminated), slice.dur[last_work] == -1 ? 1 : 0);
  EXPECT_TRUE(slice.dur[last_work] == -1 || slice.dur[last_work] == 5);
  EXPECT_TRUE(imp.s().data_losses.empty());  // Nothing came after the gap.
}

// A ring buffer read mid-way, then overwritten: the second read starts that
// sequence after a gap. The service marks the first packet after it; the
// importer reports the mark there and skips the sequence's later packets
// (their interned names may be in what was lost) instead of guessing; the
// slice open across the gap stays open.
TEST_F(ProcessorSdkTraceTest, RingBufferOverwrittenAfterARead) {
  constexpr int kFirst = 50;
  RecordOptions options;
  options.buffer_kb = 32;
  options.ring = true;
  const int64_t tid = Tid();
  const std::vector<char> trace = Record(options, [&](TracingSession* session,
                                                      std::vector<char>* out) {
    TRACE_EVENT_BEGIN("test", "across the gap", TraceTimestamp{kBase});
    for (int i = 0; i < kFirst; i++)
      TRACE_EVENT_INSTANT("test", "first", TraceTimestamp{kBase + 1 + static_cast<uint64_t>(i)}, "i", i);
    ASSERT_TRUE(session->FlushBlocking(5000)) << "flush timed out";
    *out = session->ReadTraceBlocking();  // The first part, read.
    for (int i = 0; i < 20000; i++)  // Wraps the ring many times.
      TRACE_EVENT_INSTANT("gfx", "second", "i", i);
    TRACE_EVENT_END("test");
  });
  const RawFacts raw = ReadRaw(trace);
  ASSERT_TRUE(raw.sequence_of_tid.count(tid));
  const uint32_t sequence = raw.sequence_of_tid.at(tid);
  ASSERT_EQ(raw.lossy_sequences, std::vector<uint32_t>{sequence});

  Imported imp(trace);
  imp.CheckConsistent();
  EXPECT_EQ(imp.s().stats.Get(pstats::interned_data_missing_iid), 0);
  ASSERT_FALSE(raw.cleared_after_loss);
  EXPECT_GT(raw.needing_state_after_loss, 0u);
  EXPECT_EQ(imp.s().stats.Get(pstats::incremental_state_lost_packets),
            static_cast<int64_t>(raw.needing_state_after_loss));
  EXPECT_GT(imp.s().stats.GetIndexedTotal(pstats::traced_buf_chunks_overwritten), 0);
  EXPECT_EQ(imp.s().stats.GetIndexed(pstats::traced_buf_sequence_packet_loss),
            (std::map<int, int64_t>{{0, 1}}));
  ASSERT_EQ(imp.s().data_losses.size(), 1u);
  const DataLossMark& mark = imp.s().data_losses[0];
  EXPECT_EQ(mark.sequence_id, sequence);
  EXPECT_EQ(mark.reasons, raw.loss_reasons[0]);
  EXPECT_NE(mark.reasons & 1, 0u) << mark.reasons;
  // The packet after the gap has its time as a delta on the sequence's
  // clock 64 from packets that were lost: unknown, and not guessed.
  EXPECT_EQ(mark.ts, processor::kNullInt);
  EXPECT_GT(mark.offset, 0u);
  EXPECT_LT(mark.offset, trace.size());
  // Only the first part: nothing after the gap is guessed.
  const auto& slice = imp.s().slice;
  ASSERT_EQ(slice.size(), static_cast<size_t>(kFirst + 1));
  EXPECT_EQ(imp.Row(0), "across the gap test ts=" + std::to_string(kBase) +
                            " dur=-1 depth=0 parent=-");
  for (uint32_t id = 1; id < slice.size(); id++) {
    ASSERT_EQ(imp.Row(id), "first test ts=" + std::to_string(kBase + id) +
                               " dur=0 depth=1 parent=across the gap");
    ASSERT_EQ(imp.Args(slice.arg_set_id[id]),
              std::vector<std::string>{"debug.i debug.i int " + std::to_string(id - 1)});
  }
  EXPECT_EQ(imp.s().stats.Get(pstats::slices_unterminated), 1);
}

// The shared memory buffer fills while the service cannot take chunks
// (its thread held in a flush callback, bounded): the track event writer
// stalls (up to 1 s, its policy) and then drops. The drop is marked on the
// next packet of the thread's sequence, which also starts its state again.
// Everything before reads exactly, the mark says where and why (SMB full),
// and everything after resolves its names.
TEST_F(ProcessorSdkTraceTest, SharedMemoryFullLossMarked) {
  const int64_t tid = Tid();
  const std::string payload(1000, 'x');
  int written = 0;  // "fill" events emitted before the stalled one.
  uint64_t t_release = 0, t_after = 0;
  const std::vector<char> trace = Record(RecordOptions(), [&](TracingSession* session,
                                                             std::vector<char>*) {
    TRACE_EVENT_INSTANT("test", "before", TraceTimestamp{kBase});
    std::mutex mutex;
    std::condition_variable cv;
    bool held = false, release = false;
    session->Flush([&](bool) {
      // The SDK's (and the in-process service's) thread, held until the
      // test has filled the buffer: bounded, whatever happens.
      std::unique_lock<std::mutex> lock(mutex);
      held = true;
      cv.notify_all();
      cv.wait_for(lock, std::chrono::seconds(20), [&] { return release; });
    });
    {
      std::unique_lock<std::mutex> lock(mutex);
      ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return held; }))
          << "the flush callback never ran";
    }
    // 1 MiB of shared memory: about a thousand of these fill it. The event
    // that finds no free chunk stalls for the policy's second, then drops.
    bool stalled = false;
    for (int i = 0; i < 5000 && !stalled; i++) {
      const auto start = std::chrono::steady_clock::now();
      TRACE_EVENT_INSTANT("test", "fill", TraceTimestamp{kBase + 1 + static_cast<uint64_t>(i)},
                          "i", i, "payload", payload);
      stalled = std::chrono::steady_clock::now() - start > std::chrono::milliseconds(500);
      if (!stalled)
        written = i + 1;
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      release = true;
      cv.notify_all();
    }
    ASSERT_TRUE(stalled) << "the shared memory buffer never filled";
    ASSERT_TRUE(session->FlushBlocking(10000)) << "the service did not come back";
    t_release = BootTimeNs();
    TRACE_EVENT_INSTANT("net", "after", TraceTimestamp{kBase + 10000}, "k", 1);
    t_after = BootTimeNs();
    TRACE_EVENT_INSTANT("test", "fill", TraceTimestamp{kBase + 10001}, "i", -1);
  });
  const RawFacts raw = ReadRaw(trace);
  ASSERT_TRUE(raw.sequence_of_tid.count(tid));
  const uint32_t sequence = raw.sequence_of_tid.at(tid);
  ASSERT_EQ(raw.lossy_sequences, std::vector<uint32_t>{sequence});

  Imported imp(trace);
  imp.CheckConsistent();
  EXPECT_EQ(imp.s().stats.Get(pstats::interned_data_missing_iid), 0);
  // Before the loss: "before", then every "fill" written before the stall.
  const auto& slice = imp.s().slice;
  ASSERT_GE(slice.size(), static_cast<size_t>(written + 1));
  EXPECT_EQ(imp.Str(slice.name[0]), "before");
  for (int i = 0; i < written; i++) {
    const uint32_t id = static_cast<uint32_t>(i + 1);
    ASSERT_EQ(imp.Str(slice.name[id]), "fill") << i;
    ASSERT_EQ(slice.ts[id], static_cast<int64_t>(kBase) + 1 + i);
    ASSERT_EQ(imp.Args(slice.arg_set_id[id]),
              (std::vector<std::string>{"debug.i debug.i int " + std::to_string(i),
                                        "debug.payload debug.payload string " + payload}));
  }
  // The loss: one mark on the thread's sequence, with the writer's causes
  // (present, SMB full), at the marked packet's time if it has one.
  ASSERT_EQ(imp.s().data_losses.size(), 1u);
  const DataLossMark& mark = imp.s().data_losses[0];
  EXPECT_EQ(mark.sequence_id, sequence);
  EXPECT_EQ(mark.reasons, raw.loss_reasons[0]);
  EXPECT_EQ(mark.reasons & 257, 257u) << mark.reasons;
  // The mark is on the clearing packet, at the reset's time (the next
  // event's, after the buffer had room again).
  ASSERT_TRUE(raw.marked_packet_has_time);
  EXPECT_EQ(mark.ts, static_cast<int64_t>(raw.marked_packet_time));
  EXPECT_GE(mark.ts, static_cast<int64_t>(t_release));
  EXPECT_LE(mark.ts, static_cast<int64_t>(t_after));
  EXPECT_EQ(imp.s().stats.GetIndexed(pstats::traced_buf_sequence_packet_loss),
            (std::map<int, int64_t>{{0, 1}}));
  // After it, the SDK started the sequence's state again (a packet with
  // SEQ_INCREMENTAL_STATE_CLEARED; before the fix in track_event_writer.cc
  // that clear went into a packet begun while dropping, and was lost): the
  // names resolve on the new state, nothing is skipped.
  ASSERT_TRUE(raw.cleared_after_loss) << "no clear after the loss mark";
  EXPECT_EQ(raw.needing_state_after_loss, 0u);
  EXPECT_EQ(imp.s().stats.Get(pstats::incremental_state_lost_packets), 0);
  // Our writer answers its own drop with a clear: nothing to recover.
  EXPECT_EQ(imp.s().stats.Get(pstats::incremental_state_recovered_packets), 0);
  ASSERT_EQ(slice.size(), static_cast<size_t>(written + 3));
  const uint32_t after = static_cast<uint32_t>(written + 1);
  EXPECT_EQ(imp.Row(after), "after net ts=" + std::to_string(kBase + 10000) +
                                " dur=0 depth=0 parent=-");
  EXPECT_EQ(imp.Args(slice.arg_set_id[after]),
            std::vector<std::string>{"debug.k debug.k int 1"});
  EXPECT_EQ(imp.Args(slice.arg_set_id[after + 1]),
            std::vector<std::string>{"debug.i debug.i int -1"});
}

}  // namespace
}  // namespace sdk_trace_test
}  // namespace zt
