#include "zt/processor/trace_tokenizer.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "zt/processor/mapped_trace_file.h"
#include "zt/protozero/proto_decoder.h"

namespace zt {
namespace processor {
namespace {

// Builds encoded Traces by hand (not with protozero's writer: the test
// must not share code with what a reader of the output could get wrong).
class TraceBuilder {
 public:
  // Returns the offset of the packet's payload.
  size_t AddPacket(const std::string& payload) {
    AddKey(1, 2);
    AddVarint(payload.size());
    const size_t offset = bytes_.size();
    bytes_ += payload;
    record_ends_.push_back(bytes_.size());
    return offset;
  }
  void AddUnknownLengthDelimited(uint32_t field, const std::string& payload) {
    AddKey(field, 2);
    AddVarint(payload.size());
    bytes_ += payload;
    record_ends_.push_back(bytes_.size());
  }
  void AddUnknownVarint(uint32_t field, uint64_t value) {
    AddKey(field, 0);
    AddVarint(value);
    record_ends_.push_back(bytes_.size());
  }
  void AddUnknownFixed(uint32_t field, bool is_64) {
    AddKey(field, is_64 ? 1 : 5);
    bytes_.append(is_64 ? 8 : 4, '\x5a');
    record_ends_.push_back(bytes_.size());
  }
  void AddRaw(const std::string& raw) { bytes_ += raw; }

  const std::string& bytes() const { return bytes_; }
  const std::vector<size_t>& record_ends() const { return record_ends_; }

  static std::string Varint(uint64_t value) {
    std::string out;
    while (value >= 0x80) {
      out.push_back(static_cast<char>((value & 0x7f) | 0x80));
      value >>= 7;
    }
    out.push_back(static_cast<char>(value));
    return out;
  }

 private:
  void AddKey(uint32_t field, uint32_t wire_type) {
    AddVarint((static_cast<uint64_t>(field) << 3) | wire_type);
  }
  void AddVarint(uint64_t value) { bytes_ += Varint(value); }

