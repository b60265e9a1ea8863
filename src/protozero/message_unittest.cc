#include "zt/protozero/message.h"

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "zt/protozero/proto_decoder.h"
#include "zt/protozero/proto_utils.h"
#include "zt/protozero/scattered_heap_buffer.h"

// Counts heap allocations while g_count_allocs is set, to prove that warm
// writers do not allocate. TSan's runtime defines operator new itself, so
// under TSan the replacement (and the test using it) is left out.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ZT_TEST_UNDER_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define ZT_TEST_UNDER_TSAN 1
#endif

#if !defined(ZT_TEST_UNDER_TSAN)
namespace {
bool g_count_allocs = false;
size_t g_allocs = 0;
}  // namespace

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

void* operator new(size_t size) {
  if (g_count_allocs)
    ++g_allocs;
  if (void* p = malloc(size ? size : 1))
    return p;
  throw std::bad_alloc();
}
void* operator new[](size_t size) {
  return operator new(size);
}
void operator delete(void* p) noexcept {
  free(p);
}
void operator delete[](void* p) noexcept {
  free(p);
}
void operator delete(void* p, size_t) noexcept {
  free(p);
}
void operator delete[](void* p, size_t) noexcept {
  free(p);
}
#endif  // !ZT_TEST_UNDER_TSAN

namespace zt {
namespace protozero {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using Bytes = std::vector<uint8_t>;

// What a generated class looks like.
class Node : public Message {
 public:
  void set_i32(int32_t v) { AppendVarInt(1, v); }
  void set_str(std::string_view s) { AppendString(2, s); }
  Node* add_child() { return BeginNestedMessage<Node>(3); }
  void set_f64(double v) { AppendFixed(4, v); }
  void set_s64(int64_t v) { AppendSignedVarInt(5, v); }
  void set_fx32(uint32_t v) { AppendFixed(6, v); }
  void set_u64(uint64_t v) { AppendVarInt(7, v); }
  Node* add_far_child() { return BeginNestedMessage<Node>(100000); }
};

// Hands out chunks of the given sizes (cyclically), filled with
// 0xcc. On every switch it records how much of the old chunk was used. In
// patch mode it also plays the tracing layer: the old chunk is committed
// (copied out and freed, so a late write to it is a use-after-free under
// ASan) and the size fields of open messages inside it are redirected to
// patch slots, applied to the output afterwards.
class ChunkedDelegate : public ScatteredStreamWriter::Delegate {
 public:
  ChunkedDelegate(std::vector<size_t> sizes, bool patch)
      : sizes_(std::move(sizes)), patch_(patch) {}

  void Init(ScatteredStreamWriter* writer, Message* root) {
    writer_ = writer;
    root_ = root;
  }

  ContiguousMemoryRange GetNewBuffer() override {
    if (!chunks_.empty()) {
      const ContiguousMemoryRange old = writer_->cur_range();
      EXPECT_EQ(old.begin, chunks_.back().get());
      const size_t used = static_cast<size_t>(writer_->write_ptr() - old.begin);
      if (patch_) {
        for (Message* m = root_; m; m = m->nested_message()) {
          uint8_t* sf = m->size_field();
          if (sf && old.Contains(sf)) {
            EXPECT_LE(sf + 4, old.begin + used);
            patches_.push_back({committed_.size() + (sf - old.begin),
                                std::make_unique<uint8_t[]>(4)});
            memset(patches_.back().slot.get(), 0xee, 4);
            m->set_size_field(patches_.back().slot.get());
          }
        }
        committed_.insert(committed_.end(), old.begin, old.begin + used);
        chunks_.back().reset();  // Handed away: must not be touched again.
      } else {
        used_.push_back(used);
      }
    }
    const size_t size = sizes_[num_chunks_++ % sizes_.size()];
    chunks_.emplace_back(new uint8_t[size]);
    memset(chunks_.back().get(), 0xcc, size);
    return {chunks_.back().get(), chunks_.back().get() + size};
  }

