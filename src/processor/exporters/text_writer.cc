#include "src/processor/exporters/text_writer.h"

#include <cstdio>

namespace zt {
namespace processor {

void TextWriter::Quoted(const void* data, size_t size) {
  const uint8_t* const bytes = static_cast<const uint8_t*>(data);
  buffer_ += '"';
  for (size_t i = 0; i < size; i++) {
    const uint8_t c = bytes[i];
    if (c == '"' || c == '\\') {
      buffer_ += '\\';
      buffer_ += static_cast<char>(c);
    } else if (c == '\n') {
      buffer_ += "\\n";
    } else if (c < 0x20 || c >= 0x7f) {
      char octal[8];
      snprintf(octal, sizeof(octal), "\\%03o", c);
      buffer_ += octal;
    } else {
      buffer_ += static_cast<char>(c);
    }
    if (buffer_.size() >= kFlushBytes) {
      Flush();
      if (failed_)
        return;
    }
  }
  Append("\"");
}

}  // namespace processor
}  // namespace zt
