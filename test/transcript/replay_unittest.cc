// Replays upstream Perfetto v14 clients against our service: the client
// frames (C->S) of recorded sessions (test/data/transcripts) are sent to a
// ServiceIpcHost over real socketpairs, and what our service answers is held
// against what upstream's answered, where a client depends on it: bind
// tables, InitializeConnection, the GetAsyncCommand stream (command kinds in
// order, the SMB's memfd), the consumer's replies (the ObserveEvents
// stream: instance states and all data sources started, in order; Flush, DisableTracing, EnableTracing's deferred end, ReadBuffers' last
// reply, stats, capabilities, service state).
//
// Order: client frames go in timestamp order, each once our service has sent
// what the transcript shows before it. With both files of one session (a
// common clock) that is what either connection shows before it; with a
// producer borrowed from another session (the ext consumer was recorded
// alone) only its own connection's, and the other connection goes first
// while one is stuck. Everything runs on one virtual-time TestTaskRunner,
// pumped to idle after each frame: the service handles frames in the order
// sent, and no timer (the sessions' 60 s duration, flush timeouts) fires by
// itself. Waits are bounded and fail naming the entry and what it waits for.
//
// Ids the service chooses (data source instances, flush requests, buffers)
// are mapped from upstream's to ours as our commands reveal them, and later
// client frames are rewritten with ours.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <limits.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "src/base/scoped_file.h"
#include "src/base/test/test_task_runner.h"
#include "src/base/test/wait.h"
#include "src/base/unix_socket.h"
#include "src/tracing/ipc/service_ipc_host.h"
#include "test/transcript/client_end.h"
#include "test/transcript/transcript.h"
#include "zt/common/commit_data_request.gen.h"
#include "zt/ipc/consumer_port.gen.h"
#include "zt/ipc/producer_port.gen.h"

namespace zt {
namespace transcript {
namespace {

namespace gen = protos::gen;
using ::testing::IsEmpty;

std::string PathOf(const std::string& name) {
  return std::string(ZT_TRANSCRIPTS_DIR) + "/" + name;
}

// An ObserveEvents reply as a list: each instance state change
// ("producer/data source: STARTED|STOPPED"), then all_data_sources_started
// if set. Replies cut elsewhere compare equal once concatenated.
std::vector<std::string> ObservedEventsOf(const std::string& reply_proto) {
  gen::ObserveEventsResponse r;
  EXPECT_TRUE(r.ParseFromString(reply_proto));
  std::vector<std::string> out;
  for (const auto& c : r.events().instance_state_changes()) {
    out.push_back(c.producer_name() + "/" + c.data_source_name() + ": " +
                  gen::ObservableEvents_DataSourceInstanceState_Name(c.state()));
  }
  if (r.events().all_data_sources_started())
    out.push_back("all_data_sources_started");
  return out;
}

std::string KindOf(const gen::GetAsyncCommandResponse& c) {
  if (c.has_setup_tracing()) return "setup_tracing";
  if (c.has_setup_data_source())
    return "setup_data_source(" + c.setup_data_source().config().name() + ")";
  if (c.has_start_data_source())
    return "start_data_source(" + c.start_data_source().config().name() + ")";
  if (c.has_stop_data_source()) return "stop_data_source";
  if (c.has_flush()) return "flush";
  if (c.has_clear_incremental_state()) return "clear_incremental_state";
  return "unknown command";
}

// "/memfd:name (deleted)" for a memfd, as the recorder read it.
std::string LinkOf(int fd) {
  char link[PATH_MAX] = {};
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t n = readlink(path.c_str(), link, sizeof(link) - 1);
  return n > 0 ? std::string(link, static_cast<size_t>(n)) : std::string();
}

// What an S->C entry of the transcript asks of our service before the
// client may go on.
enum class Need {
  kNothing,      // Upstream's stream frames we need not match one for one.
  kReply,        // A reply (the last, for a stream) to the same request.
  kCommand,      // Our n-th GetAsyncCommand command.
  kObserved,     // ObserveEvents replies: the events upstream's had sent by then.
};

// One connection of the replay: a transcript file, its client end, and
// what our service has sent on it.
struct Side {
  std::string label;  // The file's name, for messages.
  Transcript t;
  std::unique_ptr<ClientEnd> end;
  bool producer = false;
  size_t next = 0;  // The next entry to act on (entries.size(): the close).
  int64_t close_time_us = 0;
  std::map<uint64_t, std::string> their_methods;  // Transcript: id -> name.
  std::map<std::string, uint32_t> our_methods;    // Ours: name -> id.
  uint32_t our_service_id = 0;
  std::map<uint64_t, std::string> method_of;      // Request id -> method.
  std::vector<Need> needs;                        // Per entry.
  std::vector<size_t> command_number;             // Per entry (kCommand), 1-based.
  std::vector<size_t> observed_upto;              // Per entry (kObserved).
  std::vector<std::string> their_observed;        // ObservedEventsOf, all replies.
  std::set<size_t> checked;                       // S->C entries compared.
  // Ours.
  std::map<uint64_t, std::vector<Received>> replies;  // By request id.
  std::vector<Received> commands;
  std::vector<std::string> observed;
};

class Replay {
 public:
  // |common_clock|: the files were recorded in one session (their "t="
  // compare).
  Replay(const std::vector<std::string>& files, bool common_clock)
      : common_clock_(common_clock) {
    host_ = ServiceIpcHost::CreateUnbound(&runner_);
    for (const std::string& file : files) {
      auto side = std::make_unique<Side>();
      side->label = file;
      std::string error;
      if (!LoadTranscript(PathOf(file), &side->t, &error)) {
        setup_error_ = error;
        return;
      }
      sides_.push_back(std::move(side));
    }
  }

