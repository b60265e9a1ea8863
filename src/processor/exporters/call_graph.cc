#include "src/processor/exporters/call_graph.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "src/processor/storage/open_index.h"
#include "src/processor/summary/trace_summary.h"

namespace zt {
namespace processor {

CallGraph::CallGraph(const SliceProfile& profile) : profile_(profile) {
  const TraceStorage& storage = profile.storage();
  const SliceTable& slice = storage.slice;
  const StringPool& strings = storage.strings;
  const TemplightInstantiationTable& templight = storage.templight;

  // Memory per slice (Templight): inclusive, then self.
  std::vector<int64_t> bytes;
  if (profile.has_templight()) {
    bytes.assign(slice.size(), 0);
    for (uint32_t row = 0; row < templight.size(); row++) {
      const uint64_t begin = templight.memory_begin[row];
      const uint64_t end = templight.memory_end[row];
      if (begin != 0 && end > begin && templight.slice_id[row] < bytes.size()) {
        bytes[templight.slice_id[row]] = static_cast<int64_t>(end - begin);
        has_memory_ = true;
      }
    }
  }
  std::vector<int64_t> self_bytes = bytes;
  if (has_memory_) {
    for (size_t i = 0; i < slice.size(); i++) {
      const uint32_t parent = slice.parent_id[i];
      if (parent != kNullId && parent < i)
        self_bytes[parent] -= bytes[i];
    }
  }

  std::unordered_map<StringId, bool> is_memoization;
  auto memoization = [&](StringId kind) {
    auto it = is_memoization.find(kind);
    if (it == is_memoization.end())
      it = is_memoization.emplace(kind, kind != kNullStringId && strings.Get(kind) == "Memoization").first;
    return it->second;
  };

  // A name's first function and a function's first call are found without
  // the hash indexes (most names have one origin, most functions few
  // calls): an index takes a name's functions, or a callee's calls, once
  // it has a second. On a million Templight instantiations this saves two
  // cache misses in three slices.
  OpenIndex function_index;
  std::vector<uint32_t> last_function_of_name(strings.size(), kNullId);
  std::vector<bool> name_indexed(strings.size());
  std::vector<Call> calls;
  OpenIndex call_index;
  std::vector<uint32_t> last_call_of_callee;  // Per function.
  std::vector<bool> callee_indexed;           // Per function.
  auto function_hash = [](const Function& f) {
    return OpenIndex::Hash(uint64_t{f.name} << 32 | f.file, f.line);
  };
  auto call_hash = [](const Call& c) {
    return OpenIndex::Hash(uint64_t{c.caller} << 32 | c.callee, uint64_t{c.file} << 32 | c.line);
  };
  auto new_function = [&](const Function& f) {
    functions_.push_back(f);
    last_call_of_callee.push_back(kNullId);
    callee_indexed.push_back(false);
    return static_cast<uint32_t>(functions_.size() - 1);
  };
  auto new_call = [&](const Call& c) {
    calls.push_back(c);
    return static_cast<uint32_t>(calls.size() - 1);
  };
  // A slice adds at most one function and one call: room for all, reserved
  // (not touched) ahead, instead of copies as the lists double.
  const size_t most_functions = slice.size() + profile.tracks().size();
  functions_.reserve(most_functions);
  last_call_of_callee.reserve(most_functions);
  callee_indexed.reserve(most_functions);
  calls.reserve(slice.size());
  std::vector<uint32_t> function_of(slice.size(), kNullId);
  for (size_t t = 0; t < profile.tracks().size(); t++) {
    const uint32_t root = new_function(Function());
    roots_.emplace_back(root, profile.TrackLabel(profile.tracks()[t]));
    const std::vector<uint32_t>& ids = profile.slices_of(t);
    for (size_t k = 0; k < ids.size(); k++) {
      // The totals a later slice will add to are fetched ahead, in two
      // steps: its name's last function, then that function and its last
      // call (the loop is bound by these random accesses on a large trace).
      if (k + 16 < ids.size()) {
        const StringId later = slice.name[ids[k + 16]];
        if (later < last_function_of_name.size())
          __builtin_prefetch(&last_function_of_name[later]);
      }
      if (k + 8 < ids.size()) {
        const StringId later = slice.name[ids[k + 8]];
        const uint32_t later_fn =
            later < last_function_of_name.size() ? last_function_of_name[later] : kNullId;
        if (later_fn != kNullId) {
          __builtin_prefetch(&functions_[later_fn]);
          __builtin_prefetch(&last_call_of_callee[later_fn]);
        }
      }
      if (k + 4 < ids.size()) {
        const StringId later = slice.name[ids[k + 4]];
        const uint32_t later_fn =
            later < last_function_of_name.size() ? last_function_of_name[later] : kNullId;
        if (later_fn != kNullId && last_call_of_callee[later_fn] != kNullId)
          __builtin_prefetch(&calls[last_call_of_callee[later_fn]]);
      }
      const uint32_t id = ids[k];
      const uint32_t row = profile.templight_row(id);
      Function key;
      key.name = slice.name[id];
      Call call;
      if (row != kNullId) {
        key.file = templight.origin_file[row];
        key.line = templight.origin_line[row];
        call.file = templight.file[row];
        call.line = templight.line[row];
      }
      const bool dense_name = key.name < last_function_of_name.size();
      uint32_t fn = dense_name ? last_function_of_name[key.name] : kNullId;
      if (dense_name && fn == kNullId) {
        fn = new_function(key);  // The name's first.
        last_function_of_name[key.name] = fn;
      } else if (fn == kNullId || functions_[fn].file != key.file ||
                 functions_[fn].line != key.line) {
        if (dense_name && !name_indexed[key.name]) {
          // A second origin: the name's only function so far joins the index.
          function_index.Add(function_hash(functions_[fn]), fn);
          name_indexed[key.name] = true;
        }
        const uint32_t hash = function_hash(key);
        // Roots are not in the index.
        fn = function_index.Find(hash, [&](uint32_t candidate) {
          const Function& f = functions_[candidate];
          return f.name == key.name && f.file == key.file && f.line == key.line;
        });
        if (fn == OpenIndex::kNoRow) {
          fn = new_function(key);
          function_index.Add(hash, fn);
        }
        if (dense_name)
          last_function_of_name[key.name] = fn;
      }
      function_of[id] = fn;
      Function& f = functions_[fn];
      // A memoization does not name the kind: its instantiation does.
      if (row != kNullId && f.kind == kNullStringId && !memoization(templight.kind_name[row]))
        f.kind = templight.kind_name[row];
      f.self_ns += profile.self_ns(id);
      if (has_memory_)
        f.self_bytes += std::max<int64_t>(0, self_bytes[id]);

      const uint32_t parent = slice.parent_id[id];
      // A parent comes first (rows are in time order), as SliceProfile reads it.
      call.caller = parent < id && function_of[parent] != kNullId ? function_of[parent] : root;
      call.callee = fn;
      auto same_call = [&](uint32_t candidate) {
        const Call& c = calls[candidate];
        return c.caller == call.caller && c.callee == call.callee && c.file == call.file &&
               c.line == call.line;
      };
      uint32_t index = last_call_of_callee[fn];
      if (index == kNullId) {
        index = new_call(call);  // The callee's first.
        last_call_of_callee[fn] = index;
      } else if (!same_call(index)) {
        if (!callee_indexed[fn]) {
          // A second call: the callee's only call so far joins the index.
          call_index.Add(call_hash(calls[index]), index);
          callee_indexed[fn] = true;
        }
        const uint32_t hash = call_hash(call);
        index = call_index.Find(hash, same_call);
        if (index == OpenIndex::kNoRow) {
          index = new_call(call);
          call_index.Add(hash, index);
        }
        last_call_of_callee[fn] = index;
      }
      Call& c = calls[index];
      c.count++;
      const int64_t inclusive = profile.end(id) - slice.ts[id];
      c.inclusive_ns += inclusive;
      if (has_memory_)
        c.inclusive_bytes += bytes[id];
      if (call.caller == root) {
        total_ns_ += inclusive;
        if (has_memory_)
          total_bytes_ += bytes[id];
      }
    }
  }
  // Grouped by caller, each caller's calls in the order they were made: a
  // counting sort (a stable comparison sort of a million calls took 4% of
  // a callgrind export).
  // The calls move in place, along the cycles of the permutation: a second
  // list of them was 40 MB of a 1 M-instantiation export's peak.
  std::vector<uint32_t>().swap(function_of);
  std::vector<uint32_t> place(functions_.size() + 1, 0);
  for (const Call& c : calls)
    place[c.caller + 1]++;
  for (size_t fn = 1; fn < place.size(); fn++)
    place[fn] += place[fn - 1];
  {
    std::vector<uint32_t> first_of_caller;
    first_of_caller.swap(place);
    place.resize(calls.size());  // Now: where each call goes.
    for (size_t i = 0; i < calls.size(); i++)
      place[i] = first_of_caller[calls[i].caller]++;
  }
  for (uint32_t i = 0; i < calls.size(); i++) {
    while (place[i] != i) {
      const uint32_t to = place[i];
      std::swap(calls[i], calls[to]);
      std::swap(place[i], place[to]);
    }
  }
  calls_.swap(calls);
  is_root_.resize(functions_.size());
  for (const auto& root : roots_)
    is_root_[root.first] = true;
}

std::string_view CallGraph::root_label(uint32_t function) const {
  auto it = std::lower_bound(roots_.begin(), roots_.end(), function,
                             [](const auto& root, uint32_t fn) { return root.first < fn; });
  return it != roots_.end() && it->first == function ? std::string_view(it->second)
                                                     : std::string_view();
}

namespace {

// Text of a known upper bound written through a pointer into a scratch
// buffer, then appended to the output at once: no capacity check per piece
// (a million records of a dozen pieces each), and no zero-filling resize
// per record (the scratch is resized only when a record may outgrow it).
class Record {
 public:
  Record(std::string* out, std::string* scratch, size_t max_bytes) : out_(out) {
    if (scratch->size() < max_bytes)
      scratch->resize(std::max(max_bytes, 2 * scratch->size()));
    begin_ = p_ = scratch->data();
  }
  ~Record() { out_->append(begin_, static_cast<size_t>(p_ - begin_)); }
  Record(const Record&) = delete;
  Record& operator=(const Record&) = delete;

