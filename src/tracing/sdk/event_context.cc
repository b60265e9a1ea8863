// EventContext's out-of-line half: debug annotations and flows of the
// event being written (zt/tracing/track_event_args.h); the values are
// written by TracedValue (traced_value.cc).

#include <string_view>

#include "src/tracing/sdk/track_event_sequence.h"
#include "zt/trace/interned_data/interned_data.pbzero.h"
#include "zt/trace/track_event/debug_annotation.pbzero.h"
#include "zt/trace/track_event/track_event.pbzero.h"
#include "zt/tracing/track_event_args.h"

namespace zt {

TracedValue EventContext::NewAnnotation(const char* name,
                                        const DynamicString* dyn_name) {
  using protos::pbzero::DebugAnnotation;
  auto* seq = static_cast<internal::TrackEventSequence*>(sequence_);
  DebugAnnotation* annotation = event_->add_debug_annotations();
  if (name) {
    bool is_new = false;
    const uint32_t iid = seq->incremental->annotation_names.Intern(name, &is_new);
    if (is_new) {
      seq->pending.push_back(
          {protos::pbzero::InternedData::kDebugAnnotationNamesFieldNumber, iid, name});
    }
    annotation->set_name_iid(iid);
  } else {
    annotation->set_name(std::string_view(dyn_name->value, dyn_name->length));
  }
  return TracedValue(annotation);
}

void EventContext::AddFlow(Flow flow) { event_->add_flow_ids(flow.id); }

void EventContext::AddTerminatingFlow(TerminatingFlow flow) {
  event_->add_terminating_flow_ids(flow.id);
}

}  // namespace zt
