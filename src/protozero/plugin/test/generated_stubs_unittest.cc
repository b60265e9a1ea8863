// Tests of the code protoc-gen-pbzero generates: exact bytes written by the
// generated writers, and values read back by the generated decoders, for
// every scalar type, enums, nesting, recursion, imports, proto3 packing,
// oneofs and names that are C++ keywords.

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "zt/nowrap/no_wrapper.pbzero.h"
#include "zt/plugin_test/all_types.pbzero.h"
#include "zt/plugin_test/import_base.pbzero.h"
#include "zt/plugin_test/import_public_middle.pbzero.h"  // re-exports the leaf
#include "zt/plugin_test/import_public_user.pbzero.h"
#include "zt/plugin_test/import_user.pbzero.h"
#include "zt/plugin_test/keywords.pbzero.h"
#include "zt/plugin_test/proto3_types.pbzero.h"
#include "zt/plugin_test/recursion.pbzero.h"
#include "zt/protozero/packed_repeated_fields.h"
#include "zt/protozero/scattered_heap_buffer.h"

namespace {

using ::zt::protozero::ConstBytes;
using ::zt::protozero::HeapBuffered;
using ::zt::protozero::PackedFixedSizeInt;
using ::zt::protozero::PackedVarInt;
namespace pt = ::zt::plugin_test::pbzero;
namespace base = ::zt::plugin_test::base::pbzero;
namespace kw = ::zt::plugin_test::keywords::pbzero;

std::string Hex(const std::string& bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    if (!out.empty())
      out += ' ';
    out += kDigits[c >> 4];
    out += kDigits[c & 0xf];
  }
  return out;
}

std::string Bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values)
    out += static_cast<char>(v);
  return out;
}

template <typename Iterator>
auto Collect(Iterator it) {
  std::vector<std::decay_t<decltype(*it)>> values;
  for (; it; ++it)
    values.push_back(*it);
  return values;
}

// Detection helpers for compile-time checks of the generated API.
template <typename T, typename Arg, typename = void>
struct HasPackedSetter : std::false_type {};
template <typename T, typename Arg>
struct HasPackedSetter<
    T, Arg,
    std::void_t<decltype(std::declval<T&>().set_packed_by_default(
        std::declval<const Arg&>()))>> : std::true_type {};

template <typename T, typename = void>
struct HasAddPackedByDefault : std::false_type {};
template <typename T>
struct HasAddPackedByDefault<
    T, std::void_t<decltype(std::declval<T&>().add_packed_by_default(1))>>
    : std::true_type {};

template <typename T, typename = void>
struct HasAddUnpacked : std::false_type {};
template <typename T>
struct HasAddUnpacked<
    T, std::void_t<decltype(std::declval<T&>().add_unpacked(1))>>
    : std::true_type {};

// ---------------------------------------------------------------------------
// Static shape of the generated classes.

static_assert(std::is_base_of<::zt::protozero::Message, pt::AllTypes>::value);
static_assert(sizeof(pt::AllTypes) == sizeof(::zt::protozero::Message),
              "generated writers add no data members");
static_assert(sizeof(pt::Tree) == sizeof(::zt::protozero::Message));
static_assert(sizeof(kw::class_) == sizeof(::zt::protozero::Message));
static_assert(std::is_same<pt::AllTypes::Decoder, pt::AllTypes_Decoder>::value);
static_assert(std::is_base_of<::zt::protozero::TypedProtoDecoder<62, true>,
                              pt::AllTypes_Decoder>::value,
              "far_away (id 100000) is outside the table; 62 is the max");
static_assert(std::is_base_of<::zt::protozero::TypedProtoDecoder<1, false>,
                              pt::AllTypes_Inner_Innermost_Decoder>::value);
static_assert(std::is_same<pt::AllTypes::Inner, pt::AllTypes_Inner>::value);
static_assert(std::is_same<pt::AllTypes::Mode, pt::AllTypes_Mode>::value);
static_assert(std::is_same<pt::AllTypes::Inner::Innermost,
                           pt::AllTypes_Inner_Innermost>::value);
