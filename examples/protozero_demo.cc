// protozero demo: writes a message with the generated stubs into scattered
// 64-byte buffers (as tracing does with shared-memory chunks), shows the
// buffers, then decodes the stitched bytes with the generated decoder.

#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "zt/examples/demo.pbzero.h"
#include "zt/protozero/message.h"
#include "zt/protozero/packed_repeated_fields.h"
#include "zt/protozero/scattered_stream_writer.h"

namespace {

using zt::examples::pbzero::DemoEvent;
using zt::examples::pbzero::DemoEvent_Arg;

// Hands out fixed 64-byte buffers and remembers how much of each was used.
class SixtyFourByteBuffers : public zt::protozero::ScatteredStreamWriter::Delegate {
 public:
  static constexpr size_t kBufferSize = 64;

  zt::protozero::ContiguousMemoryRange GetNewBuffer() override {
    RecordUsed();
    buffers_.emplace_back(new uint8_t[kBufferSize]);
    used_.push_back(0);
    uint8_t* begin = buffers_.back().get();
    return {begin, begin + kBufferSize};
  }

  void Finish() { RecordUsed(); }
  void set_writer(const zt::protozero::ScatteredStreamWriter* w) { writer_ = w; }

  std::string Stitch() const {
    std::string out;
    for (size_t i = 0; i < buffers_.size(); i++)
      out.append(reinterpret_cast<const char*>(buffers_[i].get()), used_[i]);
    return out;
  }

  void Print() const {
    for (size_t i = 0; i < buffers_.size(); i++) {
      printf("  buffer %zu (%2zu/%zu bytes):", i, used_[i], kBufferSize);
      for (size_t j = 0; j < used_[i]; j++)
        printf("%s%02x", j % 16 == 0 ? "\n    " : " ", buffers_[i][j]);
      printf("\n");
    }
  }

 private:
  void RecordUsed() {
    if (!buffers_.empty())
      used_.back() = static_cast<size_t>(writer_->write_ptr() - buffers_.back().get());
  }

  const zt::protozero::ScatteredStreamWriter* writer_ = nullptr;
  std::vector<std::unique_ptr<uint8_t[]>> buffers_;
  std::vector<size_t> used_;
};

void PrintDecoded(const uint8_t* data, size_t size, int indent) {
  DemoEvent::Decoder event(data, size);
  const std::string pad(static_cast<size_t>(indent), ' ');
  printf("%stimestamp_ns: %" PRIu64 "\n", pad.c_str(), event.timestamp_ns());
  printf("%sname: \"%.*s\"\n", pad.c_str(), static_cast<int>(event.name().size()),
         event.name().data());
  printf("%skind: %s\n", pad.c_str(), DemoEvent::Kind_Name(event.kind()));
  printf("%sthread_delta: %d\n", pad.c_str(), event.thread_delta());
  for (auto it = event.args(); it; ++it) {
    DemoEvent_Arg::Decoder arg(*it);
    printf("%sarg %.*s = ", pad.c_str(), static_cast<int>(arg.name().size()),
           arg.name().data());
    if (arg.has_int_value())
      printf("%" PRId64 "\n", arg.int_value());
    else if (arg.has_string_value())
      printf("\"%.*s\"\n", static_cast<int>(arg.string_value().size()),
             arg.string_value().data());
    else
      printf("%g\n", arg.double_value());
  }
  printf("%sflow_ids:", pad.c_str());
  for (auto it = event.flow_ids(); it; ++it)
    printf(" %" PRIu64, *it);
  printf("\n");
  if (event.has_child()) {
    printf("%schild {\n", pad.c_str());
    PrintDecoded(event.child().data, event.child().size, indent + 2);
    printf("%s}\n", pad.c_str());
  }
  if (event.parse_error())
    printf("%s(parse error)\n", pad.c_str());
}

}  // namespace

int main() {
  SixtyFourByteBuffers buffers;
  zt::protozero::ScatteredStreamWriter writer(&buffers);
  buffers.set_writer(&writer);
  zt::protozero::RootMessage<DemoEvent> event(&writer);

  printf("Writing a DemoEvent with protozero stubs into 64-byte buffers...\n");
  event.set_timestamp_ns(1732262400123456789ull);
  event.set_name("HandleRequest");
  event.set_kind(DemoEvent::KIND_SLICE_BEGIN);
  event.set_thread_delta(-3);
  DemoEvent_Arg* arg = event.add_args();
  arg->set_name("url");
  arg->set_string_value("https://example.com/a/rather/long/path?that=spans&buffers=1");
  arg = event.add_args();
  arg->set_name("bytes");
  arg->set_int_value(48213);
  arg = event.add_args();
  arg->set_name("ratio");
  arg->set_double_value(0.625);
  zt::protozero::PackedVarInt flows;
  for (uint64_t id : {7ull, 300ull, 1ull << 40})
    flows.Append(id);
  event.set_flow_ids(flows);
  DemoEvent* child = event.set_child();
  child->set_timestamp_ns(1732262400123460000ull);
  child->set_name("ParseHeaders");
  child->set_kind(DemoEvent::KIND_SLICE_END);
  const uint32_t size = event.Finalize();
  buffers.Finish();

  printf("Encoded %u bytes, scattered over these buffers:\n", size);
  buffers.Print();

  const std::string bytes = buffers.Stitch();
  printf("\nDecoded back with the generated decoder:\n");
  PrintDecoded(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), 2);
  return bytes.size() == size ? 0 : 1;
}
