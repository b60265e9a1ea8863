#include "zt/processor/name_dictionary.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>

namespace zt {
namespace processor {

namespace {

bool EndsWith(std::string_view text, size_t end, std::string_view suffix) {
  return end >= suffix.size() && text.compare(end - suffix.size(), suffix.size(), suffix) == 0;
}

std::string Format(const char* format, uint64_t a, uint64_t b = 0, uint64_t c = 0) {
  char buf[160];
  snprintf(buf, sizeof(buf), format, a, b, c);
  return buf;
}

}  // namespace

NameCompressor::NameCompressor(EntrySink sink, Names names)
    : sink_(std::move(sink)), names_(names) {}
NameCompressor::~NameCompressor() = default;

uint32_t NameCompressor::Compress(std::string_view name) {
  if (name.find('\0') != std::string_view::npos)
    return kNoId;
  return CompressAt(name, 0);
}

uint32_t NameCompressor::CompressAt(std::string_view name, int nesting) {
  auto found = ids_.find(name);
  if (found != ids_.end())
    return found->second;
  std::string marked;
  std::vector<uint32_t> markers;
  if (nesting < kMaxNesting)
    Split(name, nesting, &marked, &markers);
  if (markers.empty())
    marked.assign(name.data(), name.size());  // Not split (or too deep): whole.
  const uint32_t id = next_id_++;
  std::string_view key = name;
  if (names_ == Names::kCopied && !name.empty()) {
    // Keys in blocks that never move (a map of strings would cost a node
    // and, past 15 bytes, a heap block per key).
    // The blocks grow from 4 KiB to 256 KiB, doubling (a small dictionary
    // holds a few KiB).
    constexpr size_t kKeyBlockBytes = size_t{256} << 10;
    if (name.size() > key_left_) {
      const size_t block = std::max(key_block_bytes_, name.size());
      key_block_bytes_ = std::min(kKeyBlockBytes, key_block_bytes_ * 2);
      key_blocks_.emplace_back(new char[block]);
      key_next_ = key_blocks_.back().get();
      key_left_ = block;
    }
    memcpy(key_next_, name.data(), name.size());
    key = std::string_view(key_next_, name.size());
    key_next_ += name.size();
    key_left_ -= name.size();
  }
  ids_.emplace(key, id);
  DictionaryEntry entry;
  entry.id = id;
  entry.marked_name = marked;
  entry.marker_ids = std::move(markers);
  sink_(entry);
  return id;
}

// The rules are those of Templight's own writer, quirks included, so that
// a dictionary we write is the one Templight writes for the same names
// (byte for byte on real traces). They work on the name as it is being
// marked: a piece, once made a marker, is already a '\0' when later text
// is looked at (its "operator<" checks look back over it). A scan from the
// left, in one of three states:
//  * top level: "::" ends a piece (a marker, unless empty); '<' opens an
//    argument list, unless the text up to it ends in "operator<" (the
//    operator's own '<', so "operator<<" opens a list at its second '<');
//  * in an argument list, at its first level: ',' and '>' end an
//    argument (a marker, even if empty, trimmed of spaces by the rule
//    below), and at the first of them the text from the last top-level
//    piece's start to the '<' (the template's name) becomes a marker too;
//    a '<' whose text ends in "operator<<<" reopens the list there (the
//    name then includes "operator<<"); any other '<' goes one level down;
//  * deeper: '<' and '>' count levels, nothing else matters.
// After '>' closes a list the top level resumes after it. At the end, when
// anything was split, the rest from the last piece's start is a marker.
// A marker's text is always a stretch of the original name (every earlier
// marker lies to its left), which is what the recursion is given, so that
// kOutliveCompressor's views stay views of the caller's names.
void NameCompressor::Split(std::string_view name, int nesting, std::string* marked,
                           std::vector<uint32_t>* markers) {
  constexpr size_t kNone = std::string::npos;
  // The marked text is built as the name is scanned: a marker replaces a
  // piece at the end of what is built, so only the few bytes after it
  // (separators, or a list's first argument once) move, and a name costs
  // time linear in its length at each level (replacing in a copy of the
  // whole name moved its rest at every marker: quadratic).
  std::string& text = *marked;
  text.clear();
  text.reserve(name.size());
  // name's offset of text[k], for k right of every marker so far: k + shift.
  ptrdiff_t shift = 0;
  auto make_marker = [&](size_t begin, size_t end) {
    markers->push_back(CompressAt(
        name.substr(static_cast<size_t>(static_cast<ptrdiff_t>(begin) + shift), end - begin),
        nesting + 1));
    text.replace(begin, end - begin, 1, '\0');
    shift += static_cast<ptrdiff_t>(end - begin) - 1;
  };
  size_t piece = 0;       // Where the current top-level piece starts (kNone: none).
  size_t open = kNone;    // The list's '<', or the ',' before the argument.
  int level = 0;          // 0: top level; 1: a list's first level; more: deeper.
  for (size_t j = 0; j < name.size(); j++) {
    const char c = name[j];
    text.push_back(c);
    size_t i = text.size() - 1;  // c's place in the text.
    if (level == 0) {
      if (c == '<') {
        if (!EndsWith(text, i + 1, "operator<")) {
          open = i;
          level = 1;
        }
      } else if (c == ':' && j + 1 < name.size() && name[j + 1] == ':') {
        if (piece != kNone && piece < i)
          make_marker(piece, i);  // The first ':' is now right after the '\0'.
        text.push_back(name[++j]);  // The second ':'.
        piece = text.size();
        open = kNone;
      }
    } else if (level == 1) {
      if (c == '<') {
        if (EndsWith(text, i + 1, "operator<<<"))
          open = i;
        else
          level = 2;
      } else if (c == ',' || c == '>') {
        if (piece != kNone && piece < open) {
          const size_t to_separator = i - open;
          make_marker(piece, open);
          open = piece + 1;
          i = open + to_separator;
        }
        // The argument: spaces are taken off its ends one at a time, the
        // front first, while more than one character is left.
        size_t first = open + 1;
        size_t last = i - 1;  // Inclusive; first > last when empty.
        while (first < last) {
          if (text[first] == ' ')
            first++;
          else if (text[last] == ' ')
            last--;
          else
            break;
        }
        const size_t end = last + 1;
        const size_t to_separator = i - end;
        make_marker(first, end);
        i = first + 1 + to_separator;
        open = i;
        piece = kNone;
        if (c == '>') {
          open = kNone;
          level = 0;
          piece = i + 1;
        }
      }
    } else if (c == '<') {
      level++;
    } else if (c == '>') {
      level--;
    }
  }
  if (!markers->empty() && piece != kNone && piece < text.size())
    make_marker(piece, text.size());
}

NameExpander::NameExpander(Method method, size_t max_name_bytes)
    : method_(method),
      max_name_bytes_(std::min<size_t>(max_name_bytes, std::numeric_limits<uint32_t>::max())) {}
NameExpander::~NameExpander() = default;

bool NameExpander::Add(std::string_view marked_name, const std::vector<uint32_t>& marker_ids,
                       std::string* error) {
  const uint32_t id = static_cast<uint32_t>(entries_.size());
  entries_.emplace_back();
  if (method_ == Method::kBatch) {
    Entry& entry = entries_.back();
    entry.first_marker = static_cast<uint32_t>(markers_.size());  // <= kMaxMarkers.
    if (markers_.size() + marker_ids.size() > kMaxMarkers ||
        marked_name.size() > std::numeric_limits<uint32_t>::max()) {
      entry.state = Entry::kFailed;  // Past what 32-bit positions hold: refused.
      *error = Format("dictionary entry %" PRIu64 " is past the expander's capacity", id);
      return false;
    }
    const std::string_view stored = Store(marked_name);
    entry.text = stored.data();
    entry.size = static_cast<uint32_t>(stored.size());
    markers_.insert(markers_.end(), marker_ids.begin(), marker_ids.end());
    marked_bytes_ += marked_name.size();
    return true;
  }
  return ExpandFromMarkers(id, marked_name, marker_ids.data(), marker_ids.size(), error);
}

bool NameExpander::ExpandFromMarkers(uint32_t id, std::string_view marked_name,
                                     const uint32_t* marker_ids, size_t marker_count,
                                     std::string* error) {
  scratch_.clear();
  size_t next_marker = 0;
  bool ok = true;
  for (size_t i = 0; ok && i < marked_name.size(); i++) {
    const char c = marked_name[i];
    if (c != '\0') {
      scratch_.push_back(c);
    } else if (next_marker == marker_count) {
      *error = Format("dictionary entry %" PRIu64 " has more placeholders than its %" PRIu64
                      " marker ids",
                      id, marker_count);
      ok = false;
    } else {
      const uint32_t ref = marker_ids[next_marker++];
      if (ref == id) {
        *error = Format("dictionary entry %" PRIu64 " refers to itself", id);
        ok = false;
      } else if (ref >= entries_.size() || (method_ == Method::kSequential && ref > id)) {
        *error = Format("dictionary entry %" PRIu64 " refers to entry %" PRIu64
                        ", which is not an earlier entry (%" PRIu64 " so far)",
                        id, ref, entries_.size());
        ok = false;
      } else if (entries_[ref].state != Entry::kExpanded) {
        *error = Format(entries_[ref].state == Entry::kExpanding
                            ? "dictionary entry %" PRIu64 " refers to entry %" PRIu64
                              ", which refers back to it (a cycle)"
                            : "dictionary entry %" PRIu64 " refers to entry %" PRIu64
                              ", which could not be expanded",
                        id, ref);
        ok = false;
      } else {
        scratch_.append(entries_[ref].text, entries_[ref].size);
      }
    }
    if (ok && scratch_.size() > max_name_bytes_) {
      *error = Format("dictionary entry %" PRIu64 " expands to more than %" PRIu64 " bytes", id,
                      max_name_bytes_);
      ok = false;
    }
  }
  if (ok && next_marker != marker_count) {
    *error = Format("dictionary entry %" PRIu64 " has %" PRIu64
                    " marker ids but fewer placeholders (%" PRIu64 ")",
                    id, marker_count, next_marker);
    ok = false;
  }
  Entry& entry = entries_[id];
  if (!ok) {
    entry.state = Entry::kFailed;
    return false;
  }
  const std::string_view stored = Store(scratch_.view());
  entry.text = stored.data();
  entry.size = static_cast<uint32_t>(stored.size());
  entry.state = Entry::kExpanded;
  return true;
}

void NameExpander::ReleaseDictionary() {
  std::vector<Entry>().swap(entries_);
  std::vector<uint32_t>().swap(markers_);
  scratch_.Release();
  std::vector<UnmemoizedFrame>().swap(unmemoized_stack_);
}

bool NameExpander::Expand(uint32_t id, std::string_view* name, std::string* error) {
  if (id >= entries_.size()) {
    *error = Format("no dictionary entry %" PRIu64 " (%" PRIu64 " entries)", id, entries_.size());
    return false;
  }
  std::string first_why;  // Batch: the first failure met on the way.
  if (method_ == Method::kBatch && entries_[id].state == Entry::kPending && !memoize_pieces_ &&
      !ExpandUnmemoized(id, &first_why)) {
    memoize_pieces_ = true;  // The work bound: from now on, the memoized walk.
  }
  if (method_ == Method::kBatch && entries_[id].state == Entry::kPending) {
    // Depth first with an explicit stack (a hostile file can chain
    // millions of entries): an entry is expanded once its markers are.
    struct Frame {
      uint32_t id;
      size_t next_marker;
    };
    std::vector<Frame> stack{{id, 0}};
    entries_[id].state = Entry::kExpanding;
    while (!stack.empty()) {
      Frame& frame = stack.back();
      Entry& entry = entries_[frame.id];
      bool descended = false;
      const uint32_t marker_count = MarkerCount(frame.id);
      while (frame.next_marker < marker_count) {
        const uint32_t ref = markers_[entry.first_marker + frame.next_marker++];
        if (ref < entries_.size() && entries_[ref].state == Entry::kPending) {
          entries_[ref].state = Entry::kExpanding;
          stack.push_back(Frame{ref, 0});  // `frame` and `entry` now stale.
          descended = true;
          break;
        }
      }
      if (descended)
        continue;
      // Every marker is expanded, failed, on the stack (a cycle) or out of
      // range: ExpandFromMarkers decides, and says why it fails.
      std::string why;
      const uint32_t done = frame.id;
      const Entry& expanding = entries_[done];
      if (!ExpandFromMarkers(done, std::string_view(expanding.text, expanding.size),
                             markers_.data() + expanding.first_marker, MarkerCount(done),
                             &why) &&
          first_why.empty())
        first_why = std::move(why);
      stack.pop_back();
    }
  }
  const Entry& entry = entries_[id];
  if (entry.state != Entry::kExpanded) {
    *error = !first_why.empty()
                 ? first_why
                 : Format("dictionary entry %" PRIu64 " could not be expanded", id);
    return false;
  }
  *name = std::string_view(entry.text, entry.size);
  return true;
}

bool NameExpander::ExpandUnmemoized(uint32_t id, std::string* why) {
  const uint64_t work_bound = 8 * (uint64_t{entries_.size()} + marked_bytes_) + (1u << 20);
  std::vector<UnmemoizedFrame>& stack = unmemoized_stack_;
  stack.clear();
  stack.push_back(UnmemoizedFrame{id, 0, 0, MarkerCount(id)});
  entries_[id].state = Entry::kExpanding;
  scratch_.clear();
  uint32_t failed = id;  // The entry a failure is pinned on.
  bool ok = true;
  bool out_of_work = false;
  while (ok && !stack.empty()) {
    UnmemoizedFrame& frame = stack.back();
    const Entry& entry = entries_[frame.id];
    const uint32_t marker_count = frame.marker_count;
    // Text up to the next placeholder.
    const char* const text = entry.text;
    uint32_t at = frame.next_char;
    while (at < entry.size && text[at] != '\0')
      at++;
    scratch_.append(text + frame.next_char, at - frame.next_char);
    unmemoized_work_ += 1 + (at - frame.next_char);
    if (scratch_.size() > max_name_bytes_) {
      *why = Format("dictionary entry %" PRIu64 " expands to more than %" PRIu64 " bytes", id,
                    max_name_bytes_);
      ok = false;
      break;
    }
    if (unmemoized_work_ > work_bound) {
      out_of_work = true;
      break;
    }
    if (at == entry.size) {
      if (frame.next_marker != marker_count) {
        *why = Format("dictionary entry %" PRIu64 " has %" PRIu64
                      " marker ids but fewer placeholders (%" PRIu64 ")",
                      frame.id, marker_count, frame.next_marker);
        failed = frame.id;
        ok = false;
        break;
      }
      if (frame.id != id)
        entries_[frame.id].state = Entry::kPending;  // Not kept: a piece.
      stack.pop_back();
      continue;
    }
    frame.next_char = at + 1;  // Past the placeholder.
    if (frame.next_marker == marker_count) {
      *why = Format("dictionary entry %" PRIu64 " has more placeholders than its %" PRIu64
                    " marker ids",
                    frame.id, marker_count);
      failed = frame.id;
      ok = false;
      break;
    }
    const uint32_t ref = markers_[entry.first_marker + frame.next_marker++];
    if (ref == frame.id) {
      *why = Format("dictionary entry %" PRIu64 " refers to itself", frame.id);
      failed = frame.id;
      ok = false;
    } else if (ref >= entries_.size()) {
      *why = Format("dictionary entry %" PRIu64 " refers to entry %" PRIu64
                    ", which is not an earlier entry (%" PRIu64 " so far)",
                    frame.id, ref, entries_.size());
      failed = frame.id;
      ok = false;
    } else if (entries_[ref].state == Entry::kExpanded) {
      scratch_.append(entries_[ref].text, entries_[ref].size);
    } else if (entries_[ref].state == Entry::kPending) {
      entries_[ref].state = Entry::kExpanding;
      stack.push_back(UnmemoizedFrame{ref, 0, 0, MarkerCount(ref)});  // `frame` and `entry` now stale.
    } else {
      *why = Format(entries_[ref].state == Entry::kExpanding
                        ? "dictionary entry %" PRIu64 " refers to entry %" PRIu64
                          ", which refers back to it (a cycle)"
                        : "dictionary entry %" PRIu64 " refers to entry %" PRIu64
                          ", which could not be expanded",
                    frame.id, ref);
      // A cycle fails every entry on it, whoever asks: as the memoized walk.
      failed = entries_[ref].state == Entry::kExpanding ? frame.id : id;
      ok = false;
    }
  }
  // What is left on the stack goes back to pending, unless it is decided.
  for (const UnmemoizedFrame& frame : stack) {
    if (entries_[frame.id].state == Entry::kExpanding)
      entries_[frame.id].state = Entry::kPending;
  }
  if (out_of_work)
    return false;
  if (!ok) {
    // The entry at fault fails for good, and so does the one asked for.
    entries_[failed].state = Entry::kFailed;
    entries_[id].state = Entry::kFailed;
    return true;
  }
  const std::string_view stored = Store(scratch_.view());
  Entry& entry = entries_[id];
  entry.text = stored.data();
  entry.size = static_cast<uint32_t>(stored.size());
  entry.state = Entry::kExpanded;
  return true;
}

void NameExpander::Scratch::Grow(size_t more) {
  const size_t capacity = std::max({size_ + more, 2 * capacity_, size_t{256}});
  std::unique_ptr<char[]> bigger(new char[capacity]);
  if (size_ > 0)
    memcpy(bigger.get(), data_.get(), size_);
  data_ = std::move(bigger);
  capacity_ = capacity;
}

size_t NameExpander::memory_bytes() const {
  return arena_bytes_ + entries_.capacity() * sizeof(Entry) +
         markers_.capacity() * sizeof(uint32_t) + arena_blocks_.capacity() * sizeof(void*);
}

std::string_view NameExpander::Store(std::string_view name) {
  constexpr size_t kArenaBlockBytes = size_t{1} << 20;
  if (name.size() > arena_left_) {
    // A long name gets a block of its own; the current block stays open.
    if (name.size() > kArenaBlockBytes / 4) {
      arena_blocks_.emplace_back(new char[name.size()]);
      arena_bytes_ += name.size();
      memcpy(arena_blocks_.back().get(), name.data(), name.size());
      return std::string_view(arena_blocks_.back().get(), name.size());
    }
    // Blocks grow from 4 KiB to the full size, doubling (a small
    // dictionary holds a few KiB).
    const size_t block = std::max(arena_block_bytes_, name.size());
    arena_block_bytes_ = std::min(kArenaBlockBytes, arena_block_bytes_ * 2);
    arena_blocks_.emplace_back(new char[block]);
    arena_bytes_ += block;
    arena_next_ = arena_blocks_.back().get();
    arena_left_ = block;
  }
  char* at = arena_next_;
  if (!name.empty())
    memcpy(at, name.data(), name.size());
  arena_next_ += name.size();
  arena_left_ -= name.size();
  return std::string_view(at, name.size());
}

}  // namespace processor
}  // namespace zt