static_assert(pt::AllTypes::kFInt32FieldNumber == 1);
static_assert(pt::AllTypes::kPColorFieldNumber == 54);
static_assert(pt::AllTypes::kChoiceInnerFieldNumber == 62);
static_assert(pt::AllTypes::kFarAwayFieldNumber == 100000);
static_assert(pt::Color_MIN == pt::BLUE && pt::Color_MAX == pt::GREEN);
static_assert(pt::AllTypes::MODE_AUTO == pt::AllTypes_Mode_MODE_AUTO);
static_assert(pt::AllTypes_Mode_MODE_AUTO == 2);
static_assert(pt::AllTypes_Inner_Depth_DEEP == 7);
// proto3: packed by default (only the packed setter), [packed=false] honoured.
static_assert(HasPackedSetter<pt::Proto3Msg, PackedVarInt>::value);
static_assert(!HasAddPackedByDefault<pt::Proto3Msg>::value);
static_assert(HasAddUnpacked<pt::Proto3Msg>::value);
// No wrapper namespace for this library.
static_assert(std::is_base_of<::zt::protozero::Message, ::zt::nowrap::Plain>::value);
// Keyword and clash renaming.
static_assert(kw::class_::kDeleteFieldNumber == 1);
static_assert(kw::class_::kFooBarFieldNumber == 17);
static_assert(kw::class_::kFooBar_FieldNumber == 18);
static_assert(std::is_same<decltype(std::declval<kw::class_Decoder&>().type()),
                           kw::class_Type>::value);

TEST(GeneratedStubsTest, Names) {
  EXPECT_STREQ(pt::AllTypes::GetName(), "zt.plugin_test.AllTypes");
  EXPECT_STREQ(pt::AllTypes::Inner::Innermost::GetName(),
               "zt.plugin_test.AllTypes.Inner.Innermost");
  EXPECT_STREQ(base::Measure::GetName(), "zt.plugin_test.base.Measure");
  EXPECT_STREQ(kw::class_::GetName(), "zt.plugin_test.keywords.class");
  EXPECT_STREQ(::zt::nowrap::Plain::GetName(), "zt.nowrap.Plain");
}

TEST(GeneratedStubsTest, EnumNames) {
  EXPECT_STREQ(pt::Color_Name(pt::BLUE), "BLUE");
  EXPECT_STREQ(pt::Color_Name(pt::COLOR_UNSPECIFIED), "COLOR_UNSPECIFIED");
  EXPECT_STREQ(pt::Color_Name(static_cast<pt::Color>(42)),
               "PBZERO_UNKNOWN_ENUM_VALUE");
  EXPECT_STREQ(pt::AllTypes::Mode_Name(pt::AllTypes::MODE_AUTO), "MODE_AUTO");
  // An alias shares its number: the first declared name is reported.
  EXPECT_STREQ(pt::AllTypes_Mode_Name(pt::AllTypes::MODE_DEFAULT), "MODE_ON");
  EXPECT_STREQ(pt::AllTypes_Inner_Depth_Name(pt::AllTypes_Inner_Depth_DEEP),
               "DEEP");
  EXPECT_STREQ(base::Measure::Quality_Name(base::Measure::BAD), "BAD");
  EXPECT_STREQ(kw::enum_Name(kw::NULL_), "NULL");
  EXPECT_STREQ(kw::class_::Type_Name(kw::class_::TRUE_), "TRUE");
  EXPECT_STREQ(::zt::nowrap::Plain::Level_Name(::zt::nowrap::Plain::HIGH),
               "HIGH");
}

// ---------------------------------------------------------------------------
// Exact bytes.

TEST(GeneratedStubsTest, VarIntBytes) {
  HeapBuffered<pt::AllTypes> msg;
  msg->set_f_int32(1);          // 08 01
  msg->set_f_int32(-1);         // sign-extended: 10 bytes
  msg->set_f_uint64(300);       // 20 ac 02
  msg->set_f_sint32(-1);        // zigzag 1: 28 01
  msg->set_f_sint64(-2);        // zigzag 3: 30 03
  msg->set_f_bool(true);        // 68 01
  msg->set_f_color(pt::BLUE);   // -3, sign-extended; tag 16 -> 80 01
  EXPECT_EQ(Hex(msg.SerializeAsString()),
            Hex(Bytes({0x08, 0x01,                                      //
                       0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,  //
                       0xff, 0xff, 0x01,                                //
                       0x20, 0xac, 0x02,                                //
                       0x28, 0x01,                                      //
                       0x30, 0x03,                                      //
                       0x68, 0x01,                                      //
                       0x80, 0x01, 0xfd, 0xff, 0xff, 0xff, 0xff, 0xff,  //
                       0xff, 0xff, 0xff, 0x01})));
}

