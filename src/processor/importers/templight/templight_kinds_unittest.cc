#include "src/processor/importers/templight/templight_kinds.h"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/processor/importers/templight/templight_reader.h"
#include "src/processor/test/templight_test_files.h"

namespace zt {
namespace processor {
namespace {

using Table = TemplightKindTable;

const Table kAllKnown[] = {Table::kClang4Patched, Table::kClang5To7,
                           Table::kTemplightProto, Table::kClang13To14,
                           Table::kClang15, Table::kClang16,
                           Table::kClang17To19};

std::string Name(uint32_t kind, Table table) {
  const char* name = TemplightKindName(kind, table);
  return name ? name : "(null)";
}

TEST(TemplightKindsTest, TablesNameTheirKnownNumbers) {
  EXPECT_EQ(Name(7, Table::kClang4Patched), "ExceptionSpecInstantiation");
  EXPECT_EQ(Name(8, Table::kClang4Patched), "Memoization");

  EXPECT_EQ(Name(7, Table::kClang5To7), "ExceptionSpecInstantiation");
  EXPECT_EQ(Name(8, Table::kClang5To7), "DeclaringSpecialMember");
  EXPECT_EQ(Name(9, Table::kClang5To7), "DefiningSynthesizedFunction");
  EXPECT_EQ(Name(10, Table::kClang5To7), "Memoization");

  EXPECT_EQ(Name(7, Table::kTemplightProto), "ExceptionSpecEvaluation");
  EXPECT_EQ(Name(8, Table::kTemplightProto), "ExceptionSpecInstantiation");
  EXPECT_EQ(Name(11, Table::kTemplightProto), "Memoization");

  EXPECT_EQ(Name(9, Table::kClang13To14), "RequirementInstantiation");
  EXPECT_EQ(Name(13, Table::kClang13To14), "DefiningSynthesizedFunction");
  EXPECT_EQ(Name(17, Table::kClang13To14), "ParameterMappingSubstitution");
  EXPECT_EQ(Name(21, Table::kClang13To14), "Memoization");

  EXPECT_EQ(Name(21, Table::kClang15), "BuildingBuiltinDumpStructCall");
  EXPECT_EQ(Name(22, Table::kClang15), "Memoization");

  EXPECT_EQ(Name(17, Table::kClang16), "RequirementParameterInstantiation");
  EXPECT_EQ(Name(18, Table::kClang16), "ParameterMappingSubstitution");
  EXPECT_EQ(Name(22, Table::kClang16), "BuildingBuiltinDumpStructCall");
  EXPECT_EQ(Name(23, Table::kClang16), "Memoization");

  EXPECT_EQ(Name(5, Table::kClang17To19), "LambdaExpressionSubstitution");
  EXPECT_EQ(Name(6, Table::kClang17To19), "PriorTemplateArgumentSubstitution");
  EXPECT_EQ(Name(24, Table::kClang17To19), "Memoization");
  EXPECT_EQ(Name(25, Table::kClang17To19), "BuildingDeductionGuides");
  EXPECT_EQ(Name(26, Table::kClang17To19), "TypeAliasTemplateInstantiation");
}

TEST(TemplightKindsTest, CountsAndMemoization) {
  const uint32_t counts[] = {9, 11, 12, 22, 23, 24, 27};
  for (size_t i = 0; i < sizeof(kAllKnown) / sizeof(kAllKnown[0]); ++i) {
    const Table table = kAllKnown[i];
    SCOPED_TRACE(TemplightKindTableLabel(table));
    EXPECT_EQ(TemplightKindCount(table), counts[i]);
    const uint32_t memoization = TemplightMemoizationKind(table);
    EXPECT_EQ(Name(memoization, table), "Memoization");
    // Memoization is the last kind up to clang 16 (the pick rule's premise).
    if (table != Table::kClang17To19) {
      EXPECT_EQ(memoization + 1, TemplightKindCount(table));
    }
    for (uint32_t kind = 0; kind < TemplightKindCount(table); ++kind)
      EXPECT_NE(TemplightKindName(kind, table), nullptr) << kind;
  }
}

TEST(TemplightKindsTest, FirstFiveKindsAreTheSameEverywhere) {
  const char* const first[] = {"TemplateInstantiation",
                               "DefaultTemplateArgumentInstantiation",
                               "DefaultFunctionArgumentInstantiation",
                               "ExplicitTemplateArgumentSubstitution",
                               "DeducedTemplateArgumentSubstitution"};
  for (Table table : kAllKnown) {
    for (uint32_t kind = 0; kind < 5; ++kind)
      EXPECT_EQ(Name(kind, table), first[kind]) << TemplightKindTableLabel(table);
  }
}

TEST(TemplightKindsTest, UnknownNumbersAreNull) {
  for (Table table : kAllKnown) {
    EXPECT_EQ(TemplightKindName(TemplightKindCount(table), table), nullptr);
    EXPECT_EQ(TemplightKindName(1000, table), nullptr);
    EXPECT_EQ(TemplightKindName(UINT32_MAX, table), nullptr);
  }
  EXPECT_EQ(TemplightKindName(0, Table::kUnknown), nullptr);
  EXPECT_EQ(TemplightKindCount(Table::kUnknown), 0u);
  EXPECT_EQ(TemplightMemoizationKind(Table::kUnknown), UINT32_MAX);
  // A value outside the enum is treated as unknown, not read out of bounds.
  EXPECT_EQ(TemplightKindName(0, static_cast<Table>(200)), nullptr);
  EXPECT_STREQ(TemplightKindTableLabel(static_cast<Table>(200)), "unknown");
}

Table PickFor(std::vector<uint32_t> kinds) {
  TemplightKindEvidence evidence;
  for (uint32_t kind : kinds)
    evidence.Add(kind);
  return PickTemplightKindTable(evidence);
}

TEST(TemplightKindsTest, PickRule) {
  EXPECT_EQ(PickFor({}), Table::kTemplightProto);
  EXPECT_EQ(PickFor({0, 4, 0}), Table::kTemplightProto);
  EXPECT_EQ(PickFor({7}), Table::kTemplightProto);
  EXPECT_EQ(PickFor({0, 8, 8}), Table::kClang4Patched);
  EXPECT_EQ(PickFor({9}), Table::kTemplightProto);
  EXPECT_EQ(PickFor({10, 0}), Table::kClang5To7);
  EXPECT_EQ(PickFor({11, 4, 0}), Table::kTemplightProto);
  for (uint32_t max = 12; max <= 20; ++max)
    EXPECT_EQ(PickFor({0, max}), Table::kUnknown) << max;
  EXPECT_EQ(PickFor({21}), Table::kClang13To14);
  EXPECT_EQ(PickFor({22}), Table::kClang15);
  EXPECT_EQ(PickFor({0, 23}), Table::kClang16);
  EXPECT_EQ(PickFor({24}), Table::kClang17To19);
  EXPECT_EQ(PickFor({24, 25}), Table::kClang17To19);
  EXPECT_EQ(PickFor({26, 24}), Table::kClang17To19);
  EXPECT_EQ(PickFor({27}), Table::kUnknown);
  EXPECT_EQ(PickFor({UINT32_MAX}), Table::kUnknown);
  // Each known table's Memoization, as the largest kind, picks that table.
  for (Table table : kAllKnown)
    EXPECT_EQ(PickFor({0, TemplightMemoizationKind(table)}), table);
}

TEST(TemplightKindsTest, TableForClang) {
  EXPECT_EQ(TemplightKindTableForClang(2), Table::kUnknown);
  EXPECT_EQ(TemplightKindTableForClang(4), Table::kClang4Patched);
  EXPECT_EQ(TemplightKindTableForClang(7), Table::kClang5To7);
  EXPECT_EQ(TemplightKindTableForClang(9), Table::kTemplightProto);
  for (int major = 10; major <= 12; ++major)
    EXPECT_EQ(TemplightKindTableForClang(major), Table::kUnknown);
  EXPECT_EQ(TemplightKindTableForClang(14), Table::kClang13To14);
  EXPECT_EQ(TemplightKindTableForClang(15), Table::kClang15);
  EXPECT_EQ(TemplightKindTableForClang(16), Table::kClang16);
  EXPECT_EQ(TemplightKindTableForClang(19), Table::kClang17To19);
  EXPECT_EQ(TemplightKindTableForClang(20), Table::kUnknown);
}

// Reads a fixture and returns, per unit, the table its kinds pick.
std::vector<Table> PickPerUnit(const std::string& fixture, TemplightProfile* profile) {
  const std::string file = ReadTemplightTestFile(fixture);
  EXPECT_FALSE(file.empty()) << fixture;
  EXPECT_TRUE(ReadTemplight(file.data(), file.size(), TemplightReadOptions(), profile));
  EXPECT_TRUE(profile->problems.empty()) << fixture;
  std::vector<Table> tables;
  for (const TemplightUnit& unit : profile->units) {
    TemplightKindEvidence evidence;
    for (size_t i = 0; i < unit.instantiation_count; ++i)
      evidence.Add(profile->instantiations[unit.first_instantiation + i].kind);
    EXPECT_EQ(evidence.begins, unit.instantiation_count);
    tables.push_back(PickTemplightKindTable(evidence));
  }
  return tables;
}

// The fixture's "kind_names": {"0":"TemplateInstantiation",...}.
std::string ExpectedKindName(const std::string& json, uint32_t kind) {
  const std::string key = "\"" + std::to_string(kind) + "\":\"";
  const size_t names = json.find("\"kind_names\":{");
  const size_t at = json.find(key, names);
  if (names == std::string::npos || at == std::string::npos)
    return "";
  const size_t begin = at + key.size();
  return json.substr(begin, json.find('"', begin) - begin);
}

TEST(TemplightKindsTest, TinyFixtureNamesAsItsExpectedJson) {
  const std::string json = ReadTemplightTestFile("tiny.expected.json");
  ASSERT_FALSE(json.empty());
  ASSERT_NE(json.find("\"kind_table\":\"proto\""), std::string::npos);
  for (uint32_t kind = 0; kind < 12; ++kind)
    EXPECT_EQ(Name(kind, Table::kTemplightProto), ExpectedKindName(json, kind)) << kind;

  TemplightProfile profile;
  const std::vector<Table> tables = PickPerUnit("tiny.memory.trace.pbf", &profile);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0], Table::kTemplightProto);
  ASSERT_EQ(profile.instantiations.size(), 10u);
  for (const TemplightInstantiation& i : profile.instantiations)
    EXPECT_EQ(Name(i.kind, tables[0]), ExpectedKindName(json, i.kind));
  // The fixture's begins: kinds 0, 4 and 11.
  EXPECT_EQ(Name(profile.instantiations[0].kind, tables[0]), "TemplateInstantiation");
  EXPECT_EQ(Name(profile.instantiations[1].kind, tables[0]), "Memoization");
  EXPECT_EQ(Name(profile.instantiations[3].kind, tables[0]),
            "DeducedTemplateArgumentSubstitution");
}

TEST(TemplightKindsTest, Clang16FixtureNamesKind23AsClang16Does) {
  TemplightProfile profile;
  const std::vector<Table> tables = PickPerUnit("kind23_clang16.trace.pbf", &profile);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0], Table::kClang16);
  bool saw_23 = false;
  for (const TemplightInstantiation& i : profile.instantiations) {
    EXPECT_NE(TemplightKindName(i.kind, tables[0]), nullptr) << i.kind;
    if (i.kind == 23) {
      saw_23 = true;
      EXPECT_EQ(Name(i.kind, tables[0]), "Memoization");
      EXPECT_EQ(profile.names[i.name], "std::allocator<int>");
    }
  }
  EXPECT_TRUE(saw_23);
  // In Templight's own enum, 23 has no name: the number is shown as is.
  EXPECT_EQ(TemplightKindName(23, Table::kTemplightProto), nullptr);
}

