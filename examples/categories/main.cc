// Three libraries, each with its own category slot and instrumented
// inline code in its headers, used from one file that includes all their
// headers (in no particular order). Records a trace and checks that every
// event's category, as a reader resolves it from the trace alone, is the
// one its name says ("category:what").

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "libc/libc.h"  // Includes libB's and libA's headers too.
#include "liba/liba.h"
#include "libb/libb.h"
#include "zt/config/trace_config.gen.h"
#include "zt/trace/interned_data/interned_data.pbzero.h"
#include "zt/trace/trace.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/trace/track_event/track_event.pbzero.h"
#include "zt/tracing/tracing.h"

namespace {

using namespace zt::protos::pbzero;

// Event name -> category name, per sequence's interned data.
int Check(const std::vector<char>& trace_bytes) {
  std::map<uint32_t, std::map<uint64_t, std::string>> categories, names;
  int events = 0, wrong = 0;
  Trace_Decoder trace(reinterpret_cast<const uint8_t*>(trace_bytes.data()),
                      trace_bytes.size());
  for (auto it = trace.packet(); it; ++it) {
    TracePacket_Decoder packet(*it);
    const uint32_t seq = packet.trusted_packet_sequence_id();
    if (packet.sequence_flags() & TracePacket::SEQ_INCREMENTAL_STATE_CLEARED) {
      categories[seq].clear();
      names[seq].clear();
    }
    InternedData_Decoder interned(packet.interned_data());
    for (auto c = interned.event_categories(); c; ++c) {
      EventCategory_Decoder entry(*c);
      categories[seq][entry.iid()] = std::string(entry.name());
    }
    for (auto n = interned.event_names(); n; ++n) {
      EventName_Decoder entry(*n);
      names[seq][entry.iid()] = std::string(entry.name());

    }
    if (!packet.has_track_event())
      continue;
    TrackEvent_Decoder event(packet.track_event());
    if (event.type() == TrackEvent::TYPE_SLICE_END)
      continue;
    std::string category;
    for (auto c = event.category_iids(); c; ++c)
      category = categories[seq][*c];
    // Counters are named by their track; their category is on the event.
    std::string name = event.type() == TrackEvent::TYPE_COUNTER
                           ? "libc.compute:counter"
                           : names[seq][event.name_iid()];
    std::string expected = name.substr(0, name.find(':'));
    if (expected == "liba.common")
      expected = "common";
    events++;
    if (category != expected) {
      wrong++;
      printf("WRONG: event %s recorded under category %s\n", name.c_str(),
             category.c_str());
    }
  }
  printf("%d events, %d with a wrong category\n", events, wrong);
  return wrong == 0 && events > 0 ? 0 : 1;
}

}  // namespace

int main() {
  zt::TracingInitArgs args;
  zt::Tracing::Initialize(args);
  zt::protos::gen::TraceConfig config;
  config.add_buffers()->set_size_kb(1024);
  config.add_data_sources()->mutable_config()->set_name("track_event");
  auto session = zt::Tracing::NewTrace();
  session->Setup(config);
  session->StartBlocking();

  {
    TRACE_EVENT("libc", "libc:main");  // All three slots are visible here.
    TRACE_EVENT_INSTANT("common", "common:FromMain");
    libc_example::Run(3);
    libb::Square(liba::Double(4));
  }

  session->StopBlocking();
  int status = Check(session->ReadTraceBlocking());
  if (status == 0)
    printf("every category resolved to the right name\n");
  return status;
}
