// The CommitDataRequest codec against the generic protozero path it
// replaced: the bytes must not change (peers, upstream's traced among them,
// see them), and the parser must accept and reject exactly what the
// generated decoders did. The reference implementations below are that old
// code, kept here as the oracle.

#include "zt/ext/tracing/core/commit_data_codec.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "zt/common/commit_data_request.pbzero.h"
#include "zt/protozero/proto_utils.h"
#include "zt/protozero/scattered_heap_buffer.h"

namespace zt {
namespace {

using protos::pbzero::CommitDataRequest;
using protos::pbzero::CommitDataRequest_ChunksToMove_Decoder;
using protos::pbzero::CommitDataRequest_ChunkToPatch_Decoder;
using protos::pbzero::CommitDataRequest_ChunkToPatch_Patch_Decoder;
using protos::pbzero::CommitDataRequest_Decoder;

std::string ReferenceSerialize(const CommitData& commit) {
  protozero::HeapBuffered<CommitDataRequest> msg;
  for (const CommitData::ChunkToMove& c : commit.chunks_to_move) {
    auto* m = msg->add_chunks_to_move();
    m->set_page(c.page);
    m->set_chunk(c.chunk);
    m->set_target_buffer(c.target_buffer);
  }
  for (const CommitData::ChunkToPatch& c : commit.chunks_to_patch) {
    auto* m = msg->add_chunks_to_patch();
    m->set_target_buffer(c.target_buffer);
    m->set_writer_id(c.writer_id);
    m->set_chunk_id(c.chunk_id);
    for (const CommitData::Patch& p : c.patches) {
      auto* pm = m->add_patches();
      pm->set_offset(p.offset);
      pm->set_data(p.data.data(), p.data.size());
    }
    if (c.has_more_patches)
      m->set_has_more_patches(true);
  }
  if (commit.flush_request_id)
    msg->set_flush_request_id(commit.flush_request_id);
  return msg.SerializeAsString();
}

bool ReferenceParse(const std::string& bytes, CommitData* out) {
  *out = CommitData();
  CommitDataRequest_Decoder req(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (req.parse_error())
    return false;
  for (auto it = req.chunks_to_move(); it; ++it) {
    CommitDataRequest_ChunksToMove_Decoder m(*it);
    if (m.parse_error() || m.has_data())
      return false;
    out->chunks_to_move.push_back({m.page(), m.chunk(), m.target_buffer()});
  }
  for (auto it = req.chunks_to_patch(); it; ++it) {
    CommitDataRequest_ChunkToPatch_Decoder m(*it);
    if (m.parse_error() || m.writer_id() > 0xFFFF)
      return false;
    CommitData::ChunkToPatch c;
    c.target_buffer = m.target_buffer();
    c.writer_id = static_cast<uint16_t>(m.writer_id());
    c.chunk_id = m.chunk_id();
    c.has_more_patches = m.has_more_patches();
    for (auto pit = m.patches(); pit; ++pit) {
      CommitDataRequest_ChunkToPatch_Patch_Decoder p(*pit);
      if (p.parse_error() || p.data().size != 4)
        return false;
      CommitData::Patch patch;
      patch.offset = p.offset();
      std::copy(p.data().data, p.data().data + 4, patch.data.begin());
      c.patches.push_back(patch);
    }
    out->chunks_to_patch.push_back(std::move(c));
  }
  out->flush_request_id = req.flush_request_id();
  return true;
}

bool Parse(const std::string& bytes, CommitData* out) {
  return ParseCommitData(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), out);
}

// Values spread over every varint length, with the edges.
uint64_t RandomValue(std::mt19937_64& rng, uint64_t max) {
  switch (rng() % 4) {
    case 0:
      return 0;
    case 1:
      return max;
    case 2:
      return rng() % 200;
  }
  const uint64_t v = rng() >> (rng() % 64);
  return max == UINT64_MAX ? v : v % (max + 1);
}

CommitData RandomCommit(std::mt19937_64& rng) {
  CommitData c;
  const size_t moves = rng() % 4 == 0 ? 0 : rng() % 20;
  for (size_t i = 0; i < moves; i++) {
    c.chunks_to_move.push_back({static_cast<uint32_t>(RandomValue(rng, UINT32_MAX)),
                                static_cast<uint32_t>(RandomValue(rng, UINT32_MAX)),
                                static_cast<uint32_t>(RandomValue(rng, UINT32_MAX))});
  }
  const size_t patched = rng() % 3 == 0 ? 0 : rng() % 6;
  for (size_t i = 0; i < patched; i++) {
    CommitData::ChunkToPatch p;
    p.target_buffer = static_cast<uint32_t>(RandomValue(rng, UINT32_MAX));
    p.writer_id = static_cast<uint16_t>(RandomValue(rng, 0xFFFF));
    p.chunk_id = static_cast<uint32_t>(RandomValue(rng, UINT32_MAX));
    const size_t patches = rng() % 5;  // 0 too: a chunk with only has_more.
    for (size_t j = 0; j < patches; j++) {
      CommitData::Patch patch;
      patch.offset = static_cast<uint32_t>(RandomValue(rng, UINT32_MAX));
      for (uint8_t& b : patch.data)
        b = static_cast<uint8_t>(rng());
      p.patches.push_back(patch);
    }
    p.has_more_patches = rng() % 2;
    c.chunks_to_patch.push_back(p);
  }
  if (rng() % 2)
    c.flush_request_id = RandomValue(rng, UINT64_MAX);
  return c;
}

TEST(CommitDataCodecTest, BytesAsTheGenericWriterWroteThem) {
  std::mt19937_64 rng(11);
  std::string reused;
  for (int i = 0; i < 5000; i++) {
    const CommitData c = RandomCommit(rng);
    const std::string expected = ReferenceSerialize(c);
    ASSERT_EQ(SerializeCommitData(c), expected) << "case " << i;
    SerializeCommitData(c, &reused);  // Longer or shorter than the last.
    ASSERT_EQ(reused, expected) << "case " << i;
  }
}

TEST(CommitDataCodecTest, EdgeCasesBytes) {
  std::vector<CommitData> cases(5);
  cases[1].flush_request_id = 1;                // A flush's answer alone.
  cases[2].flush_request_id = UINT64_MAX;       // A 10-byte varint.
  cases[3].chunks_to_patch.emplace_back();      // All zero, no patches.
  cases[4].chunks_to_patch.emplace_back();
  cases[4].chunks_to_patch[0].has_more_patches = true;
  cases[4].chunks_to_move.push_back({UINT32_MAX, UINT32_MAX, UINT32_MAX});
  for (const CommitData& c : cases) {
    EXPECT_EQ(SerializeCommitData(c), ReferenceSerialize(c));
    CommitData back;
    ASSERT_TRUE(Parse(SerializeCommitData(c), &back));
    EXPECT_TRUE(back == c);
  }
  EXPECT_EQ(SerializeCommitData(cases[0]), "");
}

TEST(CommitDataCodecTest, RoundTrip) {
  std::mt19937_64 rng(12);
  CommitData reused;
  for (int i = 0; i < 2000; i++) {
    const CommitData c = RandomCommit(rng);
    const std::string bytes = SerializeCommitData(c);
    ASSERT_TRUE(Parse(bytes, &reused));
    ASSERT_TRUE(reused == c) << "case " << i;
  }
}

// Writers' drop reports (zerotrace's field 901) round-trip, after the
// other fields, and read as the schema says.
TEST(CommitDataCodecTest, WriterDropsRoundTrip) {
  std::mt19937_64 rng(13);
  CommitData reused;
  for (int i = 0; i < 200; i++) {
    CommitData c = RandomCommit(rng);
    const size_t reports = rng() % 4;
    for (size_t r = 0; r < reports; r++) {
      CommitData::WriterDrops d;
      d.target_buffer = static_cast<uint32_t>(rng());
      d.writer_id = static_cast<uint16_t>(rng());
      d.packets = rng() >> (rng() % 64);
      c.writer_drops.push_back(d);
    }
    const std::string bytes = SerializeCommitData(c);
    ASSERT_TRUE(Parse(bytes, &reused));
    ASSERT_TRUE(reused == c) << "case " << i;
    CommitDataRequest_Decoder decoder(bytes);
    size_t seen = 0;
    for (auto it = decoder.writer_drops(); it; ++it, ++seen) {
      protos::pbzero::CommitDataRequest_WriterDrops_Decoder d(*it);
      ASSERT_LT(seen, c.writer_drops.size());
      EXPECT_EQ(d.packets(), c.writer_drops[seen].packets);
      EXPECT_EQ(d.writer_id(), c.writer_drops[seen].writer_id);
    }
    EXPECT_EQ(seen, c.writer_drops.size());
  }
}

// Hostile bytes: the parser accepts exactly what the generated decoders
// accepted, with the same values.
void ExpectSameAsReference(const std::string& bytes, CommitData* reused) {
  CommitData expected;
  const bool ok = ReferenceParse(bytes, &expected);
  ASSERT_EQ(Parse(bytes, reused), ok);
  if (ok) {
    ASSERT_TRUE(*reused == expected);
  }
}

std::string Varint(uint64_t v) {
  uint8_t buf[10];
  const uint8_t* end = protozero::proto_utils::WriteVarInt(v, buf);
  return std::string(reinterpret_cast<char*>(buf), static_cast<size_t>(end - buf));
}
std::string Tag(uint32_t id, uint32_t type) { return Varint(id << 3 | type); }
std::string Bytes(uint32_t id, const std::string& body) {
  return Tag(id, 2) + Varint(body.size()) + body;
}

TEST(CommitDataCodecTest, HandWrittenOddities) {
  const std::string patch = Bytes(1, Tag(1, 0) + Varint(7) + Bytes(2, "abcd"));
  const std::vector<std::string> inputs = {
      "",
      // Repeated scalars: the last one wins.
      Bytes(1, Tag(1, 0) + Varint(3) + Tag(1, 0) + Varint(4)),
      Tag(3, 0) + Varint(9) + Tag(3, 0) + Varint(10),
      // A scalar with a length-delimited wire type reads as 0, and the
      // reverse as empty.
      Tag(3, 2) + Varint(1) + "x",
      Tag(1, 0) + Varint(5),
      Tag(2, 0) + Varint(5),
      Bytes(2, Tag(4, 0) + Varint(1)),
      Bytes(2, Bytes(4, Tag(2, 0) + Varint(1))),
      // writer_id: over 16 bits, then not (the last counts), truncated to
      // 32 bits as the decoders did.
      Bytes(2, Tag(2, 0) + Varint(70000) + Tag(2, 0) + Varint(5)),
      Bytes(2, Tag(2, 0) + Varint(5) + Tag(2, 0) + Varint(70000)),
      Bytes(2, Tag(2, 0) + Varint((uint64_t{1} << 32) + 5)),
      // Patch data of 4 bytes, then 3 (the last counts), and the reverse.
      Bytes(2, Bytes(4, Bytes(2, "abcd") + Bytes(2, "abc"))),
      Bytes(2, Bytes(4, Bytes(2, "abc") + Bytes(2, "abcd"))),
      // Inline data, empty or with a varint type: refused either way.
      Bytes(1, Bytes(4, "")),
      Bytes(1, Tag(4, 0) + Varint(0)),
      // Unknown ids, every wire type, at each level.
      Bytes(1, Tag(9, 0) + Varint(1) + Tag(10, 1) + "12345678" + Tag(11, 5) + "1234") +
          Tag(20, 2) + Varint(0) + Bytes(2, Tag(30, 0) + Varint(2) + patch),
      // chunk_incomplete (field 5 of ChunksToMove) is ignored.
      Bytes(1, Tag(5, 0) + Varint(1)),
      // Malformed: group wire types, field id 0, lengths past the end.
      Tag(1, 3), Tag(0, 0) + Varint(1), Tag(1, 2) + Varint(100),
      Bytes(2, Tag(4, 2) + Varint(50)), Bytes(1, Tag(1, 4)),
      // A 4-byte redundant length, as the writer makes them.
      Tag(1, 2) + "\x82\x80\x80\x00" + Tag(1, 0) + Varint(1),
      patch,
      // The writers' layout with values past 32 bits (truncated), a
      // varint of 11 bytes, minimal lengths, fields out of order, a
      // has_more_patches of 2, a flush id of 0 written out.
      Bytes(1, Tag(1, 0) + Varint((uint64_t{1} << 40) + 3) + Tag(2, 0) + Varint(1) + Tag(3, 0) +
                   Varint(UINT64_MAX)),
      Bytes(1, Tag(1, 0) + std::string(10, '\x80') + "\x01" + Tag(2, 0) + Varint(1) +
                   Tag(3, 0) + Varint(1)),
      Bytes(1, Tag(2, 0) + Varint(1) + Tag(1, 0) + Varint(1) + Tag(3, 0) + Varint(1)),
      Bytes(2, Tag(1, 0) + Varint(1) + Tag(2, 0) + Varint(2) + Tag(3, 0) + Varint(3) + patch +
                   Tag(5, 0) + Varint(2)),
      Bytes(2, Tag(1, 0) + Varint(1) + Tag(2, 0) + Varint(2) + Tag(3, 0) + Varint(3) +
                   Tag(5, 0) + Varint(1) + patch),
      Bytes(2, Tag(1, 0) + Varint(1) + Tag(2, 0) + Varint(2) + Tag(3, 0) + Varint(3)) +
          Bytes(1, Tag(1, 0) + Varint(1) + Tag(2, 0) + Varint(1) + Tag(3, 0) + Varint(1)),
      Tag(3, 0) + Varint(0),
      Tag(3, 0) + Varint(5) + Bytes(1, Tag(1, 0) + Varint(1) + Tag(2, 0) + Varint(1) +
                                           Tag(3, 0) + Varint(1)),
  };
  CommitData reused;
  for (const std::string& input : inputs)
    ExpectSameAsReference(input, &reused);
}

TEST(CommitDataCodecTest, MutatedBatchesAsTheReference) {
  std::mt19937_64 rng(13);
  CommitData reused;
  for (int i = 0; i < 20000; i++) {
    std::string bytes = SerializeCommitData(RandomCommit(rng));
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !bytes.empty(); e++) {
      const size_t at = rng() % bytes.size();
      switch (rng() % 4) {
        case 0:
          bytes[at] = static_cast<char>(rng());
          break;
        case 1:
          bytes.resize(at);
          break;
        case 2:
          bytes.erase(at, 1);
          break;
        case 3:
          bytes.insert(at, 1, static_cast<char>(rng()));
          break;
      }
    }
    ExpectSameAsReference(bytes, &reused);
  }
}

TEST(CommitDataCodecTest, ReusedOutputKeepsItsMemory) {
  CommitData big;
  for (uint32_t i = 0; i < 8; i++)
    big.chunks_to_move.push_back({i, i, 1});
  for (uint32_t i = 0; i < 3; i++) {
    CommitData::ChunkToPatch p;
    p.chunk_id = i;
    p.patches.resize(4);
    big.chunks_to_patch.push_back(p);
  }
  CommitData small = big;
  small.chunks_to_move.resize(2);
  small.chunks_to_patch.resize(2);
  small.chunks_to_patch[0].patches.resize(1);

  CommitData out;
  ASSERT_TRUE(Parse(SerializeCommitData(big), &out));
  const auto* moves = out.chunks_to_move.data();
  const auto* patched = out.chunks_to_patch.data();
  const auto* first_patches = out.chunks_to_patch[0].patches.data();
  ASSERT_TRUE(Parse(SerializeCommitData(small), &out));
  EXPECT_TRUE(out == small);
  ASSERT_TRUE(Parse(SerializeCommitData(big), &out));
  EXPECT_TRUE(out == big);
  // Nothing was reallocated: the parses wrote into the first one's memory.
  EXPECT_EQ(out.chunks_to_move.data(), moves);
  EXPECT_EQ(out.chunks_to_patch.data(), patched);
  EXPECT_EQ(out.chunks_to_patch[0].patches.data(), first_patches);

  std::string bytes;
  SerializeCommitData(big, &bytes);
  const char* buffer = bytes.data();
  SerializeCommitData(small, &bytes);
  EXPECT_EQ(bytes.data(), buffer);
  EXPECT_EQ(bytes, ReferenceSerialize(small));
}

}  // namespace
}  // namespace zt
