#include "test/transcript/transcript.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>

#include "zt/common/commit_data_request.gen.h"
#include "zt/ipc/consumer_port.gen.h"
#include "zt/ipc/producer_port.gen.h"
#include "zt/protozero/text_format.h"

namespace zt {
namespace transcript {
namespace {

namespace gen = protos::gen;

// The recorder indents an entry's body by three spaces; blocks start at
// that indentation and end with a "}" at the same one.
constexpr std::string_view kIndent = "   ";
constexpr std::string_view kFdsPrefix = "SCM_RIGHTS fds attached to this frame: ";

template <typename T>
const protozero::MessageSchema* SchemaOf() {
  return T::GetSchema();
}

struct PayloadType {
  std::string_view name;
  const protozero::MessageSchema* (*schema)();
};

// Every request and response type of the two ports (the recorder names a
// payload by the rpc's type), whether or not today's transcripts use it.
constexpr PayloadType kPayloadTypes[] = {
    // ProducerPort.
    {"InitializeConnectionRequest", &SchemaOf<gen::InitializeConnectionRequest>},
    {"InitializeConnectionResponse", &SchemaOf<gen::InitializeConnectionResponse>},
    {"RegisterDataSourceRequest", &SchemaOf<gen::RegisterDataSourceRequest>},
    {"RegisterDataSourceResponse", &SchemaOf<gen::RegisterDataSourceResponse>},
    {"UpdateDataSourceRequest", &SchemaOf<gen::UpdateDataSourceRequest>},
    {"UpdateDataSourceResponse", &SchemaOf<gen::UpdateDataSourceResponse>},
    {"UnregisterDataSourceRequest", &SchemaOf<gen::UnregisterDataSourceRequest>},
    {"UnregisterDataSourceResponse", &SchemaOf<gen::UnregisterDataSourceResponse>},
    {"CommitDataRequest", &SchemaOf<gen::CommitDataRequest>},
    {"CommitDataResponse", &SchemaOf<gen::CommitDataResponse>},
    {"GetAsyncCommandRequest", &SchemaOf<gen::GetAsyncCommandRequest>},
    {"GetAsyncCommandResponse", &SchemaOf<gen::GetAsyncCommandResponse>},
    {"RegisterTraceWriterRequest", &SchemaOf<gen::RegisterTraceWriterRequest>},
    {"RegisterTraceWriterResponse", &SchemaOf<gen::RegisterTraceWriterResponse>},
    {"UnregisterTraceWriterRequest", &SchemaOf<gen::UnregisterTraceWriterRequest>},
    {"UnregisterTraceWriterResponse", &SchemaOf<gen::UnregisterTraceWriterResponse>},
    {"NotifyDataSourceStartedRequest", &SchemaOf<gen::NotifyDataSourceStartedRequest>},
    {"NotifyDataSourceStartedResponse", &SchemaOf<gen::NotifyDataSourceStartedResponse>},
    {"NotifyDataSourceStoppedRequest", &SchemaOf<gen::NotifyDataSourceStoppedRequest>},
    {"NotifyDataSourceStoppedResponse", &SchemaOf<gen::NotifyDataSourceStoppedResponse>},
    {"ActivateTriggersRequest", &SchemaOf<gen::ActivateTriggersRequest>},
    {"ActivateTriggersResponse", &SchemaOf<gen::ActivateTriggersResponse>},
    {"SyncRequest", &SchemaOf<gen::SyncRequest>},
    {"SyncResponse", &SchemaOf<gen::SyncResponse>},
    // ConsumerPort.
    {"EnableTracingRequest", &SchemaOf<gen::EnableTracingRequest>},
    {"EnableTracingResponse", &SchemaOf<gen::EnableTracingResponse>},
    {"DisableTracingRequest", &SchemaOf<gen::DisableTracingRequest>},
    {"DisableTracingResponse", &SchemaOf<gen::DisableTracingResponse>},
    {"ReadBuffersRequest", &SchemaOf<gen::ReadBuffersRequest>},
    {"ReadBuffersResponse", &SchemaOf<gen::ReadBuffersResponse>},
    {"FreeBuffersRequest", &SchemaOf<gen::FreeBuffersRequest>},
    {"FreeBuffersResponse", &SchemaOf<gen::FreeBuffersResponse>},
    {"FlushRequest", &SchemaOf<gen::FlushRequest>},
    {"FlushResponse", &SchemaOf<gen::FlushResponse>},
    {"StartTracingRequest", &SchemaOf<gen::StartTracingRequest>},
    {"StartTracingResponse", &SchemaOf<gen::StartTracingResponse>},
    {"ChangeTraceConfigRequest", &SchemaOf<gen::ChangeTraceConfigRequest>},
    {"ChangeTraceConfigResponse", &SchemaOf<gen::ChangeTraceConfigResponse>},
    {"DetachRequest", &SchemaOf<gen::DetachRequest>},
    {"DetachResponse", &SchemaOf<gen::DetachResponse>},
    {"AttachRequest", &SchemaOf<gen::AttachRequest>},
    {"AttachResponse", &SchemaOf<gen::AttachResponse>},
    {"GetTraceStatsRequest", &SchemaOf<gen::GetTraceStatsRequest>},
    {"GetTraceStatsResponse", &SchemaOf<gen::GetTraceStatsResponse>},
    {"ObserveEventsRequest", &SchemaOf<gen::ObserveEventsRequest>},
    {"ObserveEventsResponse", &SchemaOf<gen::ObserveEventsResponse>},
    {"QueryServiceStateRequest", &SchemaOf<gen::QueryServiceStateRequest>},
    {"QueryServiceStateResponse", &SchemaOf<gen::QueryServiceStateResponse>},
    {"QueryCapabilitiesRequest", &SchemaOf<gen::QueryCapabilitiesRequest>},
    {"QueryCapabilitiesResponse", &SchemaOf<gen::QueryCapabilitiesResponse>},
    {"SaveTraceForBugreportRequest", &SchemaOf<gen::SaveTraceForBugreportRequest>},
    {"SaveTraceForBugreportResponse", &SchemaOf<gen::SaveTraceForBugreportResponse>},
    {"CloneSessionRequest", &SchemaOf<gen::CloneSessionRequest>},
    {"CloneSessionResponse", &SchemaOf<gen::CloneSessionResponse>},
};

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool ParseUint(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 19)
    return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
  return true;
}

// "0.008093s" -> 8093. Exact (no floating point): entries of one
// connection often share a timestamp, and merging two files compares them.
bool ParseSeconds(std::string_view s, int64_t* us) {
  if (s.empty() || s.back() != 's')
    return false;
  s.remove_suffix(1);
  const size_t dot = s.find('.');
  std::string_view whole = s.substr(0, dot);
  std::string fraction(dot == std::string_view::npos ? "" : s.substr(dot + 1));
  if (fraction.size() > 6)
    return false;
  fraction.resize(6, '0');
  uint64_t w = 0, f = 0;
  if (!ParseUint(whole, &w) || !ParseUint(fraction, &f))
    return false;
  *us = static_cast<int64_t>(w * 1000000 + f);
  return true;
}

// "key=value" -> value, if |token| has that key.
bool Field(std::string_view token, std::string_view key, std::string_view* value) {
  if (!StartsWith(token, key) || token.size() <= key.size() || token[key.size()] != '=')
    return false;
  *value = token.substr(key.size() + 1);
  return true;
}

// Splits off the first space-separated token of |*rest|.
std::string_view NextToken(std::string_view* rest) {
  const size_t start = rest->find_first_not_of(' ');
  if (start == std::string_view::npos) {
    *rest = {};
    return {};
  }
  rest->remove_prefix(start);
  const size_t end = rest->find(' ');
  std::string_view token = rest->substr(0, end);
  rest->remove_prefix(end == std::string_view::npos ? rest->size() : end);
  return token;
}

class Parser {
 public:
  Parser(std::string_view text, std::string_view name, Transcript* out, std::string* error)
      : name_(name), out_(out), error_(error) {
    size_t pos = 0;
    while (pos < text.size()) {
      const size_t nl = text.find('\n', pos);
      const size_t end = nl == std::string_view::npos ? text.size() : nl;
      lines_.push_back(text.substr(pos, end - pos));
      pos = end + 1;
    }
  }

