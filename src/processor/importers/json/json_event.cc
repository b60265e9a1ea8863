#include "src/processor/importers/json/json_event.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "src/processor/importers/json/json_cursor.h"

namespace zt {
namespace processor {
namespace {

constexpr int64_t kMicrosToNanos = 1000;

bool AllDigits(std::string_view text) {
  if (text.empty())
    return false;
  for (char c : text)
    if (c < '0' || c > '9')
      return false;
  return true;
}

// A plain unsigned decimal up to 2^64 - 1 (ids beyond int64).
bool ParseUint64(std::string_view text, uint64_t* out) {
  if (!AllDigits(text) || text.size() > 20)
    return false;
  uint64_t v = 0;
  for (char c : text) {
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - digit) / 10)
      return false;
    v = v * 10 + digit;
  }
  *out = v;
  return true;
}

}  // namespace

// Flow ids written as strings are hexadecimal ("0x1f" or "1f"), as
// Chrome writes them.
bool ParseHexId(std::string_view text, uint64_t* out) {
  if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    text.remove_prefix(2);
  if (text.empty() || text.size() > 16)
    return false;
  uint64_t v = 0;
  for (char c : text) {
    int digit;
    if (c >= '0' && c <= '9')
      digit = c - '0';
    else if (c >= 'a' && c <= 'f')
      digit = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      digit = c - 'A' + 10;
    else
      return false;
    v = v * 16 + static_cast<uint64_t>(digit);
  }
  *out = v;
  return true;
}

JsonEventReader::JsonEventReader(StringPool* strings) : strings_(strings) {}

bool JsonEventReader::ReadTime(JsonCursor* cursor, int64_t* ns) {
  std::string_view text;
  switch (cursor->PeekType()) {
    case JsonType::kNumber:
      if (!cursor->ReadNumber(&text))
        return false;
      break;
    case JsonType::kString: {
      // A number written as a string ("123.5"): read with JSON's grammar.
      if (!cursor->ReadString(&text, &scratch_))
        return false;
      JsonCursor inner(text.data(), text.size());
      std::string_view number;
      if (!inner.ReadNumber(&number) || !inner.AtEnd())
        return false;
      text = number;
      break;
    }
    default:
      cursor->SkipValue();
      return false;
  }
  // Beyond about 146 years a time is not a time, and sums of two (an end,
  // a duration) must not overflow.
  constexpr int64_t kMaxTime = int64_t{1} << 62;
  return JsonNumberToScaledInt(text, kMicrosToNanos, ns) && *ns < kMaxTime && *ns > -kMaxTime;
}

void JsonEventReader::ReadPidOrTid(JsonCursor* cursor, int64_t* value, JsonEvent* event,
                                   JsonEvent::Flags present, JsonEvent::Flags is_string) {
  std::string_view text;
  switch (cursor->PeekType()) {
    case JsonType::kNumber: {
      if (!cursor->ReadNumber(&text))
        return;
      int64_t v;
      if (!JsonNumberToInt(text, &v)) {
        double d;
        v = JsonNumberToDouble(text, &d) && std::fabs(d) < 9.2e18 ? static_cast<int64_t>(d) : 0;
      }
      // Upstream's range: what is not a 32-bit unsigned id becomes 0.
      *value = (v < 0 || v > int64_t{UINT32_MAX}) ? 0 : v;
      event->flags = (event->flags | present) & ~static_cast<uint32_t>(is_string);
      return;
    }
    case JsonType::kString:
      if (!cursor->ReadString(&text, &scratch_))
        return;
      *value = strings_->Intern(text);
      event->flags |= present | is_string;
      return;
    default:
      cursor->SkipValue();
      return;
  }
}

void JsonEventReader::ReadId(JsonCursor* cursor, JsonEvent* event) {
  std::string_view text;
  switch (cursor->PeekType()) {
    case JsonType::kNumber: {
      if (!cursor->ReadNumber(&text))
        return;
      int64_t v;
      uint64_t u;
      if (ParseUint64(text, &u)) {
        event->id = u;
      } else if (JsonNumberToInt(text, &v)) {
        event->id = static_cast<uint64_t>(v);
      } else {
        return;  // A fraction: not an id.
      }
      event->flags = (event->flags | JsonEvent::kHasId) & ~static_cast<uint32_t>(JsonEvent::kIdIsString);
      event->id_string = kNullStringId;
      return;
    }
    case JsonType::kString:
      if (!cursor->ReadString(&text, &scratch_))
        return;
      event->id_string = strings_->Intern(text);
      event->flags |= JsonEvent::kHasId | JsonEvent::kIdIsString;
      return;
    default:
      cursor->SkipValue();
      return;
  }
}

