#include "zt/protozero/scattered_stream_writer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace zt {
namespace protozero {
namespace {

using ::testing::ElementsAre;

// Hands out ranges of the given sizes (the last size repeats), filled with
// 0xcc, and records what the writer looked like on every call.
class FakeDelegate : public ScatteredStreamWriter::Delegate {
 public:
  explicit FakeDelegate(std::vector<size_t> sizes) : sizes_(std::move(sizes)) {}

  void set_writer(ScatteredStreamWriter* writer) { writer_ = writer; }

  ContiguousMemoryRange GetNewBuffer() override {
    Call call;
    if (writer_) {
      call.range_before = writer_->cur_range();
      call.write_ptr_before = writer_->write_ptr();
      call.written_before = writer_->written();
    }
    calls_.push_back(call);
    const size_t size = sizes_[std::min(chunks_.size(), sizes_.size() - 1)];
    chunks_.emplace_back(new uint8_t[size]);
    memset(chunks_.back().get(), 0xcc, size);
    ranges_.push_back({chunks_.back().get(), chunks_.back().get() + size});
    return ranges_.back();
  }

  struct Call {
    ContiguousMemoryRange range_before;
    uint8_t* write_ptr_before = nullptr;
    uint64_t written_before = 0;
  };

  // The bytes of each range up to its used end (used_end[i] for all but the
  // last range, whose end is |last_ptr|).
  std::vector<uint8_t> Concat(uint8_t* last_ptr) const {
    std::vector<uint8_t> out;
    for (size_t i = 0; i < ranges_.size(); ++i) {
      uint8_t* end = i + 1 < ranges_.size() ? calls_[i + 1].write_ptr_before
                                            : last_ptr;
      out.insert(out.end(), ranges_[i].begin, end);
    }
    return out;
  }

  const std::vector<Call>& calls() const { return calls_; }
  const std::vector<ContiguousMemoryRange>& ranges() const { return ranges_; }

