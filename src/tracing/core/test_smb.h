// Test helpers for the trace writer's tests: an SMB with the producer's
// arbiter and a service's view of it, and the test packets written and
// checked. Test-only.

#ifndef ZT_SRC_TRACING_CORE_TEST_SMB_H_
#define ZT_SRC_TRACING_CORE_TEST_SMB_H_

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "src/tracing/core/test_packets.h"
#include "src/tracing/core/test_service.h"
#include "zt/ext/tracing/core/shared_memory_arbiter.h"
#include "zt/ext/tracing/core/trace_writer.h"

namespace zt {
namespace test {

using ABI = SharedMemoryABI;

// An SMB, the producer's arbiter over it and a service with its own view.
struct SmbSetup {
  SmbSetup(size_t smb_size, size_t page_size,
        SharedMemoryArbiter::Options options = SharedMemoryArbiter::Options())
      : mem(static_cast<uint8_t*>(aligned_alloc(4096, smb_size))),
        service_abi(mem, smb_size, page_size),
        service(&service_abi) {
    memset(mem, 0, smb_size);
    arbiter.reset(
        new SharedMemoryArbiter(mem, smb_size, page_size, &service, options));
  }
  ~SmbSetup() {
    arbiter.reset();
    free(mem);
  }
  uint8_t* mem;
  ABI service_abi;
  TestService service;
  std::unique_ptr<SharedMemoryArbiter> arbiter;
};

// A sink that plays the service synchronously inside OnCommit, so a single
// thread can write more than the SMB holds.
class InlineService : public CommitSink {
 public:
  explicit InlineService(ABI* abi) : service_(abi) {}
  void OnCommit(CommitData data) override {
    service_.OnCommit(std::move(data));
    service_.Drain();
  }
  TestService& service() { return service_; }

 private:
  TestService service_;
};

inline void WritePacket(TraceWriter* w, uint32_t writer, uint64_t seq, size_t size) {
  auto p = w->NewTracePacket();
  WriteTestPacket(p.get(), writer, seq, TestPayload(writer, seq, size));
}

inline void ExpectPacket(const ReassembledPacket& got, uint32_t writer, uint64_t seq,
                  size_t size, bool dropped_before = false) {
  std::vector<uint8_t> data = got.data;
  EXPECT_EQ(StripPreviousDropped(&data), dropped_before) << "seq " << seq;
  // Each test writer starts at seq 0: only that packet says it is first.
  EXPECT_EQ(StripFirstOnSequence(&data), seq == 0) << "seq " << seq;
  EXPECT_EQ(data, ExpectedPacket(writer, seq, size)) << "seq " << seq;
}

}  // namespace test
}  // namespace zt

#endif  // ZT_SRC_TRACING_CORE_TEST_SMB_H_
