// Small string helpers shared by the plugin's code generators: turning proto
// names into safe C++ identifiers, and proto paths into output paths.

#ifndef ZT_SRC_PROTOZERO_PLUGIN_CODEGEN_UTILS_H_
#define ZT_SRC_PROTOZERO_PLUGIN_CODEGEN_UTILS_H_

#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <google/protobuf/descriptor.h>

namespace zt {
namespace pbzero_plugin {

// True for C++ keywords, <cstdint> type names and common libc macros: names
// generated code cannot use as identifiers.
bool IsReservedWord(const std::string& s);

// |s|, with '_' appended if it is a reserved word.
std::string SanitizeIdent(const std::string& s);

// "foo_bar" -> "FooBar", "fooBar" -> "FooBar", "foo2bar" -> "Foo2bar".
std::string UpperCamel(const std::string& s);

// Splits on |sep|, dropping empty parts.
std::vector<std::string> Split(const std::string& s, char sep);

// "a/b.proto" -> "a/b"; other paths unchanged.
std::string StripProto(const std::string& path);

// A C++ string literal (quotes included) spelling |s|.
std::string CppStringLiteral(const std::string& s);

// Adds to |names| the identifiers a generated class of |msg| uses for its
// nested types, nested enums, their _Name functions and their values.
void InsertNestedTypeAliases(const google::protobuf::Descriptor* msg,
                             std::set<std::string>* names);

// The fields of |msg|, sorted by field number.
std::vector<const google::protobuf::FieldDescriptor*> FieldsByNumber(
    const google::protobuf::Descriptor* msg);

// Declarations keyed by the namespace they belong in (outer to inner), as
// both generators emit them for types and functions of other files.
using NamespacedDecls = std::map<std::vector<std::string>, std::set<std::string>>;
// Writes |decls| as "namespace a {\nnamespace b {\n<decl>\n}  // ..." blocks,
// in a stable order.
void EmitNamespacedDecls(const NamespacedDecls& decls, std::ostream* out);

}  // namespace pbzero_plugin
}  // namespace zt

#endif  // ZT_SRC_PROTOZERO_PLUGIN_CODEGEN_UTILS_H_