  // DataSourceConfig fields of our Setup/StartDataSource commands that
  // differ from upstream's (CompareInstance).
  const std::vector<std::string>& config_differences() const { return config_differences_; }

  void Run() {
    ASSERT_TRUE(setup_error_.empty()) << setup_error_;
    ASSERT_TRUE(host_) << "ServiceIpcHost::CreateUnbound failed";
    for (auto& side : sides_)
      ASSERT_NO_FATAL_FAILURE(Prepare(side.get()));
    for (;;) {
      Pump();
      ASSERT_NO_FATAL_FAILURE(CheckConnections());
      std::vector<Side*> heads;
      for (auto& side : sides_) {
        if (side->end->open())
          heads.push_back(side.get());
      }
      if (heads.empty())
        break;
      std::stable_sort(heads.begin(), heads.end(), [this](Side* a, Side* b) {
        return HeadTime(a) < HeadTime(b);
      });
      Side* chosen = nullptr;
      if (common_clock_) {
        // The transcript's order, strictly: what upstream had sent by then
        // must have come from ours too.
        chosen = heads.front();
        ASSERT_TRUE(runner_.RunUntil([&] { return Ready(chosen); }))
            << WhyWaiting(chosen);
      } else {
        // The earliest that can go; the service is idle, so a stuck one
        // waits for the other connection's frames.
        ASSERT_TRUE(runner_.RunUntil([&] {
          for (Side* head : heads) {
            if (Ready(head))
              return (chosen = head) != nullptr;
          }
          return false;
        })) << WhyWaiting(heads.front());
      }
      ASSERT_NO_FATAL_FAILURE(Act(chosen));
    }
    ASSERT_NO_FATAL_FAILURE(CheckEnd());
  }

 private:
  int64_t HeadTime(const Side* s) const {
    return s->next < s->t.entries.size() ? s->t.entries[s->next].time_us : s->close_time_us;
  }