  // Everything written, with patches applied. Call after finalizing.
  Bytes Output() const {
    Bytes out = committed_;
    for (size_t i = 0; i < chunks_.size(); ++i) {
      if (!chunks_[i])
        continue;
      const size_t used =
          i < used_.size()
              ? used_[i]
              : static_cast<size_t>(writer_->write_ptr() - chunks_[i].get());
      out.insert(out.end(), chunks_[i].get(), chunks_[i].get() + used);
    }
    for (const Patch& p : patches_)
      memcpy(&out[p.offset], p.slot.get(), 4);
    return out;
  }

  size_t num_chunks() const { return num_chunks_; }
  size_t num_patches() const { return patches_.size(); }

 private:
  struct Patch {
    size_t offset;
    std::unique_ptr<uint8_t[]> slot;
  };
  std::vector<size_t> sizes_;
  const bool patch_;
  ScatteredStreamWriter* writer_ = nullptr;
  Message* root_ = nullptr;
  size_t num_chunks_ = 0;
  std::vector<std::unique_ptr<uint8_t[]>> chunks_;
  std::vector<size_t> used_;
  Bytes committed_;
  std::vector<Patch> patches_;
};

// Chunks of |n| bytes. The writer asks again when a chunk is too small for
// a 4-byte size field reservation, so tiny sizes are mixed with 5-byte ones
// (a delegate must eventually hand out kMaxReserveSize bytes).
std::vector<size_t> Chunks(size_t n) {
  if (n >= ScatteredStreamWriter::kMaxReserveSize)
    return {n};
  return {n, n, n, 5};
}

// Writes |fn| into chunks of |sizes| and returns the finalized bytes.
Bytes Write(const std::function<void(Node*)>& fn,
            std::vector<size_t> sizes = {1 << 20},
            bool patch = false,
            size_t* num_patches = nullptr) {
  ChunkedDelegate delegate(std::move(sizes), patch);
  ScatteredStreamWriter writer(&delegate);
  RootMessage<Node> root(&writer);
  delegate.Init(&writer, &root);
  fn(&root);
  const uint32_t size = root.Finalize();
  EXPECT_EQ(size, writer.written());
  if (num_patches)
    *num_patches = delegate.num_patches();
  return delegate.Output();
}

Bytes Concat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts)
    out.insert(out.end(), p.begin(), p.end());
  return out;
}

// Reference encoding of a nested message: tag 3, 4-byte redundant size.
Bytes Nested(const Bytes& payload, uint8_t tag = 0x1a) {
  uint8_t size[4];
  proto_utils::WriteRedundantVarInt(static_cast<uint32_t>(payload.size()),
                                    size);
  return Concat({{tag}, Bytes(size, size + 4), payload});
}

