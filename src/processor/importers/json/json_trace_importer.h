// Imports a Chrome JSON trace (docs/design/json_import.md): the object form
// {"traceEvents": [...], ...} or a bare array, cut off or whole, fed in
// pieces of any size so that neither a mapped file nor a decompressing
// stream is ever held twice. Events are kept compactly (json_event.h) as
// they are read, then sorted by time and turned into rows
// (json_event_parser.h), as upstream's importer does.
//
//   JsonTraceImporter importer(&storage);
//   while (...) importer.Feed(piece, size);
//   ImportResult result = importer.Finish();
//
// Any bytes are accepted: events that cannot be read are counted
// (json_tokenizer_failure, json_parser_failure) and the first ones listed
// in storage.import_problems with their offsets; broken structure stops
// reading there and keeps what came before. Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_JSON_JSON_TRACE_IMPORTER_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_JSON_JSON_TRACE_IMPORTER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "src/processor/importers/json/json_event.h"
#include "src/processor/importers/json/json_trace_splitter.h"
#include "src/processor/importers/trace_importer.h"
#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {

class JsonTraceImporter : private JsonTraceSplitter::Handler {
 public:
  explicit JsonTraceImporter(TraceStorage* storage);

  // The next piece of the trace's text. False once its structure is
  // broken (what came before is kept; the rest is ignored).
  bool Feed(const char* data, size_t size);
  // End of input: sorts the events and fills the tables.
  ImportResult Finish();

 private:
  void OnEvent(std::string_view json, uint64_t offset) override;
  void OnTopLevelKey(std::string_view key, std::string_view value_json) override;
  void OnSkipped(std::string_view key, uint64_t bytes, uint64_t offset) override;
  void Problem(uint64_t offset, std::string what);
  void ReadMetadata(std::string_view json);

  TraceStorage* const storage_;
  JsonTraceSplitter splitter_;
  JsonEventReader reader_;
  std::vector<JsonEvent> events_;
  bool any_complete_event_ = false;
  bool reported_structure_ = false;
  std::string error_scratch_;
};

// Imports a JSON trace held in memory (a mapped file), in 8 MiB pieces,
// with ImportOptions' progress and release_input callbacks.
ImportResult ImportJsonTrace(const void* data, size_t size, TraceStorage* storage,
                             const ImportOptions& options);

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_JSON_JSON_TRACE_IMPORTER_H_
