// Entry point of protoc-gen-pbzero. protoc runs it as a plugin:
//   protoc --plugin=protoc-gen-pbzero=<path>
//          --pbzero_out=wrapper_namespace=pbzero:<out_dir> -I<root> x.proto
// and, for the .gen.h/.gen.cc value classes (cppgen_generator.h):
//          --pbzero_out=generator=cppgen,wrapper_namespace=gen:<out_dir> ...

#include <google/protobuf/compiler/plugin.h>

#include "src/protozero/plugin/pbzero_generator.h"

int main(int argc, char** argv) {
  zt::pbzero_plugin::PbzeroGenerator generator;
  return google::protobuf::compiler::PluginMain(argc, argv, &generator);
}