  bool Run() {
    out_->name = std::string(name_);
    out_->entries.clear();
    out_->events.clear();
    while (i_ < lines_.size()) {
      std::string_view line = lines_[i_];
      if (!line.empty() && line.back() == '\r')
        return Fail(i_, "carriage return: the recorder writes '\\n' line ends only");
      if (line.find_first_not_of(' ') == std::string_view::npos) {
        ++i_;
      } else if (StartsWith(line, "#") && line.size() > 1 && line[1] >= '0' && line[1] <= '9') {
        if (!ParseEntry())
          return false;
      } else if (StartsWith(line, "#")) {
        ++i_;  // A comment (the file's preamble).
      } else if (StartsWith(line, "---- ")) {
        if (!ParseEvent(line))
          return false;
        ++i_;
      } else {
        return Fail(i_, "expected an entry header (\"#N t=...\"), a connection event "
                        "(\"---- t=...\"), a comment or a blank line; got \"" +
                            Quote(line) + "\"");
      }
    }
    return true;
  }

 private:
  static std::string Quote(std::string_view s) {
    return std::string(s.substr(0, 60)) + (s.size() > 60 ? "..." : "");
  }

  // |index| is 0-based; messages say the file's 1-based line.
  bool Fail(size_t index, const std::string& message) {
    std::ostringstream s;
    s << name_ << ":" << index + 1 << ": " << message;
    *error_ = s.str();
    return false;
  }

