// Dictionary compression of long C++ names, as Templight's trace format
// stores them (docs/design/templight.md): a name is an entry whose
// `marked_name` holds its text with some pieces replaced by '\0'
// placeholders, and whose `marker_ids` say which earlier entry fills each
// placeholder, in order. Names that share pieces (`std::allocator<char>`
// in a hundred instantiations) share entries. Independent of Templight's
// messages: callers move (marked_name, marker_ids) pairs in and out.
//
//   NameCompressor compressor([&](const DictionaryEntry& entry) {
//     WriteEntry(entry.marked_name, entry.marker_ids);  // Children first.
//   });
//   uint32_t id = compressor.Compress("std::vector<int, std::allocator<int>>");
//
//   NameExpander expander;  // Sequential: each entry expanded on arrival.
//   std::string error;
//   if (!expander.Add(marked_name, marker_ids, &error))
//     Count(error);  // The id is taken; expanding it fails.
//   std::string_view name;
//   if (expander.Expand(id, &name, &error)) Use(name);
//
// Cost: compressing a name already seen is one hash lookup (of a copy of
// the name); a new name is split once per level of nesting (linear in its
// length per level).
// Sequential expansion copies each entry's name once; batch expansion
// expands an entry the first time it is asked for, with an explicit stack.
// Expanded names are kept for the expander's lifetime (views stay valid).
//
// Thread-compatible: one compressor or expander per thread.

#ifndef ZT_PROCESSOR_NAME_DICTIONARY_H_
#define ZT_PROCESSOR_NAME_DICTIONARY_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace zt {
namespace processor {

// One dictionary entry: its text, with a '\0' per placeholder, and the id
// of the entry that fills each placeholder, in order.
struct DictionaryEntry {
  uint32_t id = 0;
  std::string_view marked_name;
  std::vector<uint32_t> marker_ids;
};

class NameCompressor {
 public:
  static constexpr uint32_t kNoId = UINT32_MAX;
  // Called once per new entry, an entry's markers before the entry itself;
  // the entry's views are valid during the call only.
  using EntrySink = std::function<void(const DictionaryEntry& entry)>;

  // Names nested deeper than this are stored whole below that level (a
  // bound on the recursion for hostile names).
  static constexpr int kMaxNesting = 64;

  // What Compress() may keep of the names it is given.
  enum class Names {
    kCopied,  // Copies each new name and piece (the default).
    // The caller's names stay valid and unchanged as long as the compressor
    // (a profile's names, a string pool's): kept as views, which halves the
    // compressor's memory.
    kOutliveCompressor,
  };
  explicit NameCompressor(EntrySink sink, Names names = Names::kCopied);
  ~NameCompressor();
  NameCompressor(const NameCompressor&) = delete;
  NameCompressor& operator=(const NameCompressor&) = delete;

  // The id of `name`'s entry, made (with the entries of its pieces) if new.
  // Splits as Templight's writer does, so that the entries are the ones it
  // writes for the same names: at "::" outside template arguments, and at
  // the first level of '<', ',' and '>' (arguments trimmed of spaces);
  // `operator<`, `operator<<` and `operator<=` keep their '<'. Expanding
  // the id gives `name` back byte for byte, whatever it holds. kNoId for a
  // name that contains '\0' (it cannot be told from a placeholder).
  uint32_t Compress(std::string_view name);

  // Entries made so far (the next entry's id).
  uint32_t entry_count() const { return next_id_; }

 private:
  uint32_t CompressAt(std::string_view name, int nesting);
  // Writes to *marked `name` with each piece replaced by a '\0', and adds
  // the piece's id to *markers (name_dictionary.cc says where it splits).
  void Split(std::string_view name, int nesting, std::string* marked,
             std::vector<uint32_t>* markers);

  EntrySink sink_;
  const Names names_;
  // Whole names and pieces seen, by text: views of the caller's names or of
  // key_blocks_.
  std::unordered_map<std::string_view, uint32_t> ids_;
  std::vector<std::unique_ptr<char[]>> key_blocks_;
  char* key_next_ = nullptr;
  size_t key_left_ = 0;
  size_t key_block_bytes_ = size_t{4} << 10;  // The next block's, doubling.
  uint32_t next_id_ = 0;
};

class NameExpander {
 public:
  enum class Method {
    // Each entry is expanded when added, from earlier entries only (the
    // order Templight writes them): a forward reference is refused.
    kSequential,
    // Entries are kept as added and expanded when first asked for: a
    // forward reference is allowed, a cycle is refused.
    kBatch,
  };
  static constexpr size_t kDefaultMaxNameBytes = size_t{1} << 20;

  // Names longer than `max_name_bytes` are refused: nested entries can
  // double a name's length at every level.
  explicit NameExpander(Method method = Method::kSequential,
                        size_t max_name_bytes = kDefaultMaxNameBytes);
  ~NameExpander();
  NameExpander(const NameExpander&) = delete;
  NameExpander& operator=(const NameExpander&) = delete;

