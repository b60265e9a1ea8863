// Counts the system tests' events in a trace read as a stream (stdin, or a
// file), for tools/load: gigabytes pass through in bounded memory (a bit per
// event per writer sequence), nothing is stored. Prints, per run: events,
// sequences, events missing against --expect, duplicates, payloads that do
// not match their sequence and index (every --check-every'th is checked),
// packets marked previous_packet_dropped, and the trace's closing stats.
//
// Usage: load_counter [--expect SEQUENCES:EVENTS_PER_SEQUENCE]
//                     [--check-every N] [FILE]
// Exit status: 0, or 1 if --expect is not met exactly (or the stream is
// damaged), 2 on bad arguments.

#include <fcntl.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <cerrno>
#include <map>
#include <string>
#include <vector>

#include "test/system/system_test_payload.h"
#include "zt/common/trace_stats.pbzero.h"
#include "zt/trace/test_event.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"

namespace {

struct Sequence {
  std::vector<uint64_t> seen;  // A bit per counter.
  uint64_t events = 0;
  uint64_t duplicates = 0;
};

struct Totals {
  std::map<uint32_t, Sequence> sequences;
  uint64_t events = 0, corrupt = 0, checked = 0, marks = 0, packets = 0;
  bool have_stats = false;
  uint64_t chunks_discarded = 0, chunks_overwritten = 0, writer_packet_loss = 0,
           buffer_bytes_written = 0, patches_discarded = 0;
};

void OnPacket(const uint8_t* data, size_t size, uint64_t check_every, Totals* t) {
  t->packets++;
  zt::protos::pbzero::TracePacket_Decoder packet(data, size);
  if (packet.previous_packet_dropped())
    t->marks++;
  if (packet.has_trace_stats()) {
    zt::protos::pbzero::TraceStats_Decoder stats(packet.trace_stats());
    t->have_stats = true;
    t->chunks_discarded = stats.chunks_discarded();
    t->patches_discarded = stats.patches_discarded();
    t->chunks_overwritten = t->writer_packet_loss = t->buffer_bytes_written = 0;
    for (auto b = stats.buffer_stats(); b; ++b) {
      zt::protos::pbzero::TraceStats_BufferStats_Decoder buffer(*b);
      t->chunks_overwritten += buffer.chunks_overwritten();
      t->writer_packet_loss += buffer.trace_writer_packet_loss();
      t->buffer_bytes_written += buffer.bytes_written();
    }
  }
  if (!packet.has_for_testing())
    return;
  zt::protos::pbzero::TestEvent_Decoder event(packet.for_testing());
  const uint32_t seq = event.seq_value();
  const uint64_t counter = event.counter();
  Sequence& s = t->sequences[seq];
  if (s.seen.size() <= counter / 64)
    s.seen.resize(counter / 64 + 1 + s.seen.size() / 2);
  uint64_t& word = s.seen[counter / 64];
  const uint64_t bit = uint64_t{1} << (counter % 64);
  if (word & bit) {
    s.duplicates++;
  } else {
    word |= bit;
    s.events++;
  }
  t->events++;
  if (check_every && counter % check_every == 0) {
    t->checked++;
    const auto str = event.str();
    if (std::string(str) !=
        zt::test::SystemTestPayload(seq, static_cast<uint32_t>(counter))) {
      t->corrupt++;
    }
  }
}

bool ReadVarint(const uint8_t** p, const uint8_t* end, uint64_t* value) {
  *value = 0;
  for (int shift = 0; shift < 64 && *p < end; shift += 7) {
    const uint8_t b = *(*p)++;
    *value |= uint64_t{b & 0x7fu} << shift;
    if (!(b & 0x80))
      return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t expect_sequences = 0, expect_events = 0, check_every = 64;
  const char* path = nullptr;
  for (int i = 1; i < argc; i++) {
    const std::string arg = argv[i];
    if (arg == "--expect" && i + 1 < argc) {
      if (sscanf(argv[++i], "%" SCNu64 ":%" SCNu64, &expect_sequences, &expect_events) != 2) {
        fprintf(stderr, "load_counter: --expect wants SEQUENCES:EVENTS, not %s\n", argv[i]);
        return 2;
      }
    } else if (arg == "--check-every" && i + 1 < argc) {
      check_every = strtoull(argv[++i], nullptr, 10);
    } else if (arg == "-h" || arg == "--help") {
      printf("usage: load_counter [--expect SEQUENCES:EVENTS] [--check-every N] [FILE]\n");
      return 0;
    } else if (!path && arg[0] != '-') {
      path = argv[i];
    } else {
      fprintf(stderr, "load_counter: unknown argument %s (try --help)\n", argv[i]);
      return 2;
    }
  }
  const int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
  if (fd < 0) {
    fprintf(stderr, "load_counter: cannot open %s: %s\n", path, strerror(errno));
    return 1;
  }
  Totals totals;
  std::vector<uint8_t> buffer(8u << 20);
  size_t filled = 0;
  uint64_t offset = 0;  // Of buffer[0] in the stream.
  bool damaged = false;
  for (;;) {
    const ssize_t n = read(fd, buffer.data() + filled, buffer.size() - filled);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      fprintf(stderr, "load_counter: read: %s\n", strerror(errno));
      return 1;
    }
    filled += static_cast<size_t>(n);
    const uint8_t* p = buffer.data();
    const uint8_t* const end = buffer.data() + filled;
    while (p < end) {
      const uint8_t* record = p;
      uint64_t tag = 0, length = 0;
      if (!ReadVarint(&p, end, &tag) || !ReadVarint(&p, end, &length) ||
          length > static_cast<uint64_t>(end - p)) {
        p = record;  // Incomplete: wait for more.
        break;
      }
      if (tag == ((1u << 3) | 2))
        OnPacket(p, static_cast<size_t>(length), check_every, &totals);
      p += length;
    }
    const size_t consumed = static_cast<size_t>(p - buffer.data());
    memmove(buffer.data(), p, filled - consumed);
    filled -= consumed;
    offset += consumed;
    if (filled == buffer.size())
      buffer.resize(buffer.size() * 2);  // One packet larger than the buffer.
    if (n == 0) {
      if (filled) {
        fprintf(stderr, "load_counter: the stream ends inside a record at byte %" PRIu64 "\n",
                offset);
        damaged = true;
      }
      break;
    }
  }

  uint64_t missing = 0, duplicates = 0, min_events = UINT64_MAX, max_events = 0;
  for (const auto& entry : totals.sequences) {
    const Sequence& s = entry.second;
    duplicates += s.duplicates;
    min_events = std::min(min_events, s.events);
    max_events = std::max(max_events, s.events);
    if (expect_events && s.events < expect_events)
      missing += expect_events - s.events;
  }
  if (expect_sequences > totals.sequences.size())
    missing += (expect_sequences - totals.sequences.size()) * expect_events;
  printf("events %" PRIu64 " in %zu sequences (%" PRIu64 "..%" PRIu64 " each), %" PRIu64
         " packets\n",
         totals.events, totals.sequences.size(), totals.sequences.empty() ? 0 : min_events,
         max_events, totals.packets);
  printf("missing %" PRIu64 ", duplicates %" PRIu64 ", corrupt %" PRIu64 " of %" PRIu64
         " checked, previous_packet_dropped marks %" PRIu64 "\n",
         missing, duplicates, totals.corrupt, totals.checked, totals.marks);
  if (totals.have_stats) {
    printf("stats: chunks_discarded %" PRIu64 ", patches_discarded %" PRIu64
           ", chunks_overwritten %" PRIu64 ", trace_writer_packet_loss %" PRIu64
           ", buffer bytes_written %" PRIu64 "\n",
           totals.chunks_discarded, totals.patches_discarded, totals.chunks_overwritten,
           totals.writer_packet_loss, totals.buffer_bytes_written);
  } else {
    printf("stats: none (the trace has no TraceStats)\n");
  }
  const bool exact = !expect_sequences || (missing == 0 && duplicates == 0 &&
                                           totals.sequences.size() == expect_sequences &&
                                           max_events == expect_events);
  return exact && !damaged && totals.corrupt == 0 ? 0 : 1;
}
