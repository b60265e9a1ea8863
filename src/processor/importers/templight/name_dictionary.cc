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

// Whether name[at] ('<' or '>') belongs to an operator's name rather than
// to a template argument list: operator<, operator<<, operator<=,
// operator<=>, operator>, operator>>, operator>=, operator->.
bool IsOperatorChar(std::string_view name, size_t at) {
  if (EndsWith(name, at, "operator"))
    return true;
  const char c = name[at];
  if (c == '<')
    return EndsWith(name, at, "operator<");
  return EndsWith(name, at, "operator>") || EndsWith(name, at, "operator-") ||
         EndsWith(name, at, "operator<=");
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

  // The name's text with a '\0' for every piece, and the pieces' ids. A
  // piece is strictly shorter than the name (a separator is left out), so
  // the recursion ends; kMaxNesting bounds its depth.
  std::string marked;
  std::vector<uint32_t> markers;
  bool split = false;
  if (nesting < kMaxNesting) {
    size_t piece = 0;  // Start of the current top-level piece.
    auto add_piece = [&](size_t end) {
      if (piece < end) {
        markers.push_back(CompressAt(name.substr(piece, end - piece), nesting + 1));
        marked.push_back('\0');
      }
    };
    size_t i = 0;
    while (i < name.size()) {
      if (name[i] == ':' && i + 1 < name.size() && name[i + 1] == ':') {
        add_piece(i);
        marked += "::";
        i += 2;
        piece = i;
        split = true;
      } else if (name[i] == '<' && !IsOperatorChar(name, i)) {
        add_piece(i);
        marked.push_back('<');
        split = true;
        size_t argument = ++i;
        int depth = 1;
        for (; i < name.size(); i++) {
          const char c = name[i];
          if (c == '<' && !IsOperatorChar(name, i)) {
            depth++;
          } else if (c == '>' && !IsOperatorChar(name, i)) {
            if (--depth == 0)
              break;
          } else if (c == ',' && depth == 1) {
            AddArgument(name, argument, i, nesting, &marked, &markers);
            marked.push_back(',');
            argument = i + 1;
          }
        }
        // Unbalanced (no closing '>'): the rest is the last argument.
        AddArgument(name, argument, i, nesting, &marked, &markers);
        if (i < name.size()) {
          marked.push_back('>');
          i++;
        }
        piece = i;
      } else {
        i++;
      }
    }
    if (split)
      add_piece(name.size());
  }
  if (!split) {
    marked.assign(name.data(), name.size());
    markers.clear();
  }

  const uint32_t id = next_id_++;
  std::string_view key = name;
  if (names_ == Names::kCopied && !name.empty()) {
    // Keys in blocks that never move (a map of strings would cost a node
    // and, past 15 bytes, a heap block per key).
    // The blocks grow from 4 KiB to 256 KiB, doubling (a small dictionary
    // holds a few KiB).
    constexpr size_t kBlockBytes = size_t{256} << 10;
    if (name.size() > key_left_) {
      const size_t block = std::max(key_block_bytes_, name.size());
      key_block_bytes_ = std::min(kBlockBytes, key_block_bytes_ * 2);
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

void NameCompressor::AddArgument(std::string_view name, size_t begin, size_t end, int nesting,
                                 std::string* marked, std::vector<uint32_t>* markers) {
  size_t first = begin;
  while (first < end && name[first] == ' ')
    first++;
  size_t last = end;
  while (last > first && name[last - 1] == ' ')
    last--;
  // An empty argument ("f<>") is a marker too, of the empty name, as
  // Templight's own writer makes it.
  marked->append(name.data() + begin, first - begin);
  markers->push_back(CompressAt(name.substr(first, last - first), nesting + 1));
  marked->push_back('\0');
  marked->append(name.data() + last, end - last);
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
    if (markers_.size() + marker_ids.size() > std::numeric_limits<uint32_t>::max() ||
        marked_name.size() > std::numeric_limits<uint32_t>::max()) {
      entry.state = Entry::kFailed;  // Past what 32-bit positions hold: refused.
      *error = Format("dictionary entry %" PRIu64 " is past the expander's capacity", id);
      return false;
    }
    const std::string_view stored = Store(marked_name);
    entry.text = stored.data();
    entry.size = static_cast<uint32_t>(stored.size());
    entry.first_marker = static_cast<uint32_t>(markers_.size());
    entry.marker_count = static_cast<uint32_t>(marker_ids.size());
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
  const std::string_view stored = Store(scratch_);
  entry.text = stored.data();
  entry.size = static_cast<uint32_t>(stored.size());
  entry.state = Entry::kExpanded;
  return true;
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
      while (frame.next_marker < entry.marker_count) {
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
                             markers_.data() + expanding.first_marker, expanding.marker_count,
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
  struct Frame {
    uint32_t id;
    uint32_t next_char;
    uint32_t next_marker;
  };
  std::vector<Frame> stack{{id, 0, 0}};
  entries_[id].state = Entry::kExpanding;
  scratch_.clear();
  uint32_t failed = id;  // The entry a failure is pinned on.
  bool ok = true;
  bool out_of_work = false;
  while (ok && !stack.empty()) {
    Frame& frame = stack.back();
    const Entry& entry = entries_[frame.id];
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
      if (frame.next_marker != entry.marker_count) {
        *why = Format("dictionary entry %" PRIu64 " has %" PRIu64
                      " marker ids but fewer placeholders (%" PRIu64 ")",
                      frame.id, entry.marker_count, frame.next_marker);
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
    if (frame.next_marker == entry.marker_count) {
      *why = Format("dictionary entry %" PRIu64 " has more placeholders than its %" PRIu64
                    " marker ids",
                    frame.id, entry.marker_count);
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
      stack.push_back(Frame{ref, 0, 0});  // `frame` and `entry` now stale.
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
  for (const Frame& frame : stack) {
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
  const std::string_view stored = Store(scratch_);
  Entry& entry = entries_[id];
  entry.text = stored.data();
  entry.size = static_cast<uint32_t>(stored.size());
  entry.state = Entry::kExpanded;
  return true;
}

size_t NameExpander::memory_bytes() const {
  return arena_bytes_ + entries_.capacity() * sizeof(Entry) +
         markers_.capacity() * sizeof(uint32_t) + arena_blocks_.capacity() * sizeof(void*);
}

std::string_view NameExpander::Store(std::string_view name) {
  constexpr size_t kBlockBytes = size_t{1} << 20;
  if (name.size() > arena_left_) {
    // A long name gets a block of its own; the current block stays open.
    if (name.size() > kBlockBytes / 4) {
      arena_blocks_.emplace_back(new char[name.size()]);
      arena_bytes_ += name.size();
      memcpy(arena_blocks_.back().get(), name.data(), name.size());
      return std::string_view(arena_blocks_.back().get(), name.size());
    }
    // Blocks grow from 4 KiB to the full size, doubling (a small
    // dictionary holds a few KiB).
    const size_t block = std::max(arena_block_bytes_, name.size());
    arena_block_bytes_ = std::min(kBlockBytes, arena_block_bytes_ * 2);
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
