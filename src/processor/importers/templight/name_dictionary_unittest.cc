#include "zt/processor/name_dictionary.h"

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/processor/test/templight_test_files.h"
#include "zt/protozero/proto_decoder.h"

namespace zt {
namespace processor {
namespace {

struct StoredEntry {
  std::string marked_name;
  std::vector<uint32_t> marker_ids;
};

// Compresses names and keeps the entries as a writer would emit them.
class Dictionary {
 public:
  Dictionary()
      : compressor_([this](const DictionaryEntry& entry) {
          EXPECT_EQ(entry.id, entries_.size());  // Ids are emission order.
          entries_.push_back(StoredEntry{std::string(entry.marked_name), entry.marker_ids});
        }) {}
  uint32_t Compress(std::string_view name) { return compressor_.Compress(name); }
  const std::vector<StoredEntry>& entries() const { return entries_; }

 private:
  std::vector<StoredEntry> entries_;
  NameCompressor compressor_;
};

std::string ExpandOrError(NameExpander* expander, uint32_t id) {
  std::string_view name;
  std::string error;
  if (!expander->Expand(id, &name, &error))
    return "error: " + error;
  return std::string(name);
}

// Loads `entries` with `method` and expands `id`.
std::string Expand(const std::vector<StoredEntry>& entries, NameExpander::Method method,
                   uint32_t id) {
  NameExpander expander(method);
  for (const StoredEntry& entry : entries) {
    std::string error;
    expander.Add(entry.marked_name, entry.marker_ids, &error);
  }
  return ExpandOrError(&expander, id);
}

TEST(NameDictionaryTest, TheSeedsExampleSharesItsPieces) {
  Dictionary dictionary;
  const std::string name = "std::basic_string<char, std::char_traits<char>, std::allocator<char>>";
  const uint32_t id = dictionary.Compress(name);
  const std::vector<StoredEntry>& entries = dictionary.entries();
  // "std" and "char" are stored once however often they appear.
  size_t std_entries = 0;
  size_t char_entries = 0;
  for (const StoredEntry& entry : entries) {
    std_entries += entry.marked_name == "std";
    char_entries += entry.marked_name == "char";
  }
  EXPECT_EQ(std_entries, 1u);
  EXPECT_EQ(char_entries, 1u);
  EXPECT_EQ(entries[id].marked_name, std::string("\0::\0<\0, \0, \0>", 13));
  EXPECT_EQ(entries[id].marker_ids.size(), 5u);
  // Children before parents: every marker refers to an earlier entry.
  for (size_t i = 0; i < entries.size(); i++) {
    for (uint32_t marker : entries[i].marker_ids)
      EXPECT_LT(marker, i);
  }
  EXPECT_EQ(Expand(entries, NameExpander::Method::kSequential, id), name);
  EXPECT_EQ(Expand(entries, NameExpander::Method::kBatch, id), name);
}

TEST(NameDictionaryTest, ReleasingTheDictionaryKeepsTheExpandedNames) {
  Dictionary dictionary;
  const std::vector<std::string> names = {"std::vector<int, std::allocator<int>>",
                                          "std::map<long, std::vector<int, std::allocator<int>>>"};
  std::vector<uint32_t> ids;
  for (const std::string& name : names)
    ids.push_back(dictionary.Compress(name));
  for (NameExpander::Method method : {NameExpander::Method::kSequential, NameExpander::Method::kBatch}) {
    NameExpander expander(method);
    for (const StoredEntry& entry : dictionary.entries()) {
      std::string error;
      expander.Add(entry.marked_name, entry.marker_ids, &error);
    }
    std::vector<std::string_view> views;
    for (uint32_t id : ids) {
      std::string_view name;
      std::string error;
      ASSERT_TRUE(expander.Expand(id, &name, &error)) << error;
      views.push_back(name);
    }
    const size_t before = expander.memory_bytes();
    expander.ReleaseDictionary();
    EXPECT_LT(expander.memory_bytes(), before);
    EXPECT_EQ(expander.size(), 0u);
    for (size_t i = 0; i < names.size(); i++)
      EXPECT_EQ(views[i], names[i]);
    EXPECT_EQ(ExpandOrError(&expander, ids[0]).rfind("error: no dictionary entry", 0), 0u);
  }
}

// An entry's marked name with each placeholder shown as {its entry}, the
// same way down: the dictionary's whole split of a name at a glance.
std::string Shape(const std::vector<StoredEntry>& entries, uint32_t id) {
  const StoredEntry& entry = entries.at(id);
  std::string shape;
  size_t next = 0;
  for (char c : entry.marked_name) {
    if (c != '\0')
      shape.push_back(c);
    else
      shape += "{" + Shape(entries, entry.marker_ids.at(next++)) + "}";
  }
  return shape;
}

// Templight's writer splits operator names with its own rules (a '<' ends
// "operator<" only at the top level; "operator<<<" reopens a list): these
// are the splits it makes, every operator spelling with and without
// template arguments. Before, `operator<` with arguments was cut into a
// junk piece "operator<<long, std" (`--to templight` then differed from
// Templight's own file on most real traces).
TEST(NameDictionaryTest, OperatorsAreSplitAsTemplightsWriterSplitsThem) {
  struct Case {
    const char* name;
    const char* shape;
  };
  const Case cases[] = {
      {"std::__1::operator<<long, std::__1::allocator<long> >",
       "{std}::{__1}::{operator<}<{long}, {{std}::{__1}::{allocator}<{long}>} >"},
      {"std::operator<<<char, std::char_traits<char> >",
       "{std}::{operator<<}<{char}, {{std}::{char_traits}<{char}>} >"},
      {"std::operator<=<int>", "{std}::{operator<=}<{int}>"},
      {"std::operator<=><int>", "{std}::{operator<=>}<{int}>"},
      {"std::operator><int>", "{std}::{operator>}<{int}>"},
      {"std::operator>><int>", "{std}::{operator>>}<{int}>"},
      {"std::operator>=<int>", "{std}::{operator>=}<{int}>"},
      {"std::operator-><int>", "{std}::{operator->}<{int}>"},
      {"std::operator()<int>", "{std}::{operator()}<{int}>"},
      {"std::operator==<int, long>", "{std}::{operator==}<{int}, {long}>"},
      {"operator<", "operator<"},
      {"operator<=>", "operator<=>"},
      {"ns::operator<", "{ns}::{operator<}"},
      {"ns::operator<<", "{ns}::{operator<<}"},
      {"ns::operator>>", "{ns}::{operator>>}"},
      {"ns::operator->", "{ns}::{operator->}"},
      {"A<int>::operator<<B<int> >", "{A}<{int}>::{operator<}<{{B}<{int}>} >"},
      // Templight's quirks, kept: a list's first argument trimmed one space
      // at a time while two characters are left; an empty argument; text
      // after a list as a piece of its own; a list never closed.
      {"f< a , b >", "{f}< {a} , {b} >"},
      {"f<>", "{f}<{}>"},
      {"ns::f<int> const", "{ns}::{f}<{int}>{ const}"},
      {"ns::f<int, g<x>", "{ns}::{f}<{int}, g<x>"},
      {"::std::vector<int>", "::{std}::{vector}<{int}>"},
  };
  for (const Case& c : cases) {
    Dictionary dictionary;
    const uint32_t id = dictionary.Compress(c.name);
    EXPECT_EQ(Shape(dictionary.entries(), id), c.shape) << c.name;
    EXPECT_EQ(Expand(dictionary.entries(), NameExpander::Method::kBatch, id), c.name);
  }
}

TEST(NameDictionaryTest, ANameSeenBeforeIsOneLookup) {
  Dictionary dictionary;
  const uint32_t first = dictionary.Compress("std::vector<int>");
  const size_t entries = dictionary.entries().size();
  EXPECT_EQ(dictionary.Compress("std::vector<int>"), first);
  EXPECT_EQ(dictionary.entries().size(), entries);
  // Its pieces are reused by the next name.
  dictionary.Compress("std::vector<long>");
  EXPECT_EQ(dictionary.entries().size(), entries + 2);  // "long" and the name.
}

TEST(NameDictionaryTest, EveryNameComesBackByteForByte) {
  const std::vector<std::string> names = {
      "",
      "int",
      "::std::vector<int>",
      "a::b::",
      "std::map<std::string, std::vector<int>>::iterator",
      "f<  spaced ,  args  >",
      "operator<<",
      "std::operator<<<char, std::char_traits<char>>",
      "X::operator<=<int>",
      "Y::operator-><T>",
      "less<(1 > 2)>",
      "unbalanced<a, b",
      "unbalanced>a, b>",
      "empty<>",
      "a<,>",
      "<<<>>>",
      "::",
      ":::",
      "(lambda at /src/main.cpp:12:3)",
      "std::function<void (std::basic_string<char>, int *)>",
  };
  Dictionary dictionary;
  std::vector<uint32_t> ids;
  for (const std::string& name : names)
    ids.push_back(dictionary.Compress(name));
  for (size_t i = 0; i < names.size(); i++) {
    EXPECT_EQ(Expand(dictionary.entries(), NameExpander::Method::kSequential, ids[i]), names[i])
        << names[i];
    EXPECT_EQ(Expand(dictionary.entries(), NameExpander::Method::kBatch, ids[i]), names[i])
        << names[i];
  }
}

TEST(NameDictionaryTest, ASmallDictionaryHoldsAFewKiB) {
  // The expander's arena starts at 4 KiB and doubles (it took 1 MiB at the
  // first name: a small Templight file, or a fuzzer input, paid for a full
  // block).
  for (NameExpander::Method method :
       {NameExpander::Method::kSequential, NameExpander::Method::kBatch}) {
    NameExpander expander(method);
    std::string error;
    ASSERT_TRUE(expander.Add("int", {}, &error)) << error;
    const std::string marked("std::vector<\0>", 14);  // '\0': the placeholder.
    ASSERT_TRUE(expander.Add(marked, {0}, &error)) << error;
    EXPECT_EQ(ExpandOrError(&expander, 1), "std::vector<int>");
    EXPECT_LT(expander.memory_bytes(), size_t{16} << 10);
  }
}

TEST(NameDictionaryTest, ManyLongNamesSurviveTheArenaGrowing) {
  // Megabytes of names through blocks of every size (4 KiB up to the full
  // one) and names long enough for a block of their own.
  Dictionary dictionary;
  std::vector<std::pair<std::string, uint32_t>> compressed;
  for (int n = 0; n < 3000; n++) {
    const size_t length = n % 500 == 0 ? (300 << 10) + n : 1 + (n * 131) % 2000;
    const std::string name = "ns" + std::to_string(n) + "::T<" + std::string(length, 'a' + n % 26) +
                             ", int>";
    compressed.emplace_back(name, dictionary.Compress(name));
  }
  for (NameExpander::Method method :
       {NameExpander::Method::kSequential, NameExpander::Method::kBatch}) {
    NameExpander expander(method);
    for (const StoredEntry& entry : dictionary.entries()) {
      std::string error;
      ASSERT_TRUE(expander.Add(entry.marked_name, entry.marker_ids, &error)) << error;
    }
    for (const auto& [name, id] : compressed)
      ASSERT_EQ(ExpandOrError(&expander, id), name);
  }
}

TEST(NameDictionaryTest, RandomTemplateNamesRoundTrip) {
  std::mt19937 random(12345);
  const char* const atoms[] = {"std", "vector", "int", "char", "allocator", "x", " ", ",",
                               "<",   ">",      "::",  "operator", "(", ")", "<<", "*"};
  Dictionary dictionary;
  std::vector<std::pair<std::string, uint32_t>> compressed;
  for (int n = 0; n < 2000; n++) {
    std::string name;
    const int length = static_cast<int>(random() % 24);
    for (int i = 0; i < length; i++)
      name += atoms[random() % (sizeof(atoms) / sizeof(atoms[0]))];
    compressed.emplace_back(name, dictionary.Compress(name));
  }
  NameExpander sequential(NameExpander::Method::kSequential);
  NameExpander batch(NameExpander::Method::kBatch);
  for (const StoredEntry& entry : dictionary.entries()) {
    std::string error;
    ASSERT_TRUE(sequential.Add(entry.marked_name, entry.marker_ids, &error)) << error;
    ASSERT_TRUE(batch.Add(entry.marked_name, entry.marker_ids, &error));
  }
  for (const auto& [name, id] : compressed) {
    EXPECT_EQ(ExpandOrError(&sequential, id), name);
    EXPECT_EQ(ExpandOrError(&batch, id), name);
  }
}

TEST(NameDictionaryTest, ANameHoldingAZeroByteIsRefused) {
  Dictionary dictionary;
  EXPECT_EQ(dictionary.Compress(std::string("a\0b", 3)), NameCompressor::kNoId);
  EXPECT_TRUE(dictionary.entries().empty());
}

TEST(NameDictionaryTest, DeepNestingIsBoundedAndStillExact) {
  std::string name;
  for (int i = 0; i < 5000; i++)
    name += "a<";
  for (int i = 0; i < 5000; i++)
    name += ">";
  Dictionary dictionary;
  const uint32_t id = dictionary.Compress(name);
  EXPECT_LE(dictionary.entries().size(), size_t{NameCompressor::kMaxNesting} * 2 + 2);
  EXPECT_EQ(Expand(dictionary.entries(), NameExpander::Method::kSequential, id), name);
}

TEST(NameDictionaryTest, ForwardReferencesAreRefusedSequentiallyAndAllowedInABatch) {
  const std::vector<StoredEntry> entries = {
      {std::string("\0<\0>", 4), {1, 2}},
      {"vector", {}},
      {"int", {}},
  };
  EXPECT_EQ(Expand(entries, NameExpander::Method::kBatch, 0), "vector<int>");
  const std::string sequential = Expand(entries, NameExpander::Method::kSequential, 0);
  EXPECT_EQ(sequential, "error: dictionary entry 0 could not be expanded");
  NameExpander expander;
  std::string error;
  EXPECT_FALSE(expander.Add(entries[0].marked_name, entries[0].marker_ids, &error));
  EXPECT_EQ(error, "dictionary entry 0 refers to entry 1, which is not an earlier entry (1 so far)");
}

TEST(NameDictionaryTest, CyclesAndBadMarkersAreRefusedWithAReason) {
  const std::vector<StoredEntry> entries = {
      {std::string("a\0", 2), {1}},       // 0 -> 1
      {std::string("b\0", 2), {0}},       // 1 -> 0: a cycle.
      {std::string("c\0", 2), {2}},       // Itself.
      {std::string("d\0\0", 3), {7}},     // Fewer markers than placeholders.
      {"e", {0}},                         // More markers than placeholders.
      {std::string("f\0", 2), {99}},      // Out of range.
      {std::string("g\0", 2), {1}},       // Refers to a failed entry.
      {"h", {}},
  };
  NameExpander batch(NameExpander::Method::kBatch);
  for (const StoredEntry& entry : entries) {
    std::string error;
    EXPECT_TRUE(batch.Add(entry.marked_name, entry.marker_ids, &error));
  }
  EXPECT_EQ(ExpandOrError(&batch, 0),
            "error: dictionary entry 1 refers to entry 0, which refers back to it (a cycle)");
  EXPECT_EQ(ExpandOrError(&batch, 1), "error: dictionary entry 1 could not be expanded");
  EXPECT_EQ(ExpandOrError(&batch, 2), "error: dictionary entry 2 refers to itself");
  EXPECT_EQ(ExpandOrError(&batch, 3),
            "error: dictionary entry 3 has more placeholders than its 1 marker ids");
  EXPECT_EQ(ExpandOrError(&batch, 4),
            "error: dictionary entry 4 has 1 marker ids but fewer placeholders (0)");
  EXPECT_EQ(ExpandOrError(&batch, 5),
            "error: dictionary entry 5 refers to entry 99, which is not an earlier entry (8 so far)");
  EXPECT_EQ(ExpandOrError(&batch, 6),
            "error: dictionary entry 6 refers to entry 1, which could not be expanded");
  EXPECT_EQ(ExpandOrError(&batch, 7), "h");
  EXPECT_EQ(ExpandOrError(&batch, 8), "error: no dictionary entry 8 (8 entries)");

  NameExpander sequential;
  std::vector<bool> added;
  for (const StoredEntry& entry : entries) {
    std::string error;
    added.push_back(sequential.Add(entry.marked_name, entry.marker_ids, &error));
  }
  EXPECT_EQ(added, (std::vector<bool>{false, false, false, false, false, false, false, true}));
  EXPECT_EQ(ExpandOrError(&sequential, 7), "h");
}

TEST(NameDictionaryTest, ANameThatDoublesAtEveryLevelStopsAtTheLimit) {
  // Entry i is entry i-1 twice: 2^i bytes.
  NameExpander sequential(NameExpander::Method::kSequential, /*max_name_bytes=*/4096);
  NameExpander batch(NameExpander::Method::kBatch, /*max_name_bytes=*/4096);
  std::string error;
  ASSERT_TRUE(sequential.Add("x", {}, &error));
  ASSERT_TRUE(batch.Add("x", {}, &error));
  for (uint32_t i = 1; i < 40; i++) {
    const bool ok = sequential.Add(std::string("\0\0", 2), {i - 1, i - 1}, &error);
    EXPECT_EQ(ok, i <= 12) << i;
    batch.Add(std::string("\0\0", 2), {i - 1, i - 1}, &error);
  }
  EXPECT_EQ(ExpandOrError(&batch, 12).size(), 4096u);
  // The batch method keeps no pieces: the entry asked for is refused.
  EXPECT_EQ(ExpandOrError(&batch, 39),
            "error: dictionary entry 39 expands to more than 4096 bytes");
  EXPECT_EQ(ExpandOrError(&batch, 13),
            "error: dictionary entry 13 expands to more than 4096 bytes");
}

// Names that all walk one long chain: past the work bound (linear in the
// dictionary), the batch method memoizes the pieces, so the total work stays
// linear, and the names are the same.
TEST(NameDictionaryTest, ManyNamesOverALongChainStayLinear) {
  constexpr uint32_t kChain = 100000;
  NameExpander batch(NameExpander::Method::kBatch);
  NameExpander sequential(NameExpander::Method::kSequential);
  EXPECT_FALSE(batch.memoizes_all_pieces());
  std::string error;
  for (NameExpander* expander : {&batch, &sequential}) {
    expander->Add("a", {}, &error);
    for (uint32_t i = 1; i < kChain; i++)  // Entry i: entry i-1, no text of its own.
      expander->Add(std::string("\0", 1), {i - 1}, &error);
    for (uint32_t i = 0; i < kChain; i++)  // Entry kChain + i: "<" chain end ">".
      expander->Add(std::string("<\0>", 3), {kChain - 1}, &error);
  }
  // Unmemoized, this is 10^10 steps. The bound (8x the dictionary) is
  // past within the first few dozen names: checked after 1000, so that a
  // lost bound fails here quickly rather than running for hours.
  for (uint32_t i = 0; i < kChain; i++) {
    if (i == 1000) {
      ASSERT_TRUE(batch.memoizes_all_pieces());
    }
    std::string_view from_batch, from_sequential;
    ASSERT_TRUE(batch.Expand(kChain + i, &from_batch, &error)) << error;
    ASSERT_TRUE(sequential.Expand(kChain + i, &from_sequential, &error)) << error;
    ASSERT_EQ(from_batch, "<a>");
    ASSERT_EQ(from_batch, from_sequential);
  }
}

TEST(NameDictionaryTest, ALongChainExpandsWithoutRecursion) {
  // 200,000 entries each adding one piece to the previous: a recursive
  // expander would overflow its stack in a batch.
  NameExpander batch(NameExpander::Method::kBatch);
  std::string error;
  batch.Add("a", {}, &error);
  for (uint32_t i = 1; i < 200000; i++)
    batch.Add(std::string("\0b", 2), {i - 1}, &error);
  std::string_view name;
  ASSERT_TRUE(batch.Expand(100, &name, &error)) << error;
  EXPECT_EQ(name.size(), 101u);
  NameExpander small_limit(NameExpander::Method::kBatch, /*max_name_bytes=*/1000);
  small_limit.Add("a", {}, &error);
  for (uint32_t i = 1; i < 200000; i++)
    small_limit.Add(std::string("\0b", 2), {i - 1}, &error);
  EXPECT_FALSE(small_limit.Expand(199999, &name, &error));
  EXPECT_EQ(error, "dictionary entry 199999 expands to more than 1000 bytes");
}

// The "name" values of the fixture's expected entries, in begin order (its
// names hold no quote or backslash).
std::vector<std::string> ExpectedNames(const std::string& json) {
  std::vector<std::string> names;
  const std::string key = "\"name\":\"";
  for (size_t at = json.find(key); at != std::string::npos; at = json.find(key, at)) {
    at += key.size();
    const size_t end = json.find('"', at);
    names.push_back(json.substr(at, end - at));
    at = end;
  }
  return names;
}

TEST(NameDictionaryTest, MakesTheSameDictionaryAsTemplightsWriterOnTheTinyFixture) {
  // The fixture's dictionary entries and the dict_id of every begin, read
  // with protozero's generic decoder: collection.traces (1) holds
  // entries (2) {begin (1) {name (2) {dict_id (3)}}} and names (3).
  const std::string file = ReadTemplightTestFile("tiny.memory.trace.pbf");
  ASSERT_FALSE(file.empty());
  std::vector<StoredEntry> fixture_entries;
  std::vector<uint32_t> begin_ids;
  protozero::ProtoDecoder collection(file);
  for (auto trace = collection.ReadField(); trace; trace = collection.ReadField()) {
    ASSERT_EQ(trace.id(), 1u);
    protozero::ProtoDecoder fields(trace.as_bytes());
    for (auto f = fields.ReadField(); f; f = fields.ReadField()) {
      if (f.id() == 3) {
        StoredEntry entry;
        protozero::ProtoDecoder dict(f.as_bytes());
        for (auto d = dict.ReadField(); d; d = dict.ReadField()) {
          if (d.id() == 1)
            entry.marked_name = d.as_std_string();
          else if (d.id() == 2)
            entry.marker_ids.push_back(d.as_uint32());
        }
        fixture_entries.push_back(entry);
      } else if (f.id() == 2) {
        protozero::ProtoDecoder entry(f.as_bytes());
        if (auto begin = entry.FindField(1)) {
          auto name = protozero::ProtoDecoder(begin.as_bytes()).FindField(2);
          auto dict_id = protozero::ProtoDecoder(name.as_bytes()).FindField(3);
          ASSERT_TRUE(dict_id.valid());
          begin_ids.push_back(dict_id.as_uint32());
        }
      }
    }
  }
  const std::vector<std::string> expected = ExpectedNames(ReadTemplightTestFile("tiny.expected.json"));
  ASSERT_EQ(begin_ids.size(), expected.size());
  ASSERT_EQ(fixture_entries.size(), 38u);

  // Both expanders give the expected names.
  for (size_t i = 0; i < begin_ids.size(); i++) {
    EXPECT_EQ(Expand(fixture_entries, NameExpander::Method::kSequential, begin_ids[i]),
              expected[i]);
    EXPECT_EQ(Expand(fixture_entries, NameExpander::Method::kBatch, begin_ids[i]), expected[i]);
  }
  // Compressing the names in the same order makes the same entries, in the
  // same order, with the same ids.
  Dictionary dictionary;
  for (size_t i = 0; i < expected.size(); i++)
    EXPECT_EQ(dictionary.Compress(expected[i]), begin_ids[i]);
  ASSERT_EQ(dictionary.entries().size(), fixture_entries.size());
  for (size_t i = 0; i < fixture_entries.size(); i++) {
    EXPECT_EQ(dictionary.entries()[i].marked_name, fixture_entries[i].marked_name) << i;
    EXPECT_EQ(dictionary.entries()[i].marker_ids, fixture_entries[i].marker_ids) << i;
  }
}

}  // namespace
}  // namespace processor
}  // namespace zt