TEST(GeneratedStubsTest, FixedBytes) {
  HeapBuffered<pt::AllTypes> msg;
  msg->set_f_fixed32(1);
  msg->set_f_fixed64(0x0102030405060708ull);
  msg->set_f_sfixed32(-2);
  msg->set_f_float(1.0f);
  msg->set_f_double(1.0);
  EXPECT_EQ(Hex(msg.SerializeAsString()),
            Hex(Bytes({0x3d, 0x01, 0x00, 0x00, 0x00,                    //
                       0x41, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02,  //
                       0x01,                                            //
                       0x4d, 0xfe, 0xff, 0xff, 0xff,                    //
                       0x5d, 0x00, 0x00, 0x80, 0x3f,                    //
                       0x61, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0,  //
                       0x3f})));
}

TEST(GeneratedStubsTest, StringBytesOverloads) {
  HeapBuffered<pt::AllTypes> msg;
  const std::string s = "ab";
  msg->set_f_string("hi");                          // const char*
  msg->set_f_string(s);                             // std::string
  msg->set_f_string(std::string_view("xyz", 1));    // string_view
  msg->set_f_string("qrs", 2);                      // (ptr, size)
  const uint8_t raw[] = {0x00, 0xff};
  msg->set_f_bytes(raw, sizeof(raw));               // (uint8_t*, size)
  msg->add_r_string("");                            // empty string
  EXPECT_EQ(Hex(msg.SerializeAsString()),
            Hex(Bytes({0x72, 0x02, 'h', 'i',  //
                       0x72, 0x02, 'a', 'b',  //
                       0x72, 0x01, 'x',       //
                       0x72, 0x02, 'q', 'r',  //
                       0x7a, 0x02, 0x00, 0xff,
                       0x92, 0x02, 0x00})));
}

TEST(GeneratedStubsTest, NestedMessageBytes) {
  HeapBuffered<pt::AllTypes> msg;
  pt::AllTypes::Inner* inner = msg->set_f_inner();
  inner->set_label("x");
  inner->add_leaves()->set_id(5);
  msg->set_f_int32(3);  // finalizes |inner|
  // f_inner = 18: tag 92 01; sizes are 4-byte redundant varints.
  EXPECT_EQ(Hex(msg.SerializeAsString()),
            Hex(Bytes({0x92, 0x01, 0x8a, 0x80, 0x80, 0x00,  // 10 bytes
                       0x0a, 0x01, 'x',                     //
                       0x1a, 0x82, 0x80, 0x80, 0x00,        // leaves, 2 bytes
                       0x08, 0x05,                          //
                       0x08, 0x03})));
}

TEST(GeneratedStubsTest, RepeatedAndPackedBytes) {
  HeapBuffered<pt::AllTypes> msg;
  msg->add_r_int32(1);
  msg->add_r_int32(2);
  PackedVarInt varints;
  varints.Append(1);
  varints.Append(300);
  msg->set_p_int32(varints);
  PackedVarInt zigzags;
  zigzags.AppendZigZag(-1);
  zigzags.AppendZigZag(1);
  msg->set_p_sint32(zigzags);
  PackedFixedSizeInt<uint32_t> fixeds;
  fixeds.Append(1);
  fixeds.Append(2);
  msg->set_p_fixed32(fixeds);
  EXPECT_EQ(Hex(msg.SerializeAsString()),
            Hex(Bytes({0xa8, 0x01, 0x01, 0xa8, 0x01, 0x02,  // r_int32 = 21
                       0xca, 0x02, 0x03, 0x01, 0xac, 0x02,  // p_int32 = 41
                       0xea, 0x02, 0x02, 0x01, 0x02,        // p_sint32 = 45
                       0xfa, 0x02, 0x08,                    // p_fixed32 = 47
                       0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00})));
}

TEST(GeneratedStubsTest, KeywordFieldBytes) {
  HeapBuffered<kw::class_> msg;
  msg->set_delete_(5);
  msg->set_class_("a");
  msg->set_size_field_(1);
  msg->set_operator_(kw::EOF_);
  msg->add_template_(7);
  msg->set_this_()->set_new_(2);
  EXPECT_EQ(Hex(msg.SerializeAsString()),
            Hex(Bytes({0x08, 0x05,                          //
                       0x12, 0x01, 'a',                     //
                       0x30, 0x01,                          //
                       0x58, 0x01,                          //
                       0x68, 0x07,                          //
                       0x62, 0x82, 0x80, 0x80, 0x00,        //
                       0x18, 0x02})));
}

// ---------------------------------------------------------------------------
// Round trips through the generated decoders.

