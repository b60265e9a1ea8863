// Tests of the cppgen output (.gen.h/.gen.cc value classes): accessors,
// copy/move/compare, round trips against libprotobuf in both directions with
// random messages, unknown-field preservation across schema versions,
// malformed input, and the schema tables.

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/reflection.h>
#include <google/protobuf/unknown_field_set.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "zt/plugin_test/all_types.gen.h"
#include "zt/plugin_test/all_types.pb.h"
#include "zt/plugin_test/evolve_v1.gen.h"
#include "zt/plugin_test/evolve_v2.gen.h"
#include "zt/plugin_test/evolve_v2.pb.h"
#include "zt/plugin_test/import_user.gen.h"
#include "zt/plugin_test/import_user.pb.h"
#include "zt/plugin_test/keywords.gen.h"
#include "zt/plugin_test/proto3_types.gen.h"
#include "zt/plugin_test/proto3_types.pb.h"
#include "zt/plugin_test/recursion.gen.h"
#include "zt/plugin_test/recursion.pb.h"
#include "zt/protozero/cpp_message_base.h"
#include "zt/protozero/schema.h"

#include "src/protozero/plugin/test/cppgen_test_util.h"

namespace {

using zt::cppgen_test::FillRandom;
using zt::cppgen_test::NoUnknownFields;
using zt::cppgen_test::Random;

namespace gen = ::zt::plugin_test::gen;
namespace lp = ::zt::plugin_test;
using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using google::protobuf::util::MessageDifferencer;
using zt::protozero::FieldType;
using zt::protozero::MessageSchema;

// ---------------------------------------------------------------------------
// Accessors

TEST(CppgenTest, SingularScalarsSetGetClear) {
  gen::AllTypes m;
  EXPECT_FALSE(m.has_f_int32());
  EXPECT_EQ(m.f_int32(), 0);
  m.set_f_int32(-5);
  m.set_f_int64(-(1LL << 40));
  m.set_f_uint32(4000000000u);
  m.set_f_uint64(~0ull);
  m.set_f_sint32(-7);
  m.set_f_sint64(-(1LL << 50));
  m.set_f_fixed32(0xdeadbeef);
  m.set_f_fixed64(0x0123456789abcdefull);
  m.set_f_sfixed32(-123);
  m.set_f_sfixed64(-456);
  m.set_f_float(1.5f);
  m.set_f_double(-2.25);
  m.set_f_bool(true);
  m.set_f_string("hello");
  m.set_f_bytes(std::string("\0\1\2", 3));
  m.set_f_color(gen::RED);
  m.set_f_mode(gen::AllTypes::MODE_AUTO);
  m.set_far_away(77);
  EXPECT_TRUE(m.has_f_int32());
  EXPECT_EQ(m.f_int32(), -5);
  EXPECT_EQ(m.f_int64(), -(1LL << 40));
  EXPECT_EQ(m.f_uint32(), 4000000000u);
  EXPECT_EQ(m.f_uint64(), ~0ull);
  EXPECT_EQ(m.f_sint32(), -7);
  EXPECT_EQ(m.f_sint64(), -(1LL << 50));
  EXPECT_EQ(m.f_fixed32(), 0xdeadbeef);
  EXPECT_EQ(m.f_fixed64(), 0x0123456789abcdefull);
  EXPECT_EQ(m.f_sfixed32(), -123);
  EXPECT_EQ(m.f_sfixed64(), -456);
  EXPECT_EQ(m.f_float(), 1.5f);
  EXPECT_EQ(m.f_double(), -2.25);
  EXPECT_TRUE(m.f_bool());
  EXPECT_EQ(m.f_string(), "hello");
  EXPECT_EQ(m.f_bytes(), std::string("\0\1\2", 3));
  EXPECT_EQ(m.f_color(), gen::RED);
  EXPECT_EQ(m.f_mode(), gen::AllTypes_Mode_MODE_AUTO);
  EXPECT_EQ(m.far_away(), 77u);

  // The same values, checked by libprotobuf.
  lp::AllTypes ref;
  ASSERT_TRUE(ref.ParseFromString(m.SerializeAsString()));
  EXPECT_EQ(ref.f_int32(), -5);
  EXPECT_EQ(ref.f_uint64(), ~0ull);
  EXPECT_EQ(ref.f_sint64(), -(1LL << 50));
  EXPECT_EQ(ref.f_sfixed32(), -123);
  EXPECT_EQ(ref.f_float(), 1.5f);
  EXPECT_EQ(ref.f_bytes(), std::string("\0\1\2", 3));
  EXPECT_EQ(ref.f_color(), lp::RED);
  EXPECT_EQ(ref.f_mode(), lp::AllTypes::MODE_AUTO);
  EXPECT_EQ(ref.far_away(), 77u);

  m.clear_f_int32();
  m.clear_f_string();
  EXPECT_FALSE(m.has_f_int32());
  EXPECT_EQ(m.f_int32(), 0);
  EXPECT_FALSE(m.has_f_string());
  EXPECT_EQ(m.f_string(), "");
  // Zero is a value when set (proto2 presence).
  m.set_f_int32(0);
  EXPECT_TRUE(m.has_f_int32());
  *m.mutable_f_string() += "x";
  EXPECT_TRUE(m.has_f_string());
  EXPECT_EQ(m.f_string(), "x");
  m.set_f_bytes("ab", 2);
  EXPECT_EQ(m.f_bytes(), "ab");
}

TEST(CppgenTest, EnumDefaultsAndNames) {
  gen::AllTypes::Inner inner;
  EXPECT_EQ(inner.depth(), gen::AllTypes_Inner::SHALLOW);
  EXPECT_STREQ(gen::AllTypes_Inner_Depth_Name(gen::AllTypes_Inner_Depth_DEEP),
               "DEEP");
  EXPECT_STREQ(gen::AllTypes::Mode_Name(gen::AllTypes::MODE_DEFAULT), "MODE_ON");
  EXPECT_STREQ(gen::Color_Name(gen::BLUE), "BLUE");
  EXPECT_STREQ(gen::Color_Name(static_cast<gen::Color>(99)),
               "PBZERO_UNKNOWN_ENUM_VALUE");
  EXPECT_EQ(gen::Color_MIN, gen::BLUE);
  EXPECT_EQ(gen::Color_MAX, gen::GREEN);
  EXPECT_EQ(gen::AllTypes::kFModeFieldNumber, 17u);
}

TEST(CppgenTest, RepeatedAndNested) {
  gen::AllTypes m;
  m.add_r_int32(1);
  m.add_r_int32(-2);
  m.add_p_sint64(-3);
  m.add_p_bool(true);
  m.add_p_bool(false);
  m.add_r_string("a");
  *m.add_r_string() = "b";
  m.add_r_color(gen::GREEN);
  m.add_p_double(0.5);
  m.mutable_r_uint64()->push_back(9);
  gen::AllTypes::Inner* inner = m.add_r_inner();
  inner->set_label("first");
  inner->add_leaves()->set_id(3);
  m.mutable_f_inner()->set_depth(gen::AllTypes_Inner::DEEP);
  EXPECT_EQ(m.r_int32_size(), 2);
  EXPECT_EQ(m.r_int32(), (std::vector<int32_t>{1, -2}));
  EXPECT_EQ(m.p_bool(), (std::vector<bool>{true, false}));
  EXPECT_EQ(m.r_string(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(m.r_inner_size(), 1);
  EXPECT_EQ(m.r_inner()[0].leaves()[0].id(), 3u);
  EXPECT_TRUE(m.has_f_inner());
  EXPECT_EQ(m.f_inner().depth(), gen::AllTypes_Inner::DEEP);

  lp::AllTypes ref;
  ASSERT_TRUE(ref.ParseFromString(m.SerializeAsString()));
  ASSERT_EQ(ref.r_int32_size(), 2);
  EXPECT_EQ(ref.r_int32(1), -2);
  EXPECT_EQ(ref.p_sint64(0), -3);
  ASSERT_EQ(ref.p_bool_size(), 2);
  EXPECT_EQ(ref.r_string(1), "b");
  EXPECT_EQ(ref.r_color(0), lp::GREEN);
  EXPECT_EQ(ref.p_double(0), 0.5);
  EXPECT_EQ(ref.r_uint64(0), 9u);
  EXPECT_EQ(ref.r_inner(0).label(), "first");
  EXPECT_EQ(ref.r_inner(0).leaves(0).id(), 3u);
  EXPECT_EQ(ref.f_inner().depth(), lp::AllTypes::Inner::DEEP);

  // An absent message reads as the default instance and stays absent.
  gen::AllTypes empty;
  EXPECT_FALSE(empty.has_choice_inner());
  EXPECT_EQ(empty.choice_inner().label(), "");
  EXPECT_FALSE(empty.has_choice_inner());
  m.clear_f_inner();
  m.clear_r_inner();
  m.clear_r_int32();
  EXPECT_FALSE(m.has_f_inner());
  EXPECT_EQ(m.r_inner_size(), 0);
  EXPECT_EQ(m.r_int32_size(), 0);
}

TEST(CppgenTest, Proto3PresenceAndPacking) {
  gen::Proto3Msg m;
  EXPECT_FALSE(m.has_id());
  m.set_id(0);
  EXPECT_FALSE(m.has_id());  // implicit presence: zero is absence
  EXPECT_EQ(m.SerializeAsString(), "");
  m.set_maybe(0);            // proto3 optional: explicit presence
  EXPECT_TRUE(m.has_maybe());
  EXPECT_EQ(m.SerializeAsString(), std::string("\x48\x00", 2));
  m.clear_maybe();
  m.set_id(3);
  EXPECT_TRUE(m.has_id());
  m.add_packed_by_default(1);
  m.add_packed_by_default(2);
  m.add_unpacked(1);
  m.add_unpacked(2);
  EXPECT_EQ(m.SerializeAsString(),
            std::string("\x08\x03"            // id
                        "\x1a\x02\x01\x02"    // packed_by_default
                        "\x20\x01\x20\x02",   // unpacked
                        10));
  m.set_int_value(5);  // oneof members are plain fields
  m.set_string_value("s");
  EXPECT_TRUE(m.has_int_value());
  EXPECT_TRUE(m.has_string_value());
  gen::Proto3Msg::CountsEntry* e = m.add_counts();
  e->set_key("k");
  e->set_value(4);
  lp::Proto3Msg ref;
  ASSERT_TRUE(ref.ParseFromString(m.SerializeAsString()));
  EXPECT_EQ(ref.counts().at("k"), 4);
  EXPECT_EQ(ref.string_value(), "s");  // the later one on the wire wins
}

TEST(CppgenTest, ImportsAndKeywords) {
  gen::Report r;
  r.set_title("t");
  auto* measure = r.add_measures();
  measure->set_value(1.25);
  measure->set_unit(zt::plugin_test::base::gen::UNIT_NS);
  r.set_worst(zt::plugin_test::base::gen::Measure::BAD);
  lp::Report ref;
  ASSERT_TRUE(ref.ParseFromString(r.SerializeAsString()));
  EXPECT_EQ(ref.measures(0).value(), 1.25);
  EXPECT_EQ(ref.worst(), zt::plugin_test::base::Measure::BAD);

  namespace kw = zt::plugin_test::keywords::gen;
  kw::class_ c;
  c.set_delete_(1);
  c.set_class__("c");
  c.set_foo(2);
  c.set_has_foo_(3);
  c.set_set_foo_(4);
  c.set_operator_(kw::EOF_);
  c.mutable_this_()->set_new_(5);
  c.add_template_(6);
  c.set_type(kw::class_::TRUE_);
  kw::class_ back;
  ASSERT_TRUE(back.ParseFromString(c.SerializeAsString()));
  EXPECT_EQ(back, c);
  EXPECT_EQ(back.this_().new_(), 5);
  EXPECT_EQ(back.has_foo_(), 3);
  EXPECT_STREQ(kw::enum_Name(kw::default_), "default");
}

TEST(CppgenTest, CopyMoveAndEquality) {
  gen::Tree t;
  t.set_name("root");
  t.add_children()->set_name("c1");
  t.mutable_parent_copy()->set_name("p");
  t.mutable_parent_copy()->add_children()->set_name("pc");

  gen::Tree copy(t);
  EXPECT_EQ(copy, t);
  copy.mutable_parent_copy()->set_name("q");  // deep copy: t unchanged
  EXPECT_EQ(t.parent_copy().name(), "p");
  EXPECT_NE(copy, t);

  gen::Tree assigned;
  assigned = t;
  EXPECT_EQ(assigned, t);
  gen::Tree moved(std::move(assigned));
  EXPECT_EQ(moved, t);
  gen::Tree move_assigned;
  move_assigned = std::move(moved);
  EXPECT_EQ(move_assigned, t);

  // Presence matters: a set-but-empty message differs from an absent one,
  // a field set to its default from an unset one.
  gen::Tree a, b;
  a.mutable_parent_copy();
  EXPECT_NE(a, b);
  b.mutable_parent_copy();
  EXPECT_EQ(a, b);
  a.set_name("");
  EXPECT_NE(a, b);
  b.set_name("");
  EXPECT_EQ(a, b);
  // Unknown fields count.
  ASSERT_TRUE(a.MergeFromArray("\xa0\x06\x01", 3));  // field 100, varint 1
  EXPECT_EQ(a.unknown_fields(), "\xa0\x06\x01");
  EXPECT_NE(a, b);
  a.Clear();
  EXPECT_EQ(a, gen::Tree());
}

TEST(CppgenTest, SingularMessageOccurrencesMerge) {
  // Two occurrences of f_inner: protobuf merges them.
  lp::AllTypes first, second;
  first.mutable_f_inner()->set_label("x");
  second.mutable_f_inner()->set_depth(lp::AllTypes::Inner::DEEP);
  second.mutable_f_inner()->add_leaves()->set_id(1);
  gen::AllTypes m;
  ASSERT_TRUE(m.ParseFromString(first.SerializeAsString() +
                                second.SerializeAsString()));
  EXPECT_EQ(m.f_inner().label(), "x");
  EXPECT_EQ(m.f_inner().depth(), gen::AllTypes_Inner::DEEP);
  EXPECT_EQ(m.f_inner().leaves_size(), 1);
  // ParseFromArray clears first; MergeFromArray does not.
  ASSERT_TRUE(m.ParseFromString(second.SerializeAsString()));
  EXPECT_FALSE(m.f_inner().has_label());
  ASSERT_TRUE(m.MergeFromArray(first.SerializeAsString().data(),
                               first.SerializeAsString().size()));
  EXPECT_EQ(m.f_inner().label(), "x");
}

// ---------------------------------------------------------------------------
// Random messages

// libprotobuf -> gen -> libprotobuf: values identical, nothing unknown.
template <typename Gen, typename Lp>
void RoundTripFromLibprotobuf(uint32_t seed) {
  Random rnd(seed);
  Lp original;
  FillRandom(&rnd, &original, 0);
  const std::string bytes = original.SerializeAsString();
  Gen g;
  ASSERT_TRUE(g.ParseFromString(bytes)) << "seed " << seed;
  EXPECT_EQ(g.unknown_fields(), "") << "seed " << seed;
  const std::string reencoded = g.SerializeAsString();
  Lp back;
  ASSERT_TRUE(back.ParseFromString(reencoded)) << "seed " << seed;
  EXPECT_TRUE(MessageDifferencer::Equals(original, back))
      << "seed " << seed << "\n" << original.DebugString() << "\nvs\n"
      << back.DebugString();
  EXPECT_TRUE(NoUnknownFields(back)) << "seed " << seed;
  // gen -> gen is stable, and copies compare equal.
  Gen again;
  ASSERT_TRUE(again.ParseFromString(reencoded));
  EXPECT_EQ(again, g) << "seed " << seed;
  EXPECT_EQ(again.SerializeAsString(), reencoded);
  Gen copy = g;
  EXPECT_EQ(copy, g);
}

TEST(CppgenRoundTrip, FromLibprotobufAllTypes) {
  for (uint32_t seed = 1; seed <= 300; ++seed)
    RoundTripFromLibprotobuf<gen::AllTypes, lp::AllTypes>(seed);
}

TEST(CppgenRoundTrip, FromLibprotobufProto3) {
  for (uint32_t seed = 1; seed <= 300; ++seed)
    RoundTripFromLibprotobuf<gen::Proto3Msg, lp::Proto3Msg>(seed);
}

TEST(CppgenRoundTrip, FromLibprotobufRecursionAndImports) {
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    RoundTripFromLibprotobuf<gen::Forest, lp::Forest>(seed);
    RoundTripFromLibprotobuf<gen::Outer, lp::Outer>(seed);
    RoundTripFromLibprotobuf<gen::Report, lp::Report>(seed);
    RoundTripFromLibprotobuf<zt::plugin_test::v2::gen::Config,
                             zt::plugin_test::v2::Config>(seed);
  }
}

// Random gen messages built through the generated API.
void FillInner(Random* rnd, gen::AllTypes_Inner* inner) {
  if (rnd->Chance(50))
    inner->set_label(rnd->Ascii());
  if (rnd->Chance(50))
    inner->set_depth(rnd->Chance(50) ? gen::AllTypes_Inner::DEEP
                                     : gen::AllTypes_Inner::SHALLOW);
  for (int i = rnd->Int(3); i > 0; --i) {
    auto* leaf = inner->add_leaves();
    if (rnd->Chance(70))
      leaf->set_id(static_cast<uint32_t>(rnd->U64()));
  }
}

gen::Color RandomColor(Random* rnd) {
  static const gen::Color kColors[] = {gen::COLOR_UNSPECIFIED, gen::RED,
                                       gen::GREEN, gen::BLUE};
  return kColors[rnd->Int(4)];
}

gen::AllTypes RandomGenAllTypes(Random* rnd) {
  gen::AllTypes m;
#define ZT_MAYBE(FIELD, VALUE) \
  if (rnd->Chance(50))         \
    m.set_##FIELD(VALUE);
#define ZT_SOME(FIELD, VALUE)                \
  for (int i = rnd->Int(4); i > 0; --i) {    \
    m.add_r_##FIELD(VALUE);                  \
    m.add_p_##FIELD(VALUE);                  \
  }
  ZT_MAYBE(f_int32, static_cast<int32_t>(rnd->U64()))
  ZT_MAYBE(f_int64, static_cast<int64_t>(rnd->U64()))
  ZT_MAYBE(f_uint32, static_cast<uint32_t>(rnd->U64()))
  ZT_MAYBE(f_uint64, rnd->U64())
  ZT_MAYBE(f_sint32, static_cast<int32_t>(rnd->U64()))
  ZT_MAYBE(f_sint64, static_cast<int64_t>(rnd->U64()))
  ZT_MAYBE(f_fixed32, static_cast<uint32_t>(rnd->U64()))
  ZT_MAYBE(f_fixed64, rnd->U64())
  ZT_MAYBE(f_sfixed32, static_cast<int32_t>(rnd->U64()))
  ZT_MAYBE(f_sfixed64, static_cast<int64_t>(rnd->U64()))
  ZT_MAYBE(f_float, static_cast<float>(rnd->Double()))
  ZT_MAYBE(f_double, rnd->Double())
  ZT_MAYBE(f_bool, rnd->Chance(50))
  ZT_MAYBE(f_string, rnd->Ascii())
  ZT_MAYBE(f_bytes, rnd->Bytes())
  ZT_MAYBE(f_color, RandomColor(rnd))
  ZT_MAYBE(f_mode, rnd->Chance(50) ? gen::AllTypes::MODE_ON
                                   : gen::AllTypes::MODE_AUTO)
  ZT_MAYBE(far_away, static_cast<uint32_t>(rnd->U64()))
  if (rnd->Chance(50))
    FillInner(rnd, m.mutable_f_inner());
  ZT_SOME(int32, static_cast<int32_t>(rnd->U64()))
  ZT_SOME(int64, static_cast<int64_t>(rnd->U64()))
  ZT_SOME(uint32, static_cast<uint32_t>(rnd->U64()))
  ZT_SOME(uint64, rnd->U64())
  ZT_SOME(sint32, static_cast<int32_t>(rnd->U64()))
  ZT_SOME(sint64, static_cast<int64_t>(rnd->U64()))
  ZT_SOME(fixed32, static_cast<uint32_t>(rnd->U64()))
  ZT_SOME(fixed64, rnd->U64())
  ZT_SOME(sfixed32, static_cast<int32_t>(rnd->U64()))
  ZT_SOME(sfixed64, static_cast<int64_t>(rnd->U64()))
  ZT_SOME(float, static_cast<float>(rnd->Double()))
  ZT_SOME(double, rnd->Double())
  ZT_SOME(bool, rnd->Chance(50))
  ZT_SOME(color, RandomColor(rnd))
#undef ZT_MAYBE
#undef ZT_SOME
  for (int i = rnd->Int(3); i > 0; --i) {
    m.add_r_string(rnd->Ascii());
    m.add_r_bytes(rnd->Bytes());
    FillInner(rnd, m.add_r_inner());
  }
  // At most one member of the oneof: libprotobuf keeps only the last.
  switch (rnd->Int(4)) {
    case 0: m.set_choice_name(rnd->Ascii()); break;
    case 1: m.set_choice_id(rnd->U64()); break;
    case 2: FillInner(rnd, m.mutable_choice_inner()); break;
    default: break;
  }
  return m;
}

TEST(CppgenRoundTrip, FromGenAllTypes) {
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    Random rnd(seed);
    const gen::AllTypes original = RandomGenAllTypes(&rnd);
    lp::AllTypes ref;
    ASSERT_TRUE(ref.ParseFromString(original.SerializeAsString()));
    ASSERT_TRUE(NoUnknownFields(ref)) << "seed " << seed;
    // Spot checks against libprotobuf's view of the same bytes.
    EXPECT_EQ(ref.has_f_sint64(), original.has_f_sint64());
    EXPECT_EQ(ref.f_sint64(), original.f_sint64());
    EXPECT_EQ(ref.f_fixed32(), original.f_fixed32());
    EXPECT_EQ(ref.f_string(), original.f_string());
    EXPECT_EQ(ref.p_sfixed64_size(), original.p_sfixed64_size());
    EXPECT_EQ(ref.r_inner_size(), original.r_inner_size());
    EXPECT_EQ(ref.has_f_inner(), original.has_f_inner());
    gen::AllTypes back;
    ASSERT_TRUE(back.ParseFromString(ref.SerializeAsString()));
    EXPECT_EQ(back, original) << "seed " << seed << "\n" << ref.DebugString();
  }
}

// ---------------------------------------------------------------------------
// Unknown fields

TEST(CppgenUnknownFields, OlderSchemaKeepsWhatItDoesNotKnow) {
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    Random rnd(seed);
    zt::plugin_test::v2::Config newer;
    FillRandom(&rnd, &newer, 0);
    const std::string bytes = newer.SerializeAsString();

    zt::plugin_test::v1::gen::Config older;
    ASSERT_TRUE(older.ParseFromString(bytes)) << "seed " << seed;
    // Touch known fields on the way through, as a real user would.
    if (older.has_name())
      older.set_name(older.name());
    const std::string passed_on = older.SerializeAsString();

    zt::plugin_test::v2::Config back;
    ASSERT_TRUE(back.ParseFromString(passed_on)) << "seed " << seed;
    EXPECT_TRUE(MessageDifferencer::Equals(newer, back))
        << "seed " << seed << "\n" << newer.DebugString() << "\nvs\n"
        << back.DebugString();
    EXPECT_TRUE(NoUnknownFields(back));

    // Through the newer gen class too: nothing unknown there.
    zt::plugin_test::v2::gen::Config newer_gen;
    ASSERT_TRUE(newer_gen.ParseFromString(passed_on));
    EXPECT_EQ(newer_gen.unknown_fields(), "");
  }
}