 private:
  std::vector<size_t> sizes_;
  ScatteredStreamWriter* writer_ = nullptr;
  std::vector<std::unique_ptr<uint8_t[]>> chunks_;
  std::vector<ContiguousMemoryRange> ranges_;
  std::vector<Call> calls_;
};

std::vector<uint8_t> Iota(size_t n, uint8_t first = 1) {
  std::vector<uint8_t> v;
  v.reserve(n);
  for (size_t i = 0; i < n; ++i)
    v.push_back(static_cast<uint8_t>(first + i));
  return v;
}

TEST(ScatteredStreamWriterTest, StartsEmptyAndAsksOnFirstWrite) {
  FakeDelegate delegate({16});
  ScatteredStreamWriter writer(&delegate);
  delegate.set_writer(&writer);
  EXPECT_EQ(writer.written(), 0u);
  EXPECT_EQ(writer.bytes_available(), 0u);
  EXPECT_EQ(writer.delegate(), &delegate);
  EXPECT_TRUE(delegate.calls().empty());
  writer.WriteByte(0x42);
  ASSERT_EQ(delegate.calls().size(), 1u);
  EXPECT_FALSE(delegate.calls()[0].range_before.is_valid());
  EXPECT_EQ(writer.written(), 1u);
  EXPECT_EQ(writer.bytes_available(), 15u);
  EXPECT_EQ(delegate.ranges()[0].begin[0], 0x42);
}

TEST(ScatteredStreamWriterTest, FastPathStaysInOneRange) {
  FakeDelegate delegate({32});
  ScatteredStreamWriter writer(&delegate);
  delegate.set_writer(&writer);
  writer.WriteByte(0xaa);  // Gets the first range.
  const std::vector<uint8_t> data = Iota(20);
  writer.WriteBytes(data.data(), data.size());
  writer.WriteBytes(data.data(), 11);  // Exactly fills the range.
  EXPECT_EQ(delegate.calls().size(), 1u);
  EXPECT_EQ(writer.written(), 32u);
  EXPECT_EQ(writer.bytes_available(), 0u);
  EXPECT_EQ(writer.write_ptr(), delegate.ranges()[0].end);
  std::vector<uint8_t> expected = {0xaa};
  expected.insert(expected.end(), data.begin(), data.end());
  expected.insert(expected.end(), data.begin(), data.begin() + 11);
  EXPECT_EQ(delegate.Concat(writer.write_ptr()), expected);
}

TEST(ScatteredStreamWriterTest, SlowPathSplitsAcrossRangesOfEverySize) {
  // For range sizes 1..20 and payload sizes 0..70, the bytes come out in
  // order, split exactly at range ends, and written() counts them all.
  for (size_t range = 1; range <= 20;
       ++range) {
    for (size_t n = 0; n <= 70; ++n) {
      FakeDelegate delegate({range});
      ScatteredStreamWriter writer(&delegate);
      delegate.set_writer(&writer);
      writer.WriteByte(0xee);
      const std::vector<uint8_t> data = Iota(n, 3);
      writer.WriteBytes(data.data(), data.size());
      std::vector<uint8_t> expected = {0xee};
      expected.insert(expected.end(), data.begin(), data.end());
      ASSERT_EQ(delegate.Concat(writer.write_ptr()), expected)
          << "range " << range << " n " << n;
      ASSERT_EQ(writer.written(), n + 1);
      // Every range but the last was filled completely.
      const size_t expected_ranges = (n + 1 + range - 1) / range;
      ASSERT_EQ(delegate.ranges().size(), expected_ranges);
      for (size_t i = 1; i < delegate.calls().size(); ++i)
        ASSERT_EQ(delegate.calls()[i].write_ptr_before,
                  delegate.ranges()[i - 1].end);
    }
  }
}

TEST(ScatteredStreamWriterTest, VaryingRangeSizes) {
  FakeDelegate delegate({8, 9, 10, 11, 8, 100});
  ScatteredStreamWriter writer(&delegate);
  delegate.set_writer(&writer);
  const std::vector<uint8_t> data = Iota(60);
  for (size_t i = 0; i < 60; i += 6)
    writer.WriteBytes(&data[i], 6);
  EXPECT_EQ(delegate.Concat(writer.write_ptr()), data);
  EXPECT_EQ(writer.written(), 60u);
  ASSERT_EQ(delegate.ranges().size(), 6u);
  EXPECT_EQ(writer.bytes_available(), 100u - (60u - 46u));
}

TEST(ScatteredStreamWriterTest, WriteByteCrossesRanges) {
  FakeDelegate delegate({8});
  ScatteredStreamWriter writer(&delegate);
  delegate.set_writer(&writer);
  for (int i = 0; i < 20; ++i)
    writer.WriteByte(static_cast<uint8_t>(i + 1));
  EXPECT_EQ(delegate.ranges().size(), 3u);
  EXPECT_EQ(delegate.Concat(writer.write_ptr()), Iota(20));
  EXPECT_EQ(writer.written(), 20u);
}

TEST(ScatteredStreamWriterTest, DelegateSeesWritePtrInTheOldRange) {
  FakeDelegate delegate({10});
  ScatteredStreamWriter writer(&delegate);
  delegate.set_writer(&writer);
  const std::vector<uint8_t> data = Iota(7);
  writer.WriteBytes(data.data(), 7);
  // 3 bytes left; reserving 4 abandons them.
  uint8_t* reserved = writer.ReserveBytes(4);
  ASSERT_EQ(delegate.calls().size(), 2u);
  const FakeDelegate::Call& call = delegate.calls()[1];
  EXPECT_EQ(call.range_before.begin, delegate.ranges()[0].begin);
  EXPECT_EQ(call.range_before.end, delegate.ranges()[0].end);
  EXPECT_EQ(call.write_ptr_before, delegate.ranges()[0].begin + 7);
  EXPECT_EQ(call.written_before, 7u);
  EXPECT_EQ(reserved, delegate.ranges()[1].begin);
}

TEST(ScatteredStreamWriterTest, ReserveBytesIsContiguousAndSkipsShortTails) {
  for (size_t reserve = 1; reserve <= ScatteredStreamWriter::kMaxReserveSize;
       ++reserve) {
    for (size_t prefix = 0; prefix <= 12; ++prefix) {
      FakeDelegate delegate({12});
      ScatteredStreamWriter writer(&delegate);
      delegate.set_writer(&writer);
      const std::vector<uint8_t> data = Iota(prefix);
      writer.WriteBytes(data.data(), prefix);
      const size_t left = writer.bytes_available();
      const size_t written_before = writer.written();
      uint8_t* p = writer.ReserveBytes(reserve);
      // The reservation lies entirely within the current range.
      ASSERT_TRUE(writer.cur_range().Contains(p));
      ASSERT_TRUE(writer.cur_range().Contains(p + reserve - 1));
      ASSERT_EQ(writer.write_ptr(), p + reserve);
      const bool moved = left < reserve;
      ASSERT_EQ(p == delegate.ranges().back().begin, moved || prefix == 0)
          << reserve << " " << prefix;
      // Abandoned tail bytes are not counted.
      ASSERT_EQ(writer.written(), written_before + reserve);
      memset(p, 0x55, reserve);
      writer.WriteByte(0x77);
      std::vector<uint8_t> expected = data;
      expected.insert(expected.end(), reserve, 0x55);
      expected.push_back(0x77);
      ASSERT_EQ(delegate.Concat(writer.write_ptr()), expected);
    }
  }
}

TEST(ScatteredStreamWriterTest, ResetAbandonsTheRestOfTheRange) {
  FakeDelegate delegate({16});
  ScatteredStreamWriter writer(&delegate);
  uint8_t a[10];
  uint8_t b[10];
  writer.Reset({a, a + sizeof(a)});
  writer.WriteByte(1);
  writer.WriteByte(2);
  EXPECT_EQ(writer.written(), 2u);
  writer.Reset({b, b + sizeof(b)});
  EXPECT_EQ(writer.written(), 2u);
  EXPECT_EQ(writer.write_ptr(), b);
  EXPECT_EQ(writer.bytes_available(), 10u);
  writer.WriteByte(3);
  EXPECT_EQ(writer.written(), 3u);
  EXPECT_EQ(a[0], 1);
  EXPECT_EQ(a[1], 2);
  EXPECT_EQ(b[0], 3);
  EXPECT_TRUE(delegate.calls().empty());
}

TEST(ScatteredStreamWriterTest, SetWritePtrAfterDirectWrite) {
  uint8_t buf[16];
  FakeDelegate delegate({16});
  ScatteredStreamWriter writer(&delegate);
  writer.Reset({buf, buf + sizeof(buf)});
  uint8_t* p = writer.write_ptr();
  p[0] = 9;
  p[1] = 8;
  writer.set_write_ptr(p + 2);
  EXPECT_EQ(writer.written(), 2u);
  EXPECT_EQ(writer.bytes_available(), 14u);
  EXPECT_EQ(writer.end(), buf + 16);
}

TEST(ScatteredStreamWriterTest, ZeroByteWritesDoNothing) {
  FakeDelegate delegate({8});
  ScatteredStreamWriter writer(&delegate);
  delegate.set_writer(&writer);
  // With no range yet, and with a null source: no delegate call, no UB.
  writer.WriteBytes(nullptr, 0);
  EXPECT_TRUE(delegate.calls().empty());
  EXPECT_EQ(writer.written(), 0u);
  const std::vector<uint8_t> data = Iota(8);
  writer.WriteBytes(data.data(), 8);  // Fills the first range exactly.
  writer.WriteBytes(nullptr, 0);
  EXPECT_EQ(delegate.calls().size(), 1u);
  EXPECT_EQ(writer.written(), 8u);
}

TEST(ScatteredStreamWriterTest, LargeWriteOverManySmallRanges) {
  FakeDelegate delegate({8});
  ScatteredStreamWriter writer(&delegate);
  delegate.set_writer(&writer);
  std::vector<uint8_t> data(1000);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<uint8_t>(i * 7 + 3);
  writer.WriteBytes(data.data(), data.size());
  EXPECT_EQ(delegate.ranges().size(), 125u);
  EXPECT_EQ(writer.bytes_available(), 0u);
  EXPECT_EQ(delegate.Concat(writer.write_ptr()), data);
  EXPECT_EQ(writer.written(), 1000u);
}

TEST(ScatteredStreamWriterTest, OneByteRanges) {
  FakeDelegate delegate({1});
  ScatteredStreamWriter writer(&delegate);
  delegate.set_writer(&writer);
  const std::vector<uint8_t> data = Iota(5);
  writer.WriteBytes(data.data(), 5);
  writer.WriteByte(6);
  EXPECT_EQ(delegate.ranges().size(), 6u);
  EXPECT_EQ(delegate.Concat(writer.write_ptr()), Iota(6));
  EXPECT_EQ(writer.written(), 6u);
}

TEST(ScatteredStreamWriterTest, ReserveSkipsRangesTooSmallForIt) {
  FakeDelegate delegate({10, 2, 3, 1, 16});
  ScatteredStreamWriter writer(&delegate);
  delegate.set_writer(&writer);
  const std::vector<uint8_t> data = Iota(7);
  writer.WriteBytes(data.data(), 7);
  uint8_t* p = writer.ReserveBytes(4);
  // The 3-byte tail and the 2-, 3- and 1-byte ranges are abandoned unused.
  ASSERT_EQ(delegate.ranges().size(), 5u);
  EXPECT_EQ(p, delegate.ranges()[4].begin);
  EXPECT_EQ(writer.written(), 11u);
  for (size_t i = 2; i < 5; ++i) {
    // Each retry is asked with write_ptr at the start of the unused range.
    EXPECT_EQ(delegate.calls()[i].write_ptr_before,
              delegate.ranges()[i - 1].begin);
    EXPECT_EQ(delegate.calls()[i].written_before, 7u);
  }
  memcpy(p, "wxyz", 4);
  writer.WriteByte('!');
  std::vector<uint8_t> expected = data;
  for (char c : std::string("wxyz!"))
    expected.push_back(static_cast<uint8_t>(c));
  EXPECT_EQ(delegate.Concat(writer.write_ptr()), expected);
}

TEST(ScatteredStreamWriterDeathTest, EmptyRangeAborts) {
  FakeDelegate delegate({0});
  ScatteredStreamWriter writer(&delegate);
  EXPECT_DEATH(writer.WriteByte(1), "");
}

TEST(ScatteredStreamWriterDeathTest, OnlyTooSmallRangesAbort) {
  // Never a range big enough for the reservation: stops instead of looping.
  FakeDelegate delegate({3});
  ScatteredStreamWriter writer(&delegate);
  EXPECT_DEATH(writer.ReserveBytes(4), "");
}

}  // namespace
}  // namespace protozero
}  // namespace zt
