#include "src/protozero/plugin/codegen_utils.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace zt {
namespace pbzero_plugin {

bool IsReservedWord(const std::string& s) {
  static const std::set<std::string>* const kWords = new std::set<std::string>{
      // C++ keywords (up to C++20) and alternative tokens.
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor",
      "bool", "break", "case", "catch", "char", "char8_t", "char16_t",
      "char32_t", "class", "compl", "concept", "const", "consteval",
      "constexpr", "constinit", "const_cast", "continue", "co_await",
      "co_return", "co_yield", "decltype", "default", "delete", "do",
      "double", "dynamic_cast", "else", "enum", "explicit", "export",
      "extern", "false", "float", "for", "friend", "goto", "if", "inline",
      "int", "long", "mutable", "namespace", "new", "noexcept", "not",
      "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected",
      "public", "register", "reinterpret_cast", "requires", "return", "short",
      "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
      "switch", "template", "this", "thread_local", "throw", "true", "try",
      "typedef", "typeid", "typename", "union", "unsigned", "using",
      "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
      // Type names the generated code spells unqualified.
      "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
      "uint32_t", "uint64_t", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t",
      // Macros commonly defined by libc / compilers.
      "NULL", "EOF", "TRUE", "FALSE", "DOMAIN", "OVERFLOW", "UNDERFLOW",
      "linux", "unix", "errno", "assert", "major", "minor", "stdin", "stdout",
      "stderr", "offsetof", "BIG_ENDIAN", "LITTLE_ENDIAN", "PAGE_SIZE",
      "INT_MAX", "INT_MIN", "UINT_MAX"};
  return kWords->count(s) != 0;
}

std::string SanitizeIdent(const std::string& s) {
  return IsReservedWord(s) ? s + "_" : s;
}

// "foo_bar" -> "FooBar", "fooBar" -> "FooBar", "foo2bar" -> "Foo2bar".
std::string UpperCamel(const std::string& s) {
  std::string out;
  bool upper_next = true;
  for (char c : s) {
    if (c == '_') {
      upper_next = true;
      continue;
    }
    if (upper_next && c >= 'a' && c <= 'z')
      c = static_cast<char>(c - 'a' + 'A');
    upper_next = false;
    out += c;
  }
  return out;
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      if (!cur.empty())
        parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty())
    parts.push_back(cur);
  return parts;
}

std::string StripProto(const std::string& path) {
  const std::string ext = ".proto";
  if (path.size() > ext.size() &&
      path.compare(path.size() - ext.size(), ext.size(), ext) == 0)
    return path.substr(0, path.size() - ext.size());
  return path;
}

// A C++ string literal for |s| (proto names are ASCII identifiers with dots,
// but be safe anyway).
std::string CppStringLiteral(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      snprintf(buf, sizeof(buf), "\\%03o", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

void InsertNestedTypeAliases(const google::protobuf::Descriptor* msg,
                             std::set<std::string>* names) {
  for (int i = 0; i < msg->nested_type_count(); ++i)
    names->insert(SanitizeIdent(msg->nested_type(i)->name()));
  for (int i = 0; i < msg->enum_type_count(); ++i) {
    const google::protobuf::EnumDescriptor* en = msg->enum_type(i);
    names->insert(SanitizeIdent(en->name()));
    names->insert(SanitizeIdent(en->name() + "_Name"));
    for (int j = 0; j < en->value_count(); ++j)
      names->insert(SanitizeIdent(en->value(j)->name()));
  }
}

std::vector<const google::protobuf::FieldDescriptor*> FieldsByNumber(
    const google::protobuf::Descriptor* msg) {
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  for (int i = 0; i < msg->field_count(); ++i)
    fields.push_back(msg->field(i));
  std::sort(fields.begin(), fields.end(),
            [](const google::protobuf::FieldDescriptor* a,
               const google::protobuf::FieldDescriptor* b) {
              return a->number() < b->number();
            });
  return fields;
}

void EmitNamespacedDecls(const NamespacedDecls& decls, std::ostream* out) {
  for (const auto& ns_decls : decls) {
    for (const std::string& p : ns_decls.first)
      *out << "namespace " << p << " {\n";
    for (const std::string& d : ns_decls.second)
      *out << d << "\n";
    for (auto it = ns_decls.first.rbegin(); it != ns_decls.first.rend(); ++it)
      *out << "}  // namespace " << *it << "\n";
  }
}

}  // namespace pbzero_plugin
}  // namespace zt