TEST(CppgenUnknownFields, WrongWireTypeIsKeptNotMisread) {
  zt::plugin_test::v2::Config newer;
  newer.set_size_kb(300);              // field 2: varint; v1 says string
  newer.mutable_sub()->set_b("deep");  // unknown inside a known sub-message
  newer.mutable_sub()->set_a(7);
  zt::plugin_test::v1::gen::Config older;
  ASSERT_TRUE(older.ParseFromString(newer.SerializeAsString()));
  EXPECT_FALSE(older.has_legacy_two());
  EXPECT_EQ(older.unknown_fields(), "\x10\xac\x02");
  EXPECT_EQ(older.sub().a(), 7);
  EXPECT_EQ(older.sub().unknown_fields(), "\x12\x04"
                                          "deep");
  zt::plugin_test::v2::Config back;
  ASSERT_TRUE(back.ParseFromString(older.SerializeAsString()));
  EXPECT_EQ(back.size_kb(), 300u);
  EXPECT_EQ(back.sub().b(), "deep");
}

// ---------------------------------------------------------------------------
// Malformed input

TEST(CppgenMalformed, EveryTruncationAgreesWithLibprotobuf) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    Random rnd(seed);
    lp::AllTypes full;
    FillRandom(&rnd, &full, 0);
    const std::string bytes = full.SerializeAsString();
    for (size_t len = 0; len < bytes.size(); ++len) {
      const std::string prefix = bytes.substr(0, len);
      lp::AllTypes ref;
      gen::AllTypes m;
      EXPECT_EQ(m.ParseFromString(prefix), ref.ParseFromString(prefix))
          << "seed " << seed << " len " << len;
    }
  }
}