  static constexpr size_t kMaxNumber = 20;  // Digits of a uint64, or a sign and 19.
  void Text(std::string_view text) {
    memcpy(p_, text.data(), text.size());
    p_ += text.size();
  }
  void Char(char c) { *p_++ = c; }
  template <typename T>
  void Number(T value) {
    p_ = std::to_chars(p_, p_ + kMaxNumber, value).ptr;
  }

 private:
  std::string* const out_;
  char* begin_;
  char* p_;
};

// "(id) text" the first time, "(id)" after: callgrind's name compression.
// Keys are dense (function ids, string ids), so the ids live in a vector.
class CompressedNames {
 public:
  // The most Write() can add for (key, text).
  size_t MaxBytes(size_t key, std::string_view text) const {
    const bool first = key >= ids_.size() || ids_[key] == 0;
    return 3 + Record::kMaxNumber + (first ? text.size() : 0);
  }
  void Write(size_t key, std::string_view text, Record* out) {
    if (key >= ids_.size())
      ids_.resize(std::max(key + 1, ids_.size() * 2), 0);
    const bool first = ids_[key] == 0;
    if (first)
      ids_[key] = ++count_;
    out->Char('(');
    out->Number(ids_[key]);
    out->Char(')');
    if (first) {
      out->Char(' ');
      // Two vectorized scans (find_first_of calls memchr once per byte).
      if (!memchr(text.data(), '\n', text.size()) && !memchr(text.data(), '\r', text.size())) {
        out->Text(text);  // Nearly always: copied whole.
      } else {
        for (char c : text)
          out->Char(c == '\n' || c == '\r' ? ' ' : c);
      }
    }
  }