TEST(MessageTest, EveryAppendKindExactBytes) {
  enum class Color : int32_t { kRed = 1, kBlack = -1 };
  const Bytes out = Write([](Node* m) {
    m->AppendVarInt(1, int32_t{42});
    m->AppendVarInt(2, int32_t{-1});
    m->AppendVarInt(3, std::numeric_limits<uint64_t>::max());
    m->AppendVarInt(4, true);
    m->AppendVarInt(5, Color::kBlack);
    m->AppendVarInt(6, int64_t{300});
    m->AppendSignedVarInt(7, int32_t{-1});
    m->AppendSignedVarInt(8, std::numeric_limits<int64_t>::min());
    m->AppendFixed(9, uint32_t{0x01020304});
    m->AppendFixed(10, 1.0);
    m->AppendFixed(11, -2.0f);
    m->AppendFixed(12, int64_t{-2});
    m->AppendBytes(13, "abc", 3);
    m->AppendString(14, std::string_view());
    m->AppendString(15, "xy");
    m->AppendVarInt(16, uint32_t{1});
    m->AppendRawProtoBytes("\x08\x07", 2);
    m->AppendVarInt(proto_utils::kMaxFieldId, uint32_t{0});
  });
  const Bytes ff9 = Bytes(9, 0xff);
  const Bytes expected = Concat({
      {0x08, 42},
      {0x10},
      ff9,
      {0x01},
      {0x18},
      ff9,
      {0x01},
      {0x20, 0x01},
      {0x28},
      ff9,
      {0x01},
      {0x30, 0xac, 0x02},
      {0x38, 0x01},
      {0x40},
      ff9,
      {0x01},
      {0x4d, 0x04, 0x03, 0x02, 0x01},
      {0x51, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f},
      {0x5d, 0x00, 0x00, 0x00, 0xc0},
      {0x61, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
      {0x6a, 0x03, 'a', 'b', 'c'},
      {0x72, 0x00},
      {0x7a, 0x02, 'x', 'y'},
      {0x80, 0x01, 0x01},
      {0x08, 0x07},
      {0xf8, 0xff, 0xff, 0xff, 0x0f, 0x00},
  });
  EXPECT_EQ(out, expected);
}

TEST(MessageTest, NestedSizeFilledOnFinalize) {
  ChunkedDelegate delegate({256}, false);
  ScatteredStreamWriter writer(&delegate);
  RootMessage<Node> root(&writer);
  delegate.Init(&writer, &root);
  root.set_i32(1);
  Node* child = root.add_child();
  EXPECT_EQ(root.nested_message(), child);
  ASSERT_NE(child->size_field(), nullptr);
  child->set_str("hello");
  EXPECT_EQ(child->Finalize(), 7u);
  EXPECT_EQ(child->size_field(), nullptr);
  EXPECT_TRUE(child->is_finalized());
  // Idempotent: same size, bytes unchanged.
  EXPECT_EQ(child->Finalize(), 7u);
  EXPECT_EQ(root.Finalize(), 14u);
  EXPECT_EQ(root.Finalize(), 14u);
  EXPECT_EQ(root.nested_message(), nullptr);
  EXPECT_EQ(
      delegate.Output(),
      Concat({{0x08, 0x01}, Nested({0x12, 0x05, 'h', 'e', 'l', 'l', 'o'})}));
}

TEST(MessageTest, ParentWriteFinalizesChild) {
  Node* child = nullptr;
  const Bytes out = Write([&](Node* m) {
    child = m->add_child();
    child->set_i32(5);
    m->set_i32(6);  // Finalizes |child|.
    EXPECT_TRUE(child->is_finalized());
    EXPECT_EQ(m->nested_message(), nullptr);
    Node* second = m->add_child();  // Reuses the arena slot.
    EXPECT_EQ(second, child);
    second->set_u64(300);
  });
  EXPECT_EQ(
      out,
      Concat({Nested({0x08, 0x05}), {0x08, 0x06}, Nested({0x38, 0xac, 0x02})}));
}

TEST(MessageTest, EveryKindOfParentWriteFinalizesChild) {
  const std::vector<std::function<void(Node*)>> writes = {
      [](Node* m) { m->set_i32(1); },
      [](Node* m) { m->set_s64(-1); },
      [](Node* m) { m->set_f64(0); },
      [](Node* m) { m->set_str("q"); },
      [](Node* m) { m->AppendRawProtoBytes("\x08\x01", 2); },
      [](Node* m) { m->add_child(); },
  };
  for (size_t i = 0; i < writes.size(); ++i) {
    Node* child = nullptr;
    const Bytes out = Write([&](Node* m) {
      child = m->add_child();
      child->set_fx32(0x11223344);
      writes[i](m);
      // A new child reuses the finalized one's arena slot.
      if (i + 1 < writes.size()) {
        EXPECT_TRUE(child->is_finalized()) << i;
      }
    });
    const Bytes first = Nested({0x35, 0x44, 0x33, 0x22, 0x11});
    ASSERT_GE(out.size(), first.size());
    EXPECT_EQ(Bytes(out.begin(), out.begin() + first.size()), first) << i;
  }
}

TEST(MessageTest, AncestorWriteFinalizesThreeLevels) {
  Node *a = nullptr, *b = nullptr, *c = nullptr;
  const Bytes out = Write([&](Node* root) {
    a = root->add_child();
    a->set_i32(1);
    b = a->add_child();
    b->set_i32(2);
    c = b->add_child();
    c->set_str("abc");
    EXPECT_EQ(root->nested_message(), a);
    EXPECT_EQ(a->nested_message(), b);
    EXPECT_EQ(b->nested_message(), c);
    EXPECT_EQ(a->arena()->depth(), 3u);
    root->set_i32(9);  // Finalizes c, b and a, innermost first.
    EXPECT_TRUE(a->is_finalized());
    EXPECT_TRUE(b->is_finalized());
    EXPECT_TRUE(c->is_finalized());
    EXPECT_EQ(root->arena()->depth(), 0u);
  });
  const Bytes c_bytes = {0x12, 0x03, 'a', 'b', 'c'};
  const Bytes b_bytes = Concat({{0x08, 0x02}, Nested(c_bytes)});
  const Bytes a_bytes = Concat({{0x08, 0x01}, Nested(b_bytes)});
  EXPECT_EQ(out, Concat({Nested(a_bytes), {0x08, 0x09}}));
}

TEST(MessageTest, MiddleWriteFinalizesOnlyDescendants) {
  const Bytes out = Write([](Node* root) {
    Node* a = root->add_child();
    Node* b = a->add_child();
    Node* c = b->add_child();
    c->set_i32(3);
    a->set_i32(1);  // Finalizes b and c, not a.
    EXPECT_TRUE(b->is_finalized());
    EXPECT_TRUE(c->is_finalized());
    EXPECT_FALSE(a->is_finalized());
    EXPECT_EQ(root->nested_message(), a);
    a->set_str("z");
  });
  const Bytes b_bytes = Nested({0x08, 0x03});
  EXPECT_EQ(out,
            Nested(Concat({Nested(b_bytes), {0x08, 0x01}, {0x12, 0x01, 'z'}})));
}

TEST(MessageTest, EmptyNestedAndFarFieldId) {
  const Bytes out = Write([](Node* root) {
    root->add_child();
    root->add_far_child()->set_i32(1);
  });
  // Field 100000, wire type 2: tag 800002 = 0x82 0xea 0x30.
  EXPECT_EQ(out, Concat({Nested({}),
                         {0x82, 0xea, 0x30},
                         Bytes{0x82, 0x80, 0x80, 0x00, 0x08, 0x01}}));
}

// Recursively writes |depth| levels, each with a varint and a string, and
// returns the reference encoding of the same.
Bytes WriteDeep(Node* m, int level, int depth) {
  m->set_i32(level);
  m->set_str(std::string(static_cast<size_t>(level % 5), 'a'));
  Bytes own = {0x08, static_cast<uint8_t>(level), 0x12,
               static_cast<uint8_t>(level % 5)};
  own.insert(own.end(), static_cast<size_t>(level % 5), 'a');
  if (level + 1 < depth)
    own = Concat({own, Nested(WriteDeep(m->add_child(), level + 1, depth))});
  return own;
}

TEST(MessageTest, DeepNestingBeyondInlineArena) {
  for (int depth : {1, 8, 15, 16, 17, 18, 48, 49, 100}) {
    Bytes expected;
    const Bytes out = Write([&](Node* root) {
      expected = WriteDeep(root, 0, depth);
      EXPECT_EQ(root->arena()->depth(), static_cast<size_t>(depth - 1));
    });
    EXPECT_EQ(out, expected) << depth;
  }
}

TEST(MessageTest, DeepNestingWithTinyChunks) {
  for (size_t chunk = 1; chunk <= 24; ++chunk) {
    Bytes expected;
    const Bytes out = Write(
        [&](Node* root) { expected = WriteDeep(root, 0, 40); }, Chunks(chunk));
    ASSERT_EQ(out, expected) << chunk;
  }
}

#if !defined(ZT_TEST_UNDER_TSAN)
TEST(MessageTest, ArenaIsReusedWithoutAllocating) {
  HeapBuffered<Node> msg(1 << 16, 1 << 16);
  auto write_deep = [&] {
    Node* m = msg.get();
    for (int i = 0; i < 70; ++i) {
      m = m->add_child();
      m->set_i32(i);
    }
    msg->set_i32(1);  // Unwinds all 70 levels.
    EXPECT_EQ(msg->arena()->depth(), 0u);
  };
  write_deep();  // Warms up the slice and the arena overflow blocks.
  g_allocs = 0;
  g_count_allocs = true;
  write_deep();
  write_deep();
  g_count_allocs = false;
  EXPECT_EQ(g_allocs, 0u);
}
#endif  // !ZT_TEST_UNDER_TSAN

// A workload touching every kind of write, nesting and length.
void Workload(Node* root) {
  root->set_i32(-5);
  root->set_str(std::string_view());  // Null data, zero size.
  root->set_str(std::string(300, 'x'));
  for (int i = 0; i < 6; ++i) {
    Node* c = root->add_child();
    c->set_u64(uint64_t{1} << (i * 11));
    c->AppendRawProtoBytes(nullptr, 0);
    c->set_str(std::string_view());
    c->set_str(
        std::string(static_cast<size_t>(i * 7), static_cast<char>('a' + i)));
    Node* g = c->add_child();
    g->set_f64(i * 1.5);
    g->add_child();  // Empty.
    g->set_s64(-i);
    Node* h = g->add_far_child();
    h->set_fx32(static_cast<uint32_t>(i));
    if (i % 2)
      c->set_i32(i);  // Ancestor write finalizes g and h.
    Node* d = c;
    for (int k = 0; k < 12; ++k) {
      d = d->add_child();
      d->set_i32(k);
    }
  }
  root->AppendRawProtoBytes(std::string(40, '\x08').data(), 40);
  root->add_child()->set_str(std::string(1000, 'q'));
  root->set_i32(7);
}

TEST(MessageTest, ScatteredOutputEqualsContiguous) {
  const Bytes contiguous = Write(Workload);
  ASSERT_GT(contiguous.size(), 2000u);
  for (size_t chunk = 1; chunk <= 64; ++chunk) {
    ASSERT_EQ(Write(Workload, Chunks(chunk)), contiguous) << chunk;
  }
  ASSERT_EQ(Write(Workload, {8, 9, 31, 1, 2, 3, 200, 13, 8, 17, 1000, 11, 5}),
            contiguous);
}

TEST(MessageTest, PatchHookRedirectsSizeFieldsOfCommittedChunks) {
  const Bytes contiguous = Write(Workload);
  for (size_t chunk = 1; chunk <= 64; chunk += 1) {
    size_t patches = 0;
    ASSERT_EQ(Write(Workload, Chunks(chunk), /*patch=*/true, &patches),
              contiguous)
        << chunk;
    // Small chunks leave many messages open across a boundary.
    if (chunk <= 32) {
      EXPECT_GT(patches, 10u) << chunk;
    }
  }
}

TEST(MessageTest, PatchHookWithDeepNesting) {
  for (size_t chunk = 1; chunk <= 20; ++chunk) {
    Bytes expected;
    size_t patches = 0;
    const Bytes out = Write(
        [&](Node* root) { expected = WriteDeep(root, 0, 60); }, Chunks(chunk),
        /*patch=*/true, &patches);
    ASSERT_EQ(out, expected) << chunk;
    EXPECT_GE(patches, 30u);
  }
}

// Decodes the single nested field at the start of |out| and returns its
// payload size as recorded in the 4-byte size field.
uint64_t DecodeSizeField(const Bytes& out) {
  EXPECT_GE(out.size(), 5u);
  EXPECT_EQ(out[0], 0x1a);
  uint64_t size = 0;
  EXPECT_EQ(proto_utils::ParseVarInt(out.data() + 1, out.data() + 5, &size),
            out.data() + 5);
  return size;
}

TEST(MessageTest, SizeBackPatchingBoundaries) {
  const size_t sizes[] = {
      0, 1, 127, 128, 16383, 16384, (1u << 21) - 1, 1u << 21, 16u << 20};
  for (size_t n : sizes) {
    for (size_t slice : {size_t{8}, size_t{128}}) {
      if (n > (1u << 21) && slice == 8)
        continue;  // Too slow with 8-byte slices and no extra coverage.
      HeapBuffered<Node> msg(slice, 128 * 1024);
      Node* child = msg->add_child();
      Bytes payload(n);
      for (size_t i = 0; i < n; ++i)
        payload[i] = static_cast<uint8_t>(i * 13);
      child->AppendRawProtoBytes(payload.data(), payload.size());
      EXPECT_EQ(child->Finalize(), n);
      const Bytes out = msg.SerializeAsArray();
      ASSERT_EQ(out.size(), 5 + n);
      EXPECT_EQ(DecodeSizeField(out), n) << n;
      EXPECT_TRUE(std::equal(out.begin() + 5, out.end(), payload.begin()));
      ProtoDecoder dec(out.data(), out.size());
      const Field f = dec.ReadField();
      EXPECT_EQ(f.id(), 3u);
      EXPECT_EQ(f.size(), n);
      EXPECT_FALSE(dec.ReadField().valid());
      EXPECT_FALSE(dec.parse_error());
    }
  }
}

TEST(MessageTest, SizeBackPatchingThroughNestedLevels) {
  // A 16 MiB string two levels down: both sizes must account for it.
  HeapBuffered<Node> msg;
  Node* a = msg->add_child();
  Node* b = a->add_child();
  const std::string big(16u << 20, 'k');
  b->set_str(big);
  const Bytes out = msg.SerializeAsArray();
  // b: tag(1) + len varint(4 bytes for 2^24) + data.
  const uint64_t b_size = 1 + 4 + big.size();
  EXPECT_EQ(DecodeSizeField(out), b_size + 5);
  const Bytes inner(out.begin() + 5, out.begin() + 10);
  EXPECT_EQ(DecodeSizeField(inner), b_size);
  EXPECT_EQ(out.size(), 10 + b_size);
}

TEST(MessageTest, RootWithoutWriterFinalizesToZero) {
  RootMessage<Node> root;
  EXPECT_EQ(root.Finalize(), 0u);
  EXPECT_EQ(root.size_field(), nullptr);
  EXPECT_EQ(root.stream_writer(), nullptr);
}

TEST(MessageTest, RootResetStartsAtCurrentPosition) {
  ChunkedDelegate delegate({64}, false);
  ScatteredStreamWriter writer(&delegate);
  RootMessage<Node> root(&writer);
  delegate.Init(&writer, &root);
  root.set_i32(1);
  root.add_child()->add_child();
  EXPECT_EQ(root.Finalize(), 12u);
  root.Reset(&writer);
  EXPECT_EQ(root.arena()->depth(), 0u);
  EXPECT_FALSE(root.is_finalized());
  root.set_str("ab");
  EXPECT_EQ(root.Finalize(), 4u);
  EXPECT_EQ(writer.written(), 16u);
}

// Hands out one reusable buffer forever: lets a test write gigabytes
// without keeping them.
class DiscardingDelegate : public ScatteredStreamWriter::Delegate {
 public:
  ContiguousMemoryRange GetNewBuffer() override {
    return {buf_.get(), buf_.get() + kSize};
  }

 private:
  static constexpr size_t kSize = 1 << 20;
  std::unique_ptr<uint8_t[]> buf_{new uint8_t[kSize]};
};

TEST(MessageDeathTest, NestedMessageBeyondMaxLengthIsFatalNotCorrupt) {
  // 256 MiB cannot be written in a 4-byte size field: rather than write a
  // truncated size (silently corrupting the stream), Finalize() stops.
  auto write_oversized = [] {
    DiscardingDelegate delegate;
    ScatteredStreamWriter writer(&delegate);
    RootMessage<Node> root(&writer);
    Node* child = root.add_child();
    std::vector<uint8_t> chunk(1 << 20, 0xab);
    for (size_t i = 0; i <= proto_utils::kMaxMessageLength >> 20; i++)
      child->AppendBytes(1, chunk.data(), chunk.size());
    root.Finalize();
  };
  EXPECT_DEATH(write_oversized(), "exceeds the maximum");
}

TEST(MessageTest, NestedMessageJustBelowMaxLengthIsFine) {
  DiscardingDelegate delegate;
  ScatteredStreamWriter writer(&delegate);
  RootMessage<Node> root(&writer);
  Node* child = root.add_child();
  std::vector<uint8_t> chunk(1 << 20, 0xab);
  // 255 fields of 1 MiB + 4 bytes of tag/length each stay below 2^28 - 1.
  for (size_t i = 0; i < 255; i++)
    child->AppendBytes(1, chunk.data(), chunk.size());
  EXPECT_EQ(child->Finalize(), 255u * ((1u << 20) + 4));
}

#if defined(ZT_DCHECK_IS_ON) && ZT_DCHECK_IS_ON
TEST(MessageDeathTest, WritingIntoAFinalizedMessageIsCaught) {
  auto write_after_finalize = [] {
    HeapBuffered<Node> msg;
    Node* child = msg->add_child();
    msg->set_i32(1);  // Finalizes |child|.
    child->set_i32(2);
  };
  EXPECT_DEATH(write_after_finalize(), "DCHECK failed: !finalized_");
}
#endif

}  // namespace
}  // namespace protozero
}  // namespace zt