TEST(GeneratedStubsTest, AllScalarsRoundTrip) {
  HeapBuffered<pt::AllTypes> msg;
  msg->set_f_int32(-42);
  msg->set_f_int64(-5000000000ll);
  msg->set_f_uint32(4000000000u);
  msg->set_f_uint64(18000000000000000000ull);
  msg->set_f_sint32(-123456);
  msg->set_f_sint64(-9000000000ll);
  msg->set_f_fixed32(0xdeadbeef);
  msg->set_f_fixed64(0x0123456789abcdefull);
  msg->set_f_sfixed32(-77);
  msg->set_f_sfixed64(-88);
  msg->set_f_float(2.5f);
  msg->set_f_double(-0.125);
  msg->set_f_bool(true);
  msg->set_f_string("text");
  msg->set_f_bytes(std::string("\0\1", 2));
  msg->set_f_color(pt::GREEN);
  msg->set_f_mode(pt::AllTypes::MODE_AUTO);
  msg->set_far_away(99);
  const std::string bytes = msg.SerializeAsString();

  pt::AllTypes::Decoder dec(bytes);
  EXPECT_FALSE(dec.parse_error());
  EXPECT_EQ(dec.f_int32(), -42);
  EXPECT_EQ(dec.f_int64(), -5000000000ll);
  EXPECT_EQ(dec.f_uint32(), 4000000000u);
  EXPECT_EQ(dec.f_uint64(), 18000000000000000000ull);
  EXPECT_EQ(dec.f_sint32(), -123456);
  EXPECT_EQ(dec.f_sint64(), -9000000000ll);
  EXPECT_EQ(dec.f_fixed32(), 0xdeadbeefu);
  EXPECT_EQ(dec.f_fixed64(), 0x0123456789abcdefull);
  EXPECT_EQ(dec.f_sfixed32(), -77);
  EXPECT_EQ(dec.f_sfixed64(), -88);
  EXPECT_EQ(dec.f_float(), 2.5f);
  EXPECT_EQ(dec.f_double(), -0.125);
  EXPECT_TRUE(dec.f_bool());
  EXPECT_EQ(dec.f_string(), "text");
  EXPECT_EQ(dec.f_bytes().ToStdString(), std::string("\0\1", 2));
  EXPECT_EQ(dec.f_color(), pt::GREEN);
  EXPECT_EQ(dec.f_mode(), pt::AllTypes::MODE_AUTO);
  EXPECT_STREQ(pt::AllTypes::Mode_Name(dec.f_mode()), "MODE_AUTO");
  EXPECT_TRUE(dec.has_far_away());
  EXPECT_EQ(dec.far_away(), 99u);

  EXPECT_TRUE(dec.has_f_int32());
  EXPECT_TRUE(dec.has_f_mode());
  EXPECT_FALSE(dec.has_f_inner());
  EXPECT_FALSE(dec.has_r_int32());
  EXPECT_FALSE(dec.has_choice_name());
}

TEST(GeneratedStubsTest, AbsentFieldsReadAsZero) {
  HeapBuffered<pt::AllTypes> msg;
  msg->set_f_bool(false);
  const std::string bytes = msg.SerializeAsString();
  pt::AllTypes::Decoder dec(bytes);
  EXPECT_TRUE(dec.has_f_bool());
  EXPECT_FALSE(dec.f_bool());
  EXPECT_FALSE(dec.has_f_int32());
  EXPECT_EQ(dec.f_int32(), 0);
  EXPECT_EQ(dec.f_string(), "");
  EXPECT_EQ(dec.f_color(), pt::COLOR_UNSPECIFIED);
  EXPECT_FALSE(dec.has_far_away());
  EXPECT_EQ(dec.far_away(), 0u);
  EXPECT_FALSE(dec.r_int32());
  EXPECT_FALSE(dec.r_string());
}