  void Prepare(Side* s) {
    const std::vector<Entry>& entries = s->t.entries;
    ASSERT_FALSE(entries.empty()) << s->label;
    ASSERT_TRUE(entries[0].frame.has_msg_bind_service()) << s->label << ": no bind first";
    const std::string& service = entries[0].frame.msg_bind_service().service_name();
    s->producer = service == "ProducerPort";
    ASSERT_TRUE(s->producer || service == "ConsumerPort") << s->label << ": binds " << service;
    for (const ConnectionEvent& e : s->t.events) {
      if (e.kind == ConnectionEvent::Kind::kClose)
        s->close_time_us = e.time_us;
    }
    ASSERT_GT(s->close_time_us, 0) << s->label << ": the client never closes";
    size_t commands = 0;
    for (const Entry& e : entries) {
      Need need = Need::kNothing;
      size_t number = 0;
      const Frame& f = e.frame;
      if (f.has_msg_invoke_method()) {
        s->method_of[f.request_id()] = s->their_methods[f.msg_invoke_method().method_id()];
      } else if (f.has_msg_bind_service_reply() || f.has_msg_request_error()) {
        need = Need::kReply;
        // Method names by id, as upstream's service numbered them.
        for (const auto& m : f.msg_bind_service_reply().methods())
          s->their_methods[m.id()] = m.name();
      } else if (f.has_msg_invoke_method_reply()) {
        const std::string& method = s->method_of[f.request_id()];
        const auto& reply = f.msg_invoke_method_reply();
        if (method == "GetAsyncCommand") {
          need = Need::kCommand;
          number = ++commands;
        } else if (method == "ObserveEvents" && reply.has_more()) {
          const std::vector<std::string> events = ObservedEventsOf(reply.reply_proto());
          s->their_observed.insert(s->their_observed.end(), events.begin(), events.end());
          need = Need::kObserved;
        } else if (method == "ReadBuffers") {
          need = reply.has_more() ? Need::kNothing : Need::kReply;
        } else {
          need = Need::kReply;
        }
      }
      s->needs.push_back(need);
      s->command_number.push_back(number);
      s->observed_upto.push_back(s->their_observed.size());
    }
    int fds[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds), 0);
    s->end = std::make_unique<ClientEnd>(base::ScopedFile(fds[0]));
    SkipReplies(s);
    ipc::Host* host = s->producer ? host_->producer_host() : host_->consumer_host();
    host->AdoptClient(
        base::UnixSocket::AdoptConnected(base::ScopedFile(fds[1]), nullptr, &runner_));
  }

  // Runs the service until it is idle and nothing more arrives.
  void Pump() {
    for (;;) {
      runner_.RunUntilIdle();
      if (!DrainAll())
        return;
    }
  }

  size_t DrainAll() {
    size_t total = 0;
    for (auto& side : sides_) {
      std::vector<Received> frames;
      total += side->end->Drain(&frames);
      for (Received& r : frames)
        OnReceived(side.get(), std::move(r));
    }
    return total;
  }

  void CheckConnections() {
    for (auto& side : sides_) {
      ASSERT_TRUE(side->end->error().empty()) << side->label << ": " << side->end->error();
      ASSERT_FALSE(side->end->peer_closed())
          << side->label << ": our service closed the connection (entry #"
          << side->next + 1 << " was next)";
    }
  }

  void OnReceived(Side* s, Received r) {
    const Frame& f = r.frame;
    const uint64_t id = f.request_id();
    if (!s->method_of.count(id) && !f.has_msg_bind_service_reply()) {
      ADD_FAILURE() << s->label << ": our service sent a frame for request " << id
                    << ", which the client never made";
      return;
    }
    const std::string& method = s->method_of[id];
    if (f.has_msg_invoke_method_reply() && method == "GetAsyncCommand") {
      s->commands.push_back(std::move(r));
      return;
    }
    if (f.has_msg_invoke_method_reply() && method == "ObserveEvents") {
      EXPECT_TRUE(f.msg_invoke_method_reply().success()) << s->label << ": ObserveEvents failed";
      const std::vector<std::string> events =
          ObservedEventsOf(f.msg_invoke_method_reply().reply_proto());
      s->observed.insert(s->observed.end(), events.begin(), events.end());
    }
    if (f.has_msg_invoke_method_reply() && (method == "EnableTracing" || method == "Flush")) {
      // Deferred replies: EnableTracing's until tracing ends, Flush's until
      // the producers acked. Never before the client frames that upstream's
      // came after (DisableTracing; the producer's flush commit).
      for (size_t i = 0; i < s->t.entries.size(); ++i) {
        const Entry& e = s->t.entries[i];
        if (e.from_client() || e.request_id != id)
          continue;
        const std::string early = UnsentBefore(s, i);
        EXPECT_TRUE(early.empty()) << s->label << ": our " << method << " reply came before "
                                   << early << " was sent; upstream's came after it";
        break;
      }
    }
    s->replies[id].push_back(std::move(r));
  }

