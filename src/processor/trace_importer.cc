#include "src/processor/trace_importer.h"

#include "src/processor/clock_tracker.h"
#include "src/processor/packet_sorter.h"
#include "src/processor/proto_trace_reader.h"
#include "src/processor/track_event_parser.h"
#include "src/processor/track_tracker.h"
#include "zt/processor/mapped_trace_file.h"

namespace zt {
namespace processor {
namespace {

void SetMetadataInt(TraceStorage* storage, const char* name, int64_t value) {
  storage->metadata.name.push_back(storage->strings.Intern(name));
  storage->metadata.int_value.push_back(value);
  storage->metadata.str_value.push_back(kNullStringId);
}

void SetMetadataString(TraceStorage* storage, const char* name, const char* value) {
  storage->metadata.name.push_back(storage->strings.Intern(name));
  storage->metadata.int_value.push_back(kNullInt);
  storage->metadata.str_value.push_back(storage->strings.Intern(value));
}

}  // namespace

ImportResult ImportTrace(const void* data, size_t size, TraceStorage* storage,
                         const ImportOptions& options) {
  const uint8_t* const base = static_cast<const uint8_t*>(data);
  ImportResult result;
  TrackTracker tracks(storage);
  ClockTracker clocks;
  PacketSorter sorter;
  ProtoTraceReader reader(base, storage, &tracks, &clocks, &sorter);

  // Pass 1, in file order: state, clocks, descriptors; events queued.
  TokenizeOptions tokenize_options;
  tokenize_options.progress = options.progress;
  result.tokenizer = TokenizeTrace(
      data, size, [&](const PacketView& packet) { reader.ReadPacket(packet); },
      tokenize_options);
  reader.Finish();
  result.sequences = reader.sequence_count();

  const TokenizerStats& tokenizer = result.tokenizer;
  if (tokenizer.damage != TraceDamage::kNone) {
    storage->stats.Set(stats::trace_damage_bytes_skipped,
                       static_cast<int64_t>(tokenizer.bytes_skipped));
    DataLossMark mark;
    mark.offset = tokenizer.damage_offset;
    storage->data_losses.push_back(mark);
  }
  storage->stats.Set(stats::trace_unknown_top_level_fields,
                     static_cast<int64_t>(tokenizer.unknown_fields));

  // Pass 2, in time order: events into tables.
  TrackEventParser parser(storage, &tracks);
  bool first = true;
  sorter.Drain([&](const SortedEvent& event) {
    if (first) {
      result.first_ts = event.ts;
      first = false;
    }
    result.last_ts = event.ts;
    result.packets_parsed++;
    parser.Parse(event.ts, reader.generation(event.generation),
                 protozero::ConstBytes{base + event.offset, event.size});
  });
  parser.Finish();

  SetMetadataInt(storage, "trace_size_bytes", static_cast<int64_t>(size));
  SetMetadataString(storage, "trace_type", "proto");
  return result;
}

std::unique_ptr<TraceStorage> ImportTraceFile(const std::string& path,
                                              const ImportOptions& options,
                                              ImportResult* result, std::string* error) {
  std::unique_ptr<MappedTraceFile> file = MappedTraceFile::Open(path, error);
  if (!file)
    return nullptr;
  std::unique_ptr<TraceStorage> storage(new TraceStorage());
  ImportResult imported = ImportTrace(file->data(), file->size(), storage.get(), options);
  if (result)
    *result = imported;
  return storage;
}

}  // namespace processor
}  // namespace zt