TEST(CppgenMalformed, BadInputReturnsFalse) {
  gen::AllTypes m;
  const std::vector<std::string> bad = {
      std::string("\x08", 1),                    // varint missing
      std::string("\x08\xff\xff", 3),            // truncated varint
      std::string("\x72\x05" "abc", 5),          // string past the end
      std::string("\x0b", 1),                    // wire type 3 (group start)
      std::string("\x0c", 1),                    // wire type 4
      std::string("\x0e\x00", 2),                // wire type 6
      std::string("\x0f\x00", 2),                // wire type 7
      std::string("\x00\x00", 2),                // field id 0
      std::string("\x3d\x01\x02", 3),            // fixed32 cut short
      std::string("\xca\x02\x01\xff", 4),        // packed int32: bad varint
      std::string("\xfa\x02\x03\x01\x02\x03", 6),  // packed fixed32: 3 bytes
      std::string("\x92\x01\x02\x0a\x05", 5),    // f_inner: bad inside
      std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12),
  };
  for (const std::string& b : bad)
    EXPECT_FALSE(m.ParseFromString(b)) << testing::PrintToString(b);
  // Wrong wire types are not errors: kept as unknown fields.
  EXPECT_TRUE(m.ParseFromString(std::string("\x0d\x01\x02\x03\x04", 5)));
  EXPECT_EQ(m.unknown_fields(), std::string("\x0d\x01\x02\x03\x04", 5));
  EXPECT_FALSE(m.has_f_int32());
  EXPECT_TRUE(m.ParseFromString(std::string("\x92\x01\x00", 3)));  // empty
  EXPECT_TRUE(m.has_f_inner());
  EXPECT_TRUE(m.ParseFromArray(nullptr, 0));
}

