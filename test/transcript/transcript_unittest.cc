// The transcript parser: every entry of every recorded transcript parses
// into the frame that was sent, and a damaged transcript is refused with the
// line at fault.

#include "test/transcript/transcript.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "zt/common/commit_data_request.gen.h"
#include "zt/ipc/consumer_port.gen.h"
#include "zt/ipc/producer_port.gen.h"

namespace zt {
namespace transcript {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string PathOf(const std::string& name) {
  return std::string(ZT_TRANSCRIPTS_DIR) + "/" + name;
}

struct Expected {
  const char* file;
  size_t entries, from_client, from_service, payloads, events;
};

// Counted in the files themselves (headers, "C->S", second blocks, "----").
constexpr Expected kFiles[] = {
    {"sdk-producer-first-producer.txt", 43, 27, 16, 32, 2},
    {"sdk-producer-first-consumer.txt", 16, 6, 10, 10, 2},
    {"sdk-consumer-first-producer.txt", 43, 27, 16, 32, 2},
    {"sdk-consumer-first-consumer.txt", 17, 6, 11, 11, 2},
    {"ext-producer-first-consumer.txt", 20, 9, 11, 9, 2},
};

class EveryTranscript : public ::testing::TestWithParam<Expected> {};

TEST_P(EveryTranscript, EveryEntryParses) {
  const Expected& want = GetParam();
  Transcript t;
  std::string error;
  ASSERT_TRUE(LoadTranscript(PathOf(want.file), &t, &error)) << error;
  EXPECT_EQ(t.name, want.file);
  ASSERT_EQ(t.entries.size(), want.entries);
  size_t from_client = 0, payloads = 0;
  for (size_t i = 0; i < t.entries.size(); ++i) {
    const Entry& e = t.entries[i];
    SCOPED_TRACE(e.text);
    EXPECT_EQ(e.number, static_cast<int>(i) + 1);
    EXPECT_THAT(e.text, StartsWith("#" + std::to_string(e.number) + " t="));
    EXPECT_EQ(e.frame.request_id(), e.request_id);
    from_client += e.from_client();
    payloads += !e.payload_type.empty();
    if (e.frame.has_msg_invoke_method()) {
      EXPECT_EQ(e.frame.msg_invoke_method().has_args_proto(), !e.payload_type.empty());
    }
    if (e.frame.has_msg_invoke_method_reply()) {
      EXPECT_EQ(e.frame.msg_invoke_method_reply().has_reply_proto(), !e.payload_type.empty());
    }
    // The second block decodes as the type it is named by; summarized
    // payloads too (their slices' bytes are placeholders).
    if (!e.payload_type.empty()) {
      EXPECT_NE(PayloadSchema(e.payload_type), nullptr);
    }
    EXPECT_EQ(e.payload_summarized, e.payload_type == "ReadBuffersResponse");
  }
  EXPECT_EQ(from_client, want.from_client);
  EXPECT_EQ(t.entries.size() - from_client, want.from_service);
  EXPECT_EQ(payloads, want.payloads);
  ASSERT_EQ(t.events.size(), want.events);
  EXPECT_EQ(t.events.front().kind, ConnectionEvent::Kind::kAccept);
  EXPECT_EQ(t.events.back().kind, ConnectionEvent::Kind::kClose);
  EXPECT_EQ(t.events.back().detail, "by c2s");
  EXPECT_LE(t.events.front().time_us, t.entries.front().time_us);
  EXPECT_GE(t.events.back().time_us, t.entries.back().time_us);
}

INSTANTIATE_TEST_SUITE_P(Files, EveryTranscript, ::testing::ValuesIn(kFiles),
                         [](const ::testing::TestParamInfo<Expected>& param) {
                           std::string name = param.param.file;
                           name = name.substr(0, name.find('.'));
                           for (char& c : name)
                             c = c == '-' ? '_' : c;
                           return name;
                         });

// Field by field, the entries the replay relies on most.
TEST(TranscriptParser, DecodesFramesAndPayloads) {
  Transcript t;
  std::string error;
  ASSERT_TRUE(LoadTranscript(PathOf("sdk-producer-first-producer.txt"), &t, &error)) << error;

  const Entry& bind_reply = t.entries[1];
  EXPECT_EQ(bind_reply.direction, Direction::kServiceToClient);
  EXPECT_EQ(bind_reply.conn, 1u);
  EXPECT_EQ(bind_reply.time_us, 8722);
  EXPECT_EQ(bind_reply.length, 299u);
  ASSERT_TRUE(bind_reply.frame.has_msg_bind_service_reply());
  const auto& methods = bind_reply.frame.msg_bind_service_reply().methods();
  ASSERT_EQ(methods.size(), 11u);
  EXPECT_EQ(methods[0].id(), 1u);
  EXPECT_EQ(methods[0].name(), "InitializeConnection");
  EXPECT_EQ(methods[10].name(), "Sync");

  const Entry& init = t.entries[2];
  EXPECT_EQ(init.payload_type, "InitializeConnectionRequest");
  EXPECT_THAT(init.summary, StartsWith("InvokeMethod ProducerPort.InitializeConnection"));
  protos::gen::InitializeConnectionRequest req;
  ASSERT_TRUE(req.ParseFromString(init.frame.msg_invoke_method().args_proto()));
  EXPECT_EQ(req.producer_name(), "ref_producer");
  EXPECT_EQ(req.smb_scraping_mode(),
            protos::gen::InitializeConnectionRequest::SMB_SCRAPING_ENABLED);

  // The SMB travels with the first command, SetupTracing.
  const Entry& setup = t.entries[9];
  ASSERT_EQ(setup.fds.size(), 1u);
  EXPECT_EQ(setup.fds[0].size, 262144u);
  EXPECT_EQ(setup.fds[0].link, "/memfd:perfetto_shmem (deleted)");
  protos::gen::GetAsyncCommandResponse cmd;
  ASSERT_TRUE(cmd.ParseFromString(setup.frame.msg_invoke_method_reply().reply_proto()));
  EXPECT_EQ(cmd.setup_tracing().shared_buffer_page_size_kb(), 4u);
  EXPECT_TRUE(setup.frame.msg_invoke_method_reply().has_more());

  // Octal escapes in bytes: the patch is a 4-byte redundant varint.
  const Entry& commit = t.entries[22];
  protos::gen::CommitDataRequest data;
  ASSERT_TRUE(data.ParseFromString(commit.frame.msg_invoke_method().args_proto()));
  ASSERT_EQ(data.chunks_to_patch().size(), 1u);
  ASSERT_EQ(data.chunks_to_patch()[0].patches().size(), 1u);
  EXPECT_EQ(data.chunks_to_patch()[0].patches()[0].offset(), 4066u);
  EXPECT_EQ(data.chunks_to_patch()[0].patches()[0].data(), std::string("\x8f\x80\x80\x00", 4));
  EXPECT_TRUE(commit.frame.msg_invoke_method().drop_reply());

  // A frame without a second block has no args_proto at all.
  const Entry& get_async = t.entries[3];
  EXPECT_TRUE(get_async.payload_type.empty());
  EXPECT_FALSE(get_async.frame.msg_invoke_method().has_args_proto());

  EXPECT_EQ(t.events[0].time_us, 7788);
  EXPECT_EQ(t.events[1].time_us, 1083203);
  EXPECT_EQ(t.events[1].conn, 1u);
}

constexpr char kGood[] =
    "# a comment\n"
    "---- t=0.5s ACCEPT conn=3 \n"
    "\n"
    "#1 t=0.500001s conn=3 C->S req_id=1 len=19  InvokeMethod X\n"
    "   frame {\n"
    "     request_id: 1\n"
    "     msg_invoke_method {\n"
    "       service_id: 1\n"
    "       method_id: 5\n"
    "     }\n"
    "   }\n"
    "   FlushRequest {\n"
    "     timeout_ms: 5000\n"
    "   }\n"
    "\n"
    "---- t=1s CLOSE conn=3 by c2s\n";

TEST(TranscriptParser, ParsesAMinimalTranscript) {
  Transcript t;
  std::string error;
  ASSERT_TRUE(ParseTranscript(kGood, "good.txt", &t, &error)) << error;
  ASSERT_EQ(t.entries.size(), 1u);
  EXPECT_EQ(t.entries[0].time_us, 500001);
  EXPECT_EQ(t.entries[0].conn, 3u);
  EXPECT_EQ(t.entries[0].line, 4u);
  protos::gen::FlushRequest flush;
  ASSERT_TRUE(flush.ParseFromString(t.entries[0].frame.msg_invoke_method().args_proto()));
  EXPECT_EQ(flush.timeout_ms(), 5000u);
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(t.events[0].time_us, 500000);
  EXPECT_EQ(t.events[1].time_us, 1000000);
}

// |kGood| with its line |line| (1-based) replaced by |text|.
std::string WithLine(size_t line, const std::string& text) {
  std::string s = kGood;
  size_t start = 0;
  for (size_t l = 1; l < line; ++l)
    start = s.find('\n', start) + 1;
  const size_t end = s.find('\n', start);
  return s.replace(start, end - start, text);
}

std::string ErrorOf(const std::string& text) {
  Transcript t;
  std::string error;
  EXPECT_FALSE(ParseTranscript(text, "bad.txt", &t, &error)) << "accepted:\n" << text;
  return error;
}

TEST(TranscriptParser, MalformedTranscriptsSayWhichLine) {
  // Text format inside a block: the file's line, not the block's.
  EXPECT_THAT(ErrorOf(WithLine(8, "       service_idd: 1")), StartsWith("bad.txt:8: column 8: "));
  EXPECT_THAT(ErrorOf(WithLine(13, "     timeout_ms: \"x\"")), StartsWith("bad.txt:13: "));
  // A payload type nobody knows.
  EXPECT_THAT(ErrorOf(WithLine(12, "   FlushRequets {")),
              AllOf(StartsWith("bad.txt:12: "), HasSubstr("unknown payload type")));
  // Headers.
  EXPECT_THAT(ErrorOf(WithLine(4, "#1 t=0.5s conn=3 X->Y req_id=1 len=19  x")),
              AllOf(StartsWith("bad.txt:4: "), HasSubstr("direction")));
  EXPECT_THAT(ErrorOf(WithLine(4, "#2 t=0.5s conn=3 C->S req_id=1 len=19  x")),
              AllOf(StartsWith("bad.txt:4: "), HasSubstr("#1 was expected")));
  EXPECT_THAT(ErrorOf(WithLine(4, "#1 t=0.5 conn=3 C->S req_id=1 len=19  x")),
              StartsWith("bad.txt:4: "));
  EXPECT_THAT(ErrorOf(WithLine(4, "#1 t=0.5s conn=3 C->S req_id=2 len=19  x")),
              AllOf(StartsWith("bad.txt:4: "), HasSubstr("req_id=2")));
  // A block never closed: the file ends first, or an unindented line comes.
  EXPECT_THAT(ErrorOf(WithLine(14, "   ")),
              AllOf(StartsWith("bad.txt:16: "), HasSubstr("unterminated block opened at line 12")));
  const std::string good = kGood;
  EXPECT_THAT(ErrorOf(good.substr(0, good.find("   }\n\n"))),
              AllOf(StartsWith("bad.txt:12: "), HasSubstr("before the end of the file")));
  EXPECT_THAT(ErrorOf(WithLine(11, "oops")), StartsWith("bad.txt:11: "));
  // Stray text, and connection events.
  EXPECT_THAT(ErrorOf(WithLine(3, "hello")), AllOf(StartsWith("bad.txt:3: "),
                                                   HasSubstr("expected an entry header")));
  EXPECT_THAT(ErrorOf(WithLine(2, "---- t=0.5s OPEN conn=3")),
              AllOf(StartsWith("bad.txt:2: "), HasSubstr("ACCEPT or CLOSE")));
  // A frame block that a client would not send, a missing frame block.
  EXPECT_THAT(ErrorOf(WithLine(4, "#1 t=0.500001s conn=3 S->C req_id=1 len=19  x")),
              AllOf(StartsWith("bad.txt:4: "), HasSubstr("not one a service sends")));
  EXPECT_THAT(ErrorOf(WithLine(5, "   frames {")),
              AllOf(StartsWith("bad.txt:5: "), HasSubstr("first block must be")));
  // Bad fd lists.
  EXPECT_THAT(ErrorOf(WithLine(5, "   SCM_RIGHTS fds attached to this frame: [{\"size\": 1}]\n"
                                  "   frame {")),
              AllOf(StartsWith("bad.txt:5: "), HasSubstr("SCM_RIGHTS")));
}

TEST(TranscriptParser, MissingFileIsAnError) {
  Transcript t;
  std::string error;
  EXPECT_FALSE(LoadTranscript(PathOf("no-such-transcript.txt"), &t, &error));
  EXPECT_THAT(error, HasSubstr("no-such-transcript.txt: cannot be opened"));
}

}  // namespace
}  // namespace transcript
}  // namespace zt
