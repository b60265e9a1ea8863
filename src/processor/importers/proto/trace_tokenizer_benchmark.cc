// Tokenizer throughput: how fast packet views come out of a trace, before
// any packet is decoded. The processor's ingest target is 400 MB/s for the
// whole pipeline (docs/design/trace_processor.md); this stage reads only
// record headers and must stay far above it.
//
// Traces are synthetic: 32 MiB of packets of one payload size (the argument),
// with the key and length a writer would emit. BM_TokenizeBuffer walks an
// in-memory buffer (warm cache lines for small traces, memory bandwidth for
// this size); BM_TokenizeMappedFile maps a file in the page cache each
// iteration, so it includes the mmap and the page faults of a first pass.

#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include "zt/processor/mapped_trace_file.h"
#include "zt/processor/trace_tokenizer.h"

namespace {

constexpr size_t kTraceBytes = 32u << 20;

std::string MakeTrace(size_t payload_size) {
  std::string out;
  out.reserve(kTraceBytes + payload_size + 16);
  std::string payload(payload_size, '\x2a');
  while (out.size() < kTraceBytes) {
    out.push_back('\x0a');
    uint64_t length = payload_size;
    while (length >= 0x80) {
      out.push_back(static_cast<char>((length & 0x7f) | 0x80));
      length >>= 7;
    }
    out.push_back(static_cast<char>(length));
    out += payload;
  }
  return out;
}

// Consumes the views so that the loop cannot be optimized away.
uint64_t TokenizeAll(const void* data, size_t size, uint64_t* packets) {
  zt::processor::TraceTokenizer tokenizer(data, size);
  zt::processor::PacketView packet;
  uint64_t sum = 0;
  while (tokenizer.Next(&packet))
    sum += packet.size;
  if (tokenizer.stats().damage != zt::processor::TraceDamage::kNone)
    abort();
  *packets = tokenizer.stats().packets;
  return sum;
}

void BM_TokenizeBuffer(benchmark::State& state) {
  const std::string trace = MakeTrace(static_cast<size_t>(state.range(0)));
  uint64_t packets = 0;
  for (auto _ : state)
    benchmark::DoNotOptimize(TokenizeAll(trace.data(), trace.size(), &packets));
  state.SetBytesProcessed(
      static_cast<int64_t>(state.iterations() * trace.size()));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * packets));
}
BENCHMARK(BM_TokenizeBuffer)->Arg(16)->Arg(64)->Arg(512)->Arg(4096);

void BM_TokenizeMappedFile(benchmark::State& state) {
  const std::string trace = MakeTrace(static_cast<size_t>(state.range(0)));
  char path[] = "/tmp/zt_tokenizer_benchmark_XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0 || write(fd, trace.data(), trace.size()) !=
                    static_cast<ssize_t>(trace.size())) {
    state.SkipWithError("cannot write the temporary trace");
    return;
  }
  close(fd);
  uint64_t packets = 0;
  for (auto _ : state) {
    std::string error;
    std::unique_ptr<zt::processor::MappedTraceFile> file =
        zt::processor::MappedTraceFile::Open(path, &error);
    if (!file) {
      state.SkipWithError(error.c_str());
      break;
    }
    benchmark::DoNotOptimize(TokenizeAll(file->data(), file->size(), &packets));
  }
  unlink(path);
  state.SetBytesProcessed(
      static_cast<int64_t>(state.iterations() * trace.size()));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * packets));
}
BENCHMARK(BM_TokenizeMappedFile)
    ->Arg(64)
    ->Arg(4096)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