JsonEventReader::Result JsonEventReader::Read(std::string_view text, JsonEvent* event,
                                              std::string* error) {
  *event = JsonEvent();
  JsonCursor cursor(text.data(), text.size());
  if (cursor.PeekType() != JsonType::kObject) {
    *error = "an element of traceEvents that is not an object";
    return Result::kInvalid;
  }
  cursor.EnterObject();
  const size_t args_mark = args_.size();
  bool has_ts = false;
  bool bad_time = false;
  bool any_key = false;
  // id2 applies only without `id`; its global id wins over its local one.
  JsonEvent id2;
  bool has_id2 = false;
  std::string_view key;
  std::string key_scratch;
  std::string_view value;
  while (cursor.NextKey(&key, &key_scratch)) {
    any_key = true;
    if (key.empty()) {
      cursor.SkipValue();
      continue;
    }
    switch (key[0]) {
      case 'p':
        if (key == "ph") {
          if (cursor.PeekType() == JsonType::kString && cursor.ReadString(&value, &scratch_))
            event->phase = value.empty() ? 0 : value[0];
          else
            cursor.SkipValue();
          continue;
        }
        if (key == "pid") {
          ReadPidOrTid(&cursor, &event->pid, event, JsonEvent::kPidPresent,
                       JsonEvent::kPidIsString);
          continue;
        }
        break;
      case 't':
        if (key == "ts") {
          has_ts = ReadTime(&cursor, &event->ts);
          if (!has_ts)
            bad_time = true;
          continue;
        }
        if (key == "tid") {
          ReadPidOrTid(&cursor, &event->tid, event, JsonEvent::kTidPresent,
                       JsonEvent::kTidIsString);
          continue;
        }
        if (key == "tts" || key == "tdur") {
          if (!ReadTime(&cursor, key == "tts" ? &event->tts : &event->tdur)) {
            *error = "a bad " + std::string(key);
            return Result::kInvalid;
          }
          continue;
        }
        break;
      case 'd':
        if (key == "dur") {
          if (!ReadTime(&cursor, &event->dur)) {
            *error = "a bad dur";
            return Result::kInvalid;
          }
          continue;
        }
        break;
      case 'n':
        if (key == "name") {
          if (cursor.PeekType() == JsonType::kString && cursor.ReadString(&value, &scratch_))
            event->name = value.empty() ? kNullStringId : strings_->Intern(value);
          else
            cursor.SkipValue();
          continue;
        }
        break;
      case 'c':
        if (key == "cat") {
          if (cursor.PeekType() == JsonType::kString && cursor.ReadString(&value, &scratch_))
            event->cat = value.empty() ? kNullStringId : strings_->Intern(value);
          else
            cursor.SkipValue();
          continue;
        }
        break;
      case 'i':
        if (key == "id") {
          ReadId(&cursor, event);
          continue;
        }
        if (key == "id2") {
          has_id2 = true;
          ReadId2(&cursor, &id2, error);
          continue;
        }
        break;
      case 'a':
        if (key == "args") {
          if (cursor.PeekType() == JsonType::kObject) {
            // A repeated `args` replaces the earlier one.
            args_.resize(args_mark);
            key_ = "args";
            flat_key_ = "args";
            if (!ReadArgs(&cursor, 0))
              break;
            event->flags |= JsonEvent::kHasArgs;
          } else {
            cursor.SkipValue();
          }
          continue;
        }
        break;
      case 'b':
        if (key == "bind_id") {
          event->flags |= JsonEvent::kHasBindId;
          event->flags &= ~static_cast<uint32_t>(JsonEvent::kBindIdValid);
          if (cursor.PeekType() == JsonType::kString) {
            if (cursor.ReadString(&value, &scratch_) && ParseHexId(value, &event->bind_id))
              event->flags |= JsonEvent::kBindIdValid;
          } else if (cursor.PeekType() == JsonType::kNumber) {
            uint64_t u;
            int64_t v;
            if (cursor.ReadNumber(&value)) {
              if (ParseUint64(value, &u)) {
                event->bind_id = u;
                event->flags |= JsonEvent::kBindIdValid;
              } else if (JsonNumberToInt(value, &v)) {
                event->bind_id = static_cast<uint64_t>(v);
                event->flags |= JsonEvent::kBindIdValid;
              }
            }
          } else {
            cursor.SkipValue();
          }
          continue;
        }
        if (key == "bp") {
          if (cursor.PeekType() == JsonType::kString && cursor.ReadString(&value, &scratch_)) {
            if (value == "e")
              event->flags |= JsonEvent::kBindsEnclosing;
            else
              event->flags &= ~static_cast<uint32_t>(JsonEvent::kBindsEnclosing);
          } else {
            cursor.SkipValue();
          }
          continue;
        }
        break;
      case 'f':
        if (key == "flow_in" || key == "flow_out") {
          const JsonEvent::Flags flag = key == "flow_in" ? JsonEvent::kFlowIn : JsonEvent::kFlowOut;
          bool b = false;
          const JsonType type = cursor.PeekType();
          if ((type == JsonType::kTrue || type == JsonType::kFalse) && cursor.ReadBool(&b)) {
            event->flags = b ? (event->flags | flag) : (event->flags & ~static_cast<uint32_t>(flag));
          } else {
            cursor.SkipValue();
          }
          continue;
        }
        break;
      case 's':
        if (key == "s") {
          if (cursor.PeekType() == JsonType::kString && cursor.ReadString(&value, &scratch_))
            event->scope = value.size() == 1 ? value[0] : 0;
          else
            cursor.SkipValue();
          continue;
        }
        break;
      default:
        break;
    }
    if (cursor.ok())
      cursor.SkipValue();
  }
  if (!cursor.ok() || !cursor.AtEnd()) {
    args_.resize(args_mark);
    *error = cursor.ok() ? "bytes after the event's closing '}'" : cursor.error();
    return Result::kInvalid;
  }
  if (!any_key)
    return Result::kEmpty;
  if (event->phase == 0) {
    args_.resize(args_mark);
    *error = "no ph";
    return Result::kInvalid;
  }
  if (!has_ts) {
    // Metadata events need no time (upstream gives them 0).
    if (event->phase != 'M') {
      args_.resize(args_mark);
      *error = bad_time ? "a bad ts" : "no ts";
      return Result::kInvalid;
    }
    event->ts = 0;
  }
  if (has_id2 && !event->has(JsonEvent::kHasId) && id2.has(JsonEvent::kHasId)) {
    event->id = id2.id;
    event->id_string = id2.id_string;
    event->flags |= id2.flags & (JsonEvent::kHasId | JsonEvent::kIdIsString | JsonEvent::kIdIsLocal);
  }
  event->args_begin = static_cast<uint32_t>(args_mark);
  event->args_count = static_cast<uint32_t>(args_.size() - args_mark);
  return Result::kEvent;
}

