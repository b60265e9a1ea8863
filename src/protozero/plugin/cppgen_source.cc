// cppgen: emits the out-of-line members of every class declared in X.gen.h
// (cppgen_header.cc), in two files:
//   X.gen.cc        special members, Clear, the serializer;
//   X.gen_parse.cc  the reading side: the parser (ParseFromArray,
//                   MergeFromArrayAtDepth) and operator==.
// Two objects, so that a static program that only builds and encodes
// messages (the in-process SDK passes configs as objects) links no parser,
// no decoder and no comparison; the socket transport, the tools and the
// tests read and compare messages, and link both.

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
using google::protobuf::FieldDescriptor;

namespace {

constexpr char kInternal[] = "::zt::protozero::cppgen_internal::";

// How a non-length-delimited type travels.
struct WireSpec {
  const char* wire_type;    // ProtoWireType enumerator
  const char* packed_kind;  // PackedKind enumerator
  const char* getter;       // Field accessor for a singular value
  const char* append;       // Message method for one value
};

WireSpec SpecFor(FieldDescriptor::Type type) {
  switch (type) {
    case FieldDescriptor::TYPE_INT32:
    case FieldDescriptor::TYPE_ENUM:
      return {"kVarInt", "kVarInt", "as_int32()", "AppendVarInt"};
    case FieldDescriptor::TYPE_INT64:
      return {"kVarInt", "kVarInt", "as_int64()", "AppendVarInt"};
    case FieldDescriptor::TYPE_UINT32:
      return {"kVarInt", "kVarInt", "as_uint32()", "AppendVarInt"};
    case FieldDescriptor::TYPE_UINT64:
      return {"kVarInt", "kVarInt", "as_uint64()", "AppendVarInt"};
    case FieldDescriptor::TYPE_BOOL:
      return {"kVarInt", "kVarInt", "as_bool()", "AppendVarInt"};
    case FieldDescriptor::TYPE_SINT32:
      return {"kVarInt", "kZigZag", "as_sint32()", "AppendSignedVarInt"};
    case FieldDescriptor::TYPE_SINT64:
      return {"kVarInt", "kZigZag", "as_sint64()", "AppendSignedVarInt"};
    case FieldDescriptor::TYPE_FIXED32:
      return {"kFixed32", "kFixed32", "as_uint32()", "AppendFixed"};
    case FieldDescriptor::TYPE_SFIXED32:
      return {"kFixed32", "kFixed32", "as_int32()", "AppendFixed"};
    case FieldDescriptor::TYPE_FLOAT:
      return {"kFixed32", "kFixed32", "as_float()", "AppendFixed"};
    case FieldDescriptor::TYPE_FIXED64:
      return {"kFixed64", "kFixed64", "as_uint64()", "AppendFixed"};
    case FieldDescriptor::TYPE_SFIXED64:
      return {"kFixed64", "kFixed64", "as_int64()", "AppendFixed"};
    case FieldDescriptor::TYPE_DOUBLE:
      return {"kFixed64", "kFixed64", "as_double()", "AppendFixed"};
    default:
      return {"kLengthDelimited", nullptr, nullptr, nullptr};
  }
}

// The type values of a repeated scalar are read/written as on the wire:
// int32_t for enums, the stored type otherwise.
std::string WireCppType(const CgField& f) {
  return f.fd->type() == FieldDescriptor::TYPE_ENUM ? "int32_t" : f.cpp_type;
}

class SourceEmitter {
 public:
  enum class Part { kClasses, kParsers };
  SourceEmitter(const Names& names, Part part) : names_(names), part_(part) {}
  std::string Emit();

 private:
  void EmitClass(const Descriptor* msg);
  void EmitParser(const std::string& cls, const std::vector<CgField>& fields);
  void EmitEquality(const std::string& cls, const std::vector<CgField>& fields);
  void EmitParseCase(const CgField& f);
  void EmitSerializer(const std::string& cls,
                      const std::vector<CgField>& fields);