TEST(GeneratedStubsTest, RepeatedRoundTrip) {
  HeapBuffered<pt::AllTypes> msg;
  msg->add_r_int32(-1);
  msg->add_r_int64(1ll << 40);
  msg->add_r_uint32(7);
  msg->add_r_uint64(8);
  msg->add_r_sint32(-9);
  msg->add_r_sint32(9);
  msg->add_r_sint64(-10);
  msg->add_r_fixed32(11);
  msg->add_r_fixed64(12);
  msg->add_r_sfixed32(-13);
  msg->add_r_sfixed64(-14);
  msg->add_r_float(1.5f);
  msg->add_r_double(2.5);
  msg->add_r_bool(true);
  msg->add_r_bool(false);
  msg->add_r_string("a");
  msg->add_r_string("bc");
  msg->add_r_bytes("\x01", 1);
  msg->add_r_color(pt::RED);
  msg->add_r_color(pt::BLUE);
  msg->add_r_inner()->set_label("first");
  msg->add_r_inner()->set_label("second");
  msg->add_r_int32(2);  // interleaved with other fields: order kept per field
  const std::string bytes = msg.SerializeAsString();

  pt::AllTypes::Decoder dec(bytes);
  EXPECT_EQ(Collect(dec.r_int32()), (std::vector<int32_t>{-1, 2}));
  EXPECT_EQ(Collect(dec.r_int64()), (std::vector<int64_t>{1ll << 40}));
  EXPECT_EQ(Collect(dec.r_uint32()), (std::vector<uint32_t>{7}));
  EXPECT_EQ(Collect(dec.r_uint64()), (std::vector<uint64_t>{8}));
  EXPECT_EQ(Collect(dec.r_sint32()), (std::vector<int32_t>{-9, 9}));
  EXPECT_EQ(Collect(dec.r_sint64()), (std::vector<int64_t>{-10}));
  EXPECT_EQ(Collect(dec.r_fixed32()), (std::vector<uint32_t>{11}));
  EXPECT_EQ(Collect(dec.r_fixed64()), (std::vector<uint64_t>{12}));
  EXPECT_EQ(Collect(dec.r_sfixed32()), (std::vector<int32_t>{-13}));
  EXPECT_EQ(Collect(dec.r_sfixed64()), (std::vector<int64_t>{-14}));
  EXPECT_EQ(Collect(dec.r_float()), (std::vector<float>{1.5f}));
  EXPECT_EQ(Collect(dec.r_double()), (std::vector<double>{2.5}));
  EXPECT_EQ(Collect(dec.r_bool()), (std::vector<bool>{true, false}));
  EXPECT_EQ(Collect(dec.r_string()),
            (std::vector<std::string_view>{"a", "bc"}));
  std::vector<std::string> byte_values;
  for (auto it = dec.r_bytes(); it; ++it)
    byte_values.push_back((*it).ToStdString());
  EXPECT_EQ(byte_values, (std::vector<std::string>{"\x01"}));
  EXPECT_EQ(Collect(dec.r_color()), (std::vector<pt::Color>{pt::RED, pt::BLUE}));
  std::vector<std::string> labels;
  for (auto it = dec.r_inner(); it; ++it)
    labels.emplace_back(pt::AllTypes::Inner::Decoder(*it).label());
  EXPECT_EQ(labels, (std::vector<std::string>{"first", "second"}));
}

