// InternTable: ids in order of first use, lookups that do not give ids,
// the ids' varints as the fast paths store them, and growth keeping every
// key.

#include "src/tracing/sdk/intern_table.h"

#include <gtest/gtest.h>

#include <cstring>
#include <utility>
#include <vector>

#include "zt/protozero/proto_utils.h"

namespace zt {
namespace internal {
namespace {

// The varint a proto writer would write for |iid|, as EncodeIidVarint()
// packs it.
IidVarint ReferenceVarint(uint32_t iid) {
  uint8_t bytes[8] = {};
  const uint8_t* end = protozero::proto_utils::WriteVarInt(iid, bytes);
  uint32_t low = 0;
  memcpy(&low, bytes, 3);
  return low | static_cast<uint32_t>(end - bytes) << 24;
}

TEST(InternTableTest, EveryIidsVarintIsWhatAProtoWriterWrites) {
  for (uint32_t iid = 0; iid <= kMaxIid; iid++)
    ASSERT_EQ(EncodeIidVarint(iid), ReferenceVarint(iid)) << iid;
  static_assert(VarintSize(EncodeIidVarint(127)) == 1 && VarintSize(EncodeIidVarint(128)) == 2 &&
                    VarintSize(EncodeIidVarint(16384)) == 3,
                "sizes at the edges");
}

TEST(InternTableTest, IdsInOrderOfFirstUseAndLookupsGiveNone) {
  InternTable table;
  std::vector<int> keys(20000);
  for (size_t i = 0; i < keys.size(); i++) {
    bool is_new = false;
    EXPECT_EQ(table.Intern(&keys[i], &is_new), i + 1);
    EXPECT_TRUE(is_new);
  }
  EXPECT_EQ(table.size(), keys.size());
  // After growing past 16,384 slots, every key keeps its id and varint.
  for (size_t i = 0; i < keys.size(); i++) {
    bool is_new = true;
    ASSERT_EQ(table.Intern(&keys[i], &is_new), i + 1);
    ASSERT_FALSE(is_new);
    const InternTable::Slot* slot = table.Lookup(&keys[i]);
    ASSERT_NE(slot, nullptr);
    ASSERT_EQ(slot->iid, i + 1);
    ASSERT_EQ(slot->varint, ReferenceVarint(static_cast<uint32_t>(i + 1)));
    ASSERT_EQ(table.Find(&keys[i]), i + 1);
  }
  int other = 0;
  EXPECT_EQ(table.Lookup(&other), nullptr);
  EXPECT_EQ(table.Find(&other), 0u);
  EXPECT_FALSE(table.Contains(reinterpret_cast<uintptr_t>(&other)));
  EXPECT_EQ(table.size(), keys.size()) << "lookups give no ids";
  // At most half full: 20,000 keys in 65,536 slots of 16 bytes.
  EXPECT_EQ(table.memory_bytes(), 65536u * 16u);
}

// Key 0 marks free slots: it is never interned, has no slot and no id
// (a null StaticString once matched a free slot and wrote an empty
// name_iid).
TEST(InternTableTest, KeyZeroHasNoSlot) {
  InternTable table;
  bool is_new = true;
  EXPECT_EQ(table.Intern(uint64_t{0}, &is_new), 0u);
  EXPECT_FALSE(is_new);
  EXPECT_EQ(table.Lookup(nullptr), nullptr);
  EXPECT_EQ(table.Find(nullptr), 0u);
  EXPECT_FALSE(table.Contains(0));
  EXPECT_EQ(table.size(), 0u);
}

// Past 2^21 ids (the C ABI's track sets have no bound of their own) a
// table goes on, keeping no varint for those ids.
TEST(InternTableTest, IdsPastThreeVarintBytesKeepNoVarint) {
  InternTable table;
  bool is_new = false;
  for (uint64_t key = 1; key <= kMaxIid + 2; key++)
    ASSERT_EQ(table.Intern(key, &is_new), key);
  EXPECT_EQ(table.Lookup(reinterpret_cast<const void*>(uintptr_t{kMaxIid}))->varint,
            ReferenceVarint(kMaxIid));
  EXPECT_EQ(table.Lookup(reinterpret_cast<const void*>(uintptr_t{kMaxIid + 1}))->varint, 0u);
}

TEST(InternTableTest, AMovedFromTableIsEmptyAndUsable) {
  InternTable a;
  int keys[3];
  bool is_new = false;
  a.Intern(&keys[0], &is_new);
  a.Intern(&keys[1], &is_new);
  InternTable b(std::move(a));
  EXPECT_EQ(b.size(), 2u);
  EXPECT_EQ(b.Find(&keys[1]), 2u);
  EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move): the contract.
  EXPECT_EQ(a.Intern(&keys[2], &is_new), 1u);
  EXPECT_TRUE(is_new);
  a = std::move(b);
  EXPECT_EQ(a.Find(&keys[0]), 1u);
  EXPECT_EQ(b.Find(&keys[2]), 1u);  // b holds what a held.
}

TEST(InternTableTest, UuidKeys) {
  InternTable table;
  bool is_new = false;
  EXPECT_EQ(table.Intern(uint64_t{0xFFFFFFFFFFFFFFFFull}, &is_new), 1u);
  EXPECT_TRUE(table.Contains(0xFFFFFFFFFFFFFFFFull));
  EXPECT_FALSE(table.Contains(42));
}

// The writers' miss paths try a key's first slot inline and probe only
// when another key holds it, so the hash must leave few keys away from
// their first slot for the layouts keys come in: ids that count up (the C
// ABI's track uuids may), addresses a fixed stride apart (an array of
// strings), and literals packed back to back. A random hash leaves about
// 15% of 10,000 keys away in the table's 32,768 slots.
double ShareAwayFromTheirFirstSlot(const std::vector<uint64_t>& keys) {
  InternTable table;
  bool is_new;
  for (uint64_t key : keys)
    table.Intern(key, &is_new);
  size_t away = 0;
  for (uint64_t key : keys) {
    const void* address = reinterpret_cast<const void*>(static_cast<uintptr_t>(key));
    const InternTable::Slot* slot = table.Lookup(address);
    EXPECT_NE(slot, nullptr);
    if (slot != &table.HomeSlot(address))
      away++;
    else
      EXPECT_EQ(table.HomeSlot(address).key, key);
  }
  return static_cast<double>(away) / static_cast<double>(keys.size());
}

TEST(InternTableTest, FewKeysAwayFromTheirFirstSlotInTheLayoutsKeysComeIn) {
  std::vector<uint64_t> counting, strided, packed;
  uint64_t literal = 0x55d0c0a01230;
  uint32_t random = 1;
  for (uint64_t i = 0; i < 10000; i++) {
    counting.push_back(i + 1);
    strided.push_back(0x55d0c0a01230 + 32 * i);
    packed.push_back(literal);
    random = random * 1103515245 + 12345;
    literal += 8 + (random >> 16) % 40;  // Lengths of 8 to 47 bytes.
  }
  // Measured: 0, 0 and 14%; the product's bits 32 and up left 29%, 21% and
  // 41%; a sign-extended 32-bit multiplier left 62% of the counting keys
  // away, at 3,000 probes on average.
  EXPECT_LT(ShareAwayFromTheirFirstSlot(counting), 0.25);
  EXPECT_LT(ShareAwayFromTheirFirstSlot(strided), 0.25);
  EXPECT_LT(ShareAwayFromTheirFirstSlot(packed), 0.25);
}

}  // namespace
}  // namespace internal
}  // namespace zt
