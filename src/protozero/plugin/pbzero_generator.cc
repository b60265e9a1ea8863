// protoc-gen-pbzero code generator.
//
// Output layout of X.pbzero.h, inside the file's namespace (package parts,
// then the wrapper namespace):
//   1. forward declarations of every writer and decoder class of the file;
//   2. every enum of the file (nested ones flattened to namespace scope as
//      Outer_Inner, their values as Outer_Inner_VALUE) and its E_Name();
//   3. per message, pre-order: the decoder M_Decoder, then the writer M
//      (nested messages flattened to namespace scope as Outer_Inner and
//      aliased inside the outer writer class);
// Before the namespace, the file includes only the protozero runtime and its
// `import public` files; message and enum types of other files that fields
// use are declared there (class X; / enum E : int32_t;), not included.
// Nested-message accessors are member templates whose default argument is
// the nested writer (template <typename T = X> T* set_f()), so X must be
// complete only where set_f() is called: the caller includes X's header.
// This keeps including one writer (e.g. TracePacket's) from parsing every
// schema it can refer to, and lets messages refer to each other in any
// order.
// Every type is spelled fully qualified from the global namespace (::a::b::T,
// ::std::..., ::zt::protozero::...), so user identifiers can never capture
// a name the generated code relies on.
//
// Identifier mapping (proto name -> C++ name):
//   * Namespaces, messages, enums and enum values: the proto name; if it is a
//     C++ keyword, a <cstdint> type name or a common libc macro (see
//     IsReservedWord), a '_' is appended ("class" -> "class_"). Nested names
//     are flattened first (Outer.class -> Outer_class, not reserved).
//   * Fields: each field gets a base identifier B from which its members
//     derive: writer set_B / add_B, decoder B() and has_B(). B starts as the
//     field name ('_' appended if reserved as above). Fields are processed in
//     field-number order (so adding a field with a higher number never
//     renames an existing one); while any of B, has_B, set_B, add_B is
//     already taken - by a member of the zt::protozero base class it would
//     hide (a field "size_field" would hide Message::set_size_field, one
//     named "at" TypedProtoDecoder::at), by a generated member of the class
//     (Decoder, GetName, nested type and enum aliases, enum value aliases,
//     E_Name) or by a member of an earlier field (fields "foo" and "has_foo"
//     would both want has_foo()) - one more '_' is appended to B.
//   * Field-number constants: k<UpperCamel(field name)>FieldNumber, with '_'
//     appended before "FieldNumber" while taken ("foo_bar" and "fooBar" give
//     kFooBarFieldNumber and kFooBar_FieldNumber).
//   Not disambiguated (as with libprotobuf's C++ generator): flattened
//   message names that coincide (a top-level "A_B" next to a nested A.B, or
//   a nested message "Decoder" in M next to M's decoder M_Decoder).

#include "src/protozero/plugin/pbzero_generator.h"

#include "src/protozero/plugin/codegen_utils.h"
#include "src/protozero/plugin/pbzero_file_generator.h"
#include "src/protozero/plugin/cppgen_generator.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <google/protobuf/compiler/code_generator.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/io/printer.h>
#include <google/protobuf/io/zero_copy_stream.h>

