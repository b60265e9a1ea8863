// cppgen: emits X.schema.cc (generator=cppschema), the run-time schema
// tables of a file's messages and enums (zt/protozero/schema.h), which the
// text-format parser walks.
//
// They are a separate output so that they need no value class: a table
// names the schemas of nested messages and enums through free functions
// (M_Schema(), E_Schema(), declared here and in X.gen.h), never through a
// class. A program can then link the tables of every schema (to parse any
// upstream config, sub-configs included) and value classes for only the
// few messages it reads, including messages whose fields are [lazy = true]
// (a lazy field is still a message in its table).

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <google/protobuf/descriptor.h>

#include "src/protozero/plugin/codegen_utils.h"
#include "src/protozero/plugin/cppgen_generator.h"

namespace zt {
namespace pbzero_plugin {
namespace cppgen {

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::EnumValueDescriptor;
using google::protobuf::FieldDescriptor;

namespace {

// FieldType enumerator of schema.h.
const char* SchemaType(FieldDescriptor::Type type) {
  switch (type) {
    case FieldDescriptor::TYPE_DOUBLE: return "kDouble";
    case FieldDescriptor::TYPE_FLOAT: return "kFloat";
    case FieldDescriptor::TYPE_INT64: return "kInt64";
    case FieldDescriptor::TYPE_UINT64: return "kUint64";
    case FieldDescriptor::TYPE_INT32: return "kInt32";
    case FieldDescriptor::TYPE_FIXED64: return "kFixed64";
    case FieldDescriptor::TYPE_FIXED32: return "kFixed32";
    case FieldDescriptor::TYPE_BOOL: return "kBool";
    case FieldDescriptor::TYPE_STRING: return "kString";
    case FieldDescriptor::TYPE_GROUP: return "kGroup";
    case FieldDescriptor::TYPE_MESSAGE: return "kMessage";
    case FieldDescriptor::TYPE_BYTES: return "kBytes";
    case FieldDescriptor::TYPE_UINT32: return "kUint32";
    case FieldDescriptor::TYPE_ENUM: return "kEnum";
    case FieldDescriptor::TYPE_SFIXED32: return "kSfixed32";
    case FieldDescriptor::TYPE_SFIXED64: return "kSfixed64";
    case FieldDescriptor::TYPE_SINT32: return "kSint32";
    case FieldDescriptor::TYPE_SINT64: return "kSint64";
  }
  return "kGroup";
}

class SchemaEmitter {
 public:
  explicit SchemaEmitter(const Names& names) : names_(names) {}
  std::string Emit();

 private:
  std::string MessageFn(const Descriptor* msg) const {
    return names_.FlatName(msg) + "_Schema";
  }
  void EmitForeignDeclarations();
  void EmitEnum(const EnumDescriptor* en);
  void EmitMessage(const Descriptor* msg);

