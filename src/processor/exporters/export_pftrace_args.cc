// A slice's args as debug annotations: flat keys rebuilt into nested
// dictionaries and arrays (export_pftrace_exporter.h).

#include "src/processor/exporters/export_pftrace_exporter.h"

#include "src/processor/exporters/templight_args.h"

namespace zt {
namespace processor {
namespace pftrace {

std::string Exporter::Identity(std::string_view name) {
  return std::string(name);
}

void Exporter::WriteAnnotationValue(const ArgNode& node, DebugAnnotation* annotation) {
  if (node.is_leaf) {
    const ArgValue& v = node.leaf;
    switch (v.type) {
      case ArgType::kInt:
        annotation->set_int_value(v.int_value);
        break;
      case ArgType::kUint:
        annotation->set_uint_value(static_cast<uint64_t>(v.int_value));
        break;
      case ArgType::kPointer:
        annotation->set_pointer_value(static_cast<uint64_t>(v.int_value));
        break;
      case ArgType::kBool:
        annotation->set_bool_value(v.int_value != 0);
        break;
      case ArgType::kReal:
        annotation->set_double_value(v.real_value);
        break;
      case ArgType::kString:
        annotation->set_string_value_iid(Intern(v.string_value, kString));
        break;
      case ArgType::kJson:
        annotation->set_legacy_json_value(s_.strings.Get(v.string_value));
        break;
      case ArgType::kNull:
        break;
    }
    return;
  }
  if (node.is_array) {
    std::vector<const ArgNode*> order;
    for (const ArgNode& c : node.children) order.push_back(&c);
    std::sort(order.begin(), order.end(),
              [](const ArgNode* a, const ArgNode* b) { return a->index < b->index; });
    for (size_t i = 0; i < order.size(); ++i) {
      if (order[i]->index != static_cast<int64_t>(i)) {
        notes_array_gaps_.Add(std::string(node.name));
        break;
      }
    }
    for (const ArgNode* c : order) WriteAnnotationValue(*c, annotation->add_array_values());
    return;
  }
  for (const ArgNode& c : node.children) {
    DebugAnnotation* entry = annotation->add_dict_entries();
    entry->set_name(c.name);
    WriteAnnotationValue(c, entry);
  }
}

void Exporter::WriteAnnotations(uint32_t slice, TrackEvent* event) {
  const uint32_t set = s_.slice.arg_set_id[slice];
  const bool has_args = !arg_sets_.Get(set).empty();
  const uint32_t templight_row =
      s_.templight.size() == 0 ? kNullId : FindTemplightRow(s_.templight, slice);
  if (!has_args && templight_row == kNullId) return;
  ArgNode root;
  if (has_args) {
    for (const uint32_t row : arg_sets_.Get(set)) {
      std::string_view key = s_.strings.Get(s_.args.key[row]);
      const std::string example(key);
      if (key.substr(0, 6) == "debug.") {
        key.remove_prefix(6);
      } else {
        notes_non_debug_args_.Add(example);
      }
      ArgValue value;
      value.type = s_.args.value_type[row];
      value.int_value = s_.args.int_value[row];
      value.string_value = s_.args.string_value[row];
      value.real_value = s_.args.real_value[row];
      if (value.type == ArgType::kNull) notes_null_args_.Add(example);
      // Annotations at the top are named: no array there.
      if (!AddToArgTree(&root, key, value, /*root_may_be_array=*/false, Identity))
        notes_arg_conflicts_.Add(example);
    }
  }
  if (templight_row != kNullId) {
    ForEachTemplightArg(s_, templight_row, [&](const TemplightArg& arg) {
      ArgValue value;
      value.type = arg.type;
      value.int_value = arg.int_value;
      value.string_value = arg.string_value;
      if (!AddToArgTree(&root, arg.key, value, /*root_may_be_array=*/false, Identity))
        notes_arg_conflicts_.Add(std::string(arg.key));
    });
  }
  for (const ArgNode& c : root.children) {
    DebugAnnotation* annotation = event->add_debug_annotations();
    annotation->set_name_iid(InternAnnotationName(c.name));
    WriteAnnotationValue(c, annotation);
  }
}

}  // namespace pftrace
}  // namespace processor
}  // namespace zt
