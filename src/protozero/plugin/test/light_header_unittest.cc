// Generated writer headers are light: including one only declares the
// message and enum types of the files it imports. Nothing else is included
// in this file on purpose; each check below fails if the generator goes back
// to including imported files' headers.

#include "zt/plugin_test/import_user.pbzero.h"

#ifdef ZT_PBZERO_GEN_ZT_PLUGIN_TEST_IMPORT_BASE_PBZERO_H_
#error "import_user.pbzero.h included import_base.pbzero.h"
#endif

// The real thing: the TracePacket writer every data source includes refers
// to ~20 payload schemas (configs, track events, stats...); none of them may
// be parsed by a file that only writes packets.
#include "zt/trace/trace_packet.pbzero.h"

#if defined(ZT_PBZERO_GEN_ZT_TRACE_TEST_EVENT_PBZERO_H_) ||           \
    defined(ZT_PBZERO_GEN_ZT_TRACE_TRACK_EVENT_TRACK_EVENT_PBZERO_H_) || \
    defined(ZT_PBZERO_GEN_ZT_CONFIG_TRACE_CONFIG_PBZERO_H_) ||         \
    defined(ZT_PBZERO_GEN_ZT_COMMON_TRACE_STATS_PBZERO_H_)
#error "trace_packet.pbzero.h included the header of a payload schema"
#endif

#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include "zt/protozero/scattered_heap_buffer.h"

namespace {

namespace pb = ::zt::plugin_test::pbzero;
namespace base = ::zt::plugin_test::base::pbzero;

template <typename T, typename = void>
struct IsComplete : std::false_type {};
template <typename T>
struct IsComplete<T, std::void_t<decltype(sizeof(T))>> : std::true_type {};

TEST(LightHeaderTest, ImportedMessagesAreOnlyDeclared) {
  // The nested writer is named (the accessor's default template argument)
  // but not defined: a caller that writes it includes its header.
  static_assert(!IsComplete<base::Measure>::value,
                "the imported message's writer should only be declared");
  static_assert(IsComplete<pb::Report>::value, "");
}

TEST(LightHeaderTest, EnumsOfImportedFilesWorkFromTheirDeclaration) {
  // An opaque declaration with the fixed underlying type is a complete
  // type: setters and decoders taking it work without the defining header.
  static_assert(IsComplete<base::Unit>::value, "");
  static_assert(std::is_same<std::underlying_type_t<base::Unit>, int32_t>::value, "");
  ::zt::protozero::HeapBuffered<pb::Report> report;
  report->set_title("t");
  report->set_default_unit(static_cast<base::Unit>(2));
  report->set_worst(static_cast<base::Measure_Quality>(1));
  const std::string bytes = report.SerializeAsString();
  pb::Report::Decoder decoded(bytes);
  EXPECT_EQ(decoded.title(), "t");
  EXPECT_EQ(static_cast<int32_t>(decoded.default_unit()), 2);
  EXPECT_EQ(static_cast<int32_t>(decoded.worst()), 1);
  // Proto bytes: title (field 1), default_unit (3) = 2, worst (4) = 1.
  EXPECT_EQ(bytes, std::string("\x0a\x01t\x18\x02\x20\x01", 7));
}

}  // namespace
