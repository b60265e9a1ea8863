// One Chrome JSON trace event as the importer keeps it between reading the
// file and building the tables: its fields decoded, its strings interned,
// its args flattened into a shared buffer. About 100 bytes, whatever the
// event's text size, so that a large trace's events can all be held for
// sorting (JSON events come in any order) while the text is not.
//
//   JsonEventReader reader(&storage->strings);
//   JsonEvent event;
//   std::string error;
//   if (reader.Read(text, &event, &error)) events.push_back(event);
//   // reader.args() holds every event's args, event.args_begin/args_count.
//
// Field meanings follow upstream Perfetto's JSON importer
// (docs/design/json_import.md). Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_JSON_JSON_EVENT_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_JSON_JSON_EVENT_H_

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "src/processor/storage/trace_storage.h"

namespace zt {
namespace processor {

class JsonCursor;

// A flow id written as a string: hexadecimal, "0x" optional, as Chrome
// writes them. False if it is not one.
bool ParseHexId(std::string_view text, uint64_t* out);

// A flattened arg: "args.a.b" -> value; arrays add "[i]" to the key only.
struct JsonArg {
  StringId flat_key = kNullStringId;
  StringId key = kNullStringId;
  ArgType type = ArgType::kNull;
  int64_t int_value = 0;  // kInt, kBool.
  double real_value = 0;  // kReal.
  StringId string_value = kNullStringId;  // kString.
};

struct JsonEvent {
  static constexpr int64_t kUnset = std::numeric_limits<int64_t>::max();
  enum Flags : uint32_t {
    kPidPresent = 1 << 0,
    kTidPresent = 1 << 1,
    kPidIsString = 1 << 2,  // pid is then a StringId (the process's name).
    kTidIsString = 1 << 3,  // tid is then a StringId (the thread's name).
    kHasId = 1 << 4,        // `id` (or id2): numeric in `id`, or a string in id_string.
    kIdIsString = 1 << 5,
    kIdIsLocal = 1 << 6,  // From id2.local: scoped to the process.
    kHasBindId = 1 << 7,
    kBindIdValid = 1 << 8,
    kFlowIn = 1 << 9,
    kFlowOut = 1 << 10,
    kBindsEnclosing = 1 << 11,  // "bp": "e".
    kHasArgs = 1 << 12,         // An `args` object, possibly empty.
  };

  int64_t ts = 0;  // ns
  int64_t dur = kUnset;
  int64_t tts = kUnset;
  int64_t tdur = kUnset;
  int64_t pid = 0;
  int64_t tid = 0;
  uint64_t id = 0;
  uint64_t bind_id = 0;
  StringId name = kNullStringId;
  StringId cat = kNullStringId;
  StringId id_string = kNullStringId;
  uint32_t args_begin = 0;
  uint32_t args_count = 0;
  uint32_t flags = 0;
  char phase = 0;
  char scope = 0;  // Instants' "s": 'g', 'p', 't' or 0.

  bool has(Flags flag) const { return (flags & flag) != 0; }
};

class JsonEventReader {
 public:
  enum class Result {
    kEvent,    // *event filled.
    kEmpty,    // `{}`: skipped silently, as upstream does.
    kInvalid,  // *error says why (json_tokenizer_failure).
  };

  explicit JsonEventReader(StringPool* strings);

  Result Read(std::string_view text, JsonEvent* event, std::string* error);

  std::vector<JsonArg>& args() { return args_; }
  // id2 values that were not {"local": id} or {"global": id}: the event
  // is kept without that id (upstream counts json_tokenizer_failure).
  uint64_t malformed_id2() const { return malformed_id2_; }

 private:
  bool ReadTime(JsonCursor* cursor, int64_t* ns);
  void ReadId(JsonCursor* cursor, JsonEvent* event);
  void ReadId2(JsonCursor* cursor, JsonEvent* id2, std::string* error);
  void ReadPidOrTid(JsonCursor* cursor, int64_t* value, JsonEvent* event,
                    JsonEvent::Flags present, JsonEvent::Flags is_string);
  bool ReadArgs(JsonCursor* cursor, int depth);
  bool ReadArgValue(JsonCursor* cursor, int depth);

  StringPool* const strings_;
  std::vector<JsonArg> args_;
  std::string scratch_;
  std::string key_;       // The arg key being built ("args.a[0].b").
  std::string flat_key_;  // The same without array indices.
  uint64_t malformed_id2_ = 0;
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_JSON_JSON_EVENT_H_