 private:
  std::vector<uint32_t> ids_;
  uint32_t count_ = 0;
};

}  // namespace

bool WriteCallgrind(const CallGraph& graph, ProfileOutput* out, std::vector<std::string>* notes) {
  const StringPool& strings = graph.profile().storage().strings;
  const std::vector<CallGraph::Function>& functions = graph.functions();
  const bool memory = graph.has_memory();
  std::string& buffer = out->buffer();
  buffer += "# callgrind format, written by zerotrace's ztrace convert\nversion: 1\n";
  buffer += "creator: zerotrace\npositions: line\n";
  if (graph.is_templight()) {
    buffer += "event: CTime : Compilation Time (ns)\n";
    if (memory)
      buffer += "event: CMem : Compiler Memory Usage (bytes)\nevents: CTime CMem\n";
    else
      buffer += "events: CTime\n";
  } else {
    buffer += "event: Time : Time (ns)\nevents: Time\n";
  }
  buffer += "summary: " + std::to_string(graph.total_ns());
  if (memory)
    buffer += " " + std::to_string(graph.total_bytes());
  buffer += "\n";

  // Files by a dense key: the string id, or (a root's label) past them;
  // functions by their id.
  CompressedNames files;
  CompressedNames names;
  auto file_of = [&](uint32_t fn, size_t* key) -> std::string_view {
    const CallGraph::Function& f = functions[fn];
    if (graph.is_root(fn)) {
      *key = strings.size() + fn;
      return graph.root_label(fn);
    }
    if (f.file == kNullStringId) {
      *key = 0;
      return "(no file)";
    }
    *key = f.file;
    return strings.Get(f.file);
  };
  // Functions of one name in several origins are different functions.
  auto name_of = [&](uint32_t fn) -> std::string_view {
    const CallGraph::Function& f = functions[fn];
    return graph.is_root(fn) ? graph.root_label(fn)
           : f.name == kNullStringId ? std::string_view("(unnamed)")
                                     : strings.Get(f.name);
  };
  // A function's or a call's file and name lines, then its position and
  // costs ("calls=" lines for a call).
  constexpr size_t kFixedBytes = 32 + 6 * Record::kMaxNumber;
  std::string scratch;
  auto write = [&](const char* file_key, const char* name_key, uint32_t fn,
                   const CallGraph::Call* call, uint32_t line, int64_t ns, int64_t bytes) {
    size_t file_key_id = 0;
    const std::string_view file = file_of(fn, &file_key_id);
    const std::string_view name = name_of(fn);
    Record r(&buffer, &scratch,
             kFixedBytes + files.MaxBytes(file_key_id, file) + names.MaxBytes(fn, name));
    r.Text(file_key);
    files.Write(file_key_id, file, &r);
    r.Text(name_key);
    names.Write(fn, name, &r);
    r.Char('\n');
    if (call) {
      r.Text("calls=");
      r.Number(call->count);
      r.Char(' ');
      r.Number(functions[call->callee].line);
      r.Char('\n');
    }
    r.Number(line);
    r.Char(' ');
    r.Number(ns);
    if (memory) {
      r.Char(' ');
      r.Number(bytes);
    }
    r.Char('\n');
  };
  size_t next_call = 0;
  const std::vector<CallGraph::Call>& calls = graph.calls();
  for (uint32_t fn = 0; fn < functions.size(); fn++) {
    const CallGraph::Function& f = functions[fn];
    write("\nfl=", "\nfn=", fn, nullptr, f.line, f.self_ns, f.self_bytes);
    for (; next_call < calls.size() && calls[next_call].caller == fn; next_call++) {
      const CallGraph::Call& c = calls[next_call];
      write("cfi=", "\ncfn=", c.callee, &c, c.line, c.inclusive_ns, c.inclusive_bytes);
    }
    out->MaybeFlush();
  }
  if (functions.empty())
    notes->push_back("no slices: the callgrind file has no function");
  return out->Finish();
}

namespace {

// Text inside a dot "quoted string": quotes and backslashes escaped, line
// breaks as \n.
// Runs without such characters (nearly all of a name) are appended whole: a
// push_back per byte was a third of a graphviz export.
void AppendDotText(std::string_view text, std::string* out) {
  size_t run = 0;  // Where the run not yet appended starts.
  for (size_t i = 0; i < text.size(); i++) {
    const char c = text[i];
    if (c != '"' && c != '\\' && c != '\n' && c != '\r')
      continue;
    out->append(text.data() + run, i - run);
    run = i + 1;
    if (c == '\n') {
      *out += "\\n";
    } else if (c != '\r') {
      out->push_back('\\');
      out->push_back(c);
    }
  }
  out->append(text.data() + run, text.size() - run);
}

}  // namespace

bool WriteGraphviz(const CallGraph& graph, ProfileOutput* out, std::vector<std::string>* notes) {
  const StringPool& strings = graph.profile().storage().strings;
  const std::vector<CallGraph::Function>& functions = graph.functions();
  std::string& buffer = out->buffer();
  buffer += graph.is_templight() ? "digraph instantiations {\n" : "digraph calls {\n";
  buffer += "  node [shape=box, fontname=\"monospace\"];\n";
  std::vector<int64_t> root_total(functions.size(), 0);
  for (const CallGraph::Call& c : graph.calls()) {
    if (graph.is_root(c.caller))
      root_total[c.caller] += c.inclusive_ns;
  }
  for (uint32_t fn = 0; fn < functions.size(); fn++) {
    const CallGraph::Function& f = functions[fn];
    buffer += "  f" + std::to_string(fn) + " [label=\"";
    const bool root = graph.is_root(fn);
    if (root) {
      AppendDotText(graph.root_label(fn), &buffer);
      buffer += "\\ntotal: " + FormatDuration(root_total[fn]);
    } else {
      if (f.kind != kNullStringId) {
        AppendDotText(strings.Get(f.kind), &buffer);
        buffer += "\\n";
      }
      AppendDotText(f.name == kNullStringId ? std::string_view("(unnamed)") : strings.Get(f.name),
                    &buffer);
      if (f.file != kNullStringId) {
        buffer += "\\nat ";
        AppendDotText(strings.Get(f.file), &buffer);
        buffer += ":" + std::to_string(f.line);
      }
      buffer += "\\nself: " + FormatDuration(f.self_ns);
      if (graph.has_memory())
        buffer += ", memory: " + FormatBytes(static_cast<uint64_t>(f.self_bytes));
    }
    buffer += "\"";
    if (root)
      buffer += ", shape=ellipse";
    buffer += "];\n";
    out->MaybeFlush();
  }
  for (const CallGraph::Call& c : graph.calls()) {
    buffer += "  f" + std::to_string(c.caller) + " -> f" + std::to_string(c.callee) + " [label=\"";
    buffer += std::to_string(c.count) + (c.count == 1 ? " call, " : " calls, ") +
              FormatDuration(c.inclusive_ns);
    if (c.file != kNullStringId) {
      buffer += "\\nfrom ";
      AppendDotText(strings.Get(c.file), &buffer);
      buffer += ":" + std::to_string(c.line);
    }
    buffer += "\"];\n";
    out->MaybeFlush();
  }
  buffer += "}\n";
  if (functions.empty())
    notes->push_back("no slices: the graph is empty");
  return out->Finish();
}

}  // namespace processor
}  // namespace zt