  bool ParseEvent(std::string_view line) {
    std::string_view rest = line.substr(5);
    ConnectionEvent event;
    event.line = i_ + 1;
    std::string_view t, kind, conn;
    uint64_t conn_id = 0;
    if (!Field(NextToken(&rest), "t", &t) || !ParseSeconds(t, &event.time_us))
      return Fail(i_, "connection event without a valid \"t=<seconds>s\"");
    kind = NextToken(&rest);
    if (kind == "ACCEPT")
      event.kind = ConnectionEvent::Kind::kAccept;
    else if (kind == "CLOSE")
      event.kind = ConnectionEvent::Kind::kClose;
    else
      return Fail(i_, "connection event \"" + std::string(kind) + "\": expected ACCEPT or CLOSE");
    if (!Field(NextToken(&rest), "conn", &conn) || !ParseUint(conn, &conn_id))
      return Fail(i_, "connection event without a valid \"conn=<n>\"");
    event.conn = static_cast<uint32_t>(conn_id);
    const size_t start = rest.find_first_not_of(' ');
    if (start != std::string_view::npos) {
      rest.remove_prefix(start);
      while (!rest.empty() && rest.back() == ' ')
        rest.remove_suffix(1);
      event.detail = std::string(rest);
    }
    out_->events.push_back(std::move(event));
    return true;
  }

  bool ParseHeader(std::string_view line, Entry* e) {
    std::string_view rest = line.substr(1);
    uint64_t number = 0, conn = 0, length = 0;
    std::string_view t, c, r, l;
    if (!ParseUint(NextToken(&rest), &number))
      return Fail(i_, "entry header: \"#\" must be followed by the entry number");
    if (!Field(NextToken(&rest), "t", &t) || !ParseSeconds(t, &e->time_us))
      return Fail(i_, "entry header: expected \"t=<seconds>s\" after the number");
    if (!Field(NextToken(&rest), "conn", &c) || !ParseUint(c, &conn))
      return Fail(i_, "entry header: expected \"conn=<n>\" after the time");
    const std::string_view direction = NextToken(&rest);
    if (direction == "C->S")
      e->direction = Direction::kClientToService;
    else if (direction == "S->C")
      e->direction = Direction::kServiceToClient;
    else
      return Fail(i_, "entry header: direction \"" + std::string(direction) +
                          "\": expected C->S or S->C");
    if (!Field(NextToken(&rest), "req_id", &r) || !ParseUint(r, &e->request_id))
      return Fail(i_, "entry header: expected \"req_id=<n>\" after the direction");
    if (!Field(NextToken(&rest), "len", &l) || !ParseUint(l, &length))
      return Fail(i_, "entry header: expected \"len=<bytes>\" after the request id");
    const size_t start = rest.find_first_not_of(' ');
    e->summary = start == std::string_view::npos ? "" : std::string(rest.substr(start));
    e->number = static_cast<int>(number);
    e->conn = static_cast<uint32_t>(conn);
    e->length = static_cast<uint32_t>(length);
    e->line = i_ + 1;
    // The recorder writes "[reply_proto NB] slices=..." where it listed
    // only some of a reply's slices and elided their bytes.
    e->payload_summarized = e->summary.find("[reply_proto ") != std::string::npos;
    return true;
  }

