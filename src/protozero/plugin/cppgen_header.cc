// cppgen: emits X.gen.h.
//
// Layout, inside the file's namespace:
//   1. forward declarations of every class of the file;
//   2. the declarations of M_Schema() for every message; every enum (nested
//      ones flattened), its E_Name(), E_MIN/E_MAX and the declaration of
//      E_Schema() (schemas are defined by the cppschema output);
//   3. every message class, pre-order;
//   4. inline bodies of the accessors that touch a message type (they need
//      complete types, so messages can refer to each other in any order).
// Special members and serialization are out of line in X.gen.cc, parsing
// and operator== in X.gen_parse.cc (cppgen_source.cc); schema tables in
// X.schema.cc.

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
using google::protobuf::FileDescriptor;

namespace {

const char kUnknownEnumName[] = "PBZERO_UNKNOWN_ENUM_VALUE";

class HeaderEmitter {
 public:
  explicit HeaderEmitter(const Names& names) : names_(names) {}
  std::string Emit();

 private:
  void EmitIncludes();
  void EmitEnum(const EnumDescriptor* en);
  void EmitClass(const Descriptor* msg);
  void EmitField(const std::string& cls, const CgField& f);
  void EmitStorage(const CgField& f);

  const Names& names_;
  std::ostringstream out_;
  std::ostringstream deferred_;
};

void HeaderEmitter::EmitIncludes() {
  out_ << "#include <bitset>\n"
          "#include <cstddef>\n"
          "#include <cstdint>\n"
          "#include <string>\n"
          "#include <vector>\n"
          "\n"
          "#include \"zt/protozero/cpp_message_base.h\"\n"
          "#include \"zt/protozero/schema.h\"\n";
  // Public imports always; others when a field uses one of their types.
  const FileDescriptor* file = names_.file();
  // A lazy field names no type of its file: it is bytes here.
  std::set<const FileDescriptor*> used;
  for (const Descriptor* msg : names_.value_messages()) {
    for (int i = 0; i < msg->field_count(); ++i) {
      const FieldDescriptor* fd = msg->field(i);
      if (fd->message_type() && !Names::IsLazy(fd))
        used.insert(fd->message_type()->file());
      if (fd->enum_type())
        used.insert(fd->enum_type()->file());
    }
  }
  std::set<std::string> includes;
  for (int i = 0; i < file->dependency_count(); ++i) {
    const FileDescriptor* dep = file->dependency(i);
    bool is_public = false;
    for (int j = 0; j < file->public_dependency_count(); ++j)
      is_public = is_public || file->public_dependency(j) == dep;
    if (is_public || used.count(dep))
      includes.insert(Names::HeaderPath(dep));
  }
  if (!includes.empty())
    out_ << "\n";
  for (const std::string& inc : includes)
    out_ << "#include \"" << inc << "\"\n";
}

void HeaderEmitter::EmitEnum(const EnumDescriptor* en) {
  const std::string name = names_.FlatName(en);
  out_ << "// Proto enum " << en->full_name() << ".\n";
  out_ << "enum " << name << " : int32_t {\n";
  const EnumValueDescriptor* min = nullptr;
  const EnumValueDescriptor* max = nullptr;
  std::set<std::string> value_names;
  for (int i = 0; i < en->value_count(); ++i) {
    const EnumValueDescriptor* v = en->value(i);
    out_ << "  " << names_.ValueFlatName(v) << " = " << v->number() << ",\n";
    value_names.insert(names_.ValueFlatName(v));
    if (!min || v->number() < min->number())
      min = v;
    if (!max || v->number() > max->number())
      max = v;
  }
  out_ << "};\n";
  const std::string min_name = names_.EnumHelper(en, "_MIN");
  const std::string max_name = names_.EnumHelper(en, "_MAX");
  if (min && !value_names.count(min_name))
    out_ << "inline constexpr " << name << " " << min_name << " = "
         << names_.ValueFlatName(min) << ";\n";
  if (max && !value_names.count(max_name))
    out_ << "inline constexpr " << name << " " << max_name << " = "
         << names_.ValueFlatName(max) << ";\n";

  // Aliased values (allow_alias) share a number: the first name wins.
  out_ << "// The proto name of |value|, or \"" << kUnknownEnumName << "\".\n";
  out_ << "inline const char* " << names_.EnumHelper(en, "_Name") << "("
       << name << " value) {\n"
       << "  switch (value) {\n";
  std::set<int> seen;
  for (int i = 0; i < en->value_count(); ++i) {
    const EnumValueDescriptor* v = en->value(i);
    if (!seen.insert(v->number()).second)
      continue;
    out_ << "    case " << names_.ValueFlatName(v) << ":\n"
         << "      return " << CppStringLiteral(v->name()) << ";\n";
  }
  out_ << "  }\n"
       << "  return \"" << kUnknownEnumName << "\";\n"
       << "}\n";
  out_ << "// Run-time schema of " << en->full_name() << ".\n";
  out_ << "const ::zt::protozero::EnumSchema* "
       << names_.EnumHelper(en, "_Schema") << "();\n\n";
}

void HeaderEmitter::EmitStorage(const CgField& f) {
  const FieldDescriptor* fd = f.fd;
  if (f.is_lazy)
    return;  // In lazy_fields_.
  if (fd->is_repeated()) {
    out_ << "  ::std::vector<" << f.cpp_type << "> " << f.member << ";\n";
  } else if (f.is_message) {
    out_ << "  ::zt::protozero::CopyablePtr<" << f.cpp_type << "> " << f.member
         << ";\n";
  } else if (f.is_string) {
    out_ << "  ::std::string " << f.member << ";\n";
  } else if (fd->type() == FieldDescriptor::TYPE_ENUM) {
    // As libprotobuf: an absent enum reads as its default (the first value
    // unless [default=] says otherwise). Other [default=]s are ignored.
    out_ << "  " << f.cpp_type << " " << f.member << " = "
         << names_.QualifiedValue(fd->default_value_enum()) << ";\n";
  } else {
    out_ << "  " << f.cpp_type << " " << f.member << "{};\n";
  }
}

void HeaderEmitter::EmitField(const std::string& cls, const CgField& f) {
  const FieldDescriptor* fd = f.fd;
  const std::string& b = f.base;
  const std::string& m = f.member;
  const std::string& t = f.cpp_type;
  out_ << "\n  // " << fd->number() << ": " << fd->name();
  if (fd->real_containing_oneof())
    out_ << " (oneof " << fd->real_containing_oneof()->name() << ")";
  if (fd->is_packed())
    out_ << " (packed)";
  out_ << "\n";

  if (fd->is_repeated()) {
    out_ << "  const ::std::vector<" << t << ">& " << b << "() const { return "
         << m << "; }\n"
         << "  ::std::vector<" << t << ">* mutable_" << b << "() { return &"
         << m << "; }\n";
    if (f.is_message) {
      // Needs a complete element type: defined after every class.
      out_ << "  int " << b << "_size() const;\n"
           << "  void clear_" << b << "();\n"
           << "  " << t << "* add_" << b << "();\n";
      deferred_ << "inline int " << cls << "::" << b
                << "_size() const { return static_cast<int>(" << m
                << ".size()); }\n"
                << "inline void " << cls << "::clear_" << b << "() { " << m
                << ".clear(); }\n"
                << "inline " << t << "* " << cls << "::add_" << b << "() {\n"
                << "  " << m << ".emplace_back();\n"
                << "  return &" << m << ".back();\n"
                << "}\n";
      return;
    }
    out_ << "  int " << b << "_size() const { return static_cast<int>(" << m
         << ".size()); }\n"
         << "  void clear_" << b << "() { " << m << ".clear(); }\n";
    if (f.is_string) {
      out_ << "  void add_" << b << "(const ::std::string& value) { " << m
           << ".push_back(value); }\n"
           << "  void add_" << b << "(::std::string&& value) { " << m
           << ".push_back(static_cast<::std::string&&>(value)); }\n"
           << "  ::std::string* add_" << b << "() {\n"
           << "    " << m << ".emplace_back();\n"
           << "    return &" << m << ".back();\n"
           << "  }\n";
    } else {
      out_ << "  void add_" << b << "(" << t << " value) { " << m
           << ".push_back(value); }\n";
    }
    return;
  }

  if (f.is_message) {
    out_ << "  bool has_" << b << "() const { return static_cast<bool>(" << m
         << "); }\n"
         << "  // The default instance when absent.\n"
         << "  const " << t << "& " << b << "() const;\n"
         << "  // Creates the field (empty) if absent.\n"
         << "  " << t << "* mutable_" << b << "();\n"
         << "  void set_" << b << "(const " << t << "& value);\n"
         << "  void clear_" << b << "();\n";
    deferred_ << "inline const " << t << "& " << cls << "::" << b
              << "() const {\n"
              << "  return " << m << " ? *" << m
              << " : ::zt::protozero::CppGenDefaultInstance<" << t << ">();\n"
              << "}\n"
              << "inline " << t << "* " << cls << "::mutable_" << b
              << "() { return " << m << ".GetOrCreate(); }\n"
              << "inline void " << cls << "::set_" << b << "(const " << t
              << "& value) { *" << m << ".GetOrCreate() = value; }\n"
              << "inline void " << cls << "::clear_" << b << "() { " << m
              << ".reset(); }\n";
    return;
  }

  if (f.is_lazy) {
    // Kept encoded, in lazy_fields_: forwarded as received, decoded only by
    // whoever needs it (with the type's value class or pbzero decoder), so
    // that this header and every program linking it do without the type.
    const std::string n = std::to_string(fd->number());
    out_ << "  // Encoded " << fd->message_type()->full_name()
         << " ([lazy = true]: kept as bytes).\n"
         << "  bool has_" << b << "() const { return lazy_fields_.Has(" << n
         << "); }\n"
         << "  const ::std::string& " << b << "_raw() const { return "
         << "lazy_fields_.Get(" << n << "); }\n"
         << "  void set_" << b << "_raw(const ::std::string& value) { "
         << "lazy_fields_.Set(" << n << ", value); }\n"
         << "  void set_" << b << "_raw(::std::string&& value) { "
         << "lazy_fields_.Set(" << n
         << ", static_cast<::std::string&&>(value)); }\n"
         << "  ::std::string* mutable_" << b << "_raw() { return "
         << "lazy_fields_.Mutable(" << n << "); }\n"
         << "  void clear_" << b << "() { lazy_fields_.Clear(" << n
         << "); }\n";
    return;
  }

  // Singular scalar or string. With a has-bit (explicit presence), setters
  // set it; otherwise (proto3 implicit presence) "has" means non-default.
  const std::string bit = std::to_string(f.has_bit);
  const std::string set_bit =
      f.has_bit >= 0 ? " has_bits_.set(" + bit + ");" : "";
  const std::string reset_bit =
      f.has_bit >= 0 ? " has_bits_.reset(" + bit + ");" : "";
  if (f.has_bit >= 0) {
    out_ << "  bool has_" << b << "() const { return has_bits_[" << bit
         << "]; }\n";
  } else {
    out_ << "  bool has_" << b
         << "() const { return ::zt::protozero::cppgen_internal::IsNonZero("
         << m << "); }\n";
  }
  if (f.is_string) {
    out_ << "  const ::std::string& " << b << "() const { return " << m
         << "; }\n"
         << "  void set_" << b << "(const ::std::string& value) { " << m
         << " = value;" << set_bit << " }\n"
         << "  void set_" << b << "(::std::string&& value) { " << m
         << " = static_cast<::std::string&&>(value);" << set_bit << " }\n";
    if (fd->type() == FieldDescriptor::TYPE_BYTES) {
      out_ << "  void set_" << b << "(const void* data, size_t size) { " << m
           << ".assign(static_cast<const char*>(data), size);" << set_bit
           << " }\n";
    }
    out_ << "  ::std::string* mutable_" << b << "() {" << set_bit
         << " return &" << m << "; }\n"
         << "  void clear_" << b << "() { " << m << ".clear();" << reset_bit
         << " }\n";
    return;
  }
  std::string zero = t + "{}";
  if (fd->type() == FieldDescriptor::TYPE_ENUM)
    zero = names_.QualifiedValue(fd->default_value_enum());
  out_ << "  " << t << " " << b << "() const { return " << m << "; }\n"
       << "  void set_" << b << "(" << t << " value) { " << m << " = value;"
       << set_bit << " }\n"
       << "  void clear_" << b << "() { " << m << " = " << zero << ";"
       << reset_bit << " }\n";
}

void HeaderEmitter::EmitClass(const Descriptor* msg) {
  const std::string cls = names_.FlatName(msg);
  const std::vector<CgField> fields = names_.Fields(msg);
  out_ << "// Value class for proto message " << msg->full_name() << ".\n";
  out_ << "class " << cls << " {\n public:\n";
  for (int i = 0; i < msg->nested_type_count(); ++i) {
    const Descriptor* nested = msg->nested_type(i);
    if (!names_.HasValueClass(nested))
      continue;  // Held as bytes by the lazy fields naming it.
    out_ << "  using " << SanitizeIdent(nested->name()) << " = "
         << names_.Qualified(nested) << ";\n";
  }
  for (int i = 0; i < msg->enum_type_count(); ++i) {
    const EnumDescriptor* en = msg->enum_type(i);
    const std::string alias = SanitizeIdent(en->name());
    out_ << "  using " << alias << " = " << names_.Qualified(en) << ";\n";
    out_ << "  static const char* " << SanitizeIdent(en->name() + "_Name")
         << "(" << alias << " value) {\n"
         << "    return " << names_.QualifiedEnumHelper(en, "_Name")
         << "(value);\n"
         << "  }\n";
    for (int j = 0; j < en->value_count(); ++j) {
      const EnumValueDescriptor* v = en->value(j);
      out_ << "  static constexpr " << alias << " " << SanitizeIdent(v->name())
           << " = " << names_.QualifiedValue(v) << ";\n";
    }
  }
  if (!fields.empty()) {
    out_ << "  enum FieldNumbers : uint32_t {\n";
    for (const CgField& f : fields)
      out_ << "    " << f.constant << " = " << f.fd->number() << ",\n";
    out_ << "  };\n";
  }
  out_ << "\n"
       << "  " << cls << "();\n"
       << "  ~" << cls << "();\n"
       << "  " << cls << "(const " << cls << "&);\n"
       << "  " << cls << "(" << cls << "&&) noexcept;\n"
       << "  " << cls << "& operator=(const " << cls << "&);\n"
       << "  " << cls << "& operator=(" << cls << "&&) noexcept;\n"
       << "\n"
       << "  // Field by field, unknown fields included (bytewise).\n"
       << "  bool operator==(const " << cls << "& other) const;\n"
       << "  bool operator!=(const " << cls
       << "& other) const { return !(*this == other); }\n"
       << "\n"
       << "  // Clears, then parses. False on malformed input, nesting deeper\n"
       << "  // than ::zt::protozero::kCppGenMaxParseDepth or an embedded\n"
       << "  // message over kCppGenMaxNestedMessageSize; the contents are\n"
       << "  // then unspecified (but valid). Never reads out of bounds.\n"
       << "  bool ParseFromArray(const void* data, size_t size);\n"
       << "  bool ParseFromString(const ::std::string& data) {\n"
       << "    return ParseFromArray(data.data(), data.size());\n"
       << "  }\n"
       << "  // Parses into the current contents (protobuf merge semantics).\n"
       << "  bool MergeFromArray(const void* data, size_t size) {\n"
       << "    return MergeFromArrayAtDepth(data, size, 0);\n"
       << "  }\n"
       << "  // Internal: |depth| is this message's nesting level.\n"
       << "  bool MergeFromArrayAtDepth(const void* data, size_t size, int "
          "depth);\n"
       << "  // Known fields in number order, then the unknown ones.\n"
       << "  ::std::string SerializeAsString() const;\n"
       << "  ::std::vector<uint8_t> SerializeAsArray() const;\n"
       << "  // Appends the fields to |msg|.\n"
       << "  void Serialize(::zt::protozero::Message* msg) const;\n"
       << "  void Clear();\n"
       << "  // Fields the schema does not know, or that had an unexpected\n"
       << "  // wire type, encoded (tag + value) in the order received.\n"
       << "  const ::std::string& unknown_fields() const { return "
          "unknown_fields_; }\n"
       << "  // The run-time schema (link the schema library: "
          "zt_cppgen_schema_library).\n"
       << "  static const ::zt::protozero::MessageSchema* GetSchema() {\n"
       << "    return " << cls << "_Schema();\n"
       << "  }\n";

  for (const CgField& f : fields)
    EmitField(cls, f);

  out_ << "\n private:\n";
  for (const CgField& f : fields)
    EmitStorage(f);
  out_ << "  ::std::string unknown_fields_;\n";
  bool any_lazy = false;
  for (const CgField& f : fields)
    any_lazy = any_lazy || f.is_lazy;
  if (any_lazy)
    out_ << "  ::zt::protozero::LazyFields lazy_fields_;\n";
  const int bits = Names::NumHasBits(fields);
  if (bits > 0)
    out_ << "  ::std::bitset<" << bits << "> has_bits_;\n";
  out_ << "};\n\n";
}

std::string HeaderEmitter::Emit() {
  const std::string guard = names_.HeaderGuard();
  out_ << "// Generated by protoc-gen-pbzero (cppgen) from "
       << names_.file()->name() << ". DO NOT EDIT.\n\n";
  out_ << "#ifndef " << guard << "\n#define " << guard << "\n\n";
  EmitIncludes();
  out_ << "\n";
  const std::vector<std::string> ns = names_.NamespaceParts(names_.file());
  for (const std::string& p : ns)
    out_ << "namespace " << p << " {\n";
  out_ << "\n";
  if (!names_.messages().empty()) {
    for (const Descriptor* msg : names_.value_messages())
      out_ << "class " << names_.FlatName(msg) << ";\n";
    out_ << "\n// Run-time schemas, defined in the schema library "
            "(X.schema.cc).\n";
    for (const Descriptor* msg : names_.messages()) {
      out_ << "const ::zt::protozero::MessageSchema* " << names_.FlatName(msg)
           << "_Schema();\n";
    }
    out_ << "\n";
  }
  for (const EnumDescriptor* en : names_.enums())
    EmitEnum(en);
  for (const Descriptor* msg : names_.value_messages())
    EmitClass(msg);
  const std::string deferred = deferred_.str();
  if (!deferred.empty()) {
    out_ << "// Accessors that need complete message types.\n"
         << deferred << "\n";
  }
  for (auto it = ns.rbegin(); it != ns.rend(); ++it)
    out_ << "}  // namespace " << *it << "\n";
  out_ << "\n#endif  // " << guard << "\n";
  return out_.str();
}

}  // namespace

std::string GenerateHeader(const Names& names) {
  return HeaderEmitter(names).Emit();
}

}  // namespace cppgen
}  // namespace pbzero_plugin
}  // namespace zt