TEST(GeneratedStubsTest, PackedRoundTrip) {
  HeapBuffered<pt::AllTypes> msg;
  PackedVarInt i32, i64, u32, u64, s32, s64, bools, colors;
  i32.Append(-5);
  i32.Append(6);
  i64.Append(-(int64_t{1} << 50));
  u32.Append(uint32_t{4000000000u});
  u64.Append(uint64_t{1} << 63);
  s32.AppendZigZag(int32_t{-100});
  s32.AppendZigZag(int32_t{100});
  s64.AppendZigZag(-(int64_t{1} << 40));
  bools.Append(true);
  bools.Append(false);
  bools.Append(true);
  colors.Append(pt::BLUE);
  colors.Append(pt::GREEN);
  PackedFixedSizeInt<uint32_t> f32;
  f32.Append(1);
  f32.Append(0xffffffffu);
  PackedFixedSizeInt<uint64_t> f64;
  f64.Append(3);
  PackedFixedSizeInt<int32_t> sf32;
  sf32.Append(-3);
  PackedFixedSizeInt<int64_t> sf64;
  sf64.Append(-4);
  PackedFixedSizeInt<float> fl;
  fl.Append(0.5f);
  fl.Append(-0.25f);
  PackedFixedSizeInt<double> db;
  db.Append(1e100);
  msg->set_p_int32(i32);
  msg->set_p_int64(i64);
  msg->set_p_uint32(u32);
  msg->set_p_uint64(u64);
  msg->set_p_sint32(s32);
  msg->set_p_sint64(s64);
  msg->set_p_fixed32(f32);
  msg->set_p_fixed64(f64);
  msg->set_p_sfixed32(sf32);
  msg->set_p_sfixed64(sf64);
  msg->set_p_float(fl);
  msg->set_p_double(db);
  msg->set_p_bool(bools);
  msg->set_p_color(colors);
  const std::string bytes = msg.SerializeAsString();

  pt::AllTypes::Decoder dec(bytes);
  bool error = false;
  EXPECT_EQ(Collect(dec.p_int32(&error)), (std::vector<int32_t>{-5, 6}));
  EXPECT_EQ(Collect(dec.p_int64(&error)), (std::vector<int64_t>{-(int64_t{1} << 50)}));
  EXPECT_EQ(Collect(dec.p_uint32(&error)), (std::vector<uint32_t>{4000000000u}));
  EXPECT_EQ(Collect(dec.p_uint64(&error)), (std::vector<uint64_t>{uint64_t{1} << 63}));
  EXPECT_EQ(Collect(dec.p_sint32(&error)), (std::vector<int32_t>{-100, 100}));
  EXPECT_EQ(Collect(dec.p_sint64(&error)), (std::vector<int64_t>{-(int64_t{1} << 40)}));
  EXPECT_EQ(Collect(dec.p_fixed32(&error)), (std::vector<uint32_t>{1, 0xffffffffu}));
  EXPECT_EQ(Collect(dec.p_fixed64(&error)), (std::vector<uint64_t>{3}));
  EXPECT_EQ(Collect(dec.p_sfixed32(&error)), (std::vector<int32_t>{-3}));
  EXPECT_EQ(Collect(dec.p_sfixed64(&error)), (std::vector<int64_t>{-4}));
  EXPECT_EQ(Collect(dec.p_float(&error)), (std::vector<float>{0.5f, -0.25f}));
  EXPECT_EQ(Collect(dec.p_double(&error)), (std::vector<double>{1e100}));
  EXPECT_EQ(Collect(dec.p_bool(&error)), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(Collect(dec.p_color(&error)),
            (std::vector<pt::Color>{pt::BLUE, pt::GREEN}));
  EXPECT_FALSE(error);
}

TEST(GeneratedStubsTest, PackedDecoderAcceptsUnpackedAndReportsErrors) {
  // p_int32 (41) written unpacked twice, then one packed blob.
  const std::string mixed = Bytes({0xc8, 0x02, 0x07,         // 41: 7
                                   0xc8, 0x02, 0x08,         // 41: 8
                                   0xca, 0x02, 0x02, 0x09, 0x0a});  // [9, 10]
  pt::AllTypes::Decoder dec(mixed);
  bool error = false;
  EXPECT_EQ(Collect(dec.p_int32(&error)), (std::vector<int32_t>{7, 8, 9, 10}));
  EXPECT_FALSE(error);

  // A packed blob ending in a truncated varint.
  const std::string truncated = Bytes({0xca, 0x02, 0x02, 0x01, 0x80});
  pt::AllTypes::Decoder bad(truncated);
  EXPECT_EQ(Collect(bad.p_int32(&error)), (std::vector<int32_t>{1}));
  EXPECT_TRUE(error);
}

TEST(GeneratedStubsTest, OneofMembersAreOrdinaryFields) {
  HeapBuffered<pt::AllTypes> msg;
  msg->set_choice_inner()->set_depth(pt::AllTypes::Inner::DEEP);
  const std::string bytes = msg.SerializeAsString();
  pt::AllTypes::Decoder dec(bytes);
  EXPECT_FALSE(dec.has_choice_name());
  EXPECT_FALSE(dec.has_choice_id());
  ASSERT_TRUE(dec.has_choice_inner());
  pt::AllTypes::Inner::Decoder inner(dec.choice_inner());
  EXPECT_EQ(inner.depth(), pt::AllTypes_Inner_Depth_DEEP);
  EXPECT_FALSE(inner.has_label());
}

TEST(GeneratedStubsTest, Proto3) {
  HeapBuffered<pt::Proto3Msg> msg;
  msg->set_id(0);  // written even when zero: protozero does not skip defaults
  PackedVarInt packed;
  packed.Append(1);
  packed.Append(2);
  msg->set_packed_by_default(packed);
  msg->add_unpacked(3);
  msg->add_unpacked(4);
  PackedFixedSizeInt<double> doubles;
  doubles.Append(0.5);
  msg->set_doubles(doubles);
  PackedVarInt zigzags;
  zigzags.AppendZigZag(int64_t{-3});
  msg->set_zigzags(zigzags);
  PackedVarInt kinds;
  kinds.Append(pt::Proto3Msg::KIND_B);
  msg->set_kinds(kinds);
  msg->add_names("n1");
  msg->set_maybe(0);
  msg->set_string_value("oneof");
  pt::Proto3Msg_CountsEntry* entry = msg->add_counts();
  entry->set_key("k");
  entry->set_value(9);
  msg->set_kind(pt::Proto3Msg::KIND_A);
  const std::string bytes = msg.SerializeAsString();

  // The unpacked field really is unpacked (tag 0x20 = field 4, varint).
  EXPECT_NE(bytes.find(Bytes({0x20, 0x03, 0x20, 0x04})), std::string::npos);
  // ...and the packed one packed (tag 0x1a = field 3, length-delimited).
  EXPECT_NE(bytes.find(Bytes({0x1a, 0x02, 0x01, 0x02})), std::string::npos);

  pt::Proto3Msg::Decoder dec(bytes);
  EXPECT_TRUE(dec.has_id());
  EXPECT_EQ(dec.id(), 0);
  EXPECT_EQ(Collect(dec.packed_by_default()), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(Collect(dec.unpacked()), (std::vector<int32_t>{3, 4}));
  EXPECT_EQ(Collect(dec.doubles()), (std::vector<double>{0.5}));
  EXPECT_EQ(Collect(dec.zigzags()), (std::vector<int64_t>{-3}));
  EXPECT_EQ(Collect(dec.kinds()),
            (std::vector<pt::Proto3Msg_Kind>{pt::Proto3Msg::KIND_B}));
  EXPECT_EQ(Collect(dec.names()), (std::vector<std::string_view>{"n1"}));
  EXPECT_TRUE(dec.has_maybe());
  EXPECT_EQ(dec.string_value(), "oneof");
  EXPECT_FALSE(dec.has_int_value());
  EXPECT_EQ(dec.kind(), pt::Proto3Msg::KIND_A);
  auto counts = dec.counts();
  ASSERT_TRUE(counts);
  pt::Proto3Msg_CountsEntry::Decoder e(*counts);
  EXPECT_EQ(e.key(), "k");
  EXPECT_EQ(e.value(), 9);
  EXPECT_FALSE(++counts);
}

// Builds a tree of |depth| levels, |fanout| children each.
void FillTree(pt::Tree* tree, const std::string& name, int depth, int fanout) {
  tree->set_name(name);
  if (depth == 0)
    return;
  for (int i = 0; i < fanout; ++i)
    FillTree(tree->add_children(), name + "." + std::to_string(i), depth - 1,
             fanout);
}

// Returns the names of the tree in pre-order.
void ReadTree(ConstBytes bytes, std::vector<std::string>* names) {
  pt::Tree::Decoder dec(bytes);
  EXPECT_FALSE(dec.parse_error());
  names->emplace_back(dec.name());
  for (auto it = dec.children(); it; ++it)
    ReadTree(*it, names);
}

TEST(GeneratedStubsTest, RecursiveMessages) {
  HeapBuffered<pt::Forest> forest;
  FillTree(forest->add_trees(), "r", 3, 2);
  pt::Ping* ping = forest->set_first_ping();
  ping->set_seq(1);
  pt::Pong* pong = ping->set_pong();
  pong->set_seq(2);
  pong->set_ping()->set_seq(3);
  const std::string bytes = forest.SerializeAsString();

  pt::Forest::Decoder dec(bytes);
  std::vector<std::string> names;
  for (auto it = dec.trees(); it; ++it)
    ReadTree(*it, &names);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "r", "r.0", "r.0.0", "r.0.0.0", "r.0.0.1", "r.0.1",
                       "r.0.1.0", "r.0.1.1", "r.1", "r.1.0", "r.1.0.0",
                       "r.1.0.1", "r.1.1", "r.1.1.0", "r.1.1.1"}));

  pt::Ping::Decoder p1(dec.first_ping());
  EXPECT_EQ(p1.seq(), 1u);
  pt::Pong::Decoder p2(p1.pong());
  EXPECT_EQ(p2.seq(), 2u);
  pt::Ping::Decoder p3(p2.ping());
  EXPECT_EQ(p3.seq(), 3u);
  EXPECT_FALSE(p3.has_pong());

  HeapBuffered<pt::Outer> outer;
  outer->set_a()->set_b()->set_a()->set_outer()->set_a();
  const std::string outer_bytes = outer.SerializeAsString();
  pt::Outer::Decoder o(outer_bytes);
  ASSERT_TRUE(o.has_a());
  EXPECT_TRUE(pt::Outer::A::Decoder(o.a()).has_b());
}

