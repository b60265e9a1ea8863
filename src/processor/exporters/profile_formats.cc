#include "src/processor/exporters/profile_formats.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "src/processor/exporters/call_graph.h"
#include "src/processor/storage/open_index.h"
#include "src/processor/exporters/profile_output.h"
#include "src/processor/exporters/slice_profile.h"

namespace zt {
namespace processor {
namespace {

// A frame's name in a folded line: ';' separates frames and a line break
// ends the line, so neither may be in a name.
void AppendFoldedName(std::string_view name, std::string* out) {
  if (name.empty()) {
    *out += "(unnamed)";
    return;
  }
  for (char c : name)
    out->push_back(c == ';' ? ':' : (c == '\n' || c == '\r') ? ' ' : c);
}

// Names are written once per line they appear on (hundreds of MB for a
// large Templight trace): each distinct name is checked once, and a clean
// one (nearly all) is copied whole.
class FoldedNames {
 public:
  explicit FoldedNames(const StringPool& strings) : strings_(strings), state_(strings.size(), 0) {}
  void Append(StringId id, std::string* out) {
    const std::string_view name = strings_.Get(id);
    if (state_[id] == 0)
      state_[id] = !name.empty() && !memchr(name.data(), ';', name.size()) &&
                           !memchr(name.data(), '\n', name.size()) &&
                           !memchr(name.data(), '\r', name.size())
                       ? 1
                       : 2;
    if (state_[id] == 1)
      out->append(name.data(), name.size());
    else
      AppendFoldedName(name, out);
  }

