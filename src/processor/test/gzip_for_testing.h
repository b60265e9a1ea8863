// Tests' gzip compressor (zlib's deflate with gzip framing), so that
// compressed inputs are made from readable ones in the test itself.

#ifndef ZT_SRC_PROCESSOR_TEST_GZIP_FOR_TESTING_H_
#define ZT_SRC_PROCESSOR_TEST_GZIP_FOR_TESTING_H_

#include <zlib.h>

#include <cstring>
#include <string>

namespace zt {
namespace processor {

inline std::string GzipForTesting(const std::string& data, int level = 6) {
  z_stream s;
  memset(&s, 0, sizeof(s));
  if (deflateInit2(&s, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return std::string();
  std::string out(deflateBound(&s, static_cast<uLong>(data.size())) + 64, '\0');
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  s.avail_in = static_cast<uInt>(data.size());
  s.next_out = reinterpret_cast<Bytef*>(&out[0]);
  s.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&s, Z_FINISH);
  out.resize(rc == Z_STREAM_END ? s.total_out : 0);
  deflateEnd(&s);
  return out;
}

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_TEST_GZIP_FOR_TESTING_H_
