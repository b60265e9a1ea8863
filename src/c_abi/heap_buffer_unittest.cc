#include "zt/c/abi/heap_buffer.h"

#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "zt/c/abi/pb_decoder.h"

namespace {

// What a C message writer does (upstream's pb_msg.h, our zt/c/ layer):
// append inline while the window has room, call the slow path otherwise,
// and annotate an open message's size field before leaving its range.
struct CWriter {
  PerfettoStreamWriter w;
  uint8_t* size_field = nullptr;  // The open nested message's, or null.
  bool in_nested = false;
  uint32_t nested_size = 0;

  size_t Available() const { return static_cast<size_t>(w.end - w.write_ptr); }
  void LeavingRange() {
    if (size_field && size_field >= w.begin && size_field < w.end)
      size_field = PerfettoStreamWriterAnnotatePatch(&w, size_field);
  }
  void Append(const uint8_t* bytes, size_t size) {
    if (Available() >= size) {
      memcpy(w.write_ptr, bytes, size);
      w.write_ptr += size;
    } else {
      LeavingRange();
      PerfettoStreamWriterAppendBytesSlowpath(&w, bytes, size);
    }
    if (in_nested)
      nested_size += static_cast<uint32_t>(size);
  }
  void BeginNested(uint8_t tag) {
    Append(&tag, 1);
    if (Available() < 4) {
      LeavingRange();
      PerfettoStreamWriterReserveBytesSlowpath(&w, 4);
      size_field = w.write_ptr - 4;
    } else {
      size_field = w.write_ptr;
      w.write_ptr += 4;
    }
    nested_size = 0;
    in_nested = true;
  }
  void EndNested() {
    if (size_field) {
      uint32_t v = nested_size;
      for (int i = 0; i < 4; i++) {
        size_field[i] = static_cast<uint8_t>((v & 0x7f) | (i < 3 ? 0x80 : 0));
        v >>= 7;
      }
    }
    size_field = nullptr;
    nested_size = 0;
    in_nested = false;
  }
  size_t Written() const { return w.written_previously + static_cast<size_t>(w.write_ptr - w.begin); }
};

// A nested message of |payload| bytes whose size field sits in the first
// slice and whose end is several slices later: the size is patched where
// AnnotatePatch said, and the bytes copied out decode as one field.
void CheckNestedAcrossSlices(size_t lead, size_t payload) {
  CWriter c;
  PerfettoHeapBuffer* hb = PerfettoHeapBufferCreate(&c.w);
  std::vector<uint8_t> pad(lead, 0x08);  // Varint fields "1: 8" (0x08 0x08).
  for (size_t i = 0; i + 1 < lead; i += 2)
    pad[i + 1] = 8;
  c.Append(pad.data(), pad.size() & ~size_t{1});
  c.BeginNested(0x12);  // Field 2, delimited.
  std::vector<uint8_t> data(payload);
  for (size_t i = 0; i < payload; i++)
    data[i] = static_cast<uint8_t>(i * 7);
  for (size_t done = 0; done < payload; done += 1000)
    c.Append(data.data() + done, std::min<size_t>(1000, payload - done));
  c.EndNested();
  const size_t size = c.Written();
  std::vector<uint8_t> out(size);
  PerfettoHeapBufferCopyInto(hb, &c.w, out.data(), size);
  PerfettoHeapBufferDestroy(hb, &c.w);
  EXPECT_EQ(c.w.impl, nullptr);

  PerfettoPbDecoder d = {out.data(), out.data() + out.size()};
  size_t pads = 0;
  for (;;) {
    PerfettoPbDecoderField f = PerfettoPbDecoderParseField(&d);
    if (f.status == PERFETTO_PB_DECODER_DONE)
      break;
    ASSERT_EQ(f.status, static_cast<uint32_t>(PERFETTO_PB_DECODER_OK));
    if (f.id == 1) {
      pads++;
      continue;
    }
    ASSERT_EQ(f.id, 2u);
    ASSERT_EQ(f.value.delimited.len, payload);
    EXPECT_EQ(memcmp(f.value.delimited.start, data.data(), payload), 0);
  }
  EXPECT_EQ(pads, lead / 2);
}

TEST(HeapBufferTest, NestedMessageAcrossSlices) {
  CheckNestedAcrossSlices(100, 20000);
  // The size field's reservation straddles the first slice's end.
  for (size_t lead = 4086; lead <= 4096; lead += 2)
    CheckNestedAcrossSlices(lead, 5000);
}

TEST(HeapBufferTest, CopyIntoStopsAtSize) {
  CWriter c;
  PerfettoHeapBuffer* hb = PerfettoHeapBufferCreate(&c.w);
  std::vector<uint8_t> bytes(10000);
  for (size_t i = 0; i < bytes.size(); i++)
    bytes[i] = static_cast<uint8_t>(i);
  c.Append(bytes.data(), bytes.size());
  std::vector<uint8_t> out(6000, 0xee);
  PerfettoHeapBufferCopyInto(hb, &c.w, out.data(), 5000);
  EXPECT_EQ(memcmp(out.data(), bytes.data(), 5000), 0);
  EXPECT_EQ(out[5000], 0xee);
  PerfettoHeapBufferDestroy(hb, &c.w);
}

TEST(HeapBufferTest, NewChunkMovesOnAndCountsWhatWasWritten) {
  CWriter c;
  PerfettoHeapBuffer* hb = PerfettoHeapBufferCreate(&c.w);
  const uint8_t one = 1;
  c.Append(&one, 1);
  PerfettoStreamWriterNewChunk(&c.w);
  EXPECT_EQ(c.w.written_previously, 1u);
  EXPECT_EQ(c.w.write_ptr, c.w.begin);
  c.Append(&one, 1);
  uint8_t out[2] = {0, 0};
  PerfettoHeapBufferCopyInto(hb, &c.w, out, 2);
  EXPECT_EQ(out[0], 1);
  EXPECT_EQ(out[1], 1);
  PerfettoHeapBufferDestroy(hb, &c.w);
}

TEST(HeapBufferDeathTest, AWritePointerOutsideTheRangeIsCaught) {
  CWriter c;
  PerfettoHeapBuffer* hb = PerfettoHeapBufferCreate(&c.w);
  const uint8_t one = 1;
  c.Append(&one, 1);
  c.w.write_ptr = c.w.end + 16;
  EXPECT_DEATH(PerfettoStreamWriterNewChunk(&c.w), "outside the writer's current range");
  c.w.write_ptr = c.w.begin;
  PerfettoHeapBufferDestroy(hb, &c.w);
}

}  // namespace
