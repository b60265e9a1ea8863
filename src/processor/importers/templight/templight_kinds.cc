#include "src/processor/importers/templight/templight_kinds.h"

#include <cstddef>
#include <cstdint>

namespace zt {
namespace processor {
namespace {

// Our tables, one row per numbering (facts in docs/design/templight.md,
// "Kind names"). The names are clang's enumerator names, which Templight's
// .proto and our fixtures use too.

constexpr const char* kKindsClang4Patched[] = {
    "TemplateInstantiation",                 // 0
    "DefaultTemplateArgumentInstantiation",  // 1
    "DefaultFunctionArgumentInstantiation",  // 2
    "ExplicitTemplateArgumentSubstitution",  // 3
    "DeducedTemplateArgumentSubstitution",   // 4
    "PriorTemplateArgumentSubstitution",     // 5
    "DefaultTemplateArgumentChecking",       // 6
    "ExceptionSpecInstantiation",            // 7
    "Memoization",                           // 8 (Templight's patch)
};

constexpr const char* kKindsClang5To7[] = {
    "TemplateInstantiation",                 // 0
    "DefaultTemplateArgumentInstantiation",  // 1
    "DefaultFunctionArgumentInstantiation",  // 2
    "ExplicitTemplateArgumentSubstitution",  // 3
    "DeducedTemplateArgumentSubstitution",   // 4
    "PriorTemplateArgumentSubstitution",     // 5
    "DefaultTemplateArgumentChecking",       // 6
    "ExceptionSpecInstantiation",            // 7
    "DeclaringSpecialMember",                // 8
    "DefiningSynthesizedFunction",           // 9
    "Memoization",                           // 10
};

constexpr const char* kKindsTemplightProto[] = {
    "TemplateInstantiation",                 // 0
    "DefaultTemplateArgumentInstantiation",  // 1
    "DefaultFunctionArgumentInstantiation",  // 2
    "ExplicitTemplateArgumentSubstitution",  // 3
    "DeducedTemplateArgumentSubstitution",   // 4
    "PriorTemplateArgumentSubstitution",     // 5
    "DefaultTemplateArgumentChecking",       // 6
    "ExceptionSpecEvaluation",               // 7
    "ExceptionSpecInstantiation",            // 8
    "DeclaringSpecialMember",                // 9
    "DefiningSynthesizedFunction",           // 10
    "Memoization",                           // 11
};

constexpr const char* kKindsClang13To14[] = {
    "TemplateInstantiation",                 // 0
    "DefaultTemplateArgumentInstantiation",  // 1
    "DefaultFunctionArgumentInstantiation",  // 2
    "ExplicitTemplateArgumentSubstitution",  // 3
    "DeducedTemplateArgumentSubstitution",   // 4
    "PriorTemplateArgumentSubstitution",     // 5
    "DefaultTemplateArgumentChecking",       // 6
    "ExceptionSpecEvaluation",               // 7
    "ExceptionSpecInstantiation",            // 8
    "RequirementInstantiation",              // 9
    "NestedRequirementConstraintsCheck",     // 10
    "DeclaringSpecialMember",                // 11
    "DeclaringImplicitEqualityComparison",   // 12
    "DefiningSynthesizedFunction",           // 13
    "ConstraintsCheck",                      // 14
    "ConstraintSubstitution",                // 15
    "ConstraintNormalization",               // 16
    "ParameterMappingSubstitution",          // 17
    "RewritingOperatorAsSpaceship",          // 18
    "InitializingStructuredBinding",         // 19
    "MarkingClassDllexported",               // 20
    "Memoization",                           // 21
};

constexpr const char* kKindsClang15[] = {
    "TemplateInstantiation",                 // 0
    "DefaultTemplateArgumentInstantiation",  // 1
    "DefaultFunctionArgumentInstantiation",  // 2
    "ExplicitTemplateArgumentSubstitution",  // 3
    "DeducedTemplateArgumentSubstitution",   // 4
    "PriorTemplateArgumentSubstitution",     // 5
    "DefaultTemplateArgumentChecking",       // 6
    "ExceptionSpecEvaluation",               // 7
    "ExceptionSpecInstantiation",            // 8
    "RequirementInstantiation",              // 9
    "NestedRequirementConstraintsCheck",     // 10
    "DeclaringSpecialMember",                // 11
    "DeclaringImplicitEqualityComparison",   // 12
    "DefiningSynthesizedFunction",           // 13
    "ConstraintsCheck",                      // 14
    "ConstraintSubstitution",                // 15
    "ConstraintNormalization",               // 16
    "ParameterMappingSubstitution",          // 17
    "RewritingOperatorAsSpaceship",          // 18
    "InitializingStructuredBinding",         // 19
    "MarkingClassDllexported",               // 20
    "BuildingBuiltinDumpStructCall",         // 21
    "Memoization",                           // 22
};

constexpr const char* kKindsClang16[] = {
    "TemplateInstantiation",                 // 0
    "DefaultTemplateArgumentInstantiation",  // 1
    "DefaultFunctionArgumentInstantiation",  // 2
    "ExplicitTemplateArgumentSubstitution",  // 3
    "DeducedTemplateArgumentSubstitution",   // 4
    "PriorTemplateArgumentSubstitution",     // 5
    "DefaultTemplateArgumentChecking",       // 6
    "ExceptionSpecEvaluation",               // 7
    "ExceptionSpecInstantiation",            // 8
    "RequirementInstantiation",              // 9
    "NestedRequirementConstraintsCheck",     // 10
    "DeclaringSpecialMember",                // 11
    "DeclaringImplicitEqualityComparison",   // 12
    "DefiningSynthesizedFunction",           // 13
    "ConstraintsCheck",                      // 14
    "ConstraintSubstitution",                // 15
    "ConstraintNormalization",               // 16
    "RequirementParameterInstantiation",     // 17
    "ParameterMappingSubstitution",          // 18
    "RewritingOperatorAsSpaceship",          // 19
    "InitializingStructuredBinding",         // 20
    "MarkingClassDllexported",               // 21
    "BuildingBuiltinDumpStructCall",         // 22
    "Memoization",                           // 23
};

constexpr const char* kKindsClang17To19[] = {
    "TemplateInstantiation",                 // 0
    "DefaultTemplateArgumentInstantiation",  // 1
    "DefaultFunctionArgumentInstantiation",  // 2
    "ExplicitTemplateArgumentSubstitution",  // 3
    "DeducedTemplateArgumentSubstitution",   // 4
    "LambdaExpressionSubstitution",          // 5
    "PriorTemplateArgumentSubstitution",     // 6
    "DefaultTemplateArgumentChecking",       // 7
    "ExceptionSpecEvaluation",               // 8
    "ExceptionSpecInstantiation",            // 9
    "RequirementInstantiation",              // 10
    "NestedRequirementConstraintsCheck",     // 11
    "DeclaringSpecialMember",                // 12
    "DeclaringImplicitEqualityComparison",   // 13
    "DefiningSynthesizedFunction",           // 14
    "ConstraintsCheck",                      // 15
    "ConstraintSubstitution",                // 16
    "ConstraintNormalization",               // 17
    "RequirementParameterInstantiation",     // 18
    "ParameterMappingSubstitution",          // 19
    "RewritingOperatorAsSpaceship",          // 20
    "InitializingStructuredBinding",         // 21
    "MarkingClassDllexported",               // 22
    "BuildingBuiltinDumpStructCall",         // 23
    "Memoization",                           // 24
    "BuildingDeductionGuides",               // 25
    "TypeAliasTemplateInstantiation",        // 26 (clang 19)
};

struct KindTableInfo {
  const char* const* names;
  uint32_t count;
  uint32_t memoization;
  const char* label;
};

template <size_t N>
constexpr KindTableInfo MakeKindTable(const char* const (&names)[N], uint32_t memoization,
                          const char* label) {
  return KindTableInfo{names, static_cast<uint32_t>(N), memoization, label};
}

// Indexed by TemplightKindTable.
constexpr KindTableInfo kKindTables[] = {
    KindTableInfo{nullptr, 0, UINT32_MAX, "unknown"},
    MakeKindTable(kKindsClang4Patched, 8, "clang 3.4-4 (Templight patch)"),
    MakeKindTable(kKindsClang5To7, 10, "clang 5-7"),
    MakeKindTable(kKindsTemplightProto, 11, "Templight proto (clang 8-9)"),
    MakeKindTable(kKindsClang13To14, 21, "clang 13-14"),
    MakeKindTable(kKindsClang15, 22, "clang 15"),
    MakeKindTable(kKindsClang16, 23, "clang 16"),
    MakeKindTable(kKindsClang17To19, 24, "clang 17-19"),
};
constexpr size_t kKindTableCount = sizeof(kKindTables) / sizeof(kKindTables[0]);
static_assert(kKindTableCount == static_cast<size_t>(TemplightKindTable::kClang17To19) + 1,
              "one table per TemplightKindTable");

const KindTableInfo& InfoOf(TemplightKindTable table) {
  const size_t index = static_cast<size_t>(table);
  return kKindTables[index < kKindTableCount ? index : 0];
}

}  // namespace

const char* TemplightKindName(uint32_t kind, TemplightKindTable table) {
  const KindTableInfo& t = InfoOf(table);
  return kind < t.count ? t.names[kind] : nullptr;
}

uint32_t TemplightKindCount(TemplightKindTable table) {
  return InfoOf(table).count;
}

uint32_t TemplightMemoizationKind(TemplightKindTable table) {
  return InfoOf(table).memoization;
}

const char* TemplightKindTableLabel(TemplightKindTable table) {
  return InfoOf(table).label;
}

TemplightKindTable PickTemplightKindTable(const TemplightKindEvidence& evidence) {
  if (evidence.begins == 0)
    return TemplightKindTable::kTemplightProto;
  const uint32_t max = evidence.max_kind;
  switch (max) {
    case 8:
      return TemplightKindTable::kClang4Patched;
    case 10:
      return TemplightKindTable::kClang5To7;
    case 21:
      return TemplightKindTable::kClang13To14;
    case 22:
      return TemplightKindTable::kClang15;
    case 23:
      return TemplightKindTable::kClang16;
    case 24:
    case 25:
    case 26:
      return TemplightKindTable::kClang17To19;
    default:
      break;
  }
  // 0-7, 9 and 11: Templight's own enum.
  return max <= 11 ? TemplightKindTable::kTemplightProto : TemplightKindTable::kUnknown;
}

TemplightKindTable TemplightKindTableForClang(int clang_major) {
  switch (clang_major) {
    case 3:
    case 4:
      return TemplightKindTable::kClang4Patched;
    case 5:
    case 6:
    case 7:
      return TemplightKindTable::kClang5To7;
    case 8:
    case 9:
      return TemplightKindTable::kTemplightProto;
    case 13:
    case 14:
      return TemplightKindTable::kClang13To14;
    case 15:
      return TemplightKindTable::kClang15;
    case 16:
      return TemplightKindTable::kClang16;
    case 17:
    case 18:
    case 19:
      return TemplightKindTable::kClang17To19;
    default:
      return TemplightKindTable::kUnknown;
  }
}

}  // namespace processor
}  // namespace zt
