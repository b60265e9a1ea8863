// The cppgen output of protoc-gen-pbzero (parameter generator=cppgen):
// X.gen.h / X.gen.cc value classes with schema tables. See
// docs/design/cppgen.md. The naming model below is shared by the header
// emitter (cppgen_header.cc) and the source emitter (cppgen_source.cc).
//
// Identifier mapping, on top of the pbzero rules (pbzero_generator.cc):
//   * Messages, enums and enum values are named and flattened exactly as in
//     the .pbzero.h output (Outer_Inner, Outer_Inner_VALUE), in namespace
//     <package parts>::<wrapper_namespace>.
//   * Each field gets a base identifier B (the field name, '_' appended if
//     reserved); its members are B(), B_ (storage), has_B, set_B, mutable_B,
//     clear_B, add_B and B_size, all reserved for every field whatever its
//     kind. Fields are taken in number order; while any of those names is
//     already taken - by the class itself, a fixed member of every class
//     (Serialize, ParseFromArray, ...), a nested type or enum alias, an enum
//     value alias, E_Name, or an earlier field's member - one more '_' is
//     appended to B.
//   * Field-number constants k<UpperCamel(name)>FieldNumber, as in pbzero.
//   * A singular message field marked [lazy = true] is kept as its encoded
//     bytes: B_raw(), set_B_raw(), mutable_B_raw() (reserved too), has_B(),
//     clear_B(). Its message type's header is not included.
//   * Schemas: M_Schema() / E_Schema() free functions in the same namespace,
//     defined by the separate generator=cppschema output (X.schema.cc).

#ifndef ZT_SRC_PROTOZERO_PLUGIN_CPPGEN_GENERATOR_H_
#define ZT_SRC_PROTOZERO_PLUGIN_CPPGEN_GENERATOR_H_

#include <string>
#include <vector>

#include <google/protobuf/compiler/code_generator.h>
#include <google/protobuf/descriptor.h>

namespace zt {
namespace pbzero_plugin {

// Writes <stem>.gen.h, <stem>.gen.cc and <stem>.gen_parse.cc (the parsers,
// apart so that programs that never parse link none) for |file| into
// |context|. Returns false with |*error| set on input it cannot generate
// (groups, C++ name collisions) or on write failure.
bool GenerateCppgen(const google::protobuf::FileDescriptor* file,
                    const std::string& wrapper_namespace,
                    google::protobuf::compiler::GeneratorContext* context,
                    std::string* error);

// Writes <stem>.schema.cc: the run-time schema tables (M_Schema(),
// E_Schema()) of |file|, which need no value class, so that a program can
// parse text configs against every schema while linking value classes for
// a few.
bool GenerateCppSchema(const google::protobuf::FileDescriptor* file,
                       const std::string& wrapper_namespace,
                       google::protobuf::compiler::GeneratorContext* context,
                       std::string* error);

namespace cppgen {

// How one field is spelled, stored and encoded.
struct CgField {
  const google::protobuf::FieldDescriptor* fd = nullptr;
  std::string base;      // B: B(), set_B, has_B, ...
  std::string member;    // storage: B_
  std::string constant;  // kBFieldNumber
  int has_bit = -1;      // index in has_bits_, or -1 (no explicit bit)

  // Element type as stored (T of std::vector<T> for repeated fields).
  std::string cpp_type;
  bool is_message = false;
  bool is_string = false;  // string or bytes, or a lazy message's bytes
  bool is_lazy = false;    // [lazy = true] singular message, kept encoded
  bool is_scalar = false;  // numbers, bool, enums
};

class Names {
 public:
  Names(const google::protobuf::FileDescriptor* file,
        std::string wrapper_namespace);

  const google::protobuf::FileDescriptor* file() const { return file_; }
  // Every message of the file, pre-order (outer before nested), and every
  // enum (top-level first, then those nested in each message).
  const std::vector<const google::protobuf::Descriptor*>& messages() const {
    return messages_;
  }
  // The messages that get a value class: all of messages() except nested
  // messages this file reaches only through lazy fields (a lazy field holds
  // its message as bytes, so nothing here needs the class). Such a message
  // keeps its schema; a value class in another file cannot name it.
  const std::vector<const google::protobuf::Descriptor*>& value_messages()
      const {
    return value_messages_;
  }
  bool HasValueClass(const google::protobuf::Descriptor* msg) const;
  const std::vector<const google::protobuf::EnumDescriptor*>& enums() const {
    return enums_;
  }

  std::vector<std::string> NamespaceParts(
      const google::protobuf::FileDescriptor* file) const;
  std::string FlatName(const google::protobuf::Descriptor* msg) const;
  std::string FlatName(const google::protobuf::EnumDescriptor* en) const;
  std::string Qualified(const google::protobuf::Descriptor* msg) const;
  std::string Qualified(const google::protobuf::EnumDescriptor* en) const;
  std::string ValueFlatName(const google::protobuf::EnumValueDescriptor* v) const;
  std::string QualifiedValue(
      const google::protobuf::EnumValueDescriptor* v) const;
  // Namespace-scope helpers of an enum: suffix "_Name", "_MIN", "_MAX",
  // "_Schema".
  std::string EnumHelper(const google::protobuf::EnumDescriptor* en,
                         const std::string& suffix) const;
  std::string QualifiedEnumHelper(const google::protobuf::EnumDescriptor* en,
                                  const std::string& suffix) const;

  // Fields of |msg| in field-number order, with names assigned.
  std::vector<CgField> Fields(const google::protobuf::Descriptor* msg) const;
  // Number of has-bits |fields| use.
  static int NumHasBits(const std::vector<CgField>& fields);
  // A singular message field the value class keeps as bytes.
  static bool IsLazy(const google::protobuf::FieldDescriptor* fd);

  // "ZT_GEN_<PATH>_GEN_H_".
  std::string HeaderGuard() const;
  static std::string HeaderPath(const google::protobuf::FileDescriptor* file);

  // Fails on groups and on proto names that flatten to the same C++ name.
  bool Validate(std::string* error) const;

 private:
  void Collect(const google::protobuf::Descriptor* msg);
  void CollectValueMessages();
  std::string QualifiedIn(const google::protobuf::FileDescriptor* file,
                          const std::string& flat) const;

  const google::protobuf::FileDescriptor* const file_;
  const std::string wrapper_namespace_;
  std::vector<const google::protobuf::Descriptor*> messages_;
  std::vector<const google::protobuf::Descriptor*> value_messages_;
  std::vector<const google::protobuf::EnumDescriptor*> enums_;
};

// The contents of X.gen.h, X.gen.cc, X.gen_parse.cc and X.schema.cc.
std::string GenerateHeader(const Names& names);
std::string GenerateSource(const Names& names);
std::string GenerateParserSource(const Names& names);
std::string GenerateSchemaSource(const Names& names);

}  // namespace cppgen
}  // namespace pbzero_plugin
}  // namespace zt

#endif  // ZT_SRC_PROTOZERO_PLUGIN_CPPGEN_GENERATOR_H_
