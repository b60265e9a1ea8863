// The scanner of a track event call site's spelling
// (zt/tracing/internal/track_event_site.h) over any bytes. It runs at
// compile time on what the preprocessor spells, but a scanner that read
// past its text or wrote past a table would be a compile error at best and
// a wrong key at worst, so it is held to the same rules as every parser
// here: pieces within the text, in order and separated by commas; a
// decoded literal exactly as long as reported, never longer than its
// spelling; a table written only up to the size its layout gave.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "zt/base/logging.h"
#include "zt/tracing/internal/track_event_site.h"

using zt::internal::DecodeSiteLiteral;
using zt::internal::SiteLiteralSizes;
using zt::internal::SitePieces;
using zt::internal::SiteSpelling;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Exactly the input, so that a read past it is ASan's to see.
  std::vector<char> text(data, data + size);
  const SitePieces pieces = zt::internal::SplitSiteSpelling(text.data(), size);
  if (!pieces.ok)
    return 0;
  ZT_CHECK(pieces.count >= 1 && pieces.count <= zt::internal::kMaxSitePieces);
  ZT_CHECK(pieces.begin[0] == 0 && pieces.end[pieces.count - 1] == size);
  SiteLiteralSizes sizes{};
  sizes.count = pieces.count;
  size_t slot = 0;
  for (size_t i = 0; i < pieces.count; i++) {
    ZT_CHECK(pieces.begin[i] <= pieces.end[i] && pieces.end[i] <= size);
    if (i + 1 < pieces.count)
      ZT_CHECK(text[pieces.end[i]] == ',' && pieces.begin[i + 1] == pieces.end[i] + 1);
    const long length = DecodeSiteLiteral(text.data(), pieces.begin[i], pieces.end[i], nullptr);
    if (length < 0)
      continue;
    ZT_CHECK(static_cast<size_t>(length) <= pieces.end[i] - pieces.begin[i]);
    std::vector<char> decoded(static_cast<size_t>(length));
    ZT_CHECK(DecodeSiteLiteral(text.data(), pieces.begin[i], pieces.end[i], decoded.data()) ==
             length);
    // Every literal after the first piece as a key, in a slot of its own.
    if (i >= 1 && slot < zt::internal::kMaxFastArgs) {
      sizes.size[i - 1] = static_cast<size_t>(length) + 1;
      sizes.slot[i - 1] = i == 1 ? 0 : slot++;
    }
  }
  sizes.count = pieces.count - 1;
  if (sizes.count > 1 + 2 * zt::internal::kMaxFastArgs)
    return 0;
  const SiteSpelling spelling{text.data(), size, 0x01020304};
  const zt::internal::FastSiteLayout layout = zt::internal::LayOutFastSite(spelling, 1, sizes);
  if (!layout.ok)
    return 0;
  ZT_CHECK(layout.size <= zt::internal::kMaxFastSiteBytes);
  const auto table = zt::internal::BuildFastSiteTable<zt::internal::kMaxFastSiteBytes>(
      spelling, layout, 1, sizes);
  for (size_t i = layout.size; i < zt::internal::kMaxFastSiteBytes; i++)
    ZT_CHECK(table.bytes[i] == 0);
  ZT_CHECK(zt::internal::FastSiteCategory(table.bytes) == 0x01020304);
  return 0;
}
