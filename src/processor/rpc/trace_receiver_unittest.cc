#include "src/processor/rpc/trace_receiver.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <future>
#include <iterator>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "src/processor/test/gzip_for_testing.h"

namespace zt {
namespace processor {
namespace rpc {
namespace trace_receiver_test {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string Fixture(const std::string& name) { return std::string(ZT_TEST_DATA_DIR) + "/" + name; }

struct Received {
  std::unique_ptr<TraceStorage> storage;
  ImportResult result;
  std::string error;
  bool streamed = false;
};

// `bytes` appended in pieces of `piece` bytes, then the end; read as they
// come from the first byte (the fixtures are smaller than the default
// kStreamFromBytes) unless `stream_from` says otherwise.
Received Receive(const std::string& bytes, size_t piece,
                 const ImportOptions& options = ImportOptions(), uint64_t stream_from = 0) {
  Received out;
  std::unique_ptr<TraceReceiver> receiver =
      TraceReceiver::Create(options, 1 << 30, &out.error, stream_from);
  EXPECT_TRUE(receiver) << out.error;
  if (!receiver)
    return out;
  for (size_t at = 0; at < bytes.size(); at += piece) {
    EXPECT_TRUE(receiver->Append(bytes.data() + at, std::min(piece, bytes.size() - at), &out.error))
        << out.error;
  }
  EXPECT_EQ(receiver->size(), bytes.size());
  out.storage = receiver->Finish(&out.result, &out.error);
  out.streamed = receiver->streamed();
  return out;
}

void ExpectSameAsTheFile(const std::string& path, size_t piece, bool streamed) {
  SCOPED_TRACE(path + " in pieces of " + std::to_string(piece));
  std::string error;
  ImportResult want_result;
  std::unique_ptr<TraceStorage> want = ImportTraceFile(path, ImportOptions(), &want_result, &error);
  ASSERT_TRUE(want) << error;
  const Received got = Receive(ReadFile(path), piece);
  ASSERT_TRUE(got.storage) << got.error;
  EXPECT_EQ(got.streamed, streamed);
  EXPECT_GT(got.storage->slice.size(), 0u);
  EXPECT_EQ(got.storage->slice.ts, want->slice.ts);
  EXPECT_EQ(got.storage->slice.dur, want->slice.dur);
  EXPECT_EQ(got.storage->slice.name, want->slice.name);
  EXPECT_EQ(got.storage->args.key, want->args.key);
  EXPECT_EQ(got.storage->strings.size(), want->strings.size());
  EXPECT_EQ(got.result.packets_parsed, want_result.packets_parsed);
  EXPECT_EQ(got.result.format, want_result.format);
  EXPECT_EQ(got.result.gzip, want_result.gzip);
}

// A Perfetto trace is read as it comes: the Python API's 1 MiB pieces,
// and pieces that cut most records, make the file's model.
TEST(TraceReceiverTest, ProtobufTraceIsReadAsItComes) {
  for (size_t piece : {size_t{1} << 20, size_t{333}, size_t{5000}})
    ExpectSameAsTheFile(Fixture("perfetto_v14/lossy_v14.pftrace"), piece, /*streamed=*/true);
}

// A trace under kStreamFromBytes is read at its end, in Finish, with no
// thread of its own; one that grows past the threshold is read as it
// comes from then on. The model is the file's either way.
TEST(TraceReceiverTest, ASmallTraceIsReadAtItsEnd) {
  const std::string path = Fixture("perfetto_v14/lossy_v14.pftrace");
  const std::string bytes = ReadFile(path);
  ASSERT_LT(bytes.size(), TraceReceiver::kStreamFromBytes);
  std::string error;
  TraceStorage want;
  ImportTrace(bytes.data(), bytes.size(), &want);
  for (uint64_t stream_from : {TraceReceiver::kStreamFromBytes, uint64_t{bytes.size() / 2}}) {
    SCOPED_TRACE(stream_from);
    const Received got = Receive(bytes, 1000, ImportOptions(), stream_from);
    ASSERT_TRUE(got.storage) << got.error;
    EXPECT_EQ(got.streamed, stream_from < bytes.size());
    EXPECT_EQ(got.storage->slice.ts, want.slice.ts);
    EXPECT_EQ(got.storage->slice.name, want.slice.name);
  }
}

// The formats read whole are read after the end, as files are.
TEST(TraceReceiverTest, TemplightJsonAndGzipAreReadAtTheEnd) {
  ExpectSameAsTheFile(Fixture("templight/two_traces_concat.trace.pbf"), 100, false);
  ExpectSameAsTheFile(Fixture("templight/tiny.memory.trace.pbf"), 7, false);
  const std::string json = "/tmp/zt_trace_receiver_test.json";
  {
    std::ofstream out(json);
    out << R"({"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":5,"pid":1,"tid":2}]})";
  }
  ExpectSameAsTheFile(json, 3, false);
  std::remove(json.c_str());
  const std::string gz = "/tmp/zt_trace_receiver_test.pftrace.gz";
  {
    std::ofstream out(gz, std::ios::binary);
    out << GzipForTesting(ReadFile(Fixture("perfetto_v14/inprocess_small.pftrace")));
  }
  ExpectSameAsTheFile(gz, 1000, false);
  std::remove(gz.c_str());
}

// What is not a trace gets ImportTraceFile's words about it, the file
// named as the client knows it, not as /proc/self/fd/N.
TEST(TraceReceiverTest, NotATraceSaysWhatItIs) {
  const std::string twice = GzipForTesting(GzipForTesting(
      ReadFile(Fixture("perfetto_v14/inprocess_small.pftrace"))));
  const Received gzipped_twice = Receive(twice, 1000);
  EXPECT_EQ(gzipped_twice.error,
            "the trace is gzip-compressed twice; decompress it once first (gunzip -c TRACE > "
            "trace.gz)");
  for (const std::string& bytes : {std::string("hello, this is text\n"), std::string()}) {
    const Received got = Receive(bytes, 4);
    EXPECT_FALSE(got.storage);
    EXPECT_EQ(got.error.find("/proc/"), std::string::npos) << got.error;
    EXPECT_EQ(got.error.rfind("the trace is ", 0), 0u) << got.error;
  }
}

// Gzip's magic number before bytes that are not gzip (trace_importer_fuzzer
// fed such an input to the streamed import, which the receiver never
// does): read at the end, refused as the file would be.
TEST(TraceReceiverTest, GzipMagicBeforeGarbageIsNotReadAsItComes) {
  std::string bytes("\x1f\x8b\x08", 3);
  bytes.append(57, '\x09');
  const Received got = Receive(bytes, 10);
  EXPECT_FALSE(got.streamed);
  EXPECT_FALSE(got.storage);
  EXPECT_EQ(got.error.rfind("the trace ", 0), 0u) << got.error;
}

// A trace cut inside a packet (a client that stopped sending) imports
// what came before the cut, the damage counted as in the file.
TEST(TraceReceiverTest, ACutTraceKeepsItsValidPart) {
  std::string bytes = ReadFile(Fixture("perfetto_v14/inprocess_small.pftrace"));
  bytes.resize(bytes.size() - 5);
  TraceStorage want;
  const ImportResult want_result = ImportTrace(bytes.data(), bytes.size(), &want);
  const Received got = Receive(bytes, 1024);
  ASSERT_TRUE(got.storage) << got.error;
  EXPECT_TRUE(got.streamed);
  EXPECT_EQ(got.result.tokenizer.damage, TraceDamage::kLengthPastEnd);
  EXPECT_EQ(got.result.tokenizer.damage_offset, want_result.tokenizer.damage_offset);
  EXPECT_EQ(got.storage->slice.size(), want.slice.size());
  EXPECT_EQ(got.storage->data_losses.size(), want.data_losses.size());
}

TEST(TraceReceiverTest, MoreThanTheLimitIsRefusedAndWhatCameBeforeStays) {
  std::string error;
  std::unique_ptr<TraceReceiver> receiver = TraceReceiver::Create(ImportOptions(), 100, &error);
  ASSERT_TRUE(receiver) << error;
  const std::string bytes = ReadFile(Fixture("perfetto_v14/inprocess_small.pftrace"));
  ASSERT_TRUE(receiver->Append(bytes.data(), 60, &error)) << error;
  EXPECT_FALSE(receiver->Append(bytes.data() + 60, 41, &error));
  EXPECT_NE(error.find("larger than this server takes"), std::string::npos) << error;
  EXPECT_EQ(receiver->size(), 60u);
}

// A receiver dropped before the end (the server stops, the session is
// reset) ends its import at once; the test fails rather than hangs if
// it did not.
TEST(TraceReceiverTest, DroppedBeforeTheEndStopsItsImport) {
  const std::string bytes = ReadFile(Fixture("perfetto_v14/lossy_v14.pftrace"));
  for (size_t sent : {size_t{0}, size_t{100}, size_t{5000}, bytes.size()}) {
    std::string error;
    std::unique_ptr<TraceReceiver> receiver =
        TraceReceiver::Create(ImportOptions(), 1 << 30, &error, /*stream_from_bytes=*/0);
    ASSERT_TRUE(receiver) << error;
    ASSERT_TRUE(receiver->Append(bytes.data(), sent, &error)) << error;
    std::promise<void> dropped;
    std::thread dropper([&receiver, &dropped] {
      receiver.reset();
      dropped.set_value();
    });
    if (dropped.get_future().wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
      ADD_FAILURE() << "the receiver's import did not stop within 20 s";
      std::abort();
    }
    dropper.join();
  }
}

// Once finished, a receiver frees the trace's bytes by itself: keeping it
// (the session does, until the next trace) holds no copy of the trace,
// and its tables do not depend on those bytes.
TEST(TraceReceiverTest, FinishedReceiverFreesTheTraceBytes) {
  const std::string proto = ReadFile(Fixture("perfetto_v14/lossy_v14.pftrace"));
  for (const std::string& bytes : {proto, GzipForTesting(proto)})
  for (uint64_t stream_from : {uint64_t{0}, TraceReceiver::kStreamFromBytes}) {
    std::string error;
    std::unique_ptr<TraceReceiver> receiver =
        TraceReceiver::Create(ImportOptions(), 1 << 30, &error, stream_from);
    ASSERT_TRUE(receiver) << error;
    ASSERT_TRUE(receiver->Append(bytes.data(), bytes.size(), &error)) << error;
    EXPECT_GE(receiver->held_bytes(), bytes.size() / 4096 * 4096);
    ImportResult result;
    std::unique_ptr<TraceStorage> storage = receiver->Finish(&result, &error);
    ASSERT_TRUE(storage) << error;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (receiver->held_bytes() != 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(receiver->held_bytes(), 0u) << "the bytes were still held 20 s after the import";
    EXPECT_EQ(receiver->size(), bytes.size());
    // The tables stand on their own.
    ASSERT_GT(storage->slice.size(), 0u);
    EXPECT_FALSE(storage->strings.Get(storage->slice.name.back()).empty());
  }
}

}  // namespace trace_receiver_test
}  // namespace rpc
}  // namespace processor
}  // namespace zt
