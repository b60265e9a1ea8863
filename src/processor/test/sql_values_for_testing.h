// SqlValue cells in one call each, for tests of what consumes query rows
// (the RPC batch writer, ztrace's output formats).

#ifndef ZT_SRC_PROCESSOR_TEST_SQL_VALUES_FOR_TESTING_H_
#define ZT_SRC_PROCESSOR_TEST_SQL_VALUES_FOR_TESTING_H_

#include <cstdint>
#include <string>

#include "zt/processor/trace_processor.h"

namespace zt {
namespace processor {
namespace testing {

inline SqlValue Int(int64_t v) {
  SqlValue value;
  value.type = SqlValue::kInt;
  value.int_value = v;
  return value;
}

inline SqlValue Real(double v) {
  SqlValue value;
  value.type = SqlValue::kReal;
  value.real_value = v;
  return value;
}

inline SqlValue Text(const std::string& v) {
  SqlValue value;
  value.type = SqlValue::kText;
  value.text = v;
  return value;
}

inline SqlValue Blob(const std::string& bytes) {
  SqlValue value;
  value.type = SqlValue::kBlob;
  value.text = bytes;
  return value;
}

inline SqlValue Null() { return SqlValue(); }

}  // namespace testing
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_TEST_SQL_VALUES_FOR_TESTING_H_