 private:
  const StringPool& strings_;
  std::vector<uint8_t> state_;  // Per string id: 0 unknown, 1 clean, 2 to fix.
};

// One line per distinct stack with self time: "root;outer;inner ns". The
// stacks are a trie of (parent, name); the lines are written walking it
// depth first, so each line is the current path (one buffer, a name
// appended on the way down and cut on the way up) and its time.
bool WriteFolded(const SliceProfile& profile, ProfileOutput* out, std::vector<std::string>* notes) {
  const SliceTable& slice = profile.storage().slice;
  const StringPool& strings = profile.storage().strings;
  struct Node {
    uint32_t parent;  // kNullId: a track's root.
    StringId name;    // For a root: its index in `roots`.
    int64_t self_ns;
  };
  std::vector<Node> nodes;
  std::vector<std::string> roots;
  OpenIndex child;
  std::vector<uint32_t> node_of(slice.size(), kNullId);
  for (size_t t = 0; t < profile.tracks().size(); t++) {
    const uint32_t root = static_cast<uint32_t>(nodes.size());
    nodes.push_back(Node{kNullId, static_cast<StringId>(roots.size()), 0});
    roots.push_back(profile.TrackLabel(profile.tracks()[t]));
    for (uint32_t id : profile.slices_of(t)) {
      const uint32_t parent = slice.parent_id[id];
      const uint32_t parent_node =
          parent < id && node_of[parent] != kNullId ? node_of[parent] : root;
      const StringId name = slice.name[id];
      const uint32_t hash = OpenIndex::Hash(uint64_t{parent_node} << 32 | name);
      uint32_t node = child.Find(hash, [&](uint32_t row) {
        return nodes[row].parent == parent_node && nodes[row].name == name;
      });
      if (node == OpenIndex::kNoRow) {
        node = static_cast<uint32_t>(nodes.size());
        nodes.push_back(Node{parent_node, name, 0});
        child.Add(hash, node);
      }
      node_of[id] = node;
      nodes[node].self_ns += profile.self_ns(id);
    }
  }
  std::vector<uint32_t>().swap(node_of);

  // Children lists (nodes are made after their parents: ids grow down).
  std::vector<uint32_t> first_child(nodes.size(), kNullId);
  std::vector<uint32_t> next_sibling(nodes.size(), kNullId);
  for (uint32_t n = static_cast<uint32_t>(nodes.size()); n-- > 0;) {
    if (nodes[n].parent != kNullId) {
      next_sibling[n] = first_child[nodes[n].parent];
      first_child[nodes[n].parent] = n;
    }
  }
  FoldedNames names(strings);
  std::string path;
  std::vector<std::pair<uint32_t, size_t>> stack;  // (node, path length before it)
  uint64_t lines = 0;
  for (uint32_t root = 0; root < nodes.size(); root++) {
    if (nodes[root].parent != kNullId)
      continue;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      const auto [n, before] = stack.back();
      stack.pop_back();
      path.resize(before);
      if (nodes[n].parent == kNullId) {
        AppendFoldedName(roots[nodes[n].name], &path);
      } else {
        path.push_back(';');
        names.Append(nodes[n].name, &path);
      }
      if (nodes[n].self_ns > 0) {
        std::string& buffer = out->buffer();
        buffer += path;
        buffer.push_back(' ');
        out->AppendInt(nodes[n].self_ns);
        out->Append("\n");
        lines++;
      }
      // Children in the order they were made, so pushed last to first.
      const size_t mark = stack.size();
      for (uint32_t c = first_child[n]; c != kNullId; c = next_sibling[c])
        stack.push_back({c, path.size()});
      std::reverse(stack.begin() + static_cast<ptrdiff_t>(mark), stack.end());
    }
  }
  if (lines == 0)
    notes->push_back("no slice with a duration: the folded stacks are empty");
  return out->Finish();
}

// speedscope's file format (https://www.speedscope.app/file-format-schema.json):
// one evented profile per track, frames shared.
bool WriteSpeedscope(const SliceProfile& profile, ProfileOutput* out,
                     std::vector<std::string>* notes) {
  const TraceStorage& storage = profile.storage();
  const SliceTable& slice = storage.slice;
  const StringPool& strings = storage.strings;
  const TemplightInstantiationTable& templight = storage.templight;
  // A frame per (name, origin file, origin line): the origin only for
  // Templight, where it is the template's definition.
  struct FrameKey {
    StringId name;
    StringId file;
    uint32_t line;
    bool operator==(const FrameKey& o) const {
      return name == o.name && file == o.file && line == o.line;
    }
  };
  struct FrameHash {
    size_t operator()(const FrameKey& k) const {
      return std::hash<uint64_t>()((uint64_t{k.name} << 32 | k.file) * 31 + k.line);
    }
  };
  std::unordered_map<FrameKey, uint32_t, FrameHash> frame_index;
  std::vector<FrameKey> frames;
  auto frame_of = [&](uint32_t id) {
    FrameKey key{slice.name[id], kNullStringId, 0};
    const uint32_t row = profile.templight_row(id);
    if (row != kNullId) {
      key.file = templight.origin_file[row];
      key.line = templight.origin_line[row];
    }
    auto inserted = frame_index.emplace(key, static_cast<uint32_t>(frames.size()));
    if (inserted.second)
      frames.push_back(key);
    return inserted.first->second;
  };

  const int64_t origin = profile.start_ns();
  std::string& buffer = out->buffer();
  buffer += "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",";
  buffer += "\"exporter\":\"zerotrace ztrace convert\",\"name\":\"trace\",";
  buffer += "\"activeProfileIndex\":0,\"profiles\":[";
  uint64_t zero_length = 0;
  struct Open {
    uint32_t frame;
    int64_t end;
  };
  std::vector<Open> stack;
  for (size_t t = 0; t < profile.tracks().size(); t++) {
    const std::vector<uint32_t>& ids = profile.slices_of(t);
    int64_t first = INT64_MAX;
    int64_t last = INT64_MIN;
    for (uint32_t id : ids) {
      first = std::min(first, slice.ts[id]);
      last = std::max(last, profile.end(id));
    }
    if (t)
      buffer += ",";
    buffer += "{\"type\":\"evented\",\"name\":";
    AppendJsonString(profile.TrackLabel(profile.tracks()[t]), &buffer);
    buffer += ",\"unit\":\"nanoseconds\",\"startValue\":";
    out->AppendInt(first - origin);
    buffer += ",\"endValue\":";
    out->AppendInt(last - origin);
    buffer += ",\"events\":[";
    bool first_event = true;
    auto event = [&](char type, uint32_t frame, int64_t at) {
      if (!first_event)
        buffer += ",";
      first_event = false;
      buffer += "{\"type\":\"";
      buffer += type;
      buffer += "\",\"frame\":";
      out->AppendInt(frame);
      buffer += ",\"at\":";
      out->AppendInt(at - origin);
      buffer += "}";
      out->MaybeFlush();
    };
    stack.clear();
    for (uint32_t id : ids) {
      int64_t end = profile.end(id);
      const int64_t begin = slice.ts[id];
      if (end <= begin) {
        zero_length++;
        continue;
      }
      while (!stack.empty() && stack.back().end <= begin) {
        event('C', stack.back().frame, stack.back().end);
        stack.pop_back();
      }
      if (!stack.empty())
        end = std::min(end, stack.back().end);  // Nested within what is open.
      const uint32_t frame = frame_of(id);
      event('O', frame, begin);
      stack.push_back(Open{frame, end});
    }
    while (!stack.empty()) {
      event('C', stack.back().frame, stack.back().end);
      stack.pop_back();
    }
    buffer += "]}";
  }
  buffer += "],\"shared\":{\"frames\":[";
  for (size_t i = 0; i < frames.size(); i++) {
    if (i)
      buffer += ",";
    buffer += "{\"name\":";
    AppendJsonString(frames[i].name == kNullStringId ? std::string_view("(unnamed)")
                                                     : strings.Get(frames[i].name),
                     &buffer);
    if (frames[i].file != kNullStringId) {
      buffer += ",\"file\":";
      AppendJsonString(strings.Get(frames[i].file), &buffer);
      buffer += ",\"line\":";
      out->AppendInt(frames[i].line);
    }
    buffer += "}";
    out->MaybeFlush();
  }
  buffer += "]}}\n";
  if (zero_length) {
    notes->push_back(std::to_string(zero_length) +
                     " slices of no duration (instants, Templight memoizations) are not in "
                     "speedscope's timeline");
  }
  if (profile.tracks().empty())
    notes->push_back("no slices: the speedscope file has no profile");
  return out->Finish();
}

}  // namespace

ProfileExportResult ExportProfile(const TraceStorage& storage, ProfileFormat format,
                                  JsonSink* sink) {
  ProfileExportResult result;
  const SliceProfile profile(storage);
  ProfileOutput out(sink);
  bool ok = false;
  switch (format) {
    case ProfileFormat::kFolded:
      ok = WriteFolded(profile, &out, &result.notes);
      break;
    case ProfileFormat::kSpeedscope:
      ok = WriteSpeedscope(profile, &out, &result.notes);
      break;
    case ProfileFormat::kCallgrind:
    case ProfileFormat::kGraphviz: {
      const CallGraph graph(profile);
      ok = format == ProfileFormat::kCallgrind ? WriteCallgrind(graph, &out, &result.notes)
                                               : WriteGraphviz(graph, &out, &result.notes);
      break;
    }
  }
  if (!ok) {
    result.ok = false;
    result.error = out.error();
  }
  return result;
}

}  // namespace processor
}  // namespace zt