TEST(GeneratedStubsTest, ImportsAcrossFilesAndPackages) {
  HeapBuffered<pt::Report> report;
  report->set_title("t");
  base::Measure* m = report->add_measures();
  m->set_value(1.5);
  m->set_unit(base::UNIT_BYTES);
  m->set_quality(base::Measure::BAD);
  report->set_default_unit(base::UNIT_NS);
  report->set_worst(base::Measure_Quality_BAD);
  report->add_units(base::UNIT_NS);
  report->add_units(base::UNIT_BYTES);
  const std::string bytes = report.SerializeAsString();

  pt::Report::Decoder dec(bytes);
  EXPECT_EQ(dec.title(), "t");
  EXPECT_EQ(dec.default_unit(), base::UNIT_NS);
  EXPECT_EQ(dec.worst(), base::Measure::BAD);
  EXPECT_EQ(Collect(dec.units()),
            (std::vector<base::Unit>{base::UNIT_NS, base::UNIT_BYTES}));
  auto it = dec.measures();
  ASSERT_TRUE(it);
  base::Measure::Decoder md(*it);
  EXPECT_EQ(md.value(), 1.5);
  EXPECT_EQ(md.unit(), base::UNIT_BYTES);
  EXPECT_STREQ(base::Unit_Name(md.unit()), "UNIT_BYTES");
  EXPECT_EQ(md.quality(), base::Measure::BAD);
}