  // [{"size": 262144, "link": "/memfd:perfetto_shmem (deleted)"}, ...]
  bool ParseFds(std::string_view json, Entry* e) {
    if (json.empty() || json.front() != '[' || json.back() != ']')
      return Fail(i_, "SCM_RIGHTS: expected a JSON list of {\"size\", \"link\"} objects");
    size_t pos = 0;
    while ((pos = json.find('{', pos)) != std::string_view::npos) {
      const size_t end = json.find('}', pos);
      if (end == std::string_view::npos)
        return Fail(i_, "SCM_RIGHTS: unterminated object");
      const std::string_view obj = json.substr(pos, end - pos);
      PassedFd fd;
      const size_t size_at = obj.find("\"size\": ");
      const size_t link_at = obj.find("\"link\": \"");
      if (size_at == std::string_view::npos || link_at == std::string_view::npos)
        return Fail(i_, "SCM_RIGHTS: each fd needs \"size\" and \"link\"");
      std::string_view size = obj.substr(size_at + 8);
      size = size.substr(0, size.find_first_not_of("0123456789"));
      std::string_view link = obj.substr(link_at + 9);
      const size_t quote = link.find('"');
      if (!ParseUint(size, &fd.size) || quote == std::string_view::npos)
        return Fail(i_, "SCM_RIGHTS: bad \"size\" or \"link\"");
      fd.link = std::string(link.substr(0, quote));
      e->fds.push_back(std::move(fd));
      pos = end;
    }
    if (e->fds.empty())
      return Fail(i_, "SCM_RIGHTS: the list names no fd");
    return true;
  }

  // A block "<indent>Type {" ... "<indent>}" starting at line i_: parsed
  // with |schema| into |*bytes|; i_ ends past its closing line.
  bool ParseBlock(const protozero::MessageSchema& schema, std::string* bytes) {
    const size_t first = i_ + 1;
    size_t last = first;
    const std::string closing = std::string(kIndent) + "}";
    while (last < lines_.size() && lines_[last] != closing) {
      if (!StartsWith(lines_[last], kIndent) &&
          lines_[last].find_first_not_of(' ') != std::string_view::npos)
        return Fail(last, "unterminated block opened at line " + std::to_string(i_ + 1) +
                              ": expected \"" + closing + "\" before this unindented line");
      ++last;
    }
    if (last == lines_.size())
      return Fail(i_, "block not terminated by \"" + closing + "\" before the end of the file");
    std::string body;
    for (size_t k = first; k < last; ++k) {
      body.append(lines_[k].data(), lines_[k].size());
      body.push_back('\n');
    }
    protozero::TextFormatError err;
    if (!protozero::ParseTextFormat(schema, body, bytes, &err)) {
      // The block's lines are the file's from |first| on.
      const size_t line = first + (err.line > 0 ? err.line - 1 : 0);
      return Fail(line, "column " + std::to_string(err.column) + ": " + err.message);
    }
    i_ = last + 1;
    return true;
  }

