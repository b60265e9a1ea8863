#include "src/processor/importers/json/json_trace_splitter.h"

#include <cstdio>

#include "src/processor/importers/json/json_cursor.h"

namespace zt {
namespace processor {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Characters a scalar (number, true, false, null) cannot contain.
bool EndsScalar(char c) { return IsSpace(c) || c == ',' || c == ']' || c == '}' || c == ':'; }

bool StartsValue(char c) {
  return c == '"' || c == '{' || c == '[' || c == '-' || (c >= '0' && c <= '9') || c == 't' ||
         c == 'f' || c == 'n';
}

std::string Describe(char c) {
  char text[32];
  if (c >= 0x20 && c < 0x7F)
    snprintf(text, sizeof(text), "'%c'", c);
  else
    snprintf(text, sizeof(text), "byte 0x%02x", static_cast<unsigned char>(c));
  return text;
}

}  // namespace

bool JsonTraceSplitter::Fail(const std::string& what) {
  if (state_ != State::kFailed) {
    state_ = State::kFailed;
    error_ = what;
  }
  return false;
}

void JsonTraceSplitter::StartScan(char first, Target target, bool capture) {
  scan_ = Scan();
  scan_.active = true;
  scan_.capture = capture;
  scan_.kind = first == '"' ? '"' : (first == '{' || first == '[') ? '{' : '0';
  target_ = target;
  carry_.clear();
}

size_t JsonTraceSplitter::Continue(const char* p, const char* end, bool* done) {
  Scan& s = scan_;
  const char* q = p;
  *done = false;
  if (s.kind == '0') {
    while (q < end && !EndsScalar(*q))
      ++q;
    *done = q < end;
    s.bytes += static_cast<uint64_t>(q - p);
    return static_cast<size_t>(q - p);
  }
  if (s.escape && q < end) {
    s.escape = false;
    ++q;
  }
  while (q < end) {
    if (s.in_string) {
      while (q < end && *q != '"' && *q != '\\')
        ++q;
      if (q == end)
        break;
      if (*q == '\\') {
        if (q + 1 < end) {
          q += 2;
        } else {
          s.escape = true;
          ++q;
        }
        continue;
      }
      ++q;  // The closing quote.
      s.in_string = false;
      if (s.kind == '"') {
        *done = true;
        break;
      }
      continue;
    }
    const char c = *q++;
    if (c == '"') {
      s.in_string = true;
    } else if (c == '{' || c == '[') {
      ++s.depth;
    } else if (c == '}' || c == ']') {
      if (--s.depth == 0) {
        *done = true;
        break;
      }
    }
  }
  s.bytes += static_cast<uint64_t>(q - p);
  return static_cast<size_t>(q - p);
}

void JsonTraceSplitter::Deliver(std::string_view text) {
  switch (target_) {
    case Target::kEvent:
      handler_->OnEvent(text, scan_.start_offset);
      return;
    case Target::kKey: {
      JsonCursor cursor(text.data(), text.size());
      std::string_view key;
      std::string scratch;
      if (cursor.ReadString(&key, &scratch))
        key_.assign(key.data(), key.size());
      else
        key_.clear();
      key_is_events_ = key_ == "traceEvents";
      state_ = State::kObjectColon;
      return;
    }
    case Target::kTopLevelValue:
      handler_->OnTopLevelKey(key_, text);
      state_ = State::kObjectKey;
      return;
  }
}

bool JsonTraceSplitter::Feed(const char* data, size_t size) {
  const char* p = data;
  const char* const end = data + size;
  const uint64_t base = fed_;
  auto position = [&] { return base + static_cast<uint64_t>(p - data); };
  while (p < end) {
    if (state_ == State::kFailed)
      break;
    if (scan_.active) {
      bool done = false;
      const char* const start = p;
      const size_t n = Continue(p, end, &done);
      p += n;
      if (scan_.capture) {
        const size_t limit = target_ == Target::kEvent ? kMaxEventBytes : kMaxTopLevelValueBytes;
        if (scan_.bytes > limit) {
          // Too large to hold: measured, not kept.
          scan_.capture = false;
          std::string().swap(carry_);
        } else if (done && carry_.empty()) {
          scan_.active = false;
          Deliver(std::string_view(start, n));  // Whole within this piece.
          continue;
        } else {
          carry_.append(start, n);
        }
      }
      if (done) {
        scan_.active = false;
        if (scan_.capture) {
          Deliver(carry_);
          carry_.clear();
        } else {
          handler_->OnSkipped(target_ == Target::kEvent ? std::string_view("traceEvents")
                                                        : std::string_view(key_),
                              scan_.bytes, scan_.start_offset);
          if (target_ == Target::kTopLevelValue)
            state_ = State::kObjectKey;
          else if (target_ == Target::kKey)
            return Fail("a top-level key longer than 16 MiB");
        }
      }
      continue;
    }
    const char c = *p;
    if (IsSpace(c)) {
      ++p;
      continue;
    }
    switch (state_) {
      case State::kBegin:
        if (position() < 3 && static_cast<unsigned char>(c) ==
                                  static_cast<unsigned char>("\xEF\xBB\xBF"[position()])) {
          ++p;  // A UTF-8 byte order mark.
        } else if (c == '[') {
          top_level_is_array_ = true;
          state_ = State::kEvents;
          ++p;
        } else if (c == '{') {
          state_ = State::kObjectKey;
          ++p;
        } else {
          return Fail("not a JSON trace: it starts with " + Describe(c) +
                      ", not '{' or '['");
        }
        break;
      case State::kObjectKey:
        if (c == ',') {
          ++p;
        } else if (c == '}') {
          state_ = State::kDone;
          ++p;
        } else if (c == '"') {
          scan_.start_offset = position();
          StartScan(c, Target::kKey, true);
          scan_.start_offset = position();
        } else {
          return Fail("expected a key or '}' in the top-level object at byte " +
                      std::to_string(position()) + ", found " + Describe(c));
        }
        break;
      case State::kObjectColon:
        if (c != ':')
          return Fail("expected ':' after the top-level key \"" + key_ + "\" at byte " +
                      std::to_string(position()));
        state_ = State::kObjectValue;
        ++p;
        break;
      case State::kObjectValue:
        if (key_is_events_ && c == '[') {
          state_ = State::kEvents;
          ++p;
        } else if (StartsValue(c)) {
          StartScan(c, Target::kTopLevelValue, true);
          scan_.start_offset = position();
        } else {
          return Fail("expected the value of \"" + key_ + "\" at byte " +
                      std::to_string(position()) + ", found " + Describe(c));
        }
        break;
      case State::kEvents:
        if (c == ',') {
          ++p;
        } else if (c == ']') {
          state_ = top_level_is_array_ ? State::kDone : State::kObjectKey;
          ++p;
        } else if (StartsValue(c)) {
          StartScan(c, Target::kEvent, true);
          scan_.start_offset = position();
        } else {
          return Fail("unexpected " + Describe(c) + " in the events array at byte " +
                      std::to_string(position()));
        }
        break;
      case State::kDone:
        trailing_bytes_ += static_cast<uint64_t>(end - p);
        p = end;
        break;
      case State::kFailed:
        break;
    }
  }
  fed_ = base + size;
  return state_ != State::kFailed;
}

bool JsonTraceSplitter::Finish() {
  if (state_ == State::kFailed)
    return false;
  if (scan_.active) {
    scan_.active = false;
    if (scan_.kind == '0' && scan_.capture) {
      // A number or literal ends at the end of input.
      Deliver(carry_);
      carry_.clear();
    } else {
      truncated_ = true;
      if (target_ == Target::kEvent)
        cut_event_bytes_ = scan_.bytes;
    }
  }
  switch (state_) {
    case State::kBegin:
      return Fail("not a JSON trace: no '{' or '[' (empty or only whitespace)");
    case State::kDone:
      return true;
    default:
      // Cut off: what was read is kept (Chrome writes traces without
      // the closing brackets when it is killed).
      truncated_ = true;
      return true;
  }
}

}  // namespace processor
}  // namespace zt