namespace zt {
namespace pbzero_plugin {
namespace pbzero_internal {

std::string HeaderPathFor(const FileDescriptor* file) {
  return StripProto(file->name()) + ".pbzero.h";
}

// Members of the zt::protozero base classes that a generated member must not
// hide. Private members are listed too: hiding them is harmless today, but
// the list then survives them becoming protected.
const std::set<std::string>& WriterBaseMembers() {
  static const std::set<std::string>* const kNames = new std::set<std::string>{
      "Message", "Reset", "Finalize", "AppendVarInt", "AppendSignedVarInt",
      "AppendFixed", "AppendBytes", "AppendString", "AppendRawProtoBytes",
      "BeginNestedMessage", "nested_message", "size_field", "set_size_field",
      "is_finalized", "stream_writer", "arena", "BeginNestedMessageInternal",
      "EndNestedMessage", "AppendVarIntSlowPath", "AppendFixedSlowPath",
      "AppendBytesSlowPath", "BeginNestedMessageSlowPath",
      // Generated members of every writer class.
      "Decoder", "GetName"};
  return *kNames;
}

const std::set<std::string>& DecoderBaseMembers() {
  static const std::set<std::string>* const kNames = new std::set<std::string>{
      "ProtoDecoder", "TypedProtoDecoder", "TypedProtoDecoderBase",
      "ReadField", "FindField", "Reset", "parse_error", "read_offset",
      "bytes_left", "Get", "GetRepeated",
      "GetPackedRepeated", "ParseAllFields", "ExpandHeapStorage", "at"};
  return *kNames;
}

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

std::vector<std::string> FileGenerator::NamespaceParts(
    const FileDescriptor* file) const {
  std::vector<std::string> parts;
  for (const std::string& p : Split(file->package(), '.'))
    parts.push_back(SanitizeIdent(p));
  if (!wrapper_namespace_.empty())
    parts.push_back(SanitizeIdent(wrapper_namespace_));
  return parts;
}


std::string FileGenerator::FlatName(const Descriptor* msg) const {
  return SanitizeIdent(RawFlatName(msg));
}

std::string FileGenerator::FlatName(const EnumDescriptor* en) const {
  if (!en->containing_type())
    return SanitizeIdent(en->name());
  return SanitizeIdent(RawFlatName(en));
}

std::string FileGenerator::ValueFlatName(const EnumValueDescriptor* v) const {
  // Top-level enum values live at namespace scope unprefixed (protobuf's
  // scoping rules make them unique in the package); values of a nested enum
  // are prefixed with the enum's flattened name.
  const EnumDescriptor* en = v->type();
  if (!en->containing_type())
    return SanitizeIdent(v->name());
  return SanitizeIdent(RawFlatName(en) + "_" + v->name());
}

std::string FileGenerator::Qualified(const FileDescriptor* file,
                                     const std::string& flat) const {
  std::string q;
  for (const std::string& p : NamespaceParts(file))
    q += "::" + p;
  return q + "::" + flat;
}

std::vector<FieldNames> FileGenerator::AssignFieldNames(
    const Descriptor* msg) const {
  // Names already taken in the writer class / the decoder class.
  std::set<std::string> writer_taken = WriterBaseMembers();
  std::set<std::string> decoder_taken = DecoderBaseMembers();
  InsertNestedTypeAliases(msg, &writer_taken);
  const std::vector<const FieldDescriptor*> fields = FieldsByNumber(msg);

  std::map<const FieldDescriptor*, FieldNames> by_field;
  auto taken = [&](const std::string& n) {
    return writer_taken.count(n) != 0 || decoder_taken.count(n) != 0;
  };
  for (const FieldDescriptor* fd : fields) {
    FieldNames names;
    names.field = fd;
    names.base = SanitizeIdent(fd->name());
    while (taken(names.base) || taken("has_" + names.base) ||
           taken("set_" + names.base) || taken("add_" + names.base)) {
      names.base += "_";
    }
    writer_taken.insert("set_" + names.base);
    writer_taken.insert("add_" + names.base);
    decoder_taken.insert(names.base);
    decoder_taken.insert("has_" + names.base);

    std::string stem = UpperCamel(fd->name());
    while (taken("k" + stem + "FieldNumber"))
      stem += "_";
    names.constant = "k" + stem + "FieldNumber";
    writer_taken.insert(names.constant);
    by_field[fd] = names;
  }
  // Back to declaration order for emission.
  std::vector<FieldNames> result;
  for (int i = 0; i < msg->field_count(); ++i)
    result.push_back(by_field[msg->field(i)]);
  return result;
}

void FileGenerator::CollectMessages(const Descriptor* msg) {
  messages_.push_back(msg);
  for (int i = 0; i < msg->enum_type_count(); ++i)
    CollectEnums(msg->enum_type(i));
  for (int i = 0; i < msg->nested_type_count(); ++i)
    CollectMessages(msg->nested_type(i));
}

bool FileGenerator::Validate(std::string* error) const {
  // Extensions would need generated writer/decoder members on the extended
  // message; silently dropping them would lose data, so refuse instead.
  if (file_->extension_count() > 0) {
    *error = "extension " + file_->extension(0)->full_name() +
             ": `extend` blocks are not supported by protoc-gen-pbzero "
             "(extension ranges are fine)";
    return false;
  }
  for (const Descriptor* msg : messages_) {
    if (msg->extension_count() > 0) {
      *error = "extension " + msg->extension(0)->full_name() +
               ": `extend` blocks are not supported by protoc-gen-pbzero "
               "(extension ranges are fine)";
      return false;
    }
  }
  for (const Descriptor* msg : messages_) {
    for (int i = 0; i < msg->field_count(); ++i) {
      const FieldDescriptor* fd = msg->field(i);
      if (fd->type() == FieldDescriptor::TYPE_GROUP) {
        *error = "field " + fd->full_name() +
                 " is a group; groups are not supported by protoc-gen-pbzero";
        return false;
      }
      if (fd->is_repeated() && fd->number() > kMaxDecoderTableFieldId) {
        // TypedProtoDecoder skips ids beyond its table, so their occurrences
        // could not be iterated; singular ones are found with FindField().
        *error = "repeated field " + fd->full_name() +
                 " has id " + std::to_string(fd->number()) +
                 "; protoc-gen-pbzero supports repeated fields up to id " +
                 std::to_string(kMaxDecoderTableFieldId);
        return false;
      }
    }
  }

  // Flattening can make two proto names one C++ name (a nested message
  // "Decoder" in M and M's decoder M_Decoder; a top-level "A_B" and A.B).
  // Say so here rather than leave a redefinition error in generated code.
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
    if (!claim(FlatName(msg), "message " + msg->full_name()) ||
        !claim(DecoderName(msg), "the decoder of " + msg->full_name()))
      return false;
  }
  for (const EnumDescriptor* en : enums_) {
    if (!claim(FlatName(en), "enum " + en->full_name()) ||
        !claim(EnumHelperName(en, "_Name"),
               "the name function of " + en->full_name()))
      return false;
    for (int i = 0; i < en->value_count(); ++i) {
      if (!claim(ValueFlatName(en->value(i)),
                 "enum value " + en->value(i)->full_name()))
        return false;
    }
  }
  // Nested types, enums and enum values are also aliased inside the outer
  // writer class; such an alias must not hide a base-class member the
  // generated code calls (a nested message "Reset", an enum value
  // "Finalize") nor be named like the class itself.
  for (const Descriptor* msg : messages_) {
    auto check = [&](const std::string& alias, const std::string& what) {
      if (!WriterBaseMembers().count(alias) && alias != FlatName(msg))
        return true;
      *error = what + " would be aliased as '" + alias + "' inside the C++ "
               "class of " + msg->full_name() +
               ", where that name is reserved; rename it";
      return false;
    };
    for (int i = 0; i < msg->nested_type_count(); ++i) {
      const Descriptor* nested = msg->nested_type(i);
      if (!check(SanitizeIdent(nested->name()), "message " + nested->full_name()))
        return false;
    }
    for (int i = 0; i < msg->enum_type_count(); ++i) {
      const EnumDescriptor* en = msg->enum_type(i);
      if (!check(SanitizeIdent(en->name()), "enum " + en->full_name()) ||
          !check(SanitizeIdent(en->name() + "_Name"),
                 "the name function of enum " + en->full_name()))
        return false;
      for (int j = 0; j < en->value_count(); ++j) {
        if (!check(SanitizeIdent(en->value(j)->name()),
                   "enum value " + en->value(j)->full_name()))
          return false;
      }
    }
  }

