// libFuzzer target: the name dictionary (name_dictionary.h) on any bytes.
//
// The first byte picks what the rest is:
// * even: dictionary entries, as a hostile file could hold them (any
//   marked names, any marker ids: forward, out of range, cyclic), loaded
//   into both expanders (and a batch one memoizing every piece, the walk it
//   switches to past its work bound: it must agree with the batch method on
//   every id). Whatever the sequential method expands, the batch method
//   must expand to the same name; whatever the batch method refuses, the
//   sequential one must refuse too. Names stay under the limit.
// * odd: names, one per line, compressed and then expanded by both
//   methods: every name must come back byte for byte (or be refused by the
//   compressor because it holds a '\0').

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "zt/processor/name_dictionary.h"

namespace {

using zt::processor::DictionaryEntry;
using zt::processor::NameCompressor;
using zt::processor::NameExpander;

constexpr size_t kMaxNameBytes = 4096;

void Check(bool cond) {
  if (!cond)
    abort();
}

void FuzzExpanders(const uint8_t* p, const uint8_t* end) {
  NameExpander sequential(NameExpander::Method::kSequential, kMaxNameBytes);
  NameExpander batch(NameExpander::Method::kBatch, kMaxNameBytes);
  // The walk a batch expander switches to past its work bound.
  NameExpander memoizing(NameExpander::Method::kBatch, kMaxNameBytes);
  memoizing.MemoizeAllPieces();
  while (p < end) {
    const size_t wanted = *p++ % 32u;
    const size_t length = std::min(wanted, static_cast<size_t>(end - p));
    const std::string_view marked(reinterpret_cast<const char*>(p), length);
    p += length;
    std::vector<uint32_t> markers;
    const size_t count = p < end ? *p++ % 8 : 0;
    for (size_t i = 0; i < count && p < end; i++)
      markers.push_back(*p++ % static_cast<uint32_t>(sequential.size() + 4));
    std::string error;
    sequential.Add(marked, markers, &error);
    Check(batch.Add(marked, markers, &error));
    Check(memoizing.Add(marked, markers, &error));
  }
  for (uint32_t id = 0; id < sequential.size() + 2; id++) {
    std::string_view from_sequential;
    std::string_view from_batch;
    std::string error;
    const bool sequential_ok = sequential.Expand(id, &from_sequential, &error);
    const bool batch_ok = batch.Expand(id, &from_batch, &error);
    std::string_view from_memoizing;
    const bool memoizing_ok = memoizing.Expand(id, &from_memoizing, &error);
    Check(memoizing_ok == batch_ok && (!batch_ok || from_memoizing == from_batch));
    if (sequential_ok)
      Check(batch_ok && from_batch == from_sequential);
    if (!batch_ok)
      Check(!sequential_ok && !error.empty());
    if (batch_ok)
      Check(from_batch.size() <= kMaxNameBytes);
  }
}

void FuzzCompressor(const uint8_t* p, const uint8_t* end) {
  std::vector<DictionaryEntry> entries;
  std::vector<std::string> marked_names;
  NameExpander sequential;
  NameExpander batch(NameExpander::Method::kBatch);
  NameCompressor compressor([&](const DictionaryEntry& entry) {
    std::string error;
    Check(entry.id == sequential.size());
    Check(sequential.Add(entry.marked_name, entry.marker_ids, &error));
    Check(batch.Add(entry.marked_name, entry.marker_ids, &error));
  });
  const std::string_view input(reinterpret_cast<const char*>(p), static_cast<size_t>(end - p));
  size_t start = 0;
  while (start <= input.size()) {
    size_t newline = input.find('\n', start);
    if (newline == std::string_view::npos)
      newline = input.size();
    const std::string_view name = input.substr(start, newline - start);
    const uint32_t id = compressor.Compress(name);
    if (name.find('\0') != std::string_view::npos) {
      Check(id == NameCompressor::kNoId);
    } else {
      std::string_view expanded;
      std::string error;
      Check(sequential.Expand(id, &expanded, &error) && expanded == name);
      Check(batch.Expand(id, &expanded, &error) && expanded == name);
    }
    start = newline + 1;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0)
    return 0;
  if (data[0] % 2 == 0)
    FuzzExpanders(data + 1, data + size);
  else
    FuzzCompressor(data + 1, data + size);
  return 0;
}