  // A client frame the transcript shows before |s|'s entry |i| (on its
  // connection; on a common clock, on any) that has not been sent, or "".
  std::string UnsentBefore(Side* s, size_t i) {
    for (auto& side : sides_) {
      if (side.get() != s && !common_clock_)
        continue;
      for (size_t k = side->next; k < side->t.entries.size(); ++k) {
        const Entry& e = side->t.entries[k];
        const bool before = side.get() == s ? k < i : e.time_us < s->t.entries[i].time_us;
        if (!before)
          break;
        if (e.from_client())
          return side->label + " #" + std::to_string(e.number) + " (" + e.summary + ")";
      }
    }
    return "";
  }

  // Whether S->C entry |i| of |s| has been matched by our service; compares
  // (once) when it first is.
  bool Satisfied(Side* s, size_t i) {
    bool done = true;
    if (s->needs[i] == Need::kReply) {
      auto it = s->replies.find(s->t.entries[i].request_id);
      done = it != s->replies.end() && !it->second.empty() &&
             (!it->second.back().frame.has_msg_invoke_method_reply() ||
              !it->second.back().frame.msg_invoke_method_reply().has_more());
    } else if (s->needs[i] == Need::kCommand) {
      done = s->commands.size() >= s->command_number[i];
    } else if (s->needs[i] == Need::kObserved) {
      done = s->observed.size() >= s->observed_upto[i];
    }
    if (done && s->needs[i] != Need::kNothing && s->checked.insert(i).second)
      Compare(s, i);
    return done;
  }

  // Whether |s|'s next action may happen: our service has sent what the
  // transcript shows before it.
  bool Ready(Side* s) {
    DrainAll();
    std::string unused;
    return Blocker(s, &unused) == nullptr;
  }

  // The S->C entry |s|'s next action waits for, or null.
  const Entry* Blocker(Side* s, std::string* where) {
    for (size_t i = 0; i < s->next && i < s->t.entries.size(); ++i) {
      if (!s->t.entries[i].from_client() && !Satisfied(s, i)) {
        *where = s->label;
        return &s->t.entries[i];
      }
    }
    if (!common_clock_)
      return nullptr;
    const int64_t time = HeadTime(s);
    for (auto& other : sides_) {
      if (other.get() == s)
        continue;
      for (size_t i = 0; i < other->t.entries.size(); ++i) {
        const Entry& e = other->t.entries[i];
        if (e.time_us >= time)
          break;
        if (!e.from_client() && !Satisfied(other.get(), i)) {
          *where = other->label;
          return &e;
        }
      }
    }
    return nullptr;
  }

  std::string WhyWaiting(Side* s) {
    std::ostringstream m;
    std::string where;
    const Entry* e = Blocker(s, &where);
    m << s->label << ": before ";
    if (s->next < s->t.entries.size())
      m << "entry #" << s->next + 1 << " (" << s->t.entries[s->next].summary << ")";
    else
      m << "closing";
    if (e)
      m << ", our service never sent the counterpart of " << where << " entry:\n" << e->text;
    else
      m << ", nothing came (stuck)";
    m << "our GetAsyncCommand commands so far:";
    for (auto& side : sides_) {
      for (const Received& c : side->commands) {
        gen::GetAsyncCommandResponse cmd;
        cmd.ParseFromString(c.frame.msg_invoke_method_reply().reply_proto());
        m << " " << KindOf(cmd);
      }
    }
    return m.str();
  }

  // Sends |s|'s next client frame (ids rewritten), or closes it.
  void Act(Side* s) {
    if (s->next == s->t.entries.size()) {
      s->end->Close();
      return;
    }
    const Entry& e = s->t.entries[s->next++];
    SkipReplies(s);
    Frame frame = e.frame;
    if (frame.has_msg_invoke_method()) {
      ASSERT_NO_FATAL_FAILURE(Rewrite(s, e, &frame));
    }
    ASSERT_TRUE(s->end->Send(frame)) << s->label << ": sending entry #" << e.number
                                     << " failed: " << std::strerror(errno);
  }