TEST(TemplightKindsTest, OtherFixturesPickTemplightsEnum) {
  for (const char* fixture : {"plain_names_c0.trace.pbf", "unclosed_begins.trace.pbf"}) {
    TemplightProfile profile;
    const std::vector<Table> tables = PickPerUnit(fixture, &profile);
    ASSERT_EQ(tables.size(), 1u) << fixture;
    EXPECT_EQ(tables[0], Table::kTemplightProto) << fixture;
    for (const TemplightInstantiation& i : profile.instantiations)
      EXPECT_NE(TemplightKindName(i.kind, tables[0]), nullptr) << fixture;
  }
}

// The second unit of two_traces_concat (fib<4>) goes up to kind 10, and its
// kind-10 begins are what Memoization looks like: instant leaves for
// templates already instantiated (fib<2>) or specialized (fib<1>, fib<0>).
// In Templight's enum 10 would be DefiningSynthesizedFunction; the rule
// names them in the clang 5-7 numbering, as Memoization.
TEST(TemplightKindsTest, ConcatFixtureUnitsPickTheirOwnNumbering) {
  TemplightProfile profile;
  const std::vector<Table> tables = PickPerUnit("two_traces_concat.trace.pbf", &profile);
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0], Table::kTemplightProto);
  EXPECT_EQ(tables[1], Table::kClang5To7);
  size_t memoizations = 0;
  for (size_t n = 0; n < profile.instantiations.size(); ++n) {
    const TemplightInstantiation& i = profile.instantiations[n];
    if (i.unit != 1 || i.kind != 10)
      continue;
    ++memoizations;
    EXPECT_EQ(Name(i.kind, tables[1]), "Memoization");
    EXPECT_LE(i.end_ns - i.begin_ns, 1000);
    if (n + 1 < profile.instantiations.size()) {
      EXPECT_NE(profile.instantiations[n + 1].parent, static_cast<int64_t>(n));
    }
  }
  EXPECT_EQ(memoizations, 7u);
}

}  // namespace
}  // namespace processor
}  // namespace zt
