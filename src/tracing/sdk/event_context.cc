// EventContext's out-of-line half: debug annotations and flows of the
// event being written (zt/tracing/track_event_args.h).

#include <string_view>

#include "src/tracing/sdk/track_event_sequence.h"
#include "zt/trace/interned_data/interned_data.pbzero.h"
#include "zt/trace/track_event/debug_annotation.pbzero.h"
#include "zt/trace/track_event/track_event.pbzero.h"
#include "zt/tracing/track_event_args.h"

namespace zt {
namespace {

using protos::pbzero::DebugAnnotation;

// A new annotation on |ctx|'s event, named by |name| (interned by
// address) or |dyn_name| (inline).
DebugAnnotation* NewAnnotation(EventContext* ctx, const char* name,
                               const DynamicString* dyn_name) {
  auto* seq =
      static_cast<internal::TrackEventSequence*>(EventContextAccess::sequence(*ctx));
  DebugAnnotation* annotation = ctx->event()->add_debug_annotations();
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
  return annotation;
}

}  // namespace

void EventContext::AddInt(const char* name, const DynamicString* dyn_name,
                          int64_t value) {
  NewAnnotation(this, name, dyn_name)->set_int_value(value);
}

void EventContext::AddUint(const char* name, const DynamicString* dyn_name,
                           uint64_t value) {
  NewAnnotation(this, name, dyn_name)->set_uint_value(value);
}

void EventContext::AddDouble(const char* name, const DynamicString* dyn_name,
                             double value) {
  NewAnnotation(this, name, dyn_name)->set_double_value(value);
}

void EventContext::AddBool(const char* name, const DynamicString* dyn_name,
                           bool value) {
  NewAnnotation(this, name, dyn_name)->set_bool_value(value);
}

void EventContext::AddCString(const char* name, const DynamicString* dyn_name,
                              const char* value) {
  NewAnnotation(this, name, dyn_name)
      ->set_string_value(value ? std::string_view(value) : std::string_view());
}

void EventContext::AddString(const char* name, const DynamicString* dyn_name,
                             const char* value, size_t size) {
  NewAnnotation(this, name, dyn_name)->set_string_value(std::string_view(value, size));
}

void EventContext::AddPointer(const char* name, const DynamicString* dyn_name,
                              const volatile void* value) {
  NewAnnotation(this, name, dyn_name)
      ->set_pointer_value(reinterpret_cast<uintptr_t>(value));
}

void EventContext::AddFlow(Flow flow) { event_->add_flow_ids(flow.id); }

void EventContext::AddTerminatingFlow(TerminatingFlow flow) {
  event_->add_terminating_flow_ids(flow.id);
}

}  // namespace zt