  // Moves |s|'s next action to its next client frame (or its close): what
  // the service sent on the way is what that action waits for.
  static void SkipReplies(Side* s) {
    while (s->next < s->t.entries.size() && !s->t.entries[s->next].from_client())
      ++s->next;
  }

  uint64_t MapId(const std::map<uint64_t, uint64_t>& map, uint64_t theirs, const char* what,
                 const Entry& e) {
    auto it = map.find(theirs);
    if (it != map.end())
      return it->second;
    ADD_FAILURE() << "upstream's " << what << " " << theirs
                  << " has no counterpart in our commands so far; entry:\n" << e.text;
    return theirs;
  }

  void Rewrite(Side* s, const Entry& e, Frame* frame) {
    auto* invoke = frame->mutable_msg_invoke_method();
    const std::string method = s->their_methods[invoke->method_id()];
    ASSERT_TRUE(s->our_methods.count(method))
        << s->label << ": our service's bind reply has no method " << method;
    invoke->set_service_id(s->our_service_id);
    invoke->set_method_id(s->our_methods[method]);
    auto buffer = [&](uint32_t theirs) {
      return static_cast<uint32_t>(MapId(buffers_, theirs, "buffer id", e));
    };
    // NotifyDataSourceStarted/Stopped alike: the instance id.
    auto instance = [&](auto req) {
      EXPECT_TRUE(req.ParseFromString(invoke->args_proto()));
      req.set_data_source_id(MapId(instances_, req.data_source_id(), "instance id", e));
      return req.SerializeAsString();
    };
    std::string args = invoke->args_proto();
    if (method == "NotifyDataSourceStarted") {
      args = instance(gen::NotifyDataSourceStartedRequest());
    } else if (method == "NotifyDataSourceStopped") {
      args = instance(gen::NotifyDataSourceStoppedRequest());
    } else if (method == "RegisterTraceWriter") {
      gen::RegisterTraceWriterRequest req;
      ASSERT_TRUE(req.ParseFromString(args));
      req.set_target_buffer(buffer(req.target_buffer()));
      args = req.SerializeAsString();
    } else if (method == "CommitData") {
      // The chunks name SMB pages whose contents the transcript does not
      // carry: our SMB holds none there. The service must cope.
      gen::CommitDataRequest req;
      ASSERT_TRUE(req.ParseFromString(args));
      for (auto& c : *req.mutable_chunks_to_move())
        c.set_target_buffer(buffer(c.target_buffer()));
      for (auto& c : *req.mutable_chunks_to_patch())
        c.set_target_buffer(buffer(c.target_buffer()));
      if (req.has_flush_request_id())
        req.set_flush_request_id(MapId(flushes_, req.flush_request_id(), "flush id", e));
      args = req.SerializeAsString();
    }
    if (invoke->has_args_proto())
      invoke->set_args_proto(args);
  }

  // Learns (or checks) that upstream's id |theirs| is our |ours|.
  static void Learn(std::map<uint64_t, uint64_t>* map, uint64_t theirs, uint64_t ours,
                    const char* what) {
    auto inserted = map->emplace(theirs, ours);
    EXPECT_EQ(inserted.first->second, ours)
        << "upstream's " << what << " " << theirs << " was our " << inserted.first->second
        << " before, now our " << ours;
  }

  void Compare(Side* s, size_t i) {
    const Entry& e = s->t.entries[i];
    SCOPED_TRACE(s->label + ", upstream's entry:\n" + e.text);
    if (s->needs[i] == Need::kCommand)
      return CompareCommand(e, s->commands[s->command_number[i] - 1]);
    if (s->needs[i] == Need::kObserved) {
      const auto upto = s->their_observed.begin() + static_cast<ptrdiff_t>(s->observed_upto[i]);
      EXPECT_EQ(std::vector<std::string>(s->observed.begin(),
                                         s->observed.begin() + (upto - s->their_observed.begin())),
                std::vector<std::string>(s->their_observed.begin(), upto))
          << "our ObserveEvents stream differs from upstream's";
      return;
    }
    const std::vector<Received>& ours = s->replies[e.request_id];
    if (e.frame.has_msg_bind_service_reply())
      return CompareBind(s, e, ours.back().frame);
    if (e.frame.has_msg_request_error()) {
      EXPECT_TRUE(ours.back().frame.has_msg_request_error());
      return;
    }
    ASSERT_TRUE(ours.back().frame.has_msg_invoke_method_reply())
        << "our service answered with another kind of frame";
    for (const Received& r : ours) {
      EXPECT_TRUE(r.fds.empty()) << "fds with a reply that upstream sent none with";
      EXPECT_EQ(r.frame.msg_invoke_method_reply().success(),
                e.frame.msg_invoke_method_reply().success())
          << "our success differs from upstream's";
    }
    CompareReply(s->method_of[e.request_id], e, ours);
  }

