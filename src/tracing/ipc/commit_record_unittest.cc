#include "src/tracing/ipc/commit_record.h"

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/tracing/ipc/commit_queue.h"

namespace zt {
namespace {

bool Decode(const std::string& bytes, CommitData* out) {
  return DecodeCommitRecord(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), out);
}

CommitData RandomCommit(std::mt19937* rng) {
  auto next = [rng](uint32_t n) { return static_cast<uint32_t>((*rng)() % n); };
  CommitData data;
  data.chunks_to_move.resize(next(20));
  for (auto& move : data.chunks_to_move)
    move = {next(1u << 20), next(16), static_cast<uint32_t>((*rng)())};
  data.chunks_to_patch.resize(next(5));
  for (auto& chunk : data.chunks_to_patch) {
    chunk.target_buffer = static_cast<uint32_t>((*rng)());
    chunk.writer_id = static_cast<uint16_t>(next(1u << 16));
    chunk.chunk_id = static_cast<uint32_t>((*rng)());
    chunk.has_more_patches = next(2) == 1;
    chunk.patches.resize(next(6));
    for (auto& patch : chunk.patches) {
      patch.offset = static_cast<uint32_t>((*rng)());
      for (auto& b : patch.data)
        b = static_cast<uint8_t>(next(256));
    }
  }
  data.flush_request_id = next(3) == 0 ? (uint64_t{(*rng)()} << 32 | (*rng)()) : 0;
  return data;
}

TEST(CommitRecordTest, RandomCommitsComeBackAsTheyWent) {
  std::mt19937 rng(42);
  std::string bytes;
  CommitData decoded;  // Reused, as the service reuses it.
  for (int i = 0; i < 5000; i++) {
    const CommitData data = RandomCommit(&rng);
    EncodeCommitRecord(data, &bytes);
    ASSERT_TRUE(Decode(bytes, &decoded)) << i;
    ASSERT_EQ(decoded, data) << i;
  }
}

TEST(CommitRecordTest, AnEmptyCommitIsSixteenBytes) {
  std::string bytes;
  EncodeCommitRecord(CommitData(), &bytes);
  EXPECT_EQ(bytes.size(), 16u);
  CommitData decoded;
  decoded.chunks_to_move.resize(3);  // Cleared by the decode.
  ASSERT_TRUE(Decode(bytes, &decoded));
  EXPECT_EQ(decoded, CommitData());
}

TEST(CommitRecordTest, EveryTruncationAndAnyExtraByteIsRefused) {
  std::mt19937 rng(7);
  CommitData data;
  while (data.chunks_to_patch.empty() || data.chunks_to_move.empty())
    data = RandomCommit(&rng);
  std::string bytes;
  EncodeCommitRecord(data, &bytes);
  CommitData decoded;
  for (size_t n = 0; n < bytes.size(); n++)
    EXPECT_FALSE(Decode(bytes.substr(0, n), &decoded)) << n << " of " << bytes.size();
  EXPECT_FALSE(Decode(bytes + '\0', &decoded));
}

TEST(CommitRecordTest, CountsBeyondTheBytesAndWideWriterIdsAreRefused) {
  CommitData data;
  data.chunks_to_patch.resize(1);
  data.chunks_to_patch[0].patches.resize(1);
  std::string bytes;
  EncodeCommitRecord(data, &bytes);
  CommitData decoded;
  ASSERT_TRUE(Decode(bytes, &decoded));
  auto with_word = [&](size_t offset, uint32_t value) {
    std::string changed = bytes;
    memcpy(&changed[offset], &value, sizeof(value));
    return changed;
  };
  EXPECT_FALSE(Decode(with_word(0, 0xFFFFFFFFu), &decoded)) << "chunks to move";
  EXPECT_FALSE(Decode(with_word(4, 0x40000000u), &decoded)) << "chunks to patch";
  EXPECT_FALSE(Decode(with_word(16 + 12, 0x7FFFFFFFu), &decoded)) << "patches";
  EXPECT_FALSE(Decode(with_word(16 + 4, 0x10000u), &decoded)) << "writer id";
  EXPECT_TRUE(Decode(with_word(16 + 12, 0x80000001u), &decoded)) << "has_more_patches";
  EXPECT_TRUE(decoded.chunks_to_patch[0].has_more_patches);
}

// --- commit_queue_fuzzer's seed corpus -------------------------------------

// Rings of the fuzzer's size (a header and 4 KiB) as a real writer leaves
// them after real records, each checked here: a reader takes every record
// back and each decodes to what was encoded. With ZT_WRITE_COMMIT_QUEUE_CORPUS
// set to a directory, each region is written there (how
// src/tracing/ipc/commit_queue_fuzzer_corpus/ was made).
CommitData SeedCommit(uint32_t n) {
  CommitData data;
  for (uint32_t i = 0; i < n; i++)
    data.chunks_to_move.push_back({i, i % 4, 1 + i % 2});
  if (n % 2) {
    CommitData::ChunkToPatch patch;
    patch.target_buffer = 1;
    patch.writer_id = static_cast<uint16_t>(n);
    patch.chunk_id = 7 * n;
    patch.patches.push_back({16, {{1, 2, 3, 4}}});
    patch.has_more_patches = n % 3 == 0;
    data.chunks_to_patch.push_back(patch);
  }
  data.flush_request_id = n % 5 == 0 ? n : 0;
  return data;
}

TEST(CommitQueueSeedCorpus, RingsOfRealRecordsReadBack) {
  constexpr size_t kRegion = kCommitQueueHeaderBytes + 4096;
  struct Seed {
    const char* name;
    int records;
    int read_first;  // Records read (and freed) before the rest are written.
  };
  const Seed kSeeds[] = {{"one_record", 1, 0}, {"several_records", 6, 0},
                         {"wrapped_ring", 24, 18}};
  const char* dir = getenv("ZT_WRITE_COMMIT_QUEUE_CORPUS");
  for (const Seed& seed : kSeeds) {
    SCOPED_TRACE(seed.name);
    std::vector<uint8_t> region(kRegion, 0);
    CommitQueueWriter writer(region.data(), region.size(), /*doorbell_fd=*/-1);
    CommitQueueReader reader(region.data(), region.size());
    std::string record, encoded;
    CommitData decoded;
    int read = 0;
    auto read_one = [&](uint32_t n) {
      ASSERT_EQ(reader.Next(1u << 30, /*any_order=*/true, &record),
                CommitQueueReader::Status::kRecord);
      ASSERT_TRUE(DecodeCommitRecord(reinterpret_cast<const uint8_t*>(record.data()),
                                     record.size(), &decoded));
      EncodeCommitRecord(SeedCommit(n), &encoded);
      EXPECT_EQ(record, encoded);
    };
    for (int i = 0; i < seed.records; i++) {
      EncodeCommitRecord(SeedCommit(static_cast<uint32_t>(i)), &encoded);
      ASSERT_TRUE(writer.Write(encoded.data(), encoded.size(), static_cast<uint32_t>(i / 2)));
      if (i < seed.read_first)
        read_one(static_cast<uint32_t>(read++));
    }
    if (dir) {
      const std::string path = std::string(dir) + "/" + seed.name;
      FILE* f = fopen(path.c_str(), "wb");
      ASSERT_NE(f, nullptr) << path;
      EXPECT_EQ(fwrite(region.data(), 1, region.size(), f), region.size());
      fclose(f);
    }
    while (read < seed.records)
      read_one(static_cast<uint32_t>(read++));
  }
}

}  // namespace
}  // namespace zt