  bool ParseEntry() {
    Entry e;
    const size_t header = i_;
    if (!ParseHeader(lines_[i_], &e))
      return false;
    const int expected = static_cast<int>(out_->entries.size()) + 1;
    if (e.number != expected)
      return Fail(i_, "entry #" + std::to_string(e.number) + " where #" +
                          std::to_string(expected) + " was expected (entries are numbered "
                          "1, 2, ... in file order)");
    if (!out_->entries.empty() && e.time_us < out_->entries.back().time_us)
      return Fail(i_, "entry #" + std::to_string(e.number) +
                          " is earlier than the entry before it (the recorder writes in "
                          "time order)");
    ++i_;
    bool have_frame = false;
    while (i_ < lines_.size() && StartsWith(lines_[i_], kIndent)) {
      std::string_view body = lines_[i_].substr(kIndent.size());
      if (StartsWith(body, kFdsPrefix)) {
        if (have_frame)
          return Fail(i_, "SCM_RIGHTS line after the frame block");
        if (!ParseFds(body.substr(kFdsPrefix.size()), &e))
          return false;
        ++i_;
        continue;
      }
      const size_t brace = body.find(" {");
      if (brace == std::string_view::npos || brace + 2 != body.size() || body[0] == ' ')
        return Fail(i_, "expected \"frame {\" or \"<PayloadType> {\" in the entry's body; got \"" +
                            Quote(body) + "\"");
      const std::string_view type = body.substr(0, brace);
      if (!have_frame) {
        if (type != "frame")
          return Fail(i_, "the entry's first block must be \"frame {\"; got \"" +
                              std::string(type) + " {\"");
        std::string bytes;
        const size_t open = i_;
        if (!ParseBlock(*gen::IPCFrame::GetSchema(), &bytes))
          return false;
        if (!e.frame.ParseFromString(bytes))
          return Fail(open, "the frame block does not decode as an IPCFrame");
        have_frame = true;
        continue;
      }
      if (!e.payload_type.empty())
        return Fail(i_, "a third block in one entry (only the frame and its payload are "
                        "expected)");
      const protozero::MessageSchema* schema = PayloadSchema(type);
      if (!schema)
        return Fail(i_, "unknown payload type \"" + std::string(type) +
                            "\" (not a request or response of the producer or consumer port)");
      std::string bytes;
      const size_t open = i_;
      if (!ParseBlock(*schema, &bytes))
        return false;
      if (e.frame.has_msg_invoke_method())
        e.frame.mutable_msg_invoke_method()->set_args_proto(std::move(bytes));
      else if (e.frame.has_msg_invoke_method_reply())
        e.frame.mutable_msg_invoke_method_reply()->set_reply_proto(std::move(bytes));
      else
        return Fail(open, "a payload block on a frame that is neither an InvokeMethod nor an "
                          "InvokeMethodReply");
      e.payload_type = std::string(type);
    }
    if (!have_frame)
      return Fail(header, "entry #" + std::to_string(e.number) + " has no \"frame {\" block");
    if (e.frame.request_id() != e.request_id)
      return Fail(header, "req_id=" + std::to_string(e.request_id) +
                              " in the header but request_id " +
                              std::to_string(e.frame.request_id()) + " in the frame");
    const protos::gen::IPCFrame& f = e.frame;
    const bool client_kind = f.has_msg_bind_service() || f.has_msg_invoke_method() ||
                             f.has_set_peer_identity();
    const bool service_kind = f.has_msg_bind_service_reply() ||
                              f.has_msg_invoke_method_reply() || f.has_msg_request_error();
    if (e.from_client() ? !client_kind : !service_kind)
      return Fail(header, std::string("the frame is not one a ") +
                              (e.from_client() ? "client" : "service") + " sends");
    // The entry's text: its lines up to the last non-blank one.
    size_t end = i_;
    while (end > header && lines_[end - 1].find_first_not_of(' ') == std::string_view::npos)
      --end;
    for (size_t k = header; k < end; ++k) {
      e.text.append(lines_[k].data(), lines_[k].size());
      e.text.push_back('\n');
    }
    out_->entries.push_back(std::move(e));
    return true;
  }

  const std::string_view name_;
  Transcript* const out_;
  std::string* const error_;
  std::vector<std::string_view> lines_;
  size_t i_ = 0;  // The line being parsed (0-based).
};

}  // namespace

const protozero::MessageSchema* PayloadSchema(std::string_view type_name) {
  for (const PayloadType& type : kPayloadTypes) {
    if (type.name == type_name)
      return type.schema();
  }
  return nullptr;
}

bool ParseTranscript(std::string_view text, std::string_view name, Transcript* out,
                     std::string* error) {
  return Parser(text, name, out, error).Run();
}

bool LoadTranscript(const std::string& path, Transcript* out, std::string* error) {
  std::ifstream file(path, std::ios::binary);
  const size_t slash = path.rfind('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (!file) {
    *error = path + ": cannot be opened";
    return false;
  }
  std::ostringstream text;
  text << file.rdbuf();
  return ParseTranscript(text.str(), name, out, error);
}

}  // namespace transcript
}  // namespace zt
