#include "src/processor/importers/trace_importer.h"

#include <sched.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "src/processor/importers/gzip/gzip_stream.h"
#include "src/processor/importers/json/json_trace_importer.h"
#include "src/processor/importers/proto/batch_channel.h"
#include "src/processor/importers/proto/clock_tracker.h"
#include "src/processor/importers/proto/packet_sorter.h"
#include "src/processor/importers/proto/proto_trace_reader.h"
#include "src/processor/importers/proto/slice_column_pager.h"
#include "src/processor/importers/templight/templight_importer.h"
#include "src/processor/importers/trace_format.h"
#include "src/processor/importers/proto/track_event_parser.h"
#include "src/processor/importers/track_tracker.h"
#include "src/processor/importers/proto/two_thread_pass.h"
#include "zt/base/compiler.h"
#include "zt/processor/mapped_trace_file.h"

namespace zt {
namespace processor {

uint64_t ImportOptions::DefaultTwoThreadsMinBytes() {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  const int available =
      sched_getaffinity(0, sizeof(cpus), &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
  return available >= static_cast<int>(kTwoThreadsMinCpus) ? uint64_t{1} << 20
                                                              : kNeverTwoThreads;
}
namespace {

constexpr uint64_t kReportInterval = 64u << 20;
// Pass 1 drops the input behind it this often (pass 2 faults back what it
// reads, and drops each 2 MiB region once its last event is parsed).
constexpr uint64_t kReleaseInterval = 8u << 20;


void SetMetadataInt(TraceStorage* storage, const char* name, int64_t value) {
  storage->metadata.AddInt(storage->strings.Intern(name), value);
}

void SetMetadataString(TraceStorage* storage, const char* name, const char* value) {
  storage->metadata.AddString(storage->strings.Intern(name), storage->strings.Intern(value));
}

constexpr size_t kGzipPieceBytes = 4u << 20;

ImportResult ImportProto(const void* data, size_t size, TraceStorage* storage,
                         const ImportOptions& options);

// Decompresses as it reads: a JSON trace is parsed as it comes out; the
// other formats are read more than once and are collected whole first.
ImportResult ImportGzip(const void* data, size_t size, TraceStorage* storage,
                        const ImportOptions& options) {
  using Format = ImportOptions::Format;
  enum class Mode { kSniffing, kJson, kWhole, kRefused };
  Mode mode = Mode::kSniffing;
  Format inner = options.format;
  std::string head;
  std::unique_ptr<JsonTraceImporter> json;
  GrowingBuffer whole;
  bool out_of_memory = false;
  std::string refusal;

  auto route = [&](const uint8_t* out, size_t n) {
    switch (mode) {
      case Mode::kJson:
        return json->Feed(reinterpret_cast<const char*>(out), n);
      case Mode::kWhole:
        if (whole.Append(out, n))
          return true;
        out_of_memory = true;
        return false;
      default:
        return false;
    }
  };
  // Decides from the first decompressed bytes what they are.
  auto decide = [&]() {
    if (inner == Format::kAuto) {
      const TraceFormat format = GuessTraceFormat(head.data(), head.size());
      if (format == TraceFormat::kJson)
        inner = Format::kJson;
      else if (format == TraceFormat::kTemplight)
        inner = Format::kTemplight;
      else if (format == TraceFormat::kProto)
        inner = Format::kProto;
      else
        refusal = "gzip-compressed " + DescribeTraceFormat(format, head.data(), head.size()) +
                  ", not a trace";
    }
    if (!refusal.empty()) {
      mode = Mode::kRefused;
      return false;
    }
    if (inner == Format::kJson) {
      mode = Mode::kJson;
      json.reset(new JsonTraceImporter(storage));
    } else {
      mode = Mode::kWhole;
    }
    const bool ok = route(reinterpret_cast<const uint8_t*>(head.data()), head.size());
    std::string().swap(head);
    return ok;
  };

  GzipStream gzip;
  const uint8_t* const bytes = static_cast<const uint8_t*>(data);
  uint64_t next_report = 64u << 20;
  size_t done = 0;
  while (done < size) {
    const size_t piece = std::min(kGzipPieceBytes, size - done);
    const bool more = gzip.Feed(bytes + done, piece, [&](const uint8_t* out, size_t n) {
      if (mode != Mode::kSniffing)
        return route(out, n);
      head.append(reinterpret_cast<const char*>(out), n);
      return head.size() < 4096 || decide();
    });
    // Compressed bytes are read once: behind the stream they can go.
    if (options.release_input)
      options.release_input(done, piece);
    done += piece;
    if (options.progress && (done >= next_report || done == size)) {
      next_report = done + (64u << 20);
      options.progress(done, size);
    }
    if (!more)
      break;
  }
  const bool complete = gzip.Finish();
  if (mode == Mode::kSniffing && !head.empty())
    decide();

  ImportResult result;
  if (mode == Mode::kRefused || mode == Mode::kSniffing) {
    result.unreadable = mode == Mode::kSniffing ? "gzip-compressed data that does not decompress" +
                                                      (gzip.error().empty() ? std::string()
                                                                            : " (" + gzip.error() + ")")
                                                : refusal;
    result.input_bytes = size;
    return result;
  }
  if (!complete && !gzip.error().empty()) {
    // Cut or corrupt: what came out before the damage is imported.
    storage->stats.Set(stats::gzip_stream_damaged, 1);
    if (storage->import_problems.size() < kMaxImportProblems)
      storage->import_problems.push_back(ImportProblem{gzip.bytes_in(), gzip.error()});
    DataLossMark mark;
    mark.offset = gzip.bytes_in();
    storage->data_losses.push_back(mark);
  }
  if (out_of_memory && storage->import_problems.size() < kMaxImportProblems) {
    storage->import_problems.push_back(ImportProblem{
        gzip.bytes_in(), "out of memory after decompressing " + std::to_string(whole.size()) +
                             " bytes; the rest was not read"});
  }
  if (mode == Mode::kJson) {
    result = json->Finish();
  } else {
    ImportOptions whole_options = options;
    whole_options.format = inner;
    // The decompressed bytes are the only copy: nothing may be released.
    whole_options.release_input = nullptr;
    whole_options.progress = nullptr;
    result = inner == Format::kTemplight
                 ? ImportTemplight(whole.data(), whole.size(), whole_options, storage)
                 : ImportProto(whole.data(), whole.size(), storage, whole_options);
  }
  result.gzip = true;
  result.format = inner;
  // trace_size_bytes is the file's size, as upstream records it.
  MetadataTable& metadata = storage->metadata;
  const StringId size_key = storage->strings.Intern("trace_size_bytes");
  for (size_t i = 0; i < metadata.size(); ++i)
    if (metadata.name[i] == size_key)
      metadata.int_value[i] = static_cast<int64_t>(size);
  result.input_bytes = size;
  return result;
}

}  // namespace

ImportResult ImportTrace(const void* data, size_t size, TraceStorage* storage,
                         const ImportOptions& options) {
  using Format = ImportOptions::Format;
  if (LooksLikeGzip(data, size))
    return ImportGzip(data, size, storage, options);
  if (options.format == Format::kTemplight ||
      (options.format == Format::kAuto && LooksLikeTemplight(data, size))) {
    return ImportTemplight(data, size, options, storage);
  }
  if (options.format == Format::kJson ||
      (options.format == Format::kAuto &&
       GuessTraceFormat(data, size) == TraceFormat::kJson)) {
    return ImportJsonTrace(data, size, storage, options);
  }
  return ImportProto(data, size, storage, options);
}

namespace {

// Tokenizer stats of one window of a growing input, added to the totals
// (offsets made absolute). Damage is the caller's to judge.
void AddWindowStats(const TokenizerStats& window, TokenizerStats* total) {
  total->packets += window.packets;
  total->packet_bytes += window.packet_bytes;
  total->unknown_fields += window.unknown_fields;
  total->unknown_field_bytes += window.unknown_field_bytes;
}

// A record cut by the end of what has come so far: read it when the rest
// has come, unless nothing more will.
bool CutByTheEnd(TraceDamage damage) {
  return damage == TraceDamage::kTruncated || damage == TraceDamage::kLengthPastEnd;
}

// The protobuf import over an input that may still be growing (a whole
// input is one that has ended at its first look).
ImportResult ImportProtoFrom(const uint8_t* base, const GrowingInputFn& more,
                             TraceStorage* storage, const ImportOptions& options,
                             bool two_threads) {
  ImportResult result;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  TrackTracker tracks(storage);
  ClockTracker clocks;
  PacketSorter sorter(/*with_hints=*/two_threads);
  ProtoTraceReader reader(base, storage, &tracks, &clocks, &sorter);
  reader.set_drop_events_after_loss(options.drop_events_after_loss);

  // Pass 1, in file order: state, clocks, descriptors; events queued.
  // What pass 1 has read is copied out (strings) or will be read again in
  // time order: behind the tokenizer, the input can go. On a large trace
  // another thread does the queueing (the sorter is its own until joined).
  std::unique_ptr<BatchChannel> queue_channel;
  std::thread queuer;
  if (two_threads) {
    queue_channel.reset(new BatchChannel());
    reader.QueueEventsThrough(queue_channel.get());
    queuer = std::thread([&sorter, base, channel = queue_channel.get()] {
      channel->ConsumeAll([&](const uint8_t* p, const uint8_t* end) {
        ProtoTraceReader::PushQueuedEvents(base, p, end, &sorter);
      });
    });
  }
  auto stop_queueing = [&] {
    if (two_threads) {
      queue_channel->Close();
      queuer.join();
    }
  };
  PacketView packet;
  uint64_t next_report = kReportInterval;
  uint64_t next_release = kReleaseInterval;
  uint64_t released = 0;
  uint64_t previous_mark = 0;
  // Each look at the input tokenizes what has come since the last one,
  // from the first record not yet read (`position`).
  uint64_t position = 0;
  TokenizerStats& totals = result.tokenizer;
  for (GrowingInput input = more(0);; input = more(input.available)) {
    if (input.abandoned) {
      stop_queueing();
      result.unreadable = "abandoned before the end of its input";
      return result;
    }
    TraceTokenizer tokenizer(base + position, input.available - position);
    while (tokenizer.Next(&packet)) {
      packet.offset += position;
      reader.ReadPacket(packet);
      if (ZT_UNLIKELY(position + tokenizer.position() >= next_release)) {
        const uint64_t done = position + tokenizer.position();
        next_release = done + kReleaseInterval;
        // One interval behind: the queueing thread reads events a little
        // after this one has (at most a channel's worth).
        if (options.release_input && previous_mark > released) {
          options.release_input(released, previous_mark - released);
          released = previous_mark;
        }
        previous_mark = done;
        // The total is known once the input has ended.
        if (done >= next_report && input.ended) {
          next_report = done + kReportInterval;
          if (options.progress)
            options.progress(done, input.available);
        }
      }
    }
    const TokenizerStats& window = tokenizer.stats();
    AddWindowStats(window, &totals);
    // At damage the tokenizer stays at the record it could not read: a
    // record cut by the end of what has come is read again with the rest;
    // other damage is final (looked at again, it is found again, with the
    // bytes skipped counted to the new end).
    if (window.damage != TraceDamage::kNone && (input.ended || !CutByTheEnd(window.damage))) {
      totals.damage = window.damage;
      totals.damage_offset = position + window.damage_offset;
      totals.bytes_skipped = window.bytes_skipped;
    }
    position += tokenizer.position();
    if (input.ended) {
      result.input_bytes = input.available;
      break;
    }
  }
  const uint64_t size = result.input_bytes;
  if (options.progress)
    options.progress(totals.damage == TraceDamage::kNone ? size : totals.damage_offset, size);
  stop_queueing();
  if (options.release_input && size > released)
    options.release_input(released, size - released);
  reader.Finish();
  result.sequences = reader.sequence_count();

  const TokenizerStats& damage = result.tokenizer;
  if (damage.damage != TraceDamage::kNone) {
    storage->stats.Set(stats::trace_damage_bytes_skipped,
                       static_cast<int64_t>(damage.bytes_skipped));
    DataLossMark mark;
    mark.offset = damage.damage_offset;
    storage->data_losses.push_back(mark);
  }
  storage->stats.Set(stats::trace_unknown_top_level_fields,
                     static_cast<int64_t>(damage.unknown_fields));

  const Clock::time_point pass1_end = Clock::now();
  result.pass1_seconds = std::chrono::duration<double>(pass1_end - start).count();

  // Pass 2, in time order: events into tables. A slice per event at most,
  // reserved at once rather than grown by doubling (which would hold the old
  // and the new columns at the same time): capacity never touched costs
  // address space, not memory.
  storage->slice.reserve(sorter.size());
  TrackEventParser parser(storage, &tracks);
  if (two_threads) {
    const PassTwoCounts counts =
        ParseOnTwoThreads(base, reader, &sorter, &tracks, &parser, &storage->slice,
                          options.release_input);
    result.packets_parsed = counts.events;
    result.first_ts = counts.first_ts;
    result.last_ts = counts.last_ts;
  } else {
    bool first = true;
    SliceColumnPager pager(&storage->slice);
    sorter.GiveConsumedBlocksTo([&pager](void* pages, size_t bytes) { pager.Give(pages, bytes); });
    sorter.Drain(
        [&](int64_t ts, uint64_t offset, uint64_t event_size, uint32_t generation, uint64_t) {
          if (first) {
            result.first_ts = ts;
            first = false;
          }
          result.last_ts = ts;
          result.packets_parsed++;
          pager.RowsComing(storage->slice.size());
          parser.Parse(ts, reader.generation(generation),
                       protozero::ConstBytes{base + offset, static_cast<size_t>(event_size)});
        },
        [&](uint64_t offset, uint64_t length) {
          // No event left to parse there: the input's pages can go.
          if (options.release_input)
            options.release_input(offset, length);
        });
  }
  parser.Finish();
  result.pass2_seconds = std::chrono::duration<double>(Clock::now() - pass1_end).count();
  if (options.release_input)
    options.release_input(0, size);

  SetMetadataInt(storage, "trace_size_bytes", static_cast<int64_t>(size));
  SetMetadataString(storage, "trace_type", "proto");
  return result;
}

ImportResult ImportProto(const void* data, size_t size, TraceStorage* storage,
                         const ImportOptions& options) {
  GrowingInput whole;
  whole.available = size;
  whole.ended = true;
  return ImportProtoFrom(static_cast<const uint8_t*>(data),
                         [whole](uint64_t) { return whole; }, storage, options,
                         size >= options.two_threads_min_bytes);
}

}  // namespace

ImportResult ImportGrowingProtoTrace(const void* data, const GrowingInputFn& more,
                                     TraceStorage* storage, const ImportOptions& options) {
  // The size is not known yet: two threads wherever they would be used
  // for a large trace (a trace worth streaming is one).
  const bool two_threads =
      options.two_threads_min_bytes != ImportOptions::kNeverTwoThreads;
  return ImportProtoFrom(static_cast<const uint8_t*>(data), more, storage, options,
                         two_threads);
}

std::unique_ptr<TraceStorage> ImportTraceFile(const std::string& path,
                                              const ImportOptions& options,
                                              ImportResult* result, std::string* error) {
  std::unique_ptr<MappedTraceFile> file = MappedTraceFile::Open(path, error);
  if (!file)
    return nullptr;
  if (options.format == ImportOptions::Format::kAuto) {
    std::string not_a_trace = NotATraceError(path, file->data(), file->size());
    if (!not_a_trace.empty()) {
      if (error)
        *error = std::move(not_a_trace);
      return nullptr;
    }
  }
  std::unique_ptr<TraceStorage> storage(new TraceStorage());
  ImportOptions file_options = options;
  const MappedTraceFile* mapped = file.get();
  if (!file_options.release_input) {
    file_options.release_input = [mapped](uint64_t offset, uint64_t length) {
      mapped->ReleasePages(offset, length);
    };
  }
  ImportResult imported =
      ImportTrace(file->data(), file->size(), storage.get(), file_options);
  if (!imported.unreadable.empty()) {
    if (error)
      *error = path + " is " + imported.unreadable;
    return nullptr;
  }
  if (result)
    *result = imported;
  return storage;
}

}  // namespace processor
}  // namespace zt
