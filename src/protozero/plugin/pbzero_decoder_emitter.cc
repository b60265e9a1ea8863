// Decoder classes (M_Decoder) of X.pbzero.h: typed accessors over
// zt::protozero::TypedProtoDecoder. Part of the pbzero FileGenerator.

#include <string>

#include "src/protozero/plugin/pbzero_file_generator.h"

namespace zt {
namespace pbzero_plugin {
namespace pbzero_internal {

// Repeated-field iterators point into the decoder's field table, so calling
// the accessor on a temporary decoder would dangle: make that a compile
// error rather than a use-after-scope.
void FileGenerator::EmitDeletedTemporaryAccessor(const std::string& name,
                                                 const std::string& params) {
  out_ << "  void " << name << "(" << params << ") const&& = delete;\n";
}

void FileGenerator::EmitDecoderField(const FieldNames& f, bool in_table) {
  const FieldDescriptor* fd = f.field;
  const std::string num = std::to_string(fd->number());
  // Fields inside the table are O(1) via at<N>(); others (very large ids)
  // are found by scanning the message each time.
  const std::string field_expr =
      in_table ? "at<" + num + ">()" : "FindField(" + num + ")";

  if (!in_table)
    out_ << "  // Id above the O(1) table: each call scans the message.\n";
  out_ << "  bool has_" << f.base << "() const { return " << field_expr
       << ".valid(); }\n";

  if (fd->is_repeated()) {
    switch (fd->type()) {
      case FieldDescriptor::TYPE_STRING:
        out_ << "  ::zt::protozero::RepeatedFieldIterator<::std::string_view> "
             << f.base << "() const& {\n"
             << "    return GetRepeated<::std::string_view>(" << num
             << ");\n  }\n";
        EmitDeletedTemporaryAccessor(f.base, "");
        return;
      case FieldDescriptor::TYPE_BYTES:
      case FieldDescriptor::TYPE_MESSAGE:
        out_ << "  ::zt::protozero::RepeatedFieldIterator<"
                "::zt::protozero::ConstBytes> "
             << f.base << "() const& {\n"
             << "    return GetRepeated<::zt::protozero::ConstBytes>(" << num
             << ");\n  }\n";
        EmitDeletedTemporaryAccessor(f.base, "");
        return;
      default: {
        const ScalarSpec spec = SpecFor(fd->type());
        const char* kind = nullptr;
        switch (fd->type()) {
          case FieldDescriptor::TYPE_SINT32:
          case FieldDescriptor::TYPE_SINT64:
            kind = "kZigZag";
            break;
          case FieldDescriptor::TYPE_FIXED32:
          case FieldDescriptor::TYPE_SFIXED32:
          case FieldDescriptor::TYPE_FLOAT:
            kind = "kFixed32";
            break;
          case FieldDescriptor::TYPE_FIXED64:
          case FieldDescriptor::TYPE_SFIXED64:
          case FieldDescriptor::TYPE_DOUBLE:
            kind = "kFixed64";
            break;
          default:
            kind = "kVarInt";
            break;
        }
        const std::string value_type =
            fd->type() == FieldDescriptor::TYPE_ENUM
                ? Qualified(fd->enum_type())
                : std::string(spec.cpp_type);
        const std::string args =
            std::string("::zt::protozero::PackedKind::") + kind + ", " +
            value_type;
        out_ << "  ::zt::protozero::PackedRepeatedFieldIterator<" << args
             << "> " << f.base
             << "(bool* parse_error_out = nullptr) const& {\n"
             << "    return GetPackedRepeated<" << args << ">(" << num
             << ", parse_error_out);\n  }\n";
        EmitDeletedTemporaryAccessor(f.base, "bool* parse_error_out = nullptr");
        return;
      }
    }
  }

  std::string type, accessor;
  switch (fd->type()) {
    case FieldDescriptor::TYPE_INT32: type = "int32_t"; accessor = "as_int32()"; break;
    case FieldDescriptor::TYPE_INT64: type = "int64_t"; accessor = "as_int64()"; break;
    case FieldDescriptor::TYPE_UINT32: type = "uint32_t"; accessor = "as_uint32()"; break;
    case FieldDescriptor::TYPE_UINT64: type = "uint64_t"; accessor = "as_uint64()"; break;
    case FieldDescriptor::TYPE_SINT32: type = "int32_t"; accessor = "as_sint32()"; break;
    case FieldDescriptor::TYPE_SINT64: type = "int64_t"; accessor = "as_sint64()"; break;
    case FieldDescriptor::TYPE_FIXED32: type = "uint32_t"; accessor = "as_uint32()"; break;
    case FieldDescriptor::TYPE_FIXED64: type = "uint64_t"; accessor = "as_uint64()"; break;
    case FieldDescriptor::TYPE_SFIXED32: type = "int32_t"; accessor = "as_int32()"; break;
    case FieldDescriptor::TYPE_SFIXED64: type = "int64_t"; accessor = "as_int64()"; break;
    case FieldDescriptor::TYPE_FLOAT: type = "float"; accessor = "as_float()"; break;
    case FieldDescriptor::TYPE_DOUBLE: type = "double"; accessor = "as_double()"; break;
    case FieldDescriptor::TYPE_BOOL: type = "bool"; accessor = "as_bool()"; break;
    case FieldDescriptor::TYPE_STRING: type = "::std::string_view"; accessor = "as_string()"; break;
    case FieldDescriptor::TYPE_BYTES:
    case FieldDescriptor::TYPE_MESSAGE:
      type = "::zt::protozero::ConstBytes"; accessor = "as_bytes()"; break;
    case FieldDescriptor::TYPE_ENUM:
      type = Qualified(fd->enum_type());
      out_ << "  " << type << " " << f.base << "() const {\n"
           << "    return static_cast<" << type << ">(" << field_expr
           << ".as_int32());\n  }\n";
      return;
    default:
      return;
  }
  out_ << "  " << type << " " << f.base << "() const { return " << field_expr
       << "." << accessor << "; }\n";
}

void FileGenerator::EmitDecoder(const Descriptor* msg,
                                const std::vector<FieldNames>& names) {
  const std::string name = DecoderName(msg);
  int max_id = 0;
  bool has_repeated = false;
  for (const FieldNames& f : names) {
    if (f.field->number() <= kMaxDecoderTableFieldId)
      max_id = std::max(max_id, f.field->number());
    has_repeated = has_repeated || f.field->is_repeated();
  }
  const std::string base = "::zt::protozero::TypedProtoDecoder<" +
                           std::to_string(max_id) + ", " +
                           (has_repeated ? "true" : "false") + ">";
  out_ << "// Decoder for proto message " << msg->full_name()
       << ". Parses the whole message on construction; absent fields read as "
          "zero/empty.\n";
  out_ << "class " << name << " : public " << base << " {\n"
       << " public:\n";
  out_ << "  " << name << "(const uint8_t* data, size_t len)\n"
       << "      : " << base << "(data, len) {}\n";
  out_ << "  explicit " << name << "(::std::string_view raw) : " << base
       << "(raw) {}\n";
  out_ << "  explicit " << name << "(::zt::protozero::ConstBytes raw) : "
       << base << "(raw) {}\n";
  for (const FieldNames& f : names)
    EmitDecoderField(f, f.field->number() <= kMaxDecoderTableFieldId);
  out_ << "};\n\n";
}

}  // namespace pbzero_internal
}  // namespace pbzero_plugin
}  // namespace zt