  const Names& names_;
  const Part part_;
  std::ostringstream out_;
};

void SourceEmitter::EmitParseCase(const CgField& f) {
  const FieldDescriptor* fd = f.fd;
  const std::string& m = f.member;
  out_ << "      case " << fd->number() << ":  // " << fd->name() << "\n";
  if (f.is_message) {
    out_ << "        if (field.type() != WireType::kLengthDelimited)\n"
         << "          break;\n"
         << "        if (field.size() > "
            "::zt::protozero::kCppGenMaxNestedMessageSize)\n"
         << "          return false;\n";
    if (fd->is_repeated()) {
      out_ << "        " << m << ".emplace_back();\n"
           << "        if (!" << m << ".back().MergeFromArrayAtDepth(";
    } else {
      out_ << "        if (!" << m << ".GetOrCreate()->MergeFromArrayAtDepth(";
    }
    out_ << "field.data(), field.size(), depth + 1))\n"
         << "          return false;\n"
         << "        continue;\n";
    return;
  }
  if (f.is_lazy) {
    // Appended, not replaced: see LazyFields::Append.
    out_ << "        if (field.type() != WireType::kLengthDelimited)\n"
         << "          break;\n"
         << "        lazy_fields_.Append(" << fd->number()
         << ", field.data(), field.size());\n"
         << "        continue;\n";
    return;
  }
  if (f.is_string) {
    out_ << "        if (field.type() != WireType::kLengthDelimited)\n"
         << "          break;\n";
    if (fd->is_repeated()) {
      out_ << "        " << m << ".push_back(field.as_std_string());\n";
    } else {
      out_ << "        " << m << " = field.as_std_string();\n";
      if (f.has_bit >= 0)
        out_ << "        has_bits_.set(" << f.has_bit << ");\n";
    }
    out_ << "        continue;\n";
    return;
  }
  const WireSpec spec = SpecFor(fd->type());
  if (fd->is_repeated()) {
    out_ << "        switch (::zt::protozero::cppgen_internal::"
            "ReadRepeatedScalar<::zt::protozero::PackedKind::"
         << spec.packed_kind << ", " << WireCppType(f) << ">(field, &" << m
         << ")) {\n"
         << "          case ::zt::protozero::cppgen_internal::ReadResult::kOk:"
            "\n"
         << "            continue;\n"
         << "          case ::zt::protozero::cppgen_internal::ReadResult::"
            "kMalformed:\n"
         << "            return false;\n"
         << "          case ::zt::protozero::cppgen_internal::ReadResult::"
            "kWrongWireType:\n"
         << "            break;\n"
         << "        }\n"
         << "        break;\n";
    return;
  }
  out_ << "        if (field.type() != WireType::" << spec.wire_type << ")\n"
       << "          break;\n";
  if (fd->type() == FieldDescriptor::TYPE_ENUM) {
    out_ << "        " << m << " = static_cast<" << f.cpp_type
         << ">(field.as_int32());\n";
  } else {
    out_ << "        " << m << " = field." << spec.getter << ";\n";
  }
  if (f.has_bit >= 0)
    out_ << "        has_bits_.set(" << f.has_bit << ");\n";
  out_ << "        continue;\n";
}

void SourceEmitter::EmitParser(const std::string& cls,
                               const std::vector<CgField>& fields) {
  out_ << "bool " << cls << "::ParseFromArray(const void* data, size_t size) {\n"
       << "  Clear();\n"
       << "  return MergeFromArrayAtDepth(data, size, 0);\n"
       << "}\n\n";
  out_ << "bool " << cls
       << "::MergeFromArrayAtDepth(const void* data, size_t size, int depth) "
          "{\n"
       << "  if (depth > ::zt::protozero::kCppGenMaxParseDepth)\n"
       << "    return false;\n"
       << "  ::zt::protozero::ProtoDecoder decoder(data, size);\n";
  // Every case but repeated scalars (ReadRepeatedScalar) checks the type.
  bool checks_wire_type = false;
  for (const CgField& f : fields)
    checks_wire_type |= !(f.is_scalar && f.fd->is_repeated());
  if (checks_wire_type)
    out_ << "  using WireType = ::zt::protozero::proto_utils::ProtoWireType;\n";
  out_ << "  for (::zt::protozero::Field field = decoder.ReadField(); "
          "field.valid();\n"
       << "       field = decoder.ReadField()) {\n";
  if (!fields.empty()) {
    out_ << "    switch (field.id()) {\n";
    for (const CgField& f : fields)
      EmitParseCase(f);
    out_ << "      default:\n"
         << "        break;\n"
         << "    }\n";
  }
  out_ << "    // Unknown id, or a wire type the schema type cannot have.\n"
       << "    field.SerializeAndAppendTo(&unknown_fields_);\n"
       << "  }\n"
       << "  return !decoder.parse_error();\n"
       << "}\n\n";
}

void SourceEmitter::EmitSerializer(const std::string& cls,
                                   const std::vector<CgField>& fields) {
  out_ << "void " << cls << "::Serialize(::zt::protozero::Message* msg) const {\n";
  for (const CgField& f : fields) {
    const FieldDescriptor* fd = f.fd;
    const std::string num = std::to_string(fd->number());
    const std::string& m = f.member;
    out_ << "  // " << fd->number() << ": " << fd->name() << "\n";
    if (f.is_lazy) {
      out_ << "  lazy_fields_.Serialize(" << num << ", msg);\n";
      continue;
    }
    if (f.is_message) {
      if (fd->is_repeated()) {
        out_ << "  for (const " << f.cpp_type << "& value : " << m << ")\n"
             << "    value.Serialize(" << kInternal << "BeginNestedField(msg, "
             << num << "));\n";
      } else {
        out_ << "  if (" << m << ")\n"
             << "    " << m << "->Serialize(" << kInternal
             << "BeginNestedField(msg, " << num << "));\n";
      }
      continue;
    }
    if (f.is_string) {
      if (fd->is_repeated()) {
        out_ << "  for (const ::std::string& value : " << m << ")\n"
             << "    " << kInternal << "AppendBytesField(msg, " << num
             << ", value);\n";
      } else {
        out_ << "  if (has_" << f.base << "())\n"
             << "    " << kInternal << "AppendBytesField(msg, " << num << ", "
             << m << ");\n";
      }
      continue;
    }
    const WireSpec spec = SpecFor(fd->type());
    if (fd->is_packed()) {
      out_ << "  ::zt::protozero::cppgen_internal::AppendPacked<"
              "::zt::protozero::PackedKind::"
           << spec.packed_kind << ", " << WireCppType(f) << ">(msg, " << num
           << ", " << m << ");\n";
    } else if (fd->is_repeated()) {
      out_ << "  for (" << f.cpp_type << " value : " << m << ")\n"
           << "    " << kInternal << spec.append << "Field(msg, " << num
           << ", value);\n";
    } else {
      out_ << "  if (has_" << f.base << "())\n"
           << "    " << kInternal << spec.append << "Field(msg, " << num
           << ", " << m << ");\n";
    }
  }
  out_ << "  if (!unknown_fields_.empty())\n"
       << "    msg->AppendRawProtoBytes(unknown_fields_.data(), "
          "unknown_fields_.size());\n"
       << "}\n\n";

  out_ << "::std::string " << cls << "::SerializeAsString() const {\n"
       << "  return ::zt::protozero::cppgen_internal::SerializeToString(\n"
       << "      this, [](const void* self, ::zt::protozero::Message* msg) {\n"
       << "        static_cast<const " << cls << "*>(self)->Serialize(msg);\n"
       << "      });\n"
       << "}\n\n";
  out_ << "::std::vector<uint8_t> " << cls << "::SerializeAsArray() const {\n"
       << "  return ::zt::protozero::cppgen_internal::SerializeToArray(\n"
       << "      this, [](const void* self, ::zt::protozero::Message* msg) {\n"
       << "        static_cast<const " << cls << "*>(self)->Serialize(msg);\n"
       << "      });\n"
       << "}\n\n";
}

void SourceEmitter::EmitEquality(const std::string& cls,
                                 const std::vector<CgField>& fields) {
  out_ << "bool " << cls << "::operator==(const " << cls
       << "& other) const {\n"
       << "  return unknown_fields_ == other.unknown_fields_";
  if (Names::NumHasBits(fields) > 0)
    out_ << " &&\n         has_bits_ == other.has_bits_";
  bool any_lazy = false;
  for (const CgField& f : fields) {
    if (f.is_lazy) {
      any_lazy = true;
      continue;
    }
    out_ << " &&\n         " << f.member << " == other." << f.member;
  }
  if (any_lazy)
    out_ << " &&\n         lazy_fields_ == other.lazy_fields_";
  out_ << ";\n}\n\n";
}

void SourceEmitter::EmitClass(const Descriptor* msg) {
  const std::string cls = names_.FlatName(msg);
  const std::vector<CgField> fields = names_.Fields(msg);
  out_ << "// " << msg->full_name() << "\n\n";
  out_ << cls << "::" << cls << "() = default;\n"
       << cls << "::~" << cls << "() = default;\n"
       << cls << "::" << cls << "(const " << cls << "&) = default;\n"
       << cls << "::" << cls << "(" << cls << "&&) noexcept = default;\n"
       << cls << "& " << cls << "::operator=(const " << cls
       << "&) = default;\n"
       << cls << "& " << cls << "::operator=(" << cls
       << "&&) noexcept = default;\n\n";

  out_ << "void " << cls << "::Clear() {\n"
       << "  *this = " << cls << "();\n"
       << "}\n\n";
  EmitSerializer(cls, fields);
}

std::string SourceEmitter::Emit() {
  out_ << "// Generated by protoc-gen-pbzero (cppgen) from "
       << names_.file()->name() << ". DO NOT EDIT.\n\n";
  out_ << "#include \"" << Names::HeaderPath(names_.file()) << "\"\n\n"
       << "#include \"zt/protozero/cpp_message_internal.h\"\n\n";
  const std::vector<std::string> ns = names_.NamespaceParts(names_.file());
  for (const std::string& p : ns)
    out_ << "namespace " << p << " {\n";
  out_ << "\n";
  for (const Descriptor* msg : names_.value_messages()) {
    if (part_ == Part::kClasses) {
      EmitClass(msg);
    } else {
      out_ << "// " << msg->full_name() << "\n\n";
      EmitParser(names_.FlatName(msg), names_.Fields(msg));
      EmitEquality(names_.FlatName(msg), names_.Fields(msg));
    }
  }
  for (auto it = ns.rbegin(); it != ns.rend(); ++it)
    out_ << "}  // namespace " << *it << "\n";
  return out_.str();
}

}  // namespace

std::string GenerateSource(const Names& names) {
  return SourceEmitter(names, SourceEmitter::Part::kClasses).Emit();
}

std::string GenerateParserSource(const Names& names) {
  return SourceEmitter(names, SourceEmitter::Part::kParsers).Emit();
}

}  // namespace cppgen
}  // namespace pbzero_plugin
}  // namespace zt
