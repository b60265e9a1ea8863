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
// braces, string and character literals), so every argument is one or more
// whole pieces; as many pieces as arguments means one piece each, in order.
// A spelling the scanner does not read (a raw string, an escape other than
// the simple ones, a key named by a constant, more than 255 bytes of names)
// leaves the site on the path that passes the keys: slower, never wrong.

#ifndef ZT_TRACING_INTERNAL_TRACK_EVENT_SITE_H_
#define ZT_TRACING_INTERNAL_TRACK_EVENT_SITE_H_

#include <cstddef>
#include <cstdint>

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

// The spelling of at most this many arguments (a category, a name, four
// annotations) is split; a longer one is not for the table.
constexpr size_t kMaxSitePieces = 2 + 2 * kMaxFastArgs;

struct SitePieces {
  bool ok;
  size_t count;
  size_t begin[kMaxSitePieces];
  size_t end[kMaxSitePieces];
};

constexpr bool IsSiteDigit(char c) { return c >= '0' && c <= '9'; }
constexpr bool IsSiteIdentChar(char c) {
  return c == '_' || c == '$' || IsSiteDigit(c) || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z');
}

// Past the string or character literal whose opening quote is at |i|; 0 if
// it does not close.
constexpr size_t SkipSiteQuoted(const char* text, size_t size, size_t i) {
  const char quote = text[i];
  for (i++; i < size; i++) {
    if (text[i] == '\\') {
      i++;
    } else if (text[i] == quote) {
      return i + 1;
    }
  }
  return 0;
}

// Past the number (a pp-number: digit separators, exponents' signs) at |i|.
constexpr size_t SkipSiteNumber(const char* text, size_t size, size_t i) {
  for (i++; i < size; i++) {
    const char c = text[i];
    const char previous = text[i - 1];
    const bool separator = c == '\'' && i + 1 < size && IsSiteIdentChar(text[i + 1]);
    const bool exponent_sign = (c == '+' || c == '-') && (previous == 'e' || previous == 'E' ||
                                                          previous == 'p' || previous == 'P');
    if (!IsSiteIdentChar(c) && c != '.' && !separator && !exponent_sign)
      break;
  }
  return i;
}

// Splits a spelling at its top-level commas.
constexpr SitePieces SplitSiteSpelling(const char* text, size_t size) {
  SitePieces pieces{};
  const SitePieces failed{};
  size_t depth = 0;
  size_t start = 0;
  size_t i = 0;
  while (i < size) {
    const char c = text[i];
    if (c == '"' || c == '\'') {
      i = SkipSiteQuoted(text, size, i);
      if (i == 0)
        return failed;
    } else if (IsSiteDigit(c) || (c == '.' && i + 1 < size && IsSiteDigit(text[i + 1]))) {
      i = SkipSiteNumber(text, size, i);
    } else if (IsSiteIdentChar(c)) {
      while (i < size && IsSiteIdentChar(text[i]))
        i++;
      // A raw string literal (R"delim(...)delim") is not scanned.
      if (i < size && text[i] == '"' && text[i - 1] == 'R')
        return failed;
    } else if (c == '(' || c == '[' || c == '{') {
      depth++;
      i++;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0)
        return failed;
      depth--;
      i++;
    } else if (c == ',' && depth == 0) {
      if (pieces.count == kMaxSitePieces)
        return failed;
      pieces.begin[pieces.count] = start;
      pieces.end[pieces.count] = i;
      pieces.count++;
      start = ++i;
    } else {
      i++;
    }
  }
  if (depth != 0 || pieces.count == kMaxSitePieces)
    return failed;
  pieces.begin[pieces.count] = start;
  pieces.end[pieces.count] = size;
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
  size_t count;
  size_t size[1 + 2 * kMaxFastArgs];
  size_t slot[1 + 2 * kMaxFastArgs];
};

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
      sizes.size[position] = sizeof(RemoveRef<First>);
      sizes.slot[position] = slot;
      FillAfterKey<Rest...>(sizes, position, slot);
    }
  }
};

// For a name of type Name and an argument list IsFastArgList takes.
template <typename Name, typename... Args>
constexpr SiteLiteralSizes SiteLiteralSizesFor() {
  SiteLiteralSizes sizes{};
  sizes.count = 1 + sizeof...(Args);
  sizes.size[0] = sizeof(RemoveRef<Name>);
  SiteLiteralSizesOf<Args...>::Fill(sizes, 1, 0);
  return sizes;
}

// Whether a site may keep a table, and its size.
struct FastSiteLayout {
  bool ok;
  size_t size;
};

// |skip|: the pieces before the name (the category's, when the spelling
// starts with it).
constexpr FastSiteLayout LayOutFastSite(const SiteSpelling& spelling, size_t skip,
                                        const SiteLiteralSizes& sizes) {
  const FastSiteLayout failed{false, 0};
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
  return FastSiteLayout{true, size};
}

// The same from a site's lambda, for a literal name of type Name and
// arguments IsFastArgList takes.
template <size_t kSkip, typename Name, typename... Args, typename Site>
constexpr FastSiteLayout FastSiteLayoutOf(Site site) {
  return LayOutFastSite(site(), kSkip, SiteLiteralSizesFor<Name, Args...>());
}

template <size_t N>
constexpr FastSiteTable<N> BuildFastSiteTable(const SiteSpelling& spelling, size_t skip,
                                              const SiteLiteralSizes& sizes) {
  FastSiteTable<N> table{};
  for (size_t i = 0; i < 4; i++)
    table.bytes[i] = static_cast<char>(spelling.category >> (8 * i) & 0xff);
  const SitePieces pieces = SplitSiteSpelling(spelling.text, spelling.size);
  size_t offset = kFastSiteNameOffset;
  for (size_t i = 0; i < sizes.count; i++) {
    if (sizes.size[i] == 0)
      continue;
    if (i != 0)
      table.bytes[kFastSiteKeyOffsets + sizes.slot[i]] = static_cast<char>(offset);
    DecodeSiteLiteral(spelling.text, pieces.begin[skip + i], pieces.end[skip + i],
                      table.bytes + offset);
    offset += sizes.size[i];  // The NUL is there already.
  }
  return table;
}

}  // namespace internal
}  // namespace zt

#endif  // ZT_TRACING_INTERNAL_TRACK_EVENT_SITE_H_