  void CompareBind(Side* s, const Entry& e, const Frame& ours) {
    ASSERT_TRUE(ours.has_msg_bind_service_reply()) << "our answer to the bind is not a bind reply";
    const auto& theirs = e.frame.msg_bind_service_reply();
    const auto& mine = ours.msg_bind_service_reply();
    ASSERT_EQ(mine.success(), theirs.success()) << "the service was not found";
    s->our_service_id = mine.service_id();
    for (const auto& m : mine.methods())
      s->our_methods[m.name()] = m.id();
    // Same names, same ids, same order: tools that print ids or clients
    // that cache them see upstream's table. Methods of newer releases may
    // follow (a v14 client never looks them up).
    ASSERT_GE(mine.methods().size(), theirs.methods().size());
    for (size_t k = 0; k < theirs.methods().size(); ++k) {
      EXPECT_EQ(mine.methods()[k].name(), theirs.methods()[k].name()) << "method " << k;
      EXPECT_EQ(mine.methods()[k].id(), theirs.methods()[k].id()) << "method " << k;
    }
  }

  void CompareCommand(const Entry& e, const Received& ours) {
    gen::GetAsyncCommandResponse theirs, mine;
    ASSERT_TRUE(theirs.ParseFromString(e.frame.msg_invoke_method_reply().reply_proto()));
    const auto& reply = ours.frame.msg_invoke_method_reply();
    ASSERT_TRUE(reply.success() && reply.has_more()) << "a command is a has_more reply";
    ASSERT_TRUE(mine.ParseFromString(reply.reply_proto())) << "our command does not decode";
    ASSERT_EQ(KindOf(mine), KindOf(theirs)) << "our commands run in another order";
    // The SMB goes with SetupTracing only: one memfd of upstream's size.
    ASSERT_EQ(ours.fds.size(), e.fds.size()) << "fds with our " << KindOf(mine);
    for (size_t k = 0; k < e.fds.size(); ++k) {
      struct stat st {};
      ASSERT_EQ(fstat(ours.fds[k].get(), &st), 0);
      EXPECT_EQ(static_cast<uint64_t>(st.st_size), e.fds[k].size);
      EXPECT_EQ(LinkOf(ours.fds[k].get()).rfind("/memfd:", 0), 0u)
          << "not a memfd: " << LinkOf(ours.fds[k].get());
    }
    if (theirs.has_setup_tracing()) {
      EXPECT_EQ(mine.setup_tracing().shared_buffer_page_size_kb(),
                theirs.setup_tracing().shared_buffer_page_size_kb());
    } else if (theirs.has_setup_data_source()) {
      CompareInstance(theirs.setup_data_source().new_instance_id(),
                      theirs.setup_data_source().config(),
                      mine.setup_data_source().new_instance_id(),
                      mine.setup_data_source().config());
    } else if (theirs.has_start_data_source()) {
      CompareInstance(theirs.start_data_source().new_instance_id(),
                      theirs.start_data_source().config(),
                      mine.start_data_source().new_instance_id(),
                      mine.start_data_source().config());
    } else if (theirs.has_stop_data_source()) {
      EXPECT_EQ(mine.stop_data_source().instance_id(),
                MapId(instances_, theirs.stop_data_source().instance_id(), "instance id", e));
    } else if (theirs.has_flush()) {
      Learn(&flushes_, theirs.flush().request_id(), mine.flush().request_id(), "flush id");
      std::set<uint64_t> want, got(mine.flush().data_source_ids().begin(),
                                   mine.flush().data_source_ids().end());
      for (uint64_t id : theirs.flush().data_source_ids())
        want.insert(MapId(instances_, id, "instance id", e));
      EXPECT_EQ(got, want) << "the flush names other instances";
    }
  }

