#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {

const char* ArgTypeName(ArgType type) {
  switch (type) {
    case ArgType::kInt:
      return "int";
    case ArgType::kUint:
      return "uint";
    case ArgType::kString:
      return "string";
    case ArgType::kReal:
      return "real";
    case ArgType::kPointer:
      return "pointer";
    case ArgType::kBool:
      return "bool";
    case ArgType::kJson:
      return "json";
    case ArgType::kNull:
      return "null";
  }
  return "null";
}

}  // namespace processor
}  // namespace zt
