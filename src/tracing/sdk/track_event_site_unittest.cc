// The scanner that reads a track event call site's spelling of its
// arguments (zt/tracing/internal/track_event_site.h): where it splits, which
// literals it decodes, and which spellings it leaves to the path that passes
// the keys. Checked at run time, so that a failure names the case; a few
// static_asserts show the scanner runs in constant expressions, as the
// macros need.

#include "zt/tracing/internal/track_event_site.h"

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "zt/tracing/track_event.h"

namespace zt {
namespace internal {
namespace {

std::vector<std::string> Pieces(const char* text) {
  const SitePieces pieces = SplitSiteSpelling(text, std::strlen(text));
  std::vector<std::string> out;
  if (!pieces.ok)
    return {"<not split>"};
  for (size_t i = 0; i < pieces.count; i++)
    out.emplace_back(text + pieces.begin[i], pieces.end[i] - pieces.begin[i]);
  return out;
}

using Strings = std::vector<std::string>;

TEST(TrackEventSiteTest, SplitsAtTopLevelCommasOnly) {
  EXPECT_EQ(Pieces("\"n\", \"k\", x"), (Strings{"\"n\"", " \"k\"", " x"}));
  EXPECT_EQ(Pieces("\"n\", \"k\", f(a, b), \"j\", v[1, 2]"),
            (Strings{"\"n\"", " \"k\"", " f(a, b)", " \"j\"", " v[1, 2]"}));
  EXPECT_EQ(Pieces("\"n\", \"k\", Point{1, 2}.x"), (Strings{"\"n\"", " \"k\"", " Point{1, 2}.x"}));
  EXPECT_EQ(Pieces("\"n\", \"a,b\", ','"), (Strings{"\"n\"", " \"a,b\"", " ','"}));
  EXPECT_EQ(Pieces("\"n\", \"q\\\",\", 1"), (Strings{"\"n\"", " \"q\\\",\"", " 1"}));
  // Digit separators and exponents are a number's, not character literals.
  EXPECT_EQ(Pieces("\"n\", \"k\", 1'000'000, \"e\", 1.5e+3, 0x1'F"),
            (Strings{"\"n\"", " \"k\"", " 1'000'000", " \"e\"", " 1.5e+3", " 0x1'F"}));
  EXPECT_EQ(Pieces("\"n\", u8\"k\", L'x'"), (Strings{"\"n\"", " u8\"k\"", " L'x'"}));
  EXPECT_EQ(Pieces("\"n\", [&](EventContext ctx) { int a, b; }"),
            (Strings{"\"n\"", " [&](EventContext ctx) { int a, b; }"}));
  // Template arguments are not grouped: more pieces than arguments (never
  // fewer: what could merge arguments fails the split, below).
  EXPECT_EQ(Pieces("\"n\", \"k\", Get<int, 2>()").size(), 4u);
}

constexpr size_t PieceCount(const char* text, size_t size) {
  return SplitSiteSpelling(text, size).ok ? SplitSiteSpelling(text, size).count : 0;
}
static_assert(PieceCount("\"n\", \"k\", f(a, b)", 18) == 3, "splits in constant expressions");
static_assert(PieceCount("\"n\", \"k\", a[0:>", 16) == 0, "a digraph fails the split");
static_assert(DecodeSiteLiteral("\"a\\tb\"", 0, 6, nullptr) == 3, "decodes a tab");

TEST(TrackEventSiteTest, LeavesWhatItDoesNotRead) {
  EXPECT_EQ(Pieces("\"n\", R\"(raw)\", 1"), Strings{"<not split>"});
  EXPECT_EQ(Pieces("\"n\", \"unterminated"), Strings{"<not split>"});
  EXPECT_EQ(Pieces("\"n\", f(x"), Strings{"<not split>"});
  EXPECT_EQ(Pieces("\"n\", x)"), Strings{"<not split>"});
  EXPECT_EQ(Pieces("a, b, c, d, e, f, g, h, i, j, k"), Strings{"<not split>"});
  EXPECT_EQ(Pieces("a, b, c, d, e, f, g, h, i, j").size(), 10u);
  // A piece that could stand for several arguments or none: a pack
  // expansion; digraphs, which are brackets the scanner would not pair
  // (here one piece would span three arguments); brackets closed by
  // another kind.
  EXPECT_EQ(Pieces("\"n\", \"k\", as..., \"j\", 1"), Strings{"<not split>"});
  EXPECT_EQ(Pieces("\"n\", \"k\", a[0:>, \"j\", b<:0]"), Strings{"<not split>"});
  EXPECT_EQ(Pieces("\"n\", \"k\", S<%0, \"j\", 3%>.v"), Strings{"<not split>"});
  EXPECT_EQ(Pieces("\"n\", %:x"), Strings{"<not split>"});
  EXPECT_EQ(Pieces("\"n\", f(x]"), Strings{"<not split>"});
  EXPECT_EQ(Pieces("\"n\", x, 0.5, .5"), (Strings{"\"n\"", " x", " 0.5", " .5"}));
}

std::string Decoded(const char* piece) {
  const size_t size = std::strlen(piece);
  const long length = DecodeSiteLiteral(piece, 0, size, nullptr);
  if (length < 0)
    return "<not a literal>";
  std::string out(static_cast<size_t>(length), '?');
  EXPECT_EQ(DecodeSiteLiteral(piece, 0, size, &out[0]), length);
  return out;
}

TEST(TrackEventSiteTest, DecodesPlainLiteralsOnly) {
  EXPECT_EQ(Decoded(" \"key\""), "key");
  EXPECT_EQ(Decoded("\"\""), "");
  EXPECT_EQ(Decoded("\"a\\\"b\\\\c\\n\\t\""), "a\"b\\c\n\t");
  EXPECT_EQ(Decoded("\"con\" \"cat\""), "concat");
  EXPECT_EQ(Decoded("\"oct\\101\""), "<not a literal>");
  EXPECT_EQ(Decoded("\"hex\\x41\""), "<not a literal>");
  EXPECT_EQ(Decoded("\"nul\\0\""), "<not a literal>");
  EXPECT_EQ(Decoded("u8\"k\""), "<not a literal>");
  EXPECT_EQ(Decoded("\"k\"_s"), "<not a literal>");
  EXPECT_EQ(Decoded("kKey"), "<not a literal>");
  EXPECT_EQ(Decoded(" "), "<not a literal>");
  EXPECT_EQ(Decoded("\"k\" + 1"), "<not a literal>");
}

// Whether a call site's arguments, as the macros spell and type them,
// take the table; the category first, as TRACE_EVENT_INSTANT spells them.
template <typename Site, typename C, typename N, typename... Args>
bool TakesTable(Site site, const C&, const N&, const Args&...) {
  return TakesFastSiteTable<C, const N&, const Args&...>(site);
}
#define EXPECT_TABLE(expected, ...) \
  EXPECT_EQ(expected, TakesTable(ZT_INTERNAL_SITE_SPELLING_(0, __VA_ARGS__), __VA_ARGS__))
#define KEY_FROM_A_MACRO "from a macro"

TEST(TrackEventSiteTest, TakesTheTableWhereTheSpellingAgreesWithTheTypes) {
  const int x = 1;
  const double d = 2;
  static const char kKey[] = "named";
  struct Point {
    int x, y;
  };
  EXPECT_TABLE(true, "c", "n", "i", x, "s", "lit", "d", d, "b", x > 3);
  EXPECT_TABLE(true, "c", "n", "a", x, "b", x + 1, "c", x + 2, "e", x + 3);
  EXPECT_TABLE(true, "c", "n", Flow::Global(1), "k", 1'000, TerminatingFlow::Global(2), "j", d);
  EXPECT_TABLE(true, "c", "n", "esc\"aped", x, "tab\there", d);
  EXPECT_TABLE(true, "c", "n", "con" "cat", x, "j", x);
  EXPECT_TABLE(true, "c", "n", KEY_FROM_A_MACRO, x, "j", x);
  EXPECT_TABLE(true, "c", "n", "k", Point{1, 2}.y, "j", ',');
  EXPECT_TABLE(true, "c", "n", "k", int{','}, "e", sizeof("..."));
  // Left to the path that passes the keys.
  EXPECT_TABLE(false, "c", "n", kKey, x, "j", x);
  // Digraphs: unread, the first piece here would span three arguments and
  // the other argument make three pieces, so that the table would hold "CC"
  // for the key "BB".
  int a[1] = {0};
  struct S {
    int x;
    const char* s;
    int v;
  };
  EXPECT_TABLE(false, "c", "n", "AA", a[0:>, "BB", a<:0], "CC", S<%0, "ZZ", 3%>.v);
  // Forms with writers of their own, and a name that is not a literal.
  EXPECT_TABLE(false, "c", "n", "i", x);
  EXPECT_TABLE(false, "c", "n", "s", "lit");
  EXPECT_TABLE(false, "c", StaticString{"n"}, "i", x, "j", x);
  EXPECT_TABLE(false, "c", "n", R"(raw)", x, "j", x);
  EXPECT_TABLE(false, "c", "n", "oct\101", x, "j", x);
  EXPECT_TABLE(false, "c",
               "a name long enough that the table would need more than two hundred and "
               "fifty five bytes: the offsets of the keys are single bytes, so a site with "
               "such a name passes its keys as before, which costs it a few bytes of text "
               "and nothing else at all",
               "k", x, "j", x);
}

}  // namespace
}  // namespace internal
}  // namespace zt