  return true;
}

void FileGenerator::EmitIncludes() {
  out_ << "#include <cstddef>\n"
          "#include <cstdint>\n"
          "#include <string>\n"
          "#include <string_view>\n"
          "\n"
          "#include \"zt/protozero/field.h\"\n"
          "#include \"zt/protozero/message.h\"\n"
          "#include \"zt/protozero/packed_repeated_fields.h\"\n"
          "#include \"zt/protozero/proto_decoder.h\"\n"
          "#include \"zt/protozero/proto_utils.h\"\n";

  // Imports: public ones are included (they re-export their symbols to
  // whoever includes us). Types of other files that our fields use are
  // declared, not included: message writers are only named by the nested
  // accessors' default template arguments, and enums have a fixed int32_t
  // underlying type, so an opaque declaration makes them complete. Including
  // one message's writer thus parses that file only.
  std::set<std::string> includes;
  for (int j = 0; j < file_->public_dependency_count(); ++j)
    includes.insert(HeaderPathFor(file_->public_dependency(j)));
  if (!includes.empty())
    out_ << "\n";
  for (const std::string& inc : includes)
    out_ << "#include \"" << inc << "\"\n";
}

void FileGenerator::EmitForeignDeclarations() {
  NamespacedDecls decls;
  for (const Descriptor* msg : messages_) {
    for (int i = 0; i < msg->field_count(); ++i) {
      const FieldDescriptor* fd = msg->field(i);
      if (fd->message_type() && fd->message_type()->file() != file_) {
        decls[NamespaceParts(fd->message_type()->file())].insert(
            "class " + FlatName(fd->message_type()) + ";");
      }
      if (fd->enum_type() && fd->enum_type()->file() != file_) {
        decls[NamespaceParts(fd->enum_type()->file())].insert(
            "enum " + FlatName(fd->enum_type()) + " : int32_t;");
      }
    }
  }
  if (decls.empty())
    return;
  out_ << "// Types of other files, declared only (include their headers to "
          "write them).\n";
  EmitNamespacedDecls(decls, &out_);
  out_ << "\n";
}

void FileGenerator::EmitEnum(const EnumDescriptor* en) {
  const std::string name = FlatName(en);
  out_ << "// Proto enum " << en->full_name() << ".\n";
  out_ << "enum " << name << " : int32_t {\n";
  const EnumValueDescriptor* min = nullptr;
  const EnumValueDescriptor* max = nullptr;
  std::set<std::string> value_names;
  for (int i = 0; i < en->value_count(); ++i) {
    const EnumValueDescriptor* v = en->value(i);
    out_ << "  " << ValueFlatName(v) << " = " << v->number() << ",\n";
    value_names.insert(ValueFlatName(v));
    if (!min || v->number() < min->number())
      min = v;
    if (!max || v->number() > max->number())
      max = v;
  }
  out_ << "};\n";
  // Bounds, unless a value already has that name.
  const std::string min_name = EnumHelperName(en, "_MIN");
  const std::string max_name = EnumHelperName(en, "_MAX");
  if (min && !value_names.count(min_name))
    out_ << "inline constexpr " << name << " " << min_name << " = "
         << ValueFlatName(min) << ";\n";
  if (max && !value_names.count(max_name))
    out_ << "inline constexpr " << name << " " << max_name << " = "
         << ValueFlatName(max) << ";\n";

  // Name lookup. Aliased values (allow_alias) share a number: the first
  // declared name wins.
  out_ << "\n// Returns the proto name of |value|, or \"" << kUnknownEnumName
       << "\".\n";
  out_ << "inline const char* " << EnumHelperName(en, "_Name") << "(" << name
       << " value) {\n";
  out_ << "  switch (value) {\n";
  std::set<int> seen;
  for (int i = 0; i < en->value_count(); ++i) {
    const EnumValueDescriptor* v = en->value(i);
    if (!seen.insert(v->number()).second)
      continue;
    out_ << "    case " << ValueFlatName(v) << ":\n"
         << "      return " << CppStringLiteral(v->name()) << ";\n";
  }
  out_ << "  }\n";
  out_ << "  return \"" << kUnknownEnumName << "\";\n";
  out_ << "}\n\n";
}

// ---------------------------------------------------------------------------
// Writer

// Spec for every non-length-delimited type (enum handled by the caller).
ScalarSpec SpecFor(FieldDescriptor::Type type) {
  switch (type) {
    case FieldDescriptor::TYPE_INT32:
      return {"int32_t", "AppendVarInt", "Append", false};
    case FieldDescriptor::TYPE_INT64:
      return {"int64_t", "AppendVarInt", "Append", false};
    case FieldDescriptor::TYPE_UINT32:
      return {"uint32_t", "AppendVarInt", "Append", false};
    case FieldDescriptor::TYPE_UINT64:
      return {"uint64_t", "AppendVarInt", "Append", false};
    case FieldDescriptor::TYPE_SINT32:
      return {"int32_t", "AppendSignedVarInt", "AppendZigZag", false};
    case FieldDescriptor::TYPE_SINT64:
      return {"int64_t", "AppendSignedVarInt", "AppendZigZag", false};
    case FieldDescriptor::TYPE_BOOL:
      return {"bool", "AppendVarInt", "Append", false};
    case FieldDescriptor::TYPE_ENUM:
      return {"int32_t", "AppendVarInt", "Append", false};
    case FieldDescriptor::TYPE_FIXED32:
      return {"uint32_t", "AppendFixed", "Append", true};
    case FieldDescriptor::TYPE_FIXED64:
      return {"uint64_t", "AppendFixed", "Append", true};
    case FieldDescriptor::TYPE_SFIXED32:
      return {"int32_t", "AppendFixed", "Append", true};
    case FieldDescriptor::TYPE_SFIXED64:
      return {"int64_t", "AppendFixed", "Append", true};
    case FieldDescriptor::TYPE_FLOAT:
      return {"float", "AppendFixed", "Append", true};
    case FieldDescriptor::TYPE_DOUBLE:
      return {"double", "AppendFixed", "Append", true};
    default:
      return {nullptr, nullptr, nullptr, false};
  }
}

void FileGenerator::EmitWriterField(const FieldNames& f) {
  const FieldDescriptor* fd = f.field;
  const std::string num = std::to_string(fd->number());
  const std::string verb = fd->is_repeated() ? "add_" : "set_";
  const std::string m = verb + f.base;

  out_ << "\n  // " << fd->number() << ": " << fd->full_name();
  if (fd->real_containing_oneof())
    out_ << " (oneof " << fd->real_containing_oneof()->name() << ")";
  if (fd->is_packed())
    out_ << " (packed)";
  out_ << "\n";

  switch (fd->type()) {
    case FieldDescriptor::TYPE_STRING:
    case FieldDescriptor::TYPE_BYTES:
      out_ << "  void " << m << "(::std::string_view value) {\n"
           << "    AppendBytes(" << num << ", value.data(), value.size());\n"
           << "  }\n";
      out_ << "  void " << m << "(const ::std::string& value) {\n"
           << "    AppendBytes(" << num << ", value.data(), value.size());\n"
           << "  }\n";
      // Makes m("literal") unambiguous between the two overloads above.
      out_ << "  void " << m << "(const char* value) {\n"
           << "    AppendString(" << num << ", value);\n"
           << "  }\n";
      out_ << "  void " << m << "(const char* data, size_t size) {\n"
           << "    AppendBytes(" << num << ", data, size);\n"
           << "  }\n";
      if (fd->type() == FieldDescriptor::TYPE_BYTES) {
        out_ << "  void " << m << "(const uint8_t* data, size_t size) {\n"
             << "    AppendBytes(" << num << ", data, size);\n"
             << "  }\n";
      }
      return;
    case FieldDescriptor::TYPE_MESSAGE: {
      // A member template whose default argument is the nested writer: the
      // nested type is only declared here and must be complete only where
      // the accessor is called, so this header need not include the file
      // defining it (and messages may refer to each other in any order).
      const std::string type = Qualified(fd->message_type());
      out_ << "  template <typename T = " << type << ">\n"
           << "  T* " << m << "() {\n"
           << "    return BeginNestedMessage<T>(" << num << ");\n"
           << "  }\n";
      return;
    }
    default:
      break;
  }

  const ScalarSpec spec = SpecFor(fd->type());
  const std::string value_type = fd->type() == FieldDescriptor::TYPE_ENUM
                                     ? Qualified(fd->enum_type())
                                     : spec.cpp_type;
  if (fd->is_packed()) {
    const std::string builder =
        spec.fixed ? std::string("::zt::protozero::PackedFixedSizeInt<") +
                         spec.cpp_type + ">"
                   : std::string("::zt::protozero::PackedVarInt");
    out_ << "  // Build |packed| with " << builder << "::" << spec.packed_append
         << "().\n";
    out_ << "  void set_" << f.base << "(const " << builder << "& packed) {\n"
         << "    AppendBytes(" << num << ", packed.data(), packed.size());\n"
         << "  }\n";
    return;
  }
  out_ << "  void " << m << "(" << value_type << " value) {\n"
       << "    " << spec.append << "(" << num << ", value);\n"
       << "  }\n";
}

void FileGenerator::EmitWriter(const Descriptor* msg,
                               const std::vector<FieldNames>& names) {
  const std::string name = FlatName(msg);
  out_ << "// Writer for proto message " << msg->full_name()
       << ". Append-only: setters encode immediately.\n";
  out_ << "class " << name << " : public ::zt::protozero::Message {\n"
       << " public:\n";
  out_ << "  using Decoder = " << DecoderName(msg) << ";\n";
  if (!names.empty()) {
    out_ << "  enum : int32_t {\n";
    for (const FieldNames& f : names)
      out_ << "    " << f.constant << " = " << f.field->number() << ",\n";
    out_ << "  };\n";
  }
  out_ << "  static constexpr const char* GetName() { return "
       << CppStringLiteral(msg->full_name()) << "; }\n";

  for (int i = 0; i < msg->nested_type_count(); ++i) {
    const Descriptor* nested = msg->nested_type(i);
    out_ << "  using " << SanitizeIdent(nested->name()) << " = "
         << Qualified(nested) << ";\n";
  }
  for (int i = 0; i < msg->enum_type_count(); ++i) {
    const EnumDescriptor* en = msg->enum_type(i);
    const std::string alias = SanitizeIdent(en->name());
    out_ << "  using " << alias << " = " << Qualified(en) << ";\n";
    out_ << "  static const char* " << SanitizeIdent(en->name() + "_Name")
         << "(" << alias
         << " value) {\n"
         << "    return "
         << Qualified(en->file(), EnumHelperName(en, "_Name")) << "(value);\n"
         << "  }\n";
    for (int j = 0; j < en->value_count(); ++j) {
      const EnumValueDescriptor* v = en->value(j);
      out_ << "  static constexpr " << alias << " " << SanitizeIdent(v->name())
           << " = " << QualifiedValue(v) << ";\n";
    }
  }

  for (const FieldNames& f : names)
    EmitWriterField(f);
  out_ << "};\n\n";
}

bool FileGenerator::Generate(std::string* header, std::string* error) {
  for (int i = 0; i < file_->enum_type_count(); ++i)
    CollectEnums(file_->enum_type(i));
  for (int i = 0; i < file_->message_type_count(); ++i)
    CollectMessages(file_->message_type(i));
  if (!Validate(error))
    return false;

  std::string guard = "ZT_PBZERO_GEN_";
  for (char c : StripProto(file_->name()) + "_PBZERO_H_") {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                       (c >= '0' && c <= '9');
    guard += alnum ? static_cast<char>(toupper(c)) : '_';
  }

  out_ << "// Generated by protoc-gen-pbzero from " << file_->name()
       << ". DO NOT EDIT.\n\n";
  out_ << "#ifndef " << guard << "\n#define " << guard << "\n\n";
  EmitIncludes();
  out_ << "\n";
  EmitForeignDeclarations();

  const std::vector<std::string> ns = NamespaceParts(file_);
  for (const std::string& p : ns)
    out_ << "namespace " << p << " {\n";
  if (!ns.empty())
    out_ << "\n";

  if (!messages_.empty()) {
    for (const Descriptor* msg : messages_) {
      out_ << "class " << FlatName(msg) << ";\n";
      out_ << "class " << DecoderName(msg) << ";\n";
    }
    out_ << "\n";
  }

  for (const EnumDescriptor* en : enums_)
    EmitEnum(en);

  for (const Descriptor* msg : messages_) {
    const std::vector<FieldNames> names = AssignFieldNames(msg);
    EmitDecoder(msg, names);
    EmitWriter(msg, names);
  }

  for (auto it = ns.rbegin(); it != ns.rend(); ++it)
    out_ << "}  // namespace " << *it << "\n";
  out_ << "\n#endif  // " << guard << "\n";
  *header = out_.str();
  return true;
}

bool WriteFile(GeneratorContext* context, const std::string& name,
               const std::string& contents) {
  std::unique_ptr<google::protobuf::io::ZeroCopyOutputStream> stream(
      context->Open(name));
  google::protobuf::io::Printer printer(stream.get(), '$');
  printer.WriteRaw(contents.data(), static_cast<int>(contents.size()));
  return !printer.failed();
}

}  // namespace pbzero_internal

using google::protobuf::FileDescriptor;
using google::protobuf::compiler::GeneratorContext;
using pbzero_internal::FileGenerator;
using pbzero_internal::WriteFile;

PbzeroGenerator::PbzeroGenerator() = default;
PbzeroGenerator::~PbzeroGenerator() = default;

uint64_t PbzeroGenerator::GetSupportedFeatures() const {
  // proto3 "optional" is a synthetic oneof; its member is an ordinary field.
  return FEATURE_PROTO3_OPTIONAL;
}

bool PbzeroGenerator::Generate(const FileDescriptor* file,
                               const std::string& parameter,
                               GeneratorContext* context,
                               std::string* error) const {
  std::vector<std::pair<std::string, std::string>> options;
  google::protobuf::compiler::ParseGeneratorParameter(parameter, &options);
  std::string wrapper_namespace;
  std::string generator = "pbzero";
  for (const auto& kv : options) {
    if (kv.first == "wrapper_namespace") {
      wrapper_namespace = kv.second;
    } else if (kv.first == "generator") {
      generator = kv.second;
    } else {
      *error = "protoc-gen-pbzero: unknown option '" + kv.first +
               "' (supported: wrapper_namespace=<ns>, "
               "generator=pbzero|cppgen|cppschema)";
      return false;
    }
  }
  if (generator != "pbzero" && generator != "cppgen" &&
      generator != "cppschema") {
    *error = "protoc-gen-pbzero: unknown generator '" + generator +
             "' (supported: pbzero, cppgen, cppschema)";
    return false;
  }
  bool valid_ns = wrapper_namespace.empty() ||
                  !(wrapper_namespace[0] >= '0' && wrapper_namespace[0] <= '9');
  for (char c : wrapper_namespace)
    valid_ns = valid_ns && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                            (c >= '0' && c <= '9') || c == '_');
  if (!valid_ns) {
    *error = "protoc-gen-pbzero: wrapper_namespace '" + wrapper_namespace +
             "' is not a C++ identifier";
    return false;
  }

  if (generator == "cppgen")
    return GenerateCppgen(file, wrapper_namespace, context, error);
  if (generator == "cppschema")
    return GenerateCppSchema(file, wrapper_namespace, context, error);

  FileGenerator gen(file, wrapper_namespace);
  std::string header;
  if (!gen.Generate(&header, error))
    return false;

  const std::string stem = StripProto(file->name());
  if (!WriteFile(context, stem + ".pbzero.h", header)) {
    *error = "protoc-gen-pbzero: failed writing " + stem + ".pbzero.h";
    return false;
  }
  const std::string cc =
      "// Generated by protoc-gen-pbzero from " + file->name() +
      ". DO NOT EDIT.\n"
      "// Intentionally empty: the generated code is header-only (" +
      stem + ".pbzero.h).\n";
  if (!WriteFile(context, stem + ".pbzero.cc", cc)) {
    *error = "protoc-gen-pbzero: failed writing " + stem + ".pbzero.cc";
    return false;
  }
  return true;
}

}  // namespace pbzero_plugin
}  // namespace zt
