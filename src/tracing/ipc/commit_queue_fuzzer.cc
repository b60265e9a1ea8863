// The service's side of the commit queue over whatever a hostile producer
// can put in the shared region: the input is the header and the ring's
// first bytes (the rest stays zero), read until the reader stops. It must
// never read outside the region, hang, or hand out a record larger than
// what the header published; each record then goes through the record
// decoder, which must refuse or decode it without reading past it, and
// whose every decoded record must encode back to its bytes.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "src/tracing/ipc/commit_queue.h"
#include "src/tracing/ipc/commit_record.h"
#include "zt/base/logging.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The smallest valid ring, so that inputs reach its end and wrap.
  constexpr size_t kRegion = zt::kCommitQueueHeaderBytes + 4096;
  std::vector<uint8_t> region(kRegion, 0);
  zt::CommitQueueReader reader(region.data(), region.size());
  // The producer writes after the reader attached, as in the service.
  memcpy(region.data(), data, size < kRegion ? size : kRegion);
  std::string record;
  std::string reencoded;
  zt::CommitData commit;
  uint32_t seen = 0;
  for (int i = 0; i < 10000; i++) {
    const auto status = reader.Next(seen, /*any_order=*/(i & 1) != 0, &record);
    if (status == zt::CommitQueueReader::Status::kRecord) {
      ZT_CHECK(record.size() <= 4096);
      // A record the decoder takes is exactly one in the fixed layout:
      // encoding what it decoded gives back the same bytes (a decoder that
      // skipped or misread a field would not).
      if (zt::DecodeCommitRecord(reinterpret_cast<const uint8_t*>(record.data()),
                                 record.size(), &commit)) {
        zt::EncodeCommitRecord(commit, &reencoded);
        ZT_CHECK(reencoded == record);
      }
      continue;
    }
    if (status == zt::CommitQueueReader::Status::kWaiting) {
      seen++;
      continue;
    }
    if (status == zt::CommitQueueReader::Status::kEmpty && !reader.GoIdle())
      continue;
    break;
  }
  return 0;
}