  const Names& names_;
  std::ostringstream out_;
};

// Schema functions of other files that this file's tables point at, by
// namespace.
void SchemaEmitter::EmitForeignDeclarations() {
  NamespacedDecls decls;
  for (const Descriptor* msg : names_.messages()) {
    for (int i = 0; i < msg->field_count(); ++i) {
      const FieldDescriptor* fd = msg->field(i);
      if (fd->message_type() && fd->message_type()->file() != names_.file()) {
        decls[names_.NamespaceParts(fd->message_type()->file())].insert(
            "const ::zt::protozero::MessageSchema* " +
            MessageFn(fd->message_type()) + "();");
      }
      if (fd->enum_type() && fd->enum_type()->file() != names_.file()) {
        decls[names_.NamespaceParts(fd->enum_type()->file())].insert(
            "const ::zt::protozero::EnumSchema* " +
            names_.EnumHelper(fd->enum_type(), "_Schema") + "();");
      }
    }
  }
  EmitNamespacedDecls(decls, &out_);
  if (!decls.empty())
    out_ << "\n";
}

void SchemaEmitter::EmitEnum(const EnumDescriptor* en) {
  const std::string values = "kValues_" + names_.FlatName(en);
  out_ << "namespace {\n"
       << "constexpr ::zt::protozero::EnumValueSchema " << values << "[] = {\n";
  for (int i = 0; i < en->value_count(); ++i) {
    const EnumValueDescriptor* v = en->value(i);
    out_ << "    {" << CppStringLiteral(v->name()) << ", " << v->number()
         << "},\n";
  }
  out_ << "};\n"
       << "}  // namespace\n\n";
  out_ << "const ::zt::protozero::EnumSchema* "
       << names_.EnumHelper(en, "_Schema") << "() {\n"
       << "  static constexpr ::zt::protozero::EnumSchema kSchema = {\n"
       << "      " << CppStringLiteral(en->full_name()) << ", " << values
       << ", " << en->value_count() << "};\n"
       << "  return &kSchema;\n"
       << "}\n\n";
}

void SchemaEmitter::EmitMessage(const Descriptor* msg) {
  // Tables list fields by number (the parser binary-searches them).
  const std::vector<CgField> fields = names_.Fields(msg);
  const std::string table = "kFields_" + names_.FlatName(msg);
  if (!fields.empty()) {
    out_ << "namespace {\n"
         << "constexpr ::zt::protozero::FieldSchema " << table << "[] = {\n";
    for (const CgField& f : fields) {
      const FieldDescriptor* fd = f.fd;
      std::string message_fn = "nullptr", enum_fn = "nullptr";
      if (fd->message_type()) {
        message_fn = "&" + names_.Qualified(fd->message_type()) + "_Schema";
      }
      if (fd->type() == FieldDescriptor::TYPE_ENUM)
        enum_fn = "&" + names_.QualifiedEnumHelper(fd->enum_type(), "_Schema");
      out_ << "    {" << CppStringLiteral(fd->name()) << ", " << fd->number()
           << ", ::zt::protozero::FieldType::" << SchemaType(fd->type())
           << ", " << (fd->is_repeated() ? "true" : "false") << ", "
           << (fd->is_packed() ? "true" : "false") << ", " << message_fn
           << ", " << enum_fn << "},\n";
    }
    out_ << "};\n"
         << "}  // namespace\n\n";
  }
  out_ << "const ::zt::protozero::MessageSchema* " << MessageFn(msg)
       << "() {\n"
       << "  static constexpr ::zt::protozero::MessageSchema kSchema = {\n"
       << "      " << CppStringLiteral(msg->full_name()) << ", "
       << (fields.empty() ? "nullptr" : table) << ", " << fields.size()
       << "};\n"
       << "  return &kSchema;\n"
       << "}\n\n";
}

std::string SchemaEmitter::Emit() {
  out_ << "// Generated by protoc-gen-pbzero (cppschema) from "
       << names_.file()->name() << ". DO NOT EDIT.\n\n"
       << "#include \"zt/protozero/schema.h\"\n\n";
  EmitForeignDeclarations();
  const std::vector<std::string> ns = names_.NamespaceParts(names_.file());
  for (const std::string& p : ns)
    out_ << "namespace " << p << " {\n";
  out_ << "\n";
  // This file's own functions may point at each other in any order.
  for (const Descriptor* msg : names_.messages()) {
    out_ << "const ::zt::protozero::MessageSchema* " << MessageFn(msg)
         << "();\n";
  }
  for (const EnumDescriptor* en : names_.enums()) {
    out_ << "const ::zt::protozero::EnumSchema* "
         << names_.EnumHelper(en, "_Schema") << "();\n";
  }
  out_ << "\n";
  for (const EnumDescriptor* en : names_.enums())
    EmitEnum(en);
  for (const Descriptor* msg : names_.messages())
    EmitMessage(msg);
  for (auto it = ns.rbegin(); it != ns.rend(); ++it)
    out_ << "}  // namespace " << *it << "\n";
  return out_.str();
}

}  // namespace

std::string GenerateSchemaSource(const Names& names) {
  return SchemaEmitter(names).Emit();
}

}  // namespace cppgen
}  // namespace pbzero_plugin
}  // namespace zt