  std::string bytes_;
  std::vector<size_t> record_ends_;
};

struct Tokenized {
  std::vector<PacketView> packets;
  TokenizerStats stats;
  uint64_t position = 0;
};

Tokenized Tokenize(const std::string& bytes) {
  TraceTokenizer tokenizer(bytes.data(), bytes.size());
  Tokenized out;
  PacketView packet;
  while (tokenizer.Next(&packet))
    out.packets.push_back(packet);
  // Once it has ended, it stays ended.
  EXPECT_FALSE(tokenizer.Next(&packet));
  out.stats = tokenizer.stats();
  out.position = tokenizer.position();
  return out;
}

std::string Bytes(const PacketView& packet) {
  return std::string(reinterpret_cast<const char*>(packet.data), packet.size);
}

std::string Payload(size_t size, uint32_t seed) {
  std::string out(size, '\0');
  for (size_t i = 0; i < size; i++)
    out[i] = static_cast<char>((i * 31 + seed) & 0xff);
  return out;
}

TEST(TraceTokenizerTest, EmptyInputHasNoPacketsAndNoDamage) {
  TraceTokenizer tokenizer(nullptr, 0);
  PacketView packet;
  EXPECT_FALSE(tokenizer.Next(&packet));
  EXPECT_EQ(tokenizer.stats().packets, 0u);
  EXPECT_EQ(tokenizer.stats().damage, TraceDamage::kNone);
  EXPECT_EQ(tokenizer.position(), 0u);
  EXPECT_EQ(DescribeDamage(tokenizer.stats()), "no damage");
}

// Sizes around each varint length boundary of the packet length, up to a
// 4-byte length; every view must point into the input, not at a copy.
TEST(TraceTokenizerTest, PacketsOfEverySizeAreViewsIntoTheInput) {
  std::vector<size_t> sizes;
  for (size_t size = 0; size <= 300; size++)
    sizes.push_back(size);
  for (size_t boundary : {size_t{1} << 14, size_t{1} << 21}) {
    sizes.push_back(boundary - 1);
    sizes.push_back(boundary);
    sizes.push_back(boundary + 1);
  }
  TraceBuilder builder;
  std::vector<size_t> offsets;
  for (size_t i = 0; i < sizes.size(); i++)
    offsets.push_back(
        builder.AddPacket(Payload(sizes[i], static_cast<uint32_t>(i))));
  const std::string& bytes = builder.bytes();
  Tokenized result = Tokenize(bytes);

  ASSERT_EQ(result.packets.size(), sizes.size());
  uint64_t payload_bytes = 0;
  for (size_t i = 0; i < sizes.size(); i++) {
    const PacketView& packet = result.packets[i];
    EXPECT_EQ(packet.size, sizes[i]) << "packet " << i;
    EXPECT_EQ(packet.offset, offsets[i]) << "packet " << i;
    EXPECT_EQ(packet.data,
              reinterpret_cast<const uint8_t*>(bytes.data()) + offsets[i]);
    EXPECT_EQ(Bytes(packet), Payload(sizes[i], static_cast<uint32_t>(i)))
        << "packet " << i;
    payload_bytes += sizes[i];
  }
  EXPECT_EQ(result.stats.packets, sizes.size());
  EXPECT_EQ(result.stats.packet_bytes, payload_bytes);
  EXPECT_EQ(result.stats.damage, TraceDamage::kNone);
  EXPECT_EQ(result.position, bytes.size());
}

TEST(TraceTokenizerTest, ZeroLengthPacketIsAnEmptyPacket) {
  TraceBuilder builder;
  builder.AddPacket("a");
  const size_t empty_offset = builder.AddPacket("");
  builder.AddPacket("bc");
  Tokenized result = Tokenize(builder.bytes());
  ASSERT_EQ(result.packets.size(), 3u);
  EXPECT_EQ(Bytes(result.packets[0]), "a");
  EXPECT_EQ(result.packets[1].size, 0u);
  EXPECT_EQ(result.packets[1].offset, empty_offset);
  EXPECT_EQ(Bytes(result.packets[2]), "bc");
  EXPECT_EQ(result.stats.damage, TraceDamage::kNone);
}

TEST(TraceTokenizerTest, UnknownWellFormedFieldsAreSkippedAndCounted) {
  TraceBuilder builder;
  builder.AddPacket("first");
  builder.AddUnknownVarint(2, 300);
  builder.AddUnknownFixed(3, /*is_64=*/true);
  builder.AddUnknownFixed(4, /*is_64=*/false);
  builder.AddUnknownLengthDelimited(5, "ignored");
  builder.AddUnknownVarint(1, 7);  // Field 1, but not length-delimited.
  builder.AddUnknownLengthDelimited((1u << 29) - 1,
                                    "");  // The largest field number.
  builder.AddPacket("last");
  Tokenized result = Tokenize(builder.bytes());
  ASSERT_EQ(result.packets.size(), 2u);
  EXPECT_EQ(Bytes(result.packets[0]), "first");
  EXPECT_EQ(Bytes(result.packets[1]), "last");
  EXPECT_EQ(result.stats.unknown_fields, 6u);
  // Keys and values: 1+2, 1+8, 1+4, 1+1+7, 1+1, 5+1.
  EXPECT_EQ(result.stats.unknown_field_bytes, 3u + 9 + 5 + 9 + 2 + 6);
  EXPECT_EQ(result.stats.damage, TraceDamage::kNone);
}

// Cutting a trace anywhere keeps every record that ends before the cut and
// reports the record the cut falls in: its offset, why, and the bytes left.
TEST(TraceTokenizerTest, TruncationAtEveryByteKeepsTheValidPrefix) {
  TraceBuilder builder;
  builder.AddPacket("");
  builder.AddPacket("x");
  builder.AddUnknownVarint(2, 1u << 20);
  builder.AddPacket(Payload(130, 1));  // A 2-byte length.
  builder.AddUnknownFixed(3, /*is_64=*/true);
  builder.AddPacket(Payload(5, 2));
  builder.AddUnknownFixed(4, /*is_64=*/false);
  builder.AddUnknownLengthDelimited(200, "abc");  // A 2-byte key.
  const std::string& full = builder.bytes();
  const std::vector<size_t>& ends = builder.record_ends();
  const Tokenized whole = Tokenize(full);
  ASSERT_EQ(whole.packets.size(), 4u);

  for (size_t cut = 0; cut <= full.size(); cut++) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    const std::string prefix = full.substr(0, cut);
    const Tokenized result = Tokenize(prefix);
    size_t record_start = 0;
    size_t whole_packets_before = 0;
    for (size_t end : ends) {
      if (end > cut)
        break;
      record_start = end;
    }
    for (const PacketView& packet : whole.packets)
      whole_packets_before += packet.offset + packet.size <= cut ? 1 : 0;

    ASSERT_EQ(result.packets.size(), whole_packets_before);
    for (size_t i = 0; i < result.packets.size(); i++) {
      EXPECT_EQ(result.packets[i].offset, whole.packets[i].offset);
      EXPECT_EQ(Bytes(result.packets[i]), Bytes(whole.packets[i]));
    }
    if (record_start == cut) {
      EXPECT_EQ(result.stats.damage, TraceDamage::kNone);
      EXPECT_EQ(result.position, cut);
      continue;
    }
    EXPECT_TRUE(result.stats.damage == TraceDamage::kTruncated ||
                result.stats.damage == TraceDamage::kLengthPastEnd)
        << TraceDamageName(result.stats.damage);
    EXPECT_EQ(result.stats.damage_offset, record_start);
    EXPECT_EQ(result.stats.bytes_skipped, cut - record_start);
    EXPECT_EQ(result.position, record_start);
  }
}

struct GarbageCase {
  const char* name;
  std::string bytes;
  TraceDamage damage;
};

TEST(TraceTokenizerTest, MalformedRecordsStopWithTheirReason) {
  const std::string eleven_byte_varint = std::string(10, '\x80') + '\x01';
  const std::vector<GarbageCase> cases = {
      {"field number 0", std::string("\x02\x00", 2), TraceDamage::kBadTag},
      {"wire type 3 (group start)", "\x0b", TraceDamage::kBadTag},
      {"wire type 4 (group end)", "\x0c", TraceDamage::kBadTag},
      {"wire type 6", "\x0e", TraceDamage::kBadTag},
      {"wire type 7", "\x0f", TraceDamage::kBadTag},
      {"field number 2^29",
       TraceBuilder::Varint((uint64_t{1} << 32) | 2) + '\x00',
       TraceDamage::kBadTag},
      {"11-byte key", eleven_byte_varint, TraceDamage::kBadTag},
      {"11-byte length", "\x0a" + eleven_byte_varint, TraceDamage::kBadVarint},
      {"11-byte unknown varint value", "\x10" + eleven_byte_varint,
       TraceDamage::kBadVarint},
      {"key cut", "\x80", TraceDamage::kTruncated},
      {"length cut", "\x0a\x80", TraceDamage::kTruncated},
      {"fixed64 cut", "\x09\x01\x02\x03", TraceDamage::kTruncated},
      {"fixed32 cut", "\x0d\x01", TraceDamage::kTruncated},
      {"length 2^64-1 (no pointer overflow)",
       "\x0a" + TraceBuilder::Varint(~uint64_t{0}),
       TraceDamage::kLengthPastEnd},
      {"length one past the end",
       "\x0a\x03"
       "ab",
       TraceDamage::kLengthPastEnd},
  };
  for (const GarbageCase& c : cases) {
    SCOPED_TRACE(c.name);
    TraceBuilder builder;
    builder.AddPacket("ok");
    const size_t damage_offset = builder.bytes().size();
    builder.AddRaw(c.bytes);
    // A packet after a bad tag or varint is not returned (a truncated record
    // is one at the end: bytes after it would complete it).
    const bool at_end = c.damage == TraceDamage::kTruncated ||
                        c.damage == TraceDamage::kLengthPastEnd;
    if (!at_end)
      builder.AddRaw(std::string("\x0a\x01z", 3));
    const Tokenized result = Tokenize(builder.bytes());
    ASSERT_EQ(result.packets.size(), 1u);
    EXPECT_EQ(Bytes(result.packets[0]), "ok");
    EXPECT_EQ(result.stats.damage, c.damage)
        << TraceDamageName(result.stats.damage);
    EXPECT_EQ(result.stats.damage_offset, damage_offset);
    EXPECT_EQ(result.stats.bytes_skipped,
              builder.bytes().size() - damage_offset);
  }
}

TEST(TraceTokenizerTest, DescribeDamageSaysWhereAndWhy) {
  const std::string bytes = std::string("\x0a\x02ok", 4) + "\x0a\x09short";
  const Tokenized result = Tokenize(bytes);
  EXPECT_EQ(DescribeDamage(result.stats),
            "length past the end at byte 4: 7 bytes skipped (after 1 packets)");
}

// Random bytes: the tokenizer must end, keep its views inside the input and
// in order, account for every byte, and agree with protozero's decoder
// (an independent implementation of the same wire rules) on every packet.
TEST(TraceTokenizerTest, RandomBytesAgreeWithProtozero) {
  std::mt19937 rng(12);
  for (int iteration = 0; iteration < 3000; iteration++) {
    std::string bytes(rng() % 64, '\0');
    for (char& c : bytes) {
      // Bias towards the packet key and small lengths, so that packets and
      // varied damage both occur.
      const uint32_t r = rng();
      c = static_cast<char>(r % 4 == 0 ? 0x0a
                                       : (r % 4 == 1 ? (r >> 8) % 8 : r >> 8));
    }
    const Tokenized result = Tokenize(bytes);
    protozero::ProtoDecoder decoder(bytes.data(), bytes.size());
    std::vector<std::string> reference;
    for (protozero::Field f = decoder.ReadField(); f.valid();
         f = decoder.ReadField()) {
      if (f.id() == 1 &&
          f.type() == protozero::proto_utils::ProtoWireType::kLengthDelimited)
        reference.push_back(f.as_std_string());
    }
    ASSERT_EQ(result.packets.size(), reference.size())
        << "iteration " << iteration;
    uint64_t previous_end = 0;
    for (size_t i = 0; i < reference.size(); i++) {
      EXPECT_EQ(Bytes(result.packets[i]), reference[i]);
      EXPECT_GE(result.packets[i].offset, previous_end);
      previous_end = result.packets[i].offset + result.packets[i].size;
    }
    EXPECT_LE(previous_end, bytes.size());
    EXPECT_EQ(result.stats.damage != TraceDamage::kNone, decoder.parse_error());
    EXPECT_EQ(result.position + result.stats.bytes_skipped, bytes.size());
  }
}

TEST(TraceTokenizerTest, TokenizeTraceReportsProgressToTheEnd) {
  TraceBuilder builder;
  for (uint32_t i = 0; i < 100; i++)
    builder.AddPacket(Payload(i * 7, i));
  const std::string& bytes = builder.bytes();
  std::vector<std::pair<uint64_t, uint64_t>> reports;
  std::vector<uint64_t> offsets;
  TokenizeOptions options;
  options.progress_interval_bytes = 1000;
  options.progress = [&](uint64_t done, uint64_t total) {
    reports.emplace_back(done, total);
  };
  const TokenizerStats stats = TokenizeTrace(
      bytes.data(), bytes.size(),
      [&](const PacketView& p) { offsets.push_back(p.offset); }, options);
  EXPECT_EQ(stats.packets, 100u);
  EXPECT_EQ(offsets.size(), 100u);
  ASSERT_GE(reports.size(), bytes.size() / 1000);
  for (size_t i = 0; i < reports.size(); i++) {
    EXPECT_EQ(reports[i].second, bytes.size());
    if (i > 0) {
      EXPECT_GT(reports[i].first, reports[i - 1].first);
    }
  }
  EXPECT_EQ(reports.back().first, bytes.size());
}

// The upstream fixture: a trace written by Perfetto v14's SDK. Its packets
// as the tokenizer sees them in the mapped file must be exactly those
// protozero's decoder finds in it.
TEST(TraceTokenizerTest, UpstreamV14FixtureFromAMappedFile) {
  std::string error;
  std::unique_ptr<MappedTraceFile> file = MappedTraceFile::Open(
      std::string(ZT_TEST_DATA_DIR) + "/perfetto_v14/inprocess_small.pftrace",
      &error);
  ASSERT_TRUE(file) << error;
  ASSERT_EQ(file->size(), 32526u);

  protozero::ProtoDecoder decoder(file->data(), file->size());
  std::vector<std::pair<const uint8_t*, size_t>> reference;
  size_t other_fields = 0;
  for (protozero::Field f = decoder.ReadField(); f.valid();
       f = decoder.ReadField()) {
    if (f.id() == 1)
      reference.emplace_back(f.data(), f.size());
    else
      other_fields++;
  }
  ASSERT_FALSE(decoder.parse_error());
  // Counted a third way when the fixture was added (a Python varint loop).
  EXPECT_EQ(reference.size(), 1054u);

  TraceTokenizer tokenizer(file->data(), file->size());
  PacketView packet;
  size_t i = 0;
  while (tokenizer.Next(&packet)) {
    ASSERT_LT(i, reference.size());
    EXPECT_EQ(packet.data, reference[i].first) << "packet " << i;
    EXPECT_EQ(packet.size, reference[i].second) << "packet " << i;
    i++;
  }
  EXPECT_EQ(i, reference.size());
  EXPECT_EQ(tokenizer.stats().unknown_fields, other_fields);
  EXPECT_EQ(tokenizer.stats().damage, TraceDamage::kNone);
  EXPECT_EQ(tokenizer.position(), file->size());
}

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/zt_tokenizer_XXXXXX";
    path_ = mkdtemp(pattern) ? pattern : "";
  }
  ~TempDir() {
    for (const std::string& file : files_)
      unlink(file.c_str());
    rmdir(path_.c_str());
  }
  std::string Write(const std::string& name, const std::string& contents) {
    const std::string file = path_ + "/" + name;
    FILE* f = fopen(file.c_str(), "wb");
    EXPECT_NE(f, nullptr);
    if (f) {
      fwrite(contents.data(), 1, contents.size(), f);
      fclose(f);
    }
    files_.push_back(file);
    return file;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<std::string> files_;
};

TEST(MappedTraceFileTest, MapsARegularFileAndAnEmptyOne) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  TraceBuilder builder;
  builder.AddPacket("hello");
  std::string error;
  std::unique_ptr<MappedTraceFile> file =
      MappedTraceFile::Open(dir.Write("one.pftrace", builder.bytes()), &error);
  ASSERT_TRUE(file) << error;
  ASSERT_EQ(file->size(), builder.bytes().size());
  {
    TraceTokenizer tokenizer(file->data(), file->size());
    PacketView packet;
    ASSERT_TRUE(tokenizer.Next(&packet));
    EXPECT_EQ(packet.data, file->data() + 2);  // A view into the mapping.
    EXPECT_EQ(Bytes(packet), "hello");
    EXPECT_FALSE(tokenizer.Next(&packet));
    EXPECT_EQ(tokenizer.stats().damage, TraceDamage::kNone);
  }

