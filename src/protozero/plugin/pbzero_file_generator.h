// The per-file code generator behind protoc-gen-pbzero's default output
// (X.pbzero.h). Private to the plugin: pbzero_generator.cc holds naming,
// validation and the writer classes, pbzero_decoder_emitter.cc the decoder
// classes. The rules it follows are described at the top of
// pbzero_generator.cc.

#ifndef ZT_SRC_PROTOZERO_PLUGIN_PBZERO_FILE_GENERATOR_H_
#define ZT_SRC_PROTOZERO_PLUGIN_PBZERO_FILE_GENERATOR_H_

#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <google/protobuf/compiler/code_generator.h>
#include <google/protobuf/descriptor.h>

#include "src/protozero/plugin/codegen_utils.h"

namespace zt {
namespace pbzero_plugin {
namespace pbzero_internal {

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::EnumValueDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::FileDescriptor;
using google::protobuf::compiler::GeneratorContext;

// Fields whose id is above this are not given a slot in the decoder's O(1)
// field table (it is an array of MAX_FIELD_ID + 1 entries); they are looked
// up by scanning the message instead.
inline constexpr int kMaxDecoderTableFieldId = 999;

inline constexpr char kUnknownEnumName[] = "PBZERO_UNKNOWN_ENUM_VALUE";

std::string HeaderPathFor(const FileDescriptor* file);

// Members of the zt::protozero base classes that a generated member must not
// hide.
const std::set<std::string>& WriterBaseMembers();
const std::set<std::string>& DecoderBaseMembers();

// Outer.Inner -> Outer_Inner (before sanitizing).
std::string RawFlatName(const Descriptor* msg);
std::string RawFlatName(const EnumDescriptor* en);

// How one field is spelled in the generated classes.
struct FieldNames {
  const FieldDescriptor* field = nullptr;
  std::string base;      // B: set_B, add_B, B(), has_B()
  std::string constant;  // kBFieldNumber
};

class FileGenerator {
 public:
  FileGenerator(const FileDescriptor* file, std::string wrapper_namespace)
      : file_(file), wrapper_namespace_(std::move(wrapper_namespace)) {}

  bool Generate(std::string* header, std::string* error);

 private:
  // Naming.
  std::vector<std::string> NamespaceParts(const FileDescriptor* file) const;
  std::string FlatName(const Descriptor* msg) const;
  std::string FlatName(const EnumDescriptor* en) const;
  std::string Qualified(const FileDescriptor* file,
                        const std::string& flat) const;
  std::string Qualified(const Descriptor* msg) const {
    return Qualified(msg->file(), FlatName(msg));
  }
  std::string Qualified(const EnumDescriptor* en) const {
    return Qualified(en->file(), FlatName(en));
  }
  std::string ValueFlatName(const EnumValueDescriptor* v) const;
  std::string DecoderName(const Descriptor* msg) const {
    return SanitizeIdent(RawFlatName(msg) + "_Decoder");
  }
  // Namespace-scope helpers of an enum: E_Name, E_MIN, E_MAX.
  std::string EnumHelperName(const EnumDescriptor* en,
                             const std::string& suffix) const {
    return SanitizeIdent(RawFlatName(en) + suffix);
  }
  std::string QualifiedValue(const EnumValueDescriptor* v) const {
    return Qualified(v->type()->file(), ValueFlatName(v));
  }
  std::vector<FieldNames> AssignFieldNames(const Descriptor* msg) const;

  // Collection.
  void CollectMessages(const Descriptor* msg);
  void CollectEnums(const EnumDescriptor* en) { enums_.push_back(en); }
  bool Validate(std::string* error) const;

  // Emission.
  void EmitIncludes();
  void EmitForeignDeclarations();
  void EmitEnum(const EnumDescriptor* en);
  void EmitDecoder(const Descriptor* msg, const std::vector<FieldNames>& names);
  void EmitWriter(const Descriptor* msg, const std::vector<FieldNames>& names);
  void EmitWriterField(const FieldNames& f);
  void EmitDeletedTemporaryAccessor(const std::string& name,
                                    const std::string& params);
  void EmitDecoderField(const FieldNames& f, bool in_table);

  const FileDescriptor* const file_;
  const std::string wrapper_namespace_;
  std::vector<const Descriptor*> messages_;  // pre-order
  std::vector<const EnumDescriptor*> enums_;
  std::ostringstream out_;
};

struct ScalarSpec {
  const char* cpp_type;    // argument type of set_/add_
  const char* append;      // Message method
  const char* packed_append;  // how values go into the packed builder
  bool fixed;              // PackedFixedSizeInt<cpp_type> vs PackedVarInt
};

// Spec for every non-length-delimited type (enum handled by the caller).
ScalarSpec SpecFor(FieldDescriptor::Type type);

}  // namespace pbzero_internal
}  // namespace pbzero_plugin
}  // namespace zt

#endif  // ZT_SRC_PROTOZERO_PLUGIN_PBZERO_FILE_GENERATOR_H_
