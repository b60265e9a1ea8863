// protozero_benchmark: writing and reading the seed's "Simple" and "Nested"
// messages with protozero, with libprotobuf, and with a speed-of-light
// writer, all in one binary so ratios come from one run on one machine.
//
// Every write iteration targets the next 512-byte slot of a 64 MiB working
// set and then reads the slot back, XOR-chaining its words, so the CPU has
// to retire the stores instead of discarding them. The read-back alone is
// measured too (BM_ReadBackOnly) so figures can be reported net of it.
//
// Two modes:
//   protozero_benchmark [google-benchmark flags]   timings (ns)
//   protozero_benchmark --zt_case=NAME --zt_iterations=N
//       runs one case N times with no timing harness, for
//       `valgrind --tool=callgrind` instruction counts (tools/protozero_callgrind).

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "zt/protozero/proto_decoder.h"
#include "zt/protozero/static_buffer.h"
#include "zt/test/bench.pb.h"
#include "zt/test/bench.pbzero.h"

namespace {

constexpr size_t kSlotSize = 512;
constexpr size_t kWorkingSetSize = 64 * 1024 * 1024;
constexpr size_t kNumSlots = kWorkingSetSize / kSlotSize;

alignas(64) uint8_t g_working_set[kWorkingSetSize];
size_t g_slot = 0;

// The values written in every iteration. Kept in a mutable global that the
// compiler must reload (DoNotOptimize), like a real call site's arguments.
struct Input {
  uint64_t int32_value = 0x12345678;
  uint64_t uint32_value = 0x90ABCDEF;
  uint64_t int64_value = 0x11111111;
  uint64_t uint64_value = 0xFFFFFFFF;
  char str[33] = "ffffffffffffffffffffffffffffffff";  // 32 bytes + NUL.
} g_input;

uint8_t* CurrentSlot() { return &g_working_set[g_slot * kSlotSize]; }

// Reads the slot just written so its stores must complete, then moves on.
inline void ReadBackAndAdvance() {
  uint64_t* words = reinterpret_cast<uint64_t*>(CurrentSlot());
  uint64_t acc = reinterpret_cast<uintptr_t>(&g_slot);
  for (size_t i = 0; i < kSlotSize / sizeof(uint64_t); i++) {
    acc ^= words[i];
    words[i] = acc;
  }
  benchmark::DoNotOptimize(acc);
  g_slot = (g_slot + 1) % kNumSlots;
  benchmark::ClobberMemory();
}

// A writer with no encoding and no bounds checks: aligned memcpy appends.
struct SpeedOfLightMessage {
  template <typename T>
  void Append(T value) {
    memcpy(ptr, &value, sizeof(value));
    ptr += sizeof(uint64_t);
  }
  void set_field_int32(int32_t v) { Append(v); }
  void set_field_uint32(uint32_t v) { Append(v); }
  void set_field_int64(int64_t v) { Append(v); }
  void set_field_uint64(uint64_t v) { Append(v); }
  void set_field_string(const char* s) {
    const size_t len = strlen(s);
    memcpy(ptr, s, len);
    ptr += (len + 7) & ~size_t{7};
  }
  uint8_t* ptr;
};

// libprotobuf's setters take std::string; protozero and the speed-of-light
// writer take the pointer. Either way the call site passes g_input.str.
template <typename M>
__attribute__((always_inline)) inline void FillSimple(M* msg) {
  benchmark::DoNotOptimize(g_input);
  msg->set_field_int32(static_cast<int32_t>(g_input.int32_value));
  msg->set_field_uint32(static_cast<uint32_t>(g_input.uint32_value));
  msg->set_field_int64(static_cast<int64_t>(g_input.int64_value));
  msg->set_field_uint64(g_input.uint64_value);
  msg->set_field_string(g_input.str);
}

// Depth is a template argument so the whole tree inlines, as a call site
// writing a fixed message shape would.
template <int kDepth = 0, typename M>
__attribute__((always_inline)) inline void FillNested(M* msg) {
  FillSimple(msg);
  if constexpr (kDepth < 3)
    FillNested<kDepth + 1>(msg->set_field_nested());
}

// Speed-of-light nesting: children are laid out right after the parent.
template <int kDepth = 0>
__attribute__((always_inline)) inline void FillNestedSol(
    SpeedOfLightMessage* msg) {
  FillSimple(msg);
  if constexpr (kDepth < 3) {
    SpeedOfLightMessage child{msg->ptr};
    FillNestedSol<kDepth + 1>(&child);
    msg->ptr = child.ptr;
  }
}

// ---- one iteration of each case -------------------------------------------

void WriteSimpleZt() {
  zt::protozero::StaticBuffered<zt::test::pbzero::BenchMessage> msg(
      CurrentSlot(), kSlotSize);
  FillSimple(msg.get());
  msg.Finalize();
  ReadBackAndAdvance();
}

void WriteNestedZt() {
  zt::protozero::StaticBuffered<zt::test::pbzero::BenchMessage> msg(
      CurrentSlot(), kSlotSize);
  FillNested(msg.get());
  msg.Finalize();
  ReadBackAndAdvance();
}

void WriteSimpleLibprotobuf() {
  {
    zt::test::BenchMessage msg;
    FillSimple(&msg);
    msg.SerializeToArray(CurrentSlot(), kSlotSize);
  }
  ReadBackAndAdvance();
}

void WriteNestedLibprotobuf() {
  {
    zt::test::BenchMessage msg;
    zt::test::BenchMessage* level = &msg;
    for (int depth = 0; depth <= 3; depth++) {
      FillSimple(level);
      if (depth < 3)
        level = level->mutable_field_nested();
    }
    msg.SerializeToArray(CurrentSlot(), kSlotSize);
  }
  ReadBackAndAdvance();
}

void WriteSimpleSpeedOfLight() {
  SpeedOfLightMessage msg{CurrentSlot()};
  FillSimple(&msg);
  ReadBackAndAdvance();
}

void WriteNestedSpeedOfLight() {
  SpeedOfLightMessage msg{CurrentSlot()};
  FillNestedSol(&msg);
  ReadBackAndAdvance();
}

void ReadBackOnly() { ReadBackAndAdvance(); }

// ---- decoding ---------------------------------------------------------------

std::string g_simple_bytes;
std::string g_nested_bytes;

void PrepareDecodeInputs() {
  zt::test::BenchMessage simple;
  FillSimple(&simple);
  g_simple_bytes = simple.SerializeAsString();
  // The nested input is what protozero writes (redundant 4-byte lengths),
  // since that is what a trace reader decodes; libprotobuf accepts it too.
  uint8_t buf[kSlotSize];
  zt::protozero::StaticBuffered<zt::test::pbzero::BenchMessage> msg(buf,
                                                                   sizeof(buf));
  FillNested(msg.get());
  g_nested_bytes.assign(reinterpret_cast<char*>(buf), msg.Finalize());
}

// Reads every field, descending into the nested message, and folds the
// values so none of the work can be dropped.
uint64_t DecodeZt(const uint8_t* data, size_t size) {
  uint64_t acc = 0;
  for (;;) {
    zt::test::pbzero::BenchMessage::Decoder dec(data, size);
    acc += static_cast<uint64_t>(dec.field_int32()) + dec.field_uint32() +
           static_cast<uint64_t>(dec.field_int64()) + dec.field_uint64() +
           dec.field_string().size();
    if (!dec.has_field_nested())
      return acc;
    const auto nested = dec.field_nested();
    data = nested.data;
    size = nested.size;
  }
}

uint64_t DecodeLibprotobuf(const std::string& bytes) {
  zt::test::BenchMessage msg;
  msg.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
  uint64_t acc = 0;
  for (const zt::test::BenchMessage* m = &msg;; m = &m->field_nested()) {
    acc += static_cast<uint64_t>(m->field_int32()) + m->field_uint32() +
           static_cast<uint64_t>(m->field_int64()) + m->field_uint64() +
           m->field_string().size();
    if (!m->has_field_nested())
      return acc;
  }
}

void DecodeSimpleZt() {
  benchmark::DoNotOptimize(g_simple_bytes);
  benchmark::DoNotOptimize(DecodeZt(
      reinterpret_cast<const uint8_t*>(g_simple_bytes.data()), g_simple_bytes.size()));
}
void DecodeNestedZt() {
  benchmark::DoNotOptimize(g_nested_bytes);
  benchmark::DoNotOptimize(DecodeZt(
      reinterpret_cast<const uint8_t*>(g_nested_bytes.data()), g_nested_bytes.size()));
}
void DecodeSimpleLibprotobuf() {
  benchmark::DoNotOptimize(g_simple_bytes);
  benchmark::DoNotOptimize(DecodeLibprotobuf(g_simple_bytes));
}
void DecodeNestedLibprotobuf() {
  benchmark::DoNotOptimize(g_nested_bytes);
  benchmark::DoNotOptimize(DecodeLibprotobuf(g_nested_bytes));
}
void EmptyIteration() { benchmark::ClobberMemory(); }

// ---- registration -------------------------------------------------------------

using CaseFn = void (*)();
const std::map<std::string, CaseFn>& Cases() {
  static const auto* cases = new std::map<std::string, CaseFn>{
      {"ReadBackOnly", ReadBackOnly},
      {"Simple_Zerotrace", WriteSimpleZt},
      {"Simple_Libprotobuf", WriteSimpleLibprotobuf},
      {"Simple_SpeedOfLight", WriteSimpleSpeedOfLight},
      {"Nested_Zerotrace", WriteNestedZt},
      {"Nested_Libprotobuf", WriteNestedLibprotobuf},
      {"Nested_SpeedOfLight", WriteNestedSpeedOfLight},
      {"Empty", EmptyIteration},
      {"DecodeSimple_Zerotrace", DecodeSimpleZt},
      {"DecodeSimple_Libprotobuf", DecodeSimpleLibprotobuf},
      {"DecodeNested_Zerotrace", DecodeNestedZt},
      {"DecodeNested_Libprotobuf", DecodeNestedLibprotobuf},
  };
  return *cases;
}

template <CaseFn kFn>
void BM_Case(benchmark::State& state) {
  for (auto _ : state)
    kFn();
}

BENCHMARK(BM_Case<ReadBackOnly>)->Name("BM_ReadBackOnly");
BENCHMARK(BM_Case<WriteSimpleZt>)->Name("BM_Simple_Zerotrace");
BENCHMARK(BM_Case<WriteSimpleLibprotobuf>)->Name("BM_Simple_Libprotobuf");
BENCHMARK(BM_Case<WriteSimpleSpeedOfLight>)->Name("BM_Simple_SpeedOfLight");
BENCHMARK(BM_Case<WriteNestedZt>)->Name("BM_Nested_Zerotrace");
BENCHMARK(BM_Case<WriteNestedLibprotobuf>)->Name("BM_Nested_Libprotobuf");
BENCHMARK(BM_Case<WriteNestedSpeedOfLight>)->Name("BM_Nested_SpeedOfLight");
BENCHMARK(BM_Case<DecodeSimpleZt>)->Name("BM_DecodeSimple_Zerotrace");
BENCHMARK(BM_Case<DecodeSimpleLibprotobuf>)->Name("BM_DecodeSimple_Libprotobuf");
BENCHMARK(BM_Case<DecodeNestedZt>)->Name("BM_DecodeNested_Zerotrace");
BENCHMARK(BM_Case<DecodeNestedLibprotobuf>)->Name("BM_DecodeNested_Libprotobuf");

// Checks, once, that every writer produced what it should, so the benchmark
// cannot silently measure a broken path.
bool SelfCheck() {
  const std::string expected_simple = g_simple_bytes;
  WriteSimpleZt();
  g_slot = (g_slot + kNumSlots - 1) % kNumSlots;  // Re-read the slot.
  zt::protozero::StaticBuffered<zt::test::pbzero::BenchMessage> msg(
      CurrentSlot(), kSlotSize);
  FillSimple(msg.get());
  const size_t size = msg.Finalize();
  if (std::string(reinterpret_cast<char*>(CurrentSlot()), size) != expected_simple) {
    fprintf(stderr, "self-check: protozero Simple bytes differ from libprotobuf\n");
    return false;
  }
  zt::test::BenchMessage parsed;
  if (!parsed.ParseFromString(g_nested_bytes) ||
      !parsed.field_nested().field_nested().field_nested().has_field_string() ||
      DecodeZt(reinterpret_cast<const uint8_t*>(g_nested_bytes.data()),
               g_nested_bytes.size()) != DecodeLibprotobuf(g_nested_bytes)) {
    fprintf(stderr, "self-check: Nested bytes do not decode identically\n");
    return false;
  }
  g_slot = 0;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  PrepareDecodeInputs();
  if (!SelfCheck())
    return 1;

  std::string case_name;
  long iterations = 0;
  std::vector<char*> rest;
  for (int i = 0; i < argc; i++) {
    const std::string arg = argv[i];
    if (arg.rfind("--zt_case=", 0) == 0) {
      case_name = arg.substr(strlen("--zt_case="));
    } else if (arg.rfind("--zt_iterations=", 0) == 0) {
      iterations = strtol(arg.c_str() + strlen("--zt_iterations="), nullptr, 10);
    } else if (arg == "--zt_list_cases") {
      for (const auto& kv : Cases())
        printf("%s\n", kv.first.c_str());
      return 0;
    } else {
      rest.push_back(argv[i]);
    }
  }

  if (!case_name.empty()) {
    auto it = Cases().find(case_name);
    if (it == Cases().end() || iterations <= 0) {
      fprintf(stderr,
              "usage: %s --zt_case=NAME --zt_iterations=N "
              "(--zt_list_cases lists names)\n",
              argv[0]);
      return 2;
    }
    for (long i = 0; i < iterations; i++)
      it->second();
    return 0;
  }

  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data()))
    return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
