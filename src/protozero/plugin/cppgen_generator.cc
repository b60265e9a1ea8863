// cppgen: naming model, validation and the entry point. The emitters are in
// cppgen_header.cc and cppgen_source.cc.

#include "src/protozero/plugin/cppgen_generator.h"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <google/protobuf/compiler/code_generator.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/io/printer.h>
#include <google/protobuf/io/zero_copy_stream.h>

#include "src/protozero/plugin/codegen_utils.h"

namespace zt {
namespace pbzero_plugin {
namespace cppgen {

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::EnumValueDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::FileDescriptor;

namespace {

// Outer.Inner -> Outer_Inner (before sanitizing).
std::string RawFlatName(const Descriptor* msg) {
  if (!msg->containing_type())
    return msg->name();
  return RawFlatName(msg->containing_type()) + "_" + msg->name();
}

std::string RawFlatName(const EnumDescriptor* en) {
  if (!en->containing_type())
    return en->name();
  return RawFlatName(en->containing_type()) + "_" + en->name();
}

// Members every generated class has (see GenerateHeader), which no field
// member may take.
const std::set<std::string>& FixedMembers() {
  static const std::set<std::string>* const kNames = new std::set<std::string>{
      "Clear", "ParseFromArray", "ParseFromString", "MergeFromArray",
      "MergeFromArrayAtDepth", "SerializeAsString", "SerializeAsArray",
      "Serialize", "unknown_fields", "unknown_fields_", "has_bits_",
      "GetSchema", "FieldNumbers", "lazy_fields_"};
  return *kNames;
}

}  // namespace

Names::Names(const FileDescriptor* file, std::string wrapper_namespace)
    : file_(file), wrapper_namespace_(std::move(wrapper_namespace)) {
  for (int i = 0; i < file_->enum_type_count(); ++i)
    enums_.push_back(file_->enum_type(i));
  for (int i = 0; i < file_->message_type_count(); ++i)
    Collect(file_->message_type(i));
  CollectValueMessages();
}

bool Names::HasValueClass(const Descriptor* msg) const {
  return std::find(value_messages_.begin(), value_messages_.end(), msg) !=
         value_messages_.end();
}

void Names::CollectValueMessages() {
  // Roots: top-level messages and nested ones no field of this file names
  // (another file may). From them, follow eager fields only.
  std::set<const Descriptor*> named;
  for (const Descriptor* msg : messages_) {
    for (int i = 0; i < msg->field_count(); ++i) {
      if (msg->field(i)->message_type())
        named.insert(msg->field(i)->message_type());
    }
  }
  std::set<const Descriptor*> reached;
  std::vector<const Descriptor*> pending;
  for (const Descriptor* msg : messages_) {
    if (!msg->containing_type() || !named.count(msg))
      pending.push_back(msg);
  }
  while (!pending.empty()) {
    const Descriptor* msg = pending.back();
    pending.pop_back();
    if (!reached.insert(msg).second)
      continue;
    for (int i = 0; i < msg->field_count(); ++i) {
      const FieldDescriptor* fd = msg->field(i);
      if (fd->message_type() && fd->message_type()->file() == file_ &&
          !IsLazy(fd))
        pending.push_back(fd->message_type());
    }
  }
  for (const Descriptor* msg : messages_) {
    if (reached.count(msg))
      value_messages_.push_back(msg);
  }
}

void Names::Collect(const Descriptor* msg) {
  messages_.push_back(msg);
  for (int i = 0; i < msg->enum_type_count(); ++i)
    enums_.push_back(msg->enum_type(i));
  for (int i = 0; i < msg->nested_type_count(); ++i)
    Collect(msg->nested_type(i));
}

std::vector<std::string> Names::NamespaceParts(
    const FileDescriptor* file) const {
  std::vector<std::string> parts;
  for (const std::string& p : Split(file->package(), '.'))
    parts.push_back(SanitizeIdent(p));
  if (!wrapper_namespace_.empty())
    parts.push_back(SanitizeIdent(wrapper_namespace_));
  return parts;
}

std::string Names::FlatName(const Descriptor* msg) const {
  return SanitizeIdent(RawFlatName(msg));
}

std::string Names::FlatName(const EnumDescriptor* en) const {
  return SanitizeIdent(RawFlatName(en));
}

std::string Names::QualifiedIn(const FileDescriptor* file,
                               const std::string& flat) const {
  std::string q;
  for (const std::string& p : NamespaceParts(file))
    q += "::" + p;
  return q + "::" + flat;
}

std::string Names::Qualified(const Descriptor* msg) const {
  return QualifiedIn(msg->file(), FlatName(msg));
}

std::string Names::Qualified(const EnumDescriptor* en) const {
  return QualifiedIn(en->file(), FlatName(en));
}

std::string Names::ValueFlatName(const EnumValueDescriptor* v) const {
  // Top-level enum values are unprefixed at namespace scope (protobuf's
  // scoping makes them unique in the package); nested ones are prefixed
  // with the enum's flattened name.
  const EnumDescriptor* en = v->type();
  if (!en->containing_type())
    return SanitizeIdent(v->name());
  return SanitizeIdent(RawFlatName(en) + "_" + v->name());
}

std::string Names::QualifiedValue(const EnumValueDescriptor* v) const {
  return QualifiedIn(v->type()->file(), ValueFlatName(v));
}

std::string Names::EnumHelper(const EnumDescriptor* en,
                              const std::string& suffix) const {
  return SanitizeIdent(RawFlatName(en) + suffix);
}

std::string Names::QualifiedEnumHelper(const EnumDescriptor* en,
                                       const std::string& suffix) const {
  return QualifiedIn(en->file(), EnumHelper(en, suffix));
}

std::string Names::HeaderPath(const FileDescriptor* file) {
  return StripProto(file->name()) + ".gen.h";
}

std::string Names::HeaderGuard() const {
  std::string guard = "ZT_GEN_";
  for (char c : StripProto(file_->name()) + "_GEN_H_") {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                       (c >= '0' && c <= '9');
    guard += alnum ? static_cast<char>(toupper(c)) : '_';
  }
  return guard;
}

std::vector<CgField> Names::Fields(const Descriptor* msg) const {
  std::set<std::string> taken = FixedMembers();
  taken.insert(FlatName(msg));
  InsertNestedTypeAliases(msg, &taken);
  const std::vector<const FieldDescriptor*> fds = FieldsByNumber(msg);

  static const char* const kPrefixes[] = {"has_", "set_", "mutable_",
                                          "clear_", "add_"};
  std::vector<CgField> fields;
  int next_bit = 0;
  for (const FieldDescriptor* fd : fds) {
    CgField f;
    f.fd = fd;
    f.base = SanitizeIdent(fd->name());
    f.is_lazy = IsLazy(fd);
    auto clashes = [&](const std::string& b) {
      if (taken.count(b) || taken.count(b + "_") || taken.count(b + "_size"))
        return true;
      for (const char* p : kPrefixes) {
        if (taken.count(p + b))
          return true;
      }
      if (f.is_lazy && (taken.count(b + "_raw") || taken.count("set_" + b + "_raw") ||
                        taken.count("mutable_" + b + "_raw")))
        return true;
      return false;
    };
    while (clashes(f.base))
      f.base += "_";
    f.member = f.base + "_";
    taken.insert(f.base);
    taken.insert(f.member);
    taken.insert(f.base + "_size");
    for (const char* p : kPrefixes)
      taken.insert(p + f.base);
    if (f.is_lazy) {
      taken.insert(f.base + "_raw");
      taken.insert("set_" + f.base + "_raw");
      taken.insert("mutable_" + f.base + "_raw");
    }

    std::string stem = UpperCamel(fd->name());
    while (taken.count("k" + stem + "FieldNumber"))
      stem += "_";
    f.constant = "k" + stem + "FieldNumber";
    taken.insert(f.constant);

    switch (fd->type()) {
      case FieldDescriptor::TYPE_INT32:
      case FieldDescriptor::TYPE_SINT32:
      case FieldDescriptor::TYPE_SFIXED32:
        f.cpp_type = "int32_t";
        break;
      case FieldDescriptor::TYPE_INT64:
      case FieldDescriptor::TYPE_SINT64:
      case FieldDescriptor::TYPE_SFIXED64:
        f.cpp_type = "int64_t";
        break;
      case FieldDescriptor::TYPE_UINT32:
      case FieldDescriptor::TYPE_FIXED32:
        f.cpp_type = "uint32_t";
        break;
      case FieldDescriptor::TYPE_UINT64:
      case FieldDescriptor::TYPE_FIXED64:
        f.cpp_type = "uint64_t";
        break;
      case FieldDescriptor::TYPE_FLOAT:
        f.cpp_type = "float";
        break;
      case FieldDescriptor::TYPE_DOUBLE:
        f.cpp_type = "double";
        break;
      case FieldDescriptor::TYPE_BOOL:
        f.cpp_type = "bool";
        break;
      case FieldDescriptor::TYPE_ENUM:
        f.cpp_type = Qualified(fd->enum_type());
        break;
      case FieldDescriptor::TYPE_STRING:
      case FieldDescriptor::TYPE_BYTES:
        f.cpp_type = "::std::string";
        break;
      case FieldDescriptor::TYPE_MESSAGE:
      case FieldDescriptor::TYPE_GROUP:  // Rejected by Validate().
        f.cpp_type = Qualified(fd->message_type());
        break;
    }
    f.is_message = fd->type() == FieldDescriptor::TYPE_MESSAGE;
    f.is_string = fd->type() == FieldDescriptor::TYPE_STRING ||
                  fd->type() == FieldDescriptor::TYPE_BYTES;
    if (f.is_lazy) {  // Stored and encoded like a bytes field.
      f.cpp_type = "::std::string";
      f.is_message = false;
      f.is_string = true;
    }
    f.is_scalar = !f.is_message && !f.is_string;
    // Lazy fields' presence is their entry in lazy_fields_.
    if (!fd->is_repeated() && !f.is_message && !f.is_lazy && fd->has_presence())
      f.has_bit = next_bit++;
    fields.push_back(f);
  }
  return fields;
}

bool Names::IsLazy(const FieldDescriptor* fd) {
  // Repeated lazy fields stay eager: none of our schemas has one, and a
  // vector of encodings would need an API of its own.
  return fd->type() == FieldDescriptor::TYPE_MESSAGE && !fd->is_repeated() &&
         fd->options().lazy();
}

int Names::NumHasBits(const std::vector<CgField>& fields) {
  int n = 0;
  for (const CgField& f : fields)
    n = std::max(n, f.has_bit + 1);
  return n;
}

bool Names::Validate(std::string* error) const {
  for (const Descriptor* msg : messages_) {
    for (int i = 0; i < msg->field_count(); ++i) {
      const FieldDescriptor* fd = msg->field(i);
      if (fd->type() == FieldDescriptor::TYPE_GROUP) {
        *error = "field " + fd->full_name() +
                 " is a group; groups are not supported by protoc-gen-pbzero";
        return false;
      }
    }
  }
  // Flattening can make two proto names one C++ name; say so here rather
  // than leave a redefinition error in the generated code.
  std::map<std::string, std::string> symbols;  // C++ name -> what it is
  auto claim = [&](const std::string& cpp, const std::string& what) {
    auto inserted = symbols.emplace(cpp, what);
    if (inserted.second)
      return true;
    *error = what + " and " + inserted.first->second +
             " would both be generated as C++ '" + cpp + "'";
    return false;
  };
  for (const Descriptor* msg : messages_) {
    if (!claim(FlatName(msg), "message " + msg->full_name()))
      return false;
  }
  for (const EnumDescriptor* en : enums_) {
    if (!claim(FlatName(en), "enum " + en->full_name()) ||
        !claim(EnumHelper(en, "_Name"),
               "the name function of " + en->full_name()) ||
        !claim(EnumHelper(en, "_Schema"),
               "the schema function of " + en->full_name()))
      return false;
    for (int i = 0; i < en->value_count(); ++i) {
      if (!claim(ValueFlatName(en->value(i)),
                 "enum value " + en->value(i)->full_name()))
        return false;
    }
  }
  return true;
}

}  // namespace cppgen

namespace {

bool WriteFile(google::protobuf::compiler::GeneratorContext* context,
               const std::string& name, const std::string& contents) {
  std::unique_ptr<google::protobuf::io::ZeroCopyOutputStream> stream(
      context->Open(name));
  google::protobuf::io::Printer printer(stream.get(), '$');
  printer.WriteRaw(contents.data(), static_cast<int>(contents.size()));
  return !printer.failed();
}

}  // namespace

namespace {

// Validates |file|'s names once, then writes each (suffix, emitter) output.
bool WriteOutputs(
    const google::protobuf::FileDescriptor* file,
    const std::string& wrapper_namespace,
    google::protobuf::compiler::GeneratorContext* context, std::string* error,
    std::initializer_list<
        std::pair<const char*, std::string (*)(const cppgen::Names&)>>
        outputs) {
  cppgen::Names names(file, wrapper_namespace);
  if (!names.Validate(error))
    return false;
  const std::string stem = StripProto(file->name());
  for (const auto& [suffix, emit] : outputs) {
    const std::string path = stem + suffix;
    if (!WriteFile(context, path, emit(names))) {
      *error = "protoc-gen-pbzero: failed writing " + path;
      return false;
    }
  }
  return true;
}

}  // namespace

bool GenerateCppgen(const google::protobuf::FileDescriptor* file,
                    const std::string& wrapper_namespace,
                    google::protobuf::compiler::GeneratorContext* context,
                    std::string* error) {
  return WriteOutputs(file, wrapper_namespace, context, error,
                      {{".gen.h", &cppgen::GenerateHeader},
                       {".gen.cc", &cppgen::GenerateSource},
                       {".gen_parse.cc", &cppgen::GenerateParserSource}});
}

bool GenerateCppSchema(const google::protobuf::FileDescriptor* file,
                       const std::string& wrapper_namespace,
                       google::protobuf::compiler::GeneratorContext* context,
                       std::string* error) {
  return WriteOutputs(file, wrapper_namespace, context, error,
                      {{".schema.cc", &cppgen::GenerateSchemaSource}});
}

}  // namespace pbzero_plugin
}  // namespace zt
