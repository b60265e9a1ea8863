// Arg keys as the model writes them ("debug.a.b[2].c": dotted names and
// indices), split segment by segment: how the exporters rebuild nested
// objects and arrays from flat keys.

#ifndef ZT_SRC_PROCESSOR_ARG_KEY_H_
#define ZT_SRC_PROCESSOR_ARG_KEY_H_

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <system_error>

namespace zt {
namespace processor {

struct ArgKeySegment {
  bool is_index = false;
  int64_t index = -1;     // When is_index.
  std::string_view name;  // Otherwise (may be empty).
};

// The segment of `key` at *pos: "[digits]" is an index; anything else is a
// name up to the next '.' or '[' (a '[' that opens no index is part of the
// name). *pos is left on the separator after it (or at the end).
inline ArgKeySegment NextArgKeySegment(std::string_view key, size_t* pos) {
  ArgKeySegment segment;
  size_t name_from = *pos;
  if (*pos < key.size() && key[*pos] == '[') {
    const size_t close = key.find(']', *pos);
    if (close != std::string_view::npos && close > *pos + 1) {
      int64_t index = -1;
      auto res = std::from_chars(key.data() + *pos + 1, key.data() + close, index);
      if (res.ec == std::errc() && res.ptr == key.data() + close && index >= 0) {
        segment.is_index = true;
        segment.index = index;
        *pos = close + 1;
        return segment;
      }
    }
    name_from = *pos + 1;  // A '[' that opens no index.
  }
  size_t end = key.find_first_of(".[", name_from);
  if (end == std::string_view::npos)
    end = key.size();
  segment.name = key.substr(*pos, end - *pos);
  *pos = end;
  return segment;
}

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_ARG_KEY_H_