std::string NestedTrees(int depth) {
  std::string bytes;
  for (int i = 0; i < depth; ++i) {
    // children (2) of the message so far, with a 1..3 byte length.
    std::string wrapped = "\x12";
    uint64_t len = bytes.size();
    while (len >= 0x80) {
      wrapped += static_cast<char>((len & 0x7f) | 0x80);
      len >>= 7;
    }
    wrapped += static_cast<char>(len);
    bytes = wrapped + bytes;
  }
  return bytes;
}

TEST(CppgenMalformed, DepthBomb) {
  gen::Tree t;
  EXPECT_TRUE(t.ParseFromString(NestedTrees(50)));
  EXPECT_TRUE(t.ParseFromString(NestedTrees(zt::protozero::kCppGenMaxParseDepth)));
  EXPECT_FALSE(
      t.ParseFromString(NestedTrees(zt::protozero::kCppGenMaxParseDepth + 1)));
  EXPECT_FALSE(t.ParseFromString(NestedTrees(1000)));
}

TEST(CppgenMalformed, OversizedNestedMessageRejected) {
  // f_inner holding a 33 MiB label: bigger than any config, and the limit
  // that keeps re-serialization from aborting.
  lp::AllTypes big;
  big.mutable_f_inner()->set_label(std::string(33u << 20, 'x'));
  gen::AllTypes m;
  EXPECT_FALSE(m.ParseFromString(big.SerializeAsString()));
  big.mutable_f_inner()->set_label(std::string(1u << 20, 'x'));
  EXPECT_TRUE(m.ParseFromString(big.SerializeAsString()));
  EXPECT_EQ(m.f_inner().label().size(), 1u << 20);
}