TEST(GeneratedStubsTest, KeywordFieldsRoundTrip) {
  HeapBuffered<kw::class_> msg;
  msg->set_delete_(1);
  msg->set_std("s");
  msg->set_int32_t_(4);
  msg->set_parse_error_(7);
  msg->set_foo(8);
  msg->set_has_foo_(9);
  msg->set_set_foo_(10);
  msg->set_GetName_(14);
  msg->set_Decoder_(15);
  msg->set_zt(16);
  msg->set_fooBar(17);
  msg->set_foo_bar(18);
  msg->set_at_(19);
  msg->set_type(kw::class_::TRUE_);
  msg->set_Type_Name_(21);
  const std::string bytes = msg.SerializeAsString();

  kw::class_::Decoder dec(bytes);
  EXPECT_FALSE(dec.parse_error());  // the base's, not field 7
  EXPECT_EQ(dec.delete_(), 1);
  EXPECT_EQ(dec.std(), "s");
  EXPECT_EQ(dec.int32_t_(), 4u);
  EXPECT_EQ(dec.parse_error_(), 7);
  EXPECT_TRUE(dec.has_foo());
  EXPECT_EQ(dec.foo(), 8);
  EXPECT_EQ(dec.has_foo_(), 9);
  EXPECT_EQ(dec.set_foo_(), 10);
  EXPECT_EQ(dec.GetName_(), 14);
  EXPECT_EQ(dec.Decoder_(), 15);
  EXPECT_EQ(dec.zt(), 16);
  EXPECT_EQ(dec.fooBar(), 17);
  EXPECT_EQ(dec.foo_bar(), 18);
  EXPECT_EQ(dec.at_(), 19);
  EXPECT_EQ(dec.type(), kw::class_Type_TRUE);
  EXPECT_EQ(dec.Type_Name_(), 21);
  EXPECT_FALSE(dec.has_class_());
}

TEST(GeneratedStubsTest, NoWrapperNamespace) {
  HeapBuffered<::zt::nowrap::Plain> msg;
  msg->set_x(1);
  msg->set_child()->set_level(::zt::nowrap::Plain::HIGH);
  EXPECT_EQ(Hex(msg.SerializeAsString()),
            Hex(Bytes({0x08, 0x01, 0x22, 0x82, 0x80, 0x80, 0x00, 0x18, 0x01})));
}

}  // namespace

namespace {

// Types reached only through an `import public` must still be usable.
TEST(GeneratedStubsTest, TypesThroughPublicImport) {
  namespace pb = ::zt::plugin_test::pbzero;
  ::zt::protozero::HeapBuffered<pb::PublicImportUser> msg;
  msg->set_leaf()->set_label("x");
  msg->set_kind(pb::LEAF_KIND_GREEN);
  const std::string bytes = msg.SerializeAsString();
  pb::PublicImportUser::Decoder decoded(bytes);
  ASSERT_TRUE(decoded.has_leaf());
  pb::LeafMessage::Decoder leaf(decoded.leaf());
  EXPECT_EQ(leaf.label(), "x");
  EXPECT_EQ(decoded.kind(), pb::LEAF_KIND_GREEN);
}

// Repeated-field iterators point into the decoder: taking one from a
// temporary decoder must not compile.
template <typename D, typename = void>
struct CanIterateTemporary : std::false_type {};
template <typename D>
struct CanIterateTemporary<D, std::void_t<decltype(std::declval<D&&>().r_int32())>>
    : std::true_type {};
template <typename D, typename = void>
struct CanIterateLvalue : std::false_type {};
template <typename D>
struct CanIterateLvalue<D, std::void_t<decltype(std::declval<const D&>().r_int32())>>
    : std::true_type {};
static_assert(CanIterateLvalue<::zt::plugin_test::pbzero::AllTypes::Decoder>::value,
              "repeated accessors work on a named decoder");
static_assert(!CanIterateTemporary<::zt::plugin_test::pbzero::AllTypes::Decoder>::value,
              "repeated accessors must be deleted on temporaries");

}  // namespace
