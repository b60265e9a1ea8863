// A hostile producer against the whole service: the input fills the
// producer's SMB with arbitrary bytes (page words, chunk headers, payloads)
// and then sends arbitrary CommitData (chunks to move, patches, writer
// registrations), interleaved with reads, flushes and a final stop. The
// service must neither crash nor hand out a packet that does not parse.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "src/base/test/test_task_runner.h"
#include "zt/ext/tracing/core/tracing_service.h"
#include "zt/protozero/proto_decoder.h"

namespace zt {
namespace {

class NullProducer : public Producer {
 public:
  void OnConnect() override {}
  void OnDisconnect() override {}
  void OnTracingSetup() override {}
  void SetupDataSource(DataSourceInstanceId,
                       const protos::gen::DataSourceConfig& cfg) override {
    target_buffer = cfg.target_buffer();
  }
  void StartDataSource(DataSourceInstanceId,
                       const protos::gen::DataSourceConfig&) override {}
  void StopDataSource(DataSourceInstanceId) override {}
  void Flush(FlushRequestId, const std::vector<DataSourceInstanceId>&) override {}
  void ClearIncrementalState(const std::vector<DataSourceInstanceId>&) override {}
  uint32_t target_buffer = 0;
};

class CheckingConsumer : public Consumer {
 public:
  void OnConnect() override {}
  void OnDisconnect() override {}
  void OnTracingDisabled(const std::string&) override {}
  void OnAllDataSourcesStarted() override {}
  void OnTraceData(std::vector<uint8_t> trace, bool) override {
    // A well-formed Trace, and every packet in it parses and carries the
    // service's fields.
    protozero::ProtoDecoder outer(trace.data(), trace.size());
    for (auto packet = outer.ReadField(); packet.valid(); packet = outer.ReadField()) {
      if (packet.id() != 1)
        __builtin_trap();
      protozero::ProtoDecoder d(packet.data(), packet.size());
      bool has_sequence = false;
      for (auto f = d.ReadField(); f.valid(); f = d.ReadField())
        has_sequence |= f.id() == 10;
      if (d.parse_error() || !has_sequence)
        __builtin_trap();
    }
    if (outer.parse_error())
      __builtin_trap();
  }
  void OnTraceStats(bool, std::vector<uint8_t>) override {}
};

// Reads little-endian values off the input, zeros once it runs out.
class Input {
 public:
  Input(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  bool empty() const { return p_ >= end_; }
  uint32_t U32() {
    uint32_t v = 0;
    for (int i = 0; i < 4 && p_ < end_; i++)
      v |= static_cast<uint32_t>(*p_++) << (8 * i);
    return v;
  }
  uint8_t U8() { return p_ < end_ ? *p_++ : 0; }
  size_t Take(uint8_t* out, size_t n) {
    const size_t k = std::min(n, static_cast<size_t>(end_ - p_));
    memcpy(out, p_, k);
    p_ += k;
    return k;
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

}  // namespace
}  // namespace zt

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace zt;
  // Everything on this thread: the service's calls to its clients run at
  // each RunUntilIdle(); its timeouts never fire (virtual time stays put)
  // and are dropped with the runner.
  base::TestTaskRunner runner;
  Input in(data, size);
  auto service = TracingService::Create(&runner);
  NullProducer producer;
  TracingService::ProducerOptions opt;
  opt.name = "hostile";
  opt.uid = 1;
  opt.pid = 2;
  opt.shm_size_hint_bytes = 4 * 4096;
  auto endpoint = service->ConnectProducer(&producer, opt);
  protos::gen::DataSourceDescriptor desc;
  desc.set_name("ds");
  endpoint->RegisterDataSource(desc);
  CheckingConsumer consumer;
  auto consumer_endpoint = service->ConnectConsumer(&consumer, 0);
  protos::gen::TraceConfig cfg;
  auto* buf = cfg.add_buffers();
  buf->set_size_kb(16);
  buf->set_fill_policy(in.U8() & 1
                           ? protos::gen::TraceConfig_BufferConfig_FillPolicy_DISCARD
                           : protos::gen::TraceConfig_BufferConfig_FillPolicy_RING_BUFFER);
  cfg.add_data_sources()->mutable_config()->set_name("ds");
  cfg.set_data_source_stop_timeout_ms(60 * 60 * 1000);
  consumer_endpoint->EnableTracing(cfg);
  runner.RunUntilIdle();  // The producer hears its setup (target buffer).

  uint8_t* smb = endpoint->shared_memory()->start();
  const size_t smb_size = endpoint->shared_memory()->size();
  bool flushed = false;
  while (!in.empty()) {
    switch (in.U8() % 6) {
      case 0: {  // Scribble on the SMB.
        const size_t offset = in.U32() % smb_size;
        in.Take(smb + offset, std::min<size_t>(in.U8() + 1u, smb_size - offset));
        break;
      }
      case 1: {  // Move chunks (any indices, our buffer or not).
        CommitData c;
        const uint32_t n = in.U8() % 4 + 1u;
        for (uint32_t i = 0; i < n; i++) {
          const uint32_t page = in.U8() % 6u, chunk = in.U8() % 16u;
          const uint32_t target = in.U8() & 1 ? producer.target_buffer : in.U8();
          c.chunks_to_move.push_back({page, chunk, target});
        }
        endpoint->CommitData(c);
        break;
      }
      case 2: {  // Patches.
        CommitData c;
        CommitData::ChunkToPatch p;
        p.target_buffer = in.U8() & 1 ? producer.target_buffer : in.U8();
        p.writer_id = static_cast<uint16_t>(in.U8() % 4);
        p.chunk_id = in.U8() % 8u;
        p.has_more_patches = in.U8() & 1;
        CommitData::Patch patch;
        patch.offset = in.U32() % 5000u;
        in.Take(patch.data.data(), 4);
        p.patches.push_back(patch);
        c.chunks_to_patch.push_back(p);
        endpoint->CommitData(c);
        break;
      }
      case 3:
        endpoint->RegisterTraceWriter(in.U8() % 4u,
                                      in.U8() & 1 ? producer.target_buffer : in.U8());
        break;
      case 4:
        consumer_endpoint->ReadBuffers();
        break;
      case 5:  // A flush nobody answers (once: each leaves a timer).
        if (!flushed) {
          flushed = true;
          consumer_endpoint->Flush(60 * 60 * 1000, nullptr);
        }
        break;
    }
    runner.RunUntilIdle();
  }
  consumer_endpoint->DisableTracing();  // Scrapes BeingWritten chunks.
  runner.RunUntilIdle();
  consumer_endpoint->ReadBuffers();
  runner.RunUntilIdle();
  consumer_endpoint.reset();
  endpoint.reset();
  runner.RunUntilIdle();
  service.reset();
  return 0;
}
