// Internals of the track event macros: a call site's literal name and
// annotation keys, read at compile time from the macro's own spelling of its
// arguments, so that the call passes one address for all of them.
//
// Why: an event with four annotations passed its category, instances, name,
// four keys and four values, eleven arguments. Each literal costs the call
// site a 7-byte address load, and past six arguments they go through the
// stack: over 100 bytes of text per call site. A C++17 template cannot
// receive a literal's characters as a constant, but the macro can spell its
// arguments (#__VA_ARGS__), and that spelling is a constant. A constexpr
// scanner splits it at the top-level commas and decodes the literals where
// the argument types say the name and the keys are; the site then keeps a
// table of them (FastSiteTable, in read-only data, no relocations) and the
// call passes its address, the instances and the values.
//
// The table is used only where the spelling agrees with the types: as many
// pieces as arguments, and each literal's decoded length one less than its
// array's. The scanner groups only what C++ groups (parentheses, brackets,
// braces, string and character literals), and fails on what could make one
// piece stand for several arguments or none (a pack expansion, digraphs),
// so every argument is one or more whole pieces; as many pieces as
// arguments means one piece each, in order.
// A spelling the scanner does not read (a raw string, an escape other than
// the simple ones, a key named by a constant, more than 255 bytes of names)
// leaves the site on the path that passes the keys: a few more bytes of
// text, the same event.

#ifndef ZT_TRACING_INTERNAL_TRACK_EVENT_SITE_H_
#define ZT_TRACING_INTERNAL_TRACK_EVENT_SITE_H_

#include <stddef.h>
#include <stdint.h>

#include "zt/tracing/internal/track_event_fast_args.h"
#include "zt/tracing/internal/type_traits.h"