// ---------------------------------------------------------------------------
// Schema tables, checked against libprotobuf's descriptors.

void ExpectSchemaMatches(const MessageSchema* schema, const Descriptor* d,
                         int depth) {
  ASSERT_NE(schema, nullptr);
  EXPECT_EQ(std::string(schema->full_name), d->full_name());
  ASSERT_EQ(schema->num_fields, static_cast<size_t>(d->field_count()))
      << d->full_name();
  for (size_t i = 0; i < schema->num_fields; ++i) {
    const zt::protozero::FieldSchema& f = schema->fields[i];
    if (i > 0) {
      EXPECT_LT(schema->fields[i - 1].number, f.number);
    }
    const FieldDescriptor* fd = d->FindFieldByNumber(static_cast<int>(f.number));
    ASSERT_NE(fd, nullptr) << f.name;
    EXPECT_EQ(std::string(f.name), fd->name());
    EXPECT_EQ(static_cast<int>(f.type), static_cast<int>(fd->type()));
    EXPECT_EQ(f.repeated, fd->is_repeated());
    EXPECT_EQ(f.packed, fd->is_packed()) << fd->full_name();
    EXPECT_EQ(schema->FindFieldByName(f.name), &f);
    EXPECT_EQ(schema->FindFieldByNumber(f.number), &f);
    if (fd->type() == FieldDescriptor::TYPE_MESSAGE) {
      ASSERT_NE(f.message_type, nullptr);
      EXPECT_EQ(f.enum_type, nullptr);
      if (depth < 3)
        ExpectSchemaMatches(f.message_type(), fd->message_type(), depth + 1);
    } else if (fd->type() == FieldDescriptor::TYPE_ENUM) {
      ASSERT_NE(f.enum_type, nullptr);
      EXPECT_EQ(f.message_type, nullptr);
      const zt::protozero::EnumSchema* es = f.enum_type();
      EXPECT_EQ(std::string(es->full_name), fd->enum_type()->full_name());
      ASSERT_EQ(es->num_values,
                static_cast<size_t>(fd->enum_type()->value_count()));
      for (size_t v = 0; v < es->num_values; ++v) {
        EXPECT_EQ(std::string(es->values[v].name),
                  fd->enum_type()->value(static_cast<int>(v))->name());
        EXPECT_EQ(es->values[v].number,
                  fd->enum_type()->value(static_cast<int>(v))->number());
      }
    } else {
      EXPECT_EQ(f.message_type, nullptr);
      EXPECT_EQ(f.enum_type, nullptr);
    }
  }
}

