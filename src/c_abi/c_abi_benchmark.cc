// The cost of a packet written through the C ABI (zt/c/data_source.h over
// libzerotrace_c's data source ABI) against the same packet through the
// C++ template (zt::DataSource<T>::Trace), and of a trace point whose data
// source is off.
//
//   c_abi_benchmark                      Google Benchmark, ns per packet
//   c_abi_benchmark --zt_list_cases
//   c_abi_benchmark --zt_case=NAME --zt_iterations=N
//       runs one case N times in a session, without the harness, for
//       callgrind's instruction counts on the calling thread
//       (tools/track_event_callgrind path/to/c_abi_benchmark).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include "src/base/test/benchmark_cases.h"
#include "zt/c/abi/producer.h"
#include "zt/c/data_source.h"
#include "zt/common/data_source_descriptor.gen.h"
#include "zt/config/trace_config.gen.h"
#include "zt/trace/test_event.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/tracing/data_source.h"
#include "zt/tracing/tracing.h"

namespace {

ZtCDataSource g_c_source = ZT_C_DATA_SOURCE_INIT;

class CppSource : public zt::DataSource<CppSource> {};

// TracePacket { for_testing { counter: i } }, through the C ABI.
ZT_NOINLINE void CPacket(uint64_t i) {
  ZT_C_DATA_SOURCE_TRACE(g_c_source, it) {
    ZtCPacket packet;
    ZtCMsg event;
    ZtCPacketBegin(&it, &packet);
    ZtCMsgBeginNested(&packet.msg, &event, 900);
    ZtCMsgAppendVarIntField(&event, 3, i);
    ZtCMsgEndNested(&packet.msg);
    ZtCPacketEnd(&it, &packet);
  }
}

// The same packet through the C++ template.
ZT_NOINLINE void CppPacket(uint64_t i) {
  CppSource::Trace([i](CppSource::TraceContext ctx) {
    ctx.NewTracePacket()->set_for_testing()->set_counter(i);
  });
}

struct Case {
  std::function<void(uint64_t)> run;
  bool needs_session;
};

const std::map<std::string, Case>& Cases() {
  static const auto* cases = new std::map<std::string, Case>{
      {"CPacket", {CPacket, true}},
      {"CppPacket", {CppPacket, true}},
      {"CDisabled", {CPacket, false}},
      {"CppDisabled", {CppPacket, false}},
  };
  return *cases;
}

std::unique_ptr<zt::TracingSession> StartSession(uint64_t packets) {
  zt::protos::gen::TraceConfig config;
  // ~16 bytes a packet, with room: the figures are of writing, not drops.
  config.add_buffers()->set_size_kb(static_cast<uint32_t>(std::min<uint64_t>(
      std::max<uint64_t>(1024, packets * 32 / 1024), 512 * 1024)));
  config.add_data_sources()->mutable_config()->set_name("zt.bench.c_source");
  config.add_data_sources()->mutable_config()->set_name("zt.bench.cpp_source");
  std::unique_ptr<zt::TracingSession> session = zt::Tracing::NewTrace();
  session->Setup(config);
  session->StartBlocking();
  return session;
}

constexpr int64_t kIterations = 200000;

void RunBenchmark(benchmark::State& state, const Case& c) {
  std::unique_ptr<zt::TracingSession> session;
  if (c.needs_session)
    session = StartSession(static_cast<uint64_t>(state.max_iterations));
  uint64_t i = 0;
  for (auto _ : state)
    c.run(i++);
  if (session)
    session->StopBlocking();
}

}  // namespace

int main(int argc, char** argv) {
  zt::TracingInitArgs init_args;
  init_args.shmem_size_hint_kb = zt::base::BenchmarkSmbKb(256);
  zt::Tracing::Initialize(init_args);
  if (!ZtCDataSourceRegister(&g_c_source, "zt.bench.c_source", nullptr))
    return 1;
  zt::protos::gen::DataSourceDescriptor descriptor;
  descriptor.set_name("zt.bench.cpp_source");
  if (!CppSource::Register(descriptor))
    return 1;

  const zt::base::BenchmarkCaseArgs args = zt::base::ParseBenchmarkCaseArgs(argc, argv);
  if (args.list_cases) {
    zt::base::PrintBenchmarkCases(Cases());
    return 0;
  }
  if (!args.case_name.empty()) {
    return zt::base::RunBenchmarkCase(Cases(), args.case_name, args.iterations, [](int64_t n) {
      return StartSession(static_cast<uint64_t>(n));
    });
  }
  for (const auto& kv : Cases()) {
    benchmark::RegisterBenchmark(kv.first.c_str(), [&c = kv.second](benchmark::State& s) {
      RunBenchmark(s, c);
    })->Iterations(kIterations);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