namespace zt {
namespace internal {

// What a macro's site lambda returns: its arguments as spelled (from the
// name on, or from the category on: the caller knows which) and the
// category's id.
struct SiteSpelling {
  const char* text;
  size_t size;
  uint32_t category;
};

// The table's layout: the category id (4 bytes, little-endian), each key's
// offset from the table's start (one byte each, 0 for a flow or past the
// last argument), then the name and the keys, each ending with a NUL.
constexpr size_t kFastSiteKeyOffsets = 4;
constexpr size_t kFastSiteNameOffset = kFastSiteKeyOffsets + kMaxFastArgs;
constexpr size_t kMaxFastSiteBytes = 255;  // Offsets fit in a byte.

template <size_t N>
struct FastSiteTable {
  char bytes[N];
};

inline uint32_t FastSiteCategory(const char* table) {
  const unsigned char* b = reinterpret_cast<const unsigned char*>(table);
  return static_cast<uint32_t>(b[0]) | static_cast<uint32_t>(b[1]) << 8 |
         static_cast<uint32_t>(b[2]) << 16 | static_cast<uint32_t>(b[3]) << 24;
}

// The keys' addresses in the table (null for a flow and past the last).
inline void FillFastSiteKeys(const char* table, FastArgs* args) {
  for (size_t i = 0; i < kMaxFastArgs; i++) {
    const uint8_t offset = static_cast<uint8_t>(table[kFastSiteKeyOffsets + i]);
    args->keys[i] = offset != 0 ? table + offset : nullptr;
  }
}

// A longer spelling (a long lambda or literal among the arguments) is not
// scanned: compilers bound the steps of a constant evaluation, and a
// scanner that ran out of them would fail the build, not fall back.
constexpr size_t kMaxSiteSpelling = 4096;

// The spelling of at most this many arguments (a category, a name, four
// annotations) is split; a longer one is not for the table.
constexpr size_t kMaxSitePieces = 2 + 2 * kMaxFastArgs;

struct SitePieces {
  bool ok;
  // Offsets in the spelling (at most kMaxSiteSpelling bytes are split):
  // small types, as a constant evaluation copies these structs whole.
  uint16_t count;
  uint16_t begin[kMaxSitePieces];
  uint16_t end[kMaxSitePieces];
};

// Splits a spelling at its top-level commas. What could make one piece
// stand for several arguments, or for none, fails the split: a pack
// expansion (`...`), digraphs (`<:` is a bracket the scanner would not
// pair), brackets not closed by their own kind. One loop and no calls: a
// compiler evaluates this for every call site that may keep a table, and
// its constant evaluator pays for each step.
constexpr SitePieces SplitSiteSpelling(const char* text, size_t size) {
  SitePieces pieces{};
  if (size > kMaxSiteSpelling)
    return pieces;
  constexpr size_t kMaxDepth = 32;
  char open[kMaxDepth] = {};
  size_t depth = 0;
  size_t start = 0;
  char quote = 0;        // Inside a string or character literal.
  bool number = false;   // Inside a number (where ' separates digits).
  bool word = false;     // Inside an identifier or a number.
  for (size_t i = 0; i < size; i++) {
    const char c = text[i];
    if (quote) {
      if (c == '\\')
        i++;
      else if (c == quote)
        quote = 0;
      continue;
    }
    const bool ident = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                       (c >= '0' && c <= '9') || c == '_' || c == '$';
    if (ident) {
      if (!word)
        number = c >= '0' && c <= '9';
      word = true;
      continue;
    }
    const char next = i + 1 < size ? text[i + 1] : '\0';
    if (number) {
      if (c == '.')
        continue;  // A decimal point.
      if (c == '\'' && (next == '_' || (next >= '0' && next <= '9') ||
                        (next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z')))
        continue;  // A digit separator.
      const char previous = text[i - 1];
      if ((c == '+' || c == '-') &&
          (previous == 'e' || previous == 'E' || previous == 'p' || previous == 'P'))
        continue;  // An exponent's sign.
    }
    if (c == '.' && !word && next >= '0' && next <= '9') {
      number = word = true;  // .5
      continue;
    }
    if (c == '"' && word && text[i - 1] == 'R')
      return SitePieces{};  // A raw string literal is not scanned.
    word = number = false;
    if (c == '"' || c == '\'') {
      quote = c;
    } else if ((c == '.' && next == '.') || (c == '<' && (next == ':' || next == '%')) ||
               (c == ':' && next == '>') || (c == '%' && (next == '>' || next == ':'))) {
      return SitePieces{};
    } else if (c == '(' || c == '[' || c == '{') {
      if (depth == kMaxDepth)
        return SitePieces{};
      open[depth++] = c;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0 || open[depth - 1] != (c == ')' ? '(' : c == ']' ? '[' : '{'))
        return SitePieces{};
      depth--;
    } else if (c == ',' && depth == 0) {
      if (pieces.count == kMaxSitePieces - 1)
        return SitePieces{};
      pieces.begin[pieces.count] = static_cast<uint16_t>(start);
      pieces.end[pieces.count] = static_cast<uint16_t>(i);
      pieces.count++;
      start = i + 1;
    }
  }
  if (quote || depth != 0)
    return SitePieces{};
  pieces.begin[pieces.count] = static_cast<uint16_t>(start);
  pieces.end[pieces.count] = static_cast<uint16_t>(size);
  pieces.count++;
  pieces.ok = true;
  return pieces;
}

// The character a simple escape sequence (\n, \", ...) stands for; 0 for
// any other (octal, hex, universal character names: not decoded here).
constexpr char SiteEscape(char c) {
  switch (c) {
    case '\\': return '\\';
    case '"': return '"';
    case '\'': return '\'';
    case '?': return '?';
    case 'a': return '\a';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'v': return '\v';
    default: return 0;
  }
}

// The length of the string a piece spells when it is only plain string
// literals (one, or several concatenated); -1 when it is anything else.
// With |out|, also writes the string there.
constexpr long DecodeSiteLiteral(const char* text, size_t begin, size_t end, char* out) {
  long length = 0;
  bool literal = false;
  size_t i = begin;
  while (i < end) {
    if (text[i] == ' ') {
      i++;
      continue;
    }
    if (text[i] != '"')
      return -1;
    literal = true;
    for (i++;; i++) {
      if (i >= end)
        return -1;
      char c = text[i];
      if (c == '"')
        break;
      if (c == '\\') {
        if (++i >= end || (c = SiteEscape(text[i])) == 0)
          return -1;
      }
      if (out)
        out[length] = c;
      length++;
    }
    i++;
  }
  return literal ? length : -1;
}

// Where the types say the literals are: the array size of the name and of
// each key (0 at a value or flow), by argument position from the name on;
// and each key's slot in FastArgs (a flow takes a slot, no key).
struct SiteLiteralSizes {
  uint8_t count;
  uint8_t size[1 + 2 * kMaxFastArgs];  // 0, or at most kMaxFastSiteBytes.
  uint8_t slot[1 + 2 * kMaxFastArgs];
};

// An array's size as SiteLiteralSizes keeps it: one too long for any table
// stays too long (255 and a name make more than kMaxFastSiteBytes).
constexpr uint8_t SiteLiteralSize(size_t size) {
  return static_cast<uint8_t>(size < kMaxFastSiteBytes ? size : kMaxFastSiteBytes);
}

template <typename... Args>
struct SiteLiteralSizesOf;
template <>
struct SiteLiteralSizesOf<> {
  static constexpr void Fill(SiteLiteralSizes&, size_t, size_t) {}
};
template <typename First, typename... Rest>
struct SiteLiteralSizesOf<First, Rest...> {
  // Past the value: the annotation's key was First.
  template <typename Value, typename... AfterValue>
  static constexpr void FillAfterKey(SiteLiteralSizes& sizes, size_t position, size_t slot) {
    SiteLiteralSizesOf<AfterValue...>::Fill(sizes, position + 2, slot + 1);
  }
  static constexpr void Fill(SiteLiteralSizes& sizes, size_t position, size_t slot) {
    using F = RemoveCvRef<First>;
    if constexpr (IsSame<F, Flow>::value || IsSame<F, TerminatingFlow>::value) {
      SiteLiteralSizesOf<Rest...>::Fill(sizes, position + 1, slot + 1);
    } else {
      sizes.size[position] = SiteLiteralSize(sizeof(RemoveRef<First>));
      sizes.slot[position] = static_cast<uint8_t>(slot);
      FillAfterKey<Rest...>(sizes, position, slot);
    }
  }
};

// For a name of type Name and an argument list IsFastArgList takes.
template <typename Name, typename... Args>
constexpr SiteLiteralSizes SiteLiteralSizesFor() {
  SiteLiteralSizes sizes{};
  sizes.count = static_cast<uint8_t>(1 + sizeof...(Args));
  sizes.size[0] = SiteLiteralSize(sizeof(RemoveRef<Name>));
  SiteLiteralSizesOf<Args...>::Fill(sizes, 1, 0);
  return sizes;
}

// Whether a site may keep a table, its size, and where the spelling's
// pieces are (BuildFastSiteTable does not split again).
struct FastSiteLayout {
  bool ok;
  size_t size;
  SitePieces pieces;
};

// |skip|: the pieces before the name (the category's, when the spelling
// starts with it).
constexpr FastSiteLayout LayOutFastSite(const SiteSpelling& spelling, size_t skip,
                                        const SiteLiteralSizes& sizes) {
  const FastSiteLayout failed{};
  if (spelling.size > kMaxSiteSpelling)
    return failed;
  const SitePieces pieces = SplitSiteSpelling(spelling.text, spelling.size);
  if (!pieces.ok || pieces.count != skip + sizes.count)
    return failed;
  size_t size = kFastSiteNameOffset;
  for (size_t i = 0; i < sizes.count; i++) {
    if (sizes.size[i] == 0)
      continue;
    const long length = DecodeSiteLiteral(spelling.text, pieces.begin[skip + i],
                                          pieces.end[skip + i], nullptr);
    if (length < 0 || static_cast<size_t>(length) + 1 != sizes.size[i])
      return failed;
    size += sizes.size[i];
  }
  if (size > kMaxFastSiteBytes)
    return failed;
  return FastSiteLayout{true, size, pieces};
}

template <size_t N>
constexpr FastSiteTable<N> BuildFastSiteTable(const SiteSpelling& spelling,
                                              const FastSiteLayout& layout, size_t skip,
                                              const SiteLiteralSizes& sizes) {
  FastSiteTable<N> table{};
  for (size_t i = 0; i < 4; i++)
    table.bytes[i] = static_cast<char>(spelling.category >> (8 * i) & 0xff);
  size_t offset = kFastSiteNameOffset;
  for (size_t i = 0; i < sizes.count; i++) {
    if (sizes.size[i] == 0)
      continue;
    if (i != 0)
      table.bytes[kFastSiteKeyOffsets + sizes.slot[i]] = static_cast<char>(offset);
    DecodeSiteLiteral(spelling.text, layout.pieces.begin[skip + i],
                      layout.pieces.end[skip + i], table.bytes + offset);
    offset += sizes.size[i];  // The NUL is there already.
  }
  return table;
}

}  // namespace internal
}  // namespace zt

#endif  // ZT_TRACING_INTERNAL_TRACK_EVENT_SITE_H_
