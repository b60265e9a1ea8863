// Small string helpers shared by the plugin's code generators: turning proto
// names into safe C++ identifiers, and proto paths into output paths.

#ifndef ZT_SRC_PROTOZERO_PLUGIN_CODEGEN_UTILS_H_
#define ZT_SRC_PROTOZERO_PLUGIN_CODEGEN_UTILS_H_

#include <string>
#include <vector>

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

}  // namespace pbzero_plugin
}  // namespace zt

#endif  // ZT_SRC_PROTOZERO_PLUGIN_CODEGEN_UTILS_H_