void JsonEventReader::ReadId2(JsonCursor* cursor, JsonEvent* id2, std::string* error) {
  if (cursor->PeekType() != JsonType::kObject) {
    cursor->SkipValue();
    ++malformed_id2_;
    return;
  }
  cursor->EnterObject();
  std::string_view key;
  std::string key_scratch;
  bool have_global = false;
  bool any = false;
  while (cursor->NextKey(&key, &key_scratch)) {
    const bool global = key == "global";
    if ((global || key == "local") && !(have_global && !global)) {
      JsonEvent id;
      ReadId(cursor, &id);
      if (id.has(JsonEvent::kHasId)) {
        any = true;
        id2->id = id.id;
        id2->id_string = id.id_string;
        id2->flags = id.flags | (global ? 0u : static_cast<uint32_t>(JsonEvent::kIdIsLocal));
        have_global = have_global || global;
      }
    } else {
      cursor->SkipValue();
    }
  }
  if (!any)
    ++malformed_id2_;
  (void)error;
}

bool JsonEventReader::ReadArgs(JsonCursor* cursor, int depth) {
  // `args` and the objects in it: keys joined with '.'.
  cursor->EnterObject();
  std::string_view key;
  std::string key_scratch;
  while (cursor->NextKey(&key, &key_scratch)) {
    const size_t key_size = key_.size();
    const size_t flat_size = flat_key_.size();
    key_ += '.';
    key_.append(key.data(), key.size());
    flat_key_ += '.';
    flat_key_.append(key.data(), key.size());
    const bool ok = ReadArgValue(cursor, depth + 1);
    key_.resize(key_size);
    flat_key_.resize(flat_size);
    if (!ok)
      return false;
  }
  return cursor->ok();
}

bool JsonEventReader::ReadArgValue(JsonCursor* cursor, int depth) {
  JsonArg arg;
  std::string_view text;
  switch (cursor->PeekType()) {
    case JsonType::kObject:
      return ReadArgs(cursor, depth);
    case JsonType::kArray: {
      // Elements add "[i]" to the key; the flat key stays the array's.
      cursor->EnterArray();
      const size_t key_size = key_.size();
      for (size_t i = 0; cursor->NextElement(); ++i) {
        key_ += '[';
        key_ += std::to_string(i);
        key_ += ']';
        const bool ok = ReadArgValue(cursor, depth + 1);
        key_.resize(key_size);
        if (!ok)
          return false;
      }
      return cursor->ok();
    }
    case JsonType::kString:
      if (!cursor->ReadString(&text, &scratch_))
        return false;
      arg.type = ArgType::kString;
      arg.string_value = strings_->Intern(text);
      break;
    case JsonType::kNumber: {
      if (!cursor->ReadNumber(&text))
        return false;
      if (JsonNumberToInt(text, &arg.int_value)) {
        arg.type = ArgType::kInt;
      } else if (JsonNumberToDouble(text, &arg.real_value)) {
        arg.type = ArgType::kReal;
      } else {
        return true;  // Beyond a double's range: not stored.
      }
      break;
    }
    case JsonType::kTrue:
    case JsonType::kFalse: {
      bool b;
      if (!cursor->ReadBool(&b))
        return false;
      arg.type = ArgType::kBool;
      arg.int_value = b ? 1 : 0;
      break;
    }
    case JsonType::kNull:
      return cursor->ReadNull();  // Upstream stores no row for null.
    default:
      return cursor->SkipValue();
  }
  arg.key = strings_->Intern(key_);
  arg.flat_key = flat_key_ == key_ ? arg.key : strings_->Intern(flat_key_);
  args_.push_back(arg);
  return true;
}

}  // namespace processor
}  // namespace zt