  void CompareInstance(uint64_t their_id, const gen::DataSourceConfig& theirs, uint64_t my_id,
                       const gen::DataSourceConfig& mine) {
    Learn(&instances_, their_id, my_id, "instance id");
    Learn(&buffers_, theirs.target_buffer(), mine.target_buffer(), "buffer id");
    EXPECT_EQ(mine.name(), theirs.name());
    // traced_probes CHECKs that its config names a session.
    EXPECT_NE(mine.tracing_session_id(), 0u);
    // Upstream's service fills these in from the session's TraceConfig for
    // every instance, and producers read them: traced_probes arms its
    // watchdog from the duration, heapprofd waits on stop for the stop
    // timeout (its own 5 s if 0, whatever the config says). Collected, and
    // asserted by a test of their own (DataSourceConfigAsUpstreamFillsIt).
    auto differ = [&](const char* field, uint64_t m, uint64_t t) {
      if (m != t)
        config_differences_.push_back(mine.name() + ": " + field + " " + std::to_string(m) +
                                      ", upstream's " + std::to_string(t));
    };
    differ("trace_duration_ms", mine.trace_duration_ms(), theirs.trace_duration_ms());
    differ("stop_timeout_ms", mine.stop_timeout_ms(), theirs.stop_timeout_ms());
    differ("enable_extra_guardrails", mine.enable_extra_guardrails(),
           theirs.enable_extra_guardrails());
    // What the SDK's track_event data source reads: the categories.
    EXPECT_EQ(mine.track_event_config_raw(), theirs.track_event_config_raw());
  }

  void CompareReply(const std::string& method, const Entry& e,
                    const std::vector<Received>& ours) {
    const auto& reply = ours.back().frame.msg_invoke_method_reply();
    const std::string& bytes = reply.reply_proto();
    if (method == "InitializeConnection") {
      gen::InitializeConnectionResponse r;
      ASSERT_TRUE(r.ParseFromString(bytes));
      EXPECT_FALSE(r.using_shmem_provided_by_producer());
      // direct_smb_patching_supported: upstream true, ours false. A v14
      // client only patches in the SMB when a test asks it to
      // (EnableDirectSMBPatchingForTesting); otherwise patches travel in
      // CommitData either way.
    } else if (method == "EnableTracing") {
      gen::EnableTracingResponse r;
      ASSERT_TRUE(r.ParseFromString(bytes));
      EXPECT_TRUE(r.disabled()) << "EnableTracing answered before tracing ended";
      EXPECT_TRUE(r.error().empty()) << r.error();
    } else if (method == "ReadBuffers") {
      size_t slices = 0;
      for (const Received& r : ours) {
        gen::ReadBuffersResponse part;
        ASSERT_TRUE(part.ParseFromString(r.frame.msg_invoke_method_reply().reply_proto()));
        slices += part.slices().size();
        EXPECT_EQ(r.frame.msg_invoke_method_reply().has_more(), &r != &ours.back());
      }
      // The service's own packets at least (config, clock snapshots, stats).
      EXPECT_GT(slices, 0u) << "an empty trace";
    } else if (method == "GetTraceStats") {
      gen::GetTraceStatsResponse r;
      ASSERT_TRUE(r.ParseFromString(bytes));
      EXPECT_TRUE(r.has_trace_stats());
      EXPECT_EQ(r.trace_stats().buffer_stats().size(), 1u) << "one buffer in the config";
    } else if (method == "QueryCapabilities") {
      gen::QueryCapabilitiesResponse r;
      ASSERT_TRUE(r.ParseFromString(bytes));
      gen::QueryCapabilitiesResponse theirs;
      ASSERT_TRUE(theirs.ParseFromString(e.frame.msg_invoke_method_reply().reply_proto()));
      EXPECT_TRUE(r.capabilities().has_query_capabilities());
      EXPECT_EQ(r.capabilities().observable_events(), theirs.capabilities().observable_events());
      // Upstream's also sets has_trace_config_output_path; no v14 client
      // reads it.
    } else if (method == "QueryServiceState") {
      gen::QueryServiceStateResponse theirs, mine;
      ASSERT_TRUE(theirs.ParseFromString(e.frame.msg_invoke_method_reply().reply_proto()));
      ASSERT_TRUE(mine.ParseFromString(bytes));
      EXPECT_EQ(Describe(mine.service_state()), Describe(theirs.service_state()));
      EXPECT_EQ(mine.service_state().num_sessions(), theirs.service_state().num_sessions());
    }
  }

