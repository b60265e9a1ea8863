// Transcripts of upstream Perfetto sessions (test/data/transcripts, recorded
// by a proxy between a v14 service and v14 clients; README.md there): their
// text turned back into frames a test can send and compare.
//
// The format, as the recorder writes it:
//
//   # comment lines
//   ---- t=0.007788s ACCEPT conn=1
//   #3 t=0.008983s conn=1 C->S req_id=2 len=58  <summary>
//      SCM_RIGHTS fds attached to this frame: [{"size": 262144, "link": "..."}]
//      frame {
//        <IPCFrame in protobuf text format>
//      }
//      InitializeConnectionRequest {
//        <its args_proto (or reply_proto) in text format>
//      }
//   ---- t=1.083203s CLOSE conn=1 by c2s
//
// The SCM_RIGHTS line and the second block are optional. The recorder left
// args_proto/reply_proto out of the frame block; the parser puts the second
// block's encoding back into them, so an entry's frame is the frame as sent
// (modulo encoding choices: upstream writes redundant varint lengths, we
// write minimal ones). ReadBuffers replies are summarized by the recorder
// (slice bytes elided): they parse, but their payload is not the original
// and is flagged so.
//
// Test support only. Thread-safe: no state beyond the returned values.

#ifndef ZT_TEST_TRANSCRIPT_TRANSCRIPT_H_
#define ZT_TEST_TRANSCRIPT_TRANSCRIPT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "zt/ipc/wire_protocol.gen.h"
#include "zt/protozero/schema.h"

namespace zt {
namespace transcript {

enum class Direction { kClientToService, kServiceToClient };

// A file descriptor the recorder saw travel with a frame.
struct PassedFd {
  uint64_t size = 0;  // Of the file it refers to (fstat).
  std::string link;   // /proc/<pid>/fd/<n>, e.g. "/memfd:perfetto_shmem (deleted)".
};

struct Entry {
  int number = 0;        // The "#N" of the header: 1-based order in the file.
  size_t line = 0;       // The header's line in the file (1-based).
  int64_t time_us = 0;   // "t=" of the header, in microseconds.
  uint32_t conn = 0;
  Direction direction = Direction::kClientToService;
  uint64_t request_id = 0;
  uint32_t length = 0;   // Of the frame on the wire, header excluded.
  std::string summary;   // The rest of the header line.
  // The second block's type ("InitializeConnectionRequest"), or empty.
  std::string payload_type;
  // The payload is the recorder's summary, not what was sent (ReadBuffers).
  bool payload_summarized = false;
  std::vector<PassedFd> fds;
  // The frame, with args_proto or reply_proto set from the second block.
  protos::gen::IPCFrame frame;
  std::string text;  // The entry's lines as written, header included.

  bool from_client() const { return direction == Direction::kClientToService; }
};

// A connection accepted or closed ("---- t=... ACCEPT conn=1").
struct ConnectionEvent {
  enum class Kind { kAccept, kClose };
  Kind kind = Kind::kAccept;
  size_t line = 0;
  int64_t time_us = 0;
  uint32_t conn = 0;
  std::string detail;  // What follows the conn, e.g. "by c2s".
};

struct Transcript {
  std::string name;  // For messages: the file name it was read from.
  std::vector<Entry> entries;            // In file order.
  std::vector<ConnectionEvent> events;   // In file order.
};

// The schema of a payload type the transcripts name (every request and
// response of the producer and consumer ports, CommitDataRequest), or null.
const protozero::MessageSchema* PayloadSchema(std::string_view type_name);

// Parses |text|. On failure returns false with |*error| =
// "<name>:<line>: <what>" (the first problem; the line is the file's, also
// inside a block) and |*out| unspecified.
bool ParseTranscript(std::string_view text, std::string_view name, Transcript* out,
                     std::string* error);

// Reads and parses the file at |path| (named by its base name in errors).
bool LoadTranscript(const std::string& path, Transcript* out, std::string* error);

}  // namespace transcript
}  // namespace zt

#endif  // ZT_TEST_TRANSCRIPT_TRANSCRIPT_H_