  // Adds the next entry; its id is size() before the call. Sequential: the
  // entry is expanded now, and on failure (a marker that is not an earlier
  // entry, or one that failed; fewer or more markers than placeholders; a
  // name over the limit) false is returned with the reason in *error: the
  // id is taken and expanding it fails. Batch: true (false only past 1 G
  // marker ids in one expander).
  bool Add(std::string_view marked_name, const std::vector<uint32_t>& marker_ids,
           std::string* error);

  // The expanded name of entry `id`, valid for the expander's lifetime;
  // false with the reason in *error if it has none.
  bool Expand(uint32_t id, std::string_view* name, std::string* error);

  // Batch: memoize every piece from now on, as the expander does by itself
  // past its work bound (for tests of that walk, and for callers that will
  // ask for most pieces anyway). The names are the same either way.
  void MemoizeAllPieces() { memoize_pieces_ = true; }
  // Whether it does (asked to, or past its work bound).
  bool memoizes_all_pieces() const { return memoize_pieces_; }

  // Room for `entries` entries in all: a reader that counted them first
  // holds no doubling slack (a third of the table on a large trace).
  void Reserve(size_t entries) { entries_.reserve(entries); }
  // Frees what only further expansion needs (the entries' table and their
  // marker ids: a third of a large dictionary's memory); the names expanded
  // so far stay valid where they are. Afterwards size() is 0 and Expand()
  // fails: for an importer done with the dictionary, whose storage views
  // the names.
  void ReleaseDictionary();

  size_t size() const { return entries_.size(); }
  Method method() const { return method_; }
  // Bytes held (entries, marker ids, the arena of names), for memory reports.
  size_t memory_bytes() const;

 private:
  // 16 bytes an entry: a large trace has hundreds of thousands.
  static constexpr uint32_t kMaxMarkers = (1u << 30) - 1;
  struct Entry {
    enum State : uint32_t { kPending, kExpanding, kExpanded, kFailed };
    // Pending (batch): the marked name; expanded: the name. In the arena.
    const char* text = nullptr;
    uint32_t size = 0;
    // Batch: the entry's ids are markers_[first_marker, the next entry's
    // first_marker), in entry order; set for every entry, refused ones too.
    uint32_t first_marker : 30;
    uint32_t state : 2;
    Entry() : first_marker(0), state(kPending) {}
  };
  // Batch: how many marker ids entry `id` has.
  uint32_t MarkerCount(uint32_t id) const {
    const uint32_t end = id + 1 < entries_.size() ? entries_[id + 1].first_marker
                                                  : static_cast<uint32_t>(markers_.size());
    return end - entries_[id].first_marker;
  }

  // Batch: expands `id` straight from the marked names, keeping only its
  // own result (the pieces of a name are not kept: most are asked for
  // never). False with no state changed when the work bound is reached;
  // true when `id` is decided (expanded, or failed with *why).
  bool ExpandUnmemoized(uint32_t id, std::string* why);
  struct UnmemoizedFrame {
    uint32_t id;
    uint32_t next_char;
    uint32_t next_marker;
    uint32_t marker_count;
  };
  std::vector<UnmemoizedFrame> unmemoized_stack_;  // Reused: an allocation per name cost 1.5%.
  // Expands entry `id` whose markers are all expanded; sets its state.
  bool ExpandFromMarkers(uint32_t id, std::string_view marked_name, const uint32_t* marker_ids,
                         size_t marker_count, std::string* error);
  std::string_view Store(std::string_view text);

  const Method method_;
  const size_t max_name_bytes_;
  std::vector<Entry> entries_;
  std::vector<uint32_t> markers_;  // Batch: every entry's marker ids, in entry order.
  // Batch: entries visited and bytes copied by unmemoized expansions. Past
  // a bound linear in the dictionary's size (a hostile dictionary can make
  // every name walk a long chain), every piece is memoized from then on.
  uint64_t unmemoized_work_ = 0;
  uint64_t marked_bytes_ = 0;
  bool memoize_pieces_ = false;
  std::vector<std::unique_ptr<char[]>> arena_blocks_;
  size_t arena_bytes_ = 0;
  size_t arena_left_ = 0;
  char* arena_next_ = nullptr;
  size_t arena_block_bytes_ = size_t{4} << 10;  // The next block's, doubling.

  // The name being built: appended to inline (std::string::append is a call
  // per piece, 5% of a large import's instructions).
  class Scratch {
   public:
    void clear() { size_ = 0; }
    size_t size() const { return size_; }
    std::string_view view() const { return std::string_view(data_.get(), size_); }
    void push_back(char c) {
      if (size_ == capacity_)
        Grow(1);
      data_[size_++] = c;
    }
    void append(const char* text, size_t n) {
      if (n == 0)
        return;  // (text may be null then.)
      if (n > capacity_ - size_)
        Grow(n);
      memcpy(data_.get() + size_, text, n);
      size_ += n;
    }
    void Release() {
      data_.reset();
      size_ = capacity_ = 0;
    }

   private:
    void Grow(size_t more);  // Room for `more` bytes past size_, doubling.
    std::unique_ptr<char[]> data_;
    size_t size_ = 0;
    size_t capacity_ = 0;
  };
  Scratch scratch_;
};

}  // namespace processor
}  // namespace zt

#endif  // ZT_PROCESSOR_NAME_DICTIONARY_H_
