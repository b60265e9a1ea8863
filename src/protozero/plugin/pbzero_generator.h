// protoc-gen-pbzero: turns a .proto file into X.pbzero.h (header-only
// append-only writers and typed decoders over zt::protozero) and an empty
// X.pbzero.cc. See docs/design/protozero.md, section "Generated code".
//
// Parameters (comma-separated key=value, as protoc passes them after
// --pbzero_out=...:<dir>):
//   wrapper_namespace=<ns>   innermost namespace (one C++ identifier) for
//                            everything generated, e.g. package a.b +
//                            pbzero -> a::b::pbzero. Absent or empty: no
//                            wrapper namespace. Every file of a program must
//                            use the same value: references to imported
//                            types assume it.
//   generator=<g>            pbzero (default): X.pbzero.h writer/decoder
//                            stubs; cppgen: X.gen.h/X.gen.cc value classes
//                            with schema tables (cppgen_generator.h).

#ifndef ZT_SRC_PROTOZERO_PLUGIN_PBZERO_GENERATOR_H_
#define ZT_SRC_PROTOZERO_PLUGIN_PBZERO_GENERATOR_H_

#include <cstdint>
#include <string>

#include <google/protobuf/compiler/code_generator.h>

namespace zt {
namespace pbzero_plugin {

class PbzeroGenerator : public google::protobuf::compiler::CodeGenerator {
 public:
  PbzeroGenerator();
  ~PbzeroGenerator() override;

  bool Generate(const google::protobuf::FileDescriptor* file,
                const std::string& parameter,
                google::protobuf::compiler::GeneratorContext* context,
                std::string* error) const override;

  uint64_t GetSupportedFeatures() const override;
};

}  // namespace pbzero_plugin
}  // namespace zt

#endif  // ZT_SRC_PROTOZERO_PLUGIN_PBZERO_GENERATOR_H_