  std::unique_ptr<MappedTraceFile> empty =
      MappedTraceFile::Open(dir.Write("empty.pftrace", ""), &error);
  ASSERT_TRUE(empty) << error;
  EXPECT_EQ(empty->size(), 0u);
  TraceTokenizer tokenizer(empty->data(), empty->size());
  PacketView packet;
  EXPECT_FALSE(tokenizer.Next(&packet));
  EXPECT_EQ(tokenizer.stats().damage, TraceDamage::kNone);
}

// A file over 4 GiB whose first packet alone is over 4 GiB (a hole in a
// sparse file: no disk, and the tokenizer touches only the two headers'
// pages): offsets and lengths are 64-bit all the way.
TEST(MappedTraceFileTest, PacketOver4GiBInASparseFile) {
  TempDir dir;
  const uint64_t big = (uint64_t{5} << 30) + 3;
  const std::string header = "\x0a" + TraceBuilder::Varint(big);
  const std::string path = dir.Write("sparse.pftrace", header);
  const std::string tail = std::string("\x0a\x03", 2) + "end";
  FILE* f = fopen(path.c_str(), "r+b");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(fseeko(f, static_cast<off_t>(header.size() + big), SEEK_SET), 0);
  ASSERT_EQ(fwrite(tail.data(), 1, tail.size(), f), tail.size());
  fclose(f);

  std::string error;
  std::unique_ptr<MappedTraceFile> file = MappedTraceFile::Open(path, &error);
  ASSERT_TRUE(file) << error;
  ASSERT_EQ(file->size(), header.size() + big + tail.size());
  TraceTokenizer tokenizer(file->data(), file->size());
  PacketView packet;
  ASSERT_TRUE(tokenizer.Next(&packet));
  EXPECT_EQ(packet.offset, header.size());
  EXPECT_EQ(packet.size, big);
  ASSERT_TRUE(tokenizer.Next(&packet));
  EXPECT_EQ(packet.offset, header.size() + big + 2);
  EXPECT_EQ(Bytes(packet), "end");
  EXPECT_FALSE(tokenizer.Next(&packet));
  EXPECT_EQ(tokenizer.stats().damage, TraceDamage::kNone);
  EXPECT_EQ(tokenizer.stats().packet_bytes, big + 3);
}

TEST(MappedTraceFileTest, FailuresNameThePathAndTheCause) {
  TempDir dir;
  std::string error;
  const std::string missing = dir.path() + "/missing.pftrace";
  EXPECT_FALSE(MappedTraceFile::Open(missing, &error));
  EXPECT_EQ(error, missing + ": cannot open: No such file or directory");
  EXPECT_FALSE(MappedTraceFile::Open(dir.path(), &error));
  EXPECT_EQ(error, dir.path() + ": not a regular file");
}

}  // namespace
}  // namespace processor
}  // namespace zt