TEST(CppgenSchema, MatchesDescriptors) {
  ExpectSchemaMatches(gen::AllTypes::GetSchema(), lp::AllTypes::descriptor(), 0);
  ExpectSchemaMatches(gen::Proto3Msg::GetSchema(), lp::Proto3Msg::descriptor(),
                      0);
  ExpectSchemaMatches(gen::Forest::GetSchema(), lp::Forest::descriptor(), 0);
  ExpectSchemaMatches(gen::Outer::GetSchema(), lp::Outer::descriptor(), 0);
  ExpectSchemaMatches(gen::Report::GetSchema(), lp::Report::descriptor(), 0);
  ExpectSchemaMatches(zt::plugin_test::v2::gen::Config::GetSchema(),
                      zt::plugin_test::v2::Config::descriptor(), 0);
  ExpectSchemaMatches(gen::Empty::GetSchema(), lp::Empty::descriptor(), 0);
}

TEST(CppgenSchema, PointersAndNames) {
  const MessageSchema* s = gen::AllTypes::GetSchema();
  EXPECT_STREQ(s->full_name, "zt.plugin_test.AllTypes");
  const auto* inner = s->FindFieldByName("f_inner");
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(inner->number, 18u);
  EXPECT_EQ(inner->type, FieldType::kMessage);
  EXPECT_EQ(inner->message_type(), gen::AllTypes_Inner::GetSchema());
  EXPECT_EQ(s->FindFieldByName("f_mode")->enum_type(), gen::AllTypes_Mode_Schema());
  EXPECT_EQ(s->FindFieldByNumber(100000)->type, FieldType::kUint32);
  EXPECT_EQ(s->FindFieldByName("p_sint32")->type, FieldType::kSint32);
  EXPECT_TRUE(s->FindFieldByName("p_sint32")->packed);
  EXPECT_FALSE(s->FindFieldByName("r_sint32")->packed);
  EXPECT_EQ(s->FindFieldByName("nope"), nullptr);
  EXPECT_EQ(s->FindFieldByNumber(19), nullptr);
  EXPECT_EQ(gen::Tree::GetSchema()->FindFieldByName("children")->message_type(),
            gen::Tree::GetSchema());
  EXPECT_EQ(gen::Report::GetSchema()->FindFieldByName("worst")->enum_type(),
            zt::plugin_test::base::gen::Measure_Quality_Schema());
  const zt::protozero::EnumSchema* mode = gen::AllTypes_Mode_Schema();
  EXPECT_STREQ(mode->full_name, "zt.plugin_test.AllTypes.Mode");
  ASSERT_EQ(mode->num_values, 4u);
  EXPECT_STREQ(mode->values[3].name, "MODE_DEFAULT");
  EXPECT_EQ(mode->values[3].number, 1);
  EXPECT_EQ(gen::Empty::GetSchema()->num_fields, 0u);
  EXPECT_STREQ(zt::plugin_test::keywords::gen::class_::GetSchema()
                   ->FindFieldByNumber(2)
                   ->name,
               "class");
}

}  // namespace