  // "producer: data source, ..." per producer, ids resolved, sorted: the
  // state as a consumer (`perfetto --query`) reads it.
  static std::multiset<std::string> Describe(const gen::TracingServiceState& state) {
    std::map<int32_t, std::string> names;
    for (const auto& p : state.producers())
      names[p.id()] = p.name();
    std::multiset<std::string> out;
    for (const auto& p : state.producers())
      out.insert("producer " + p.name());
    for (const auto& ds : state.data_sources())
      out.insert(names[ds.producer_id()] + ": " + ds.ds_descriptor().name());
    return out;
  }

  void CheckEnd() {
    for (auto& side : sides_) {
      size_t to_check = 0, their_commands = 0;
      for (size_t i = 0; i < side->needs.size(); ++i) {
        to_check += side->needs[i] != Need::kNothing;
        their_commands = std::max(their_commands, side->command_number[i]);
      }
      EXPECT_EQ(side->checked.size(), to_check) << side->label << ": entries left unmatched";
      EXPECT_EQ(side->observed, side->their_observed)
          << side->label << ": our ObserveEvents stream differs from upstream's";
      EXPECT_EQ(side->commands.size(), their_commands)
          << side->label << ": our service sent other commands than upstream's";
    }
    // Both clients gone: the host forgets them, the service its session
    // (the SDK consumer never frees its buffers; upstream frees them when
    // the consumer goes).
    EXPECT_EQ(host_->producer_host()->num_clients(), 0u);
    EXPECT_EQ(host_->consumer_host()->num_clients(), 0u);
    const std::vector<uint8_t> bytes = host_->service()->QueryServiceState();
    gen::TracingServiceState state;
    ASSERT_TRUE(state.ParseFromArray(bytes.data(), bytes.size()));
    EXPECT_EQ(state.producers().size(), 0u);
    EXPECT_EQ(state.num_sessions(), 0);
  }

  const bool common_clock_;
  base::TestTaskRunner runner_;
  std::unique_ptr<ServiceIpcHost> host_;
  std::vector<std::unique_ptr<Side>> sides_;
  std::string setup_error_;
  std::vector<std::string> config_differences_;
  // Upstream's ids -> ours.
  std::map<uint64_t, uint64_t> instances_, flushes_, buffers_;
};

TEST(TranscriptReplay, SdkProducerFirst) {
  Replay replay({"sdk-producer-first-producer.txt", "sdk-producer-first-consumer.txt"},
                /*common_clock=*/true);
  replay.Run();
}

TEST(TranscriptReplay, SdkConsumerFirst) {
  Replay replay({"sdk-consumer-first-producer.txt", "sdk-consumer-first-consumer.txt"},
                /*common_clock=*/true);
  replay.Run();
}

// The config each data source instance gets carries the session's settings
// as upstream's service fills them in (see CompareInstance).
TEST(TranscriptReplay, DataSourceConfigAsUpstreamFillsIt) {
  Replay replay({"sdk-producer-first-producer.txt", "sdk-producer-first-consumer.txt"},
                /*common_clock=*/true);
  replay.Run();
  EXPECT_THAT(replay.config_differences(), IsEmpty())
      << "src/tracing/service/tracing_service_impl.cc (SetUpInstance) sets only "
         "target_buffer and tracing_session_id";
}

// The ext consumer (QueryCapabilities, QueryServiceState, GetTraceStats,
// FreeBuffers) was recorded without its producer's side: the SDK producer
// of the producer-first session stands in, on its own clock.
TEST(TranscriptReplay, ExtProducerFirst) {
  Replay replay({"sdk-producer-first-producer.txt", "ext-producer-first-consumer.txt"},
                /*common_clock=*/false);
  replay.Run();
}

}  // namespace
}  // namespace transcript
}  // namespace zt
