// Names for the `kind` number of a Templight begin entry (what clang was
// synthesizing: a template instantiation, a deduction, a memoization...).
//
// Templight writes clang's own `CodeSynthesisContext` kind number, so its
// meaning depends on the clang release templight was built against; the
// file does not say which (the header's version is always 1). These tables
// hold the numberings we know (docs/design/templight.md "Kind names" says
// where each comes from), and `PickTemplightKindTable` guesses one per
// translation unit from the kinds the unit used:
//
//   TemplightKindEvidence evidence;
//   for (each begin of the unit) evidence.Add(kind);
//   TemplightKindTable table = PickTemplightKindTable(evidence);
//   for (each begin of the unit) {
//     const char* name = TemplightKindName(kind, table);
//     if (name) ... else show `kind` as a number
//   }
//
// Cost: every function is a few comparisons and an array index; nothing
// allocates. The names are static strings. Thread-safe (no state).

#ifndef ZT_SRC_PROCESSOR_IMPORTERS_TEMPLIGHT_TEMPLIGHT_KINDS_H_
#define ZT_SRC_PROCESSOR_IMPORTERS_TEMPLIGHT_TEMPLIGHT_KINDS_H_

#include <cstdint>

namespace zt {
namespace processor {

// The known numberings of the kind. Kinds 0-4 mean the same in all of them.
enum class TemplightKindTable : uint8_t {
  // Numbering not known: keep and show the raw number.
  kUnknown = 0,
  // clang 3.4-4 with Templight's clang patch: clang's 8 kinds (0-7) and
  // Templight's Memoization appended as 8 (Templight's 2014-2017 .proto).
  kClang4Patched,
  // clang 5-6 with Templight's patch (Memoization appended as 10) and
  // clang 7, where Memoization is upstream, also 10.
  kClang5To7,
  // Templight's .proto enum as it is today (12 kinds, Memoization = 11),
  // which is clang 8-9's numbering.
  kTemplightProto,
  // clang 13 and 14 (22 kinds, Memoization = 21).
  kClang13To14,
  // clang 15 (23 kinds, Memoization = 22).
  kClang15,
  // clang 16 (24 kinds, Memoization = 23).
  kClang16,
  // clang 17-19 (Memoization = 24): 17 and 19 agree on 0-25, 19 adds 26;
  // 18 was not read (see the design note).
  kClang17To19,
};

// The name of `kind` in `table`, e.g. "TemplateInstantiation"; nullptr for
// a number the table does not have, or for kUnknown.
const char* TemplightKindName(uint32_t kind, TemplightKindTable table);

// How many kinds `table` names (its numbers are 0..count-1); 0 for kUnknown.
uint32_t TemplightKindCount(TemplightKindTable table);

// The number of Memoization in `table`; UINT32_MAX for kUnknown.
uint32_t TemplightMemoizationKind(TemplightKindTable table);

// A short description of the table for messages and stats, e.g. "clang 16";
// never nullptr.
const char* TemplightKindTableLabel(TemplightKindTable table);

// What a reader knows, at the end of a translation unit, that tells its
// numbering: whether any begin was read and the largest kind among them.
struct TemplightKindEvidence {
  uint64_t begins = 0;
  uint32_t max_kind = 0;

  void Add(uint32_t kind) {
    if (begins++ == 0 || kind > max_kind)
      max_kind = kind;
  }
};

// Picks the numbering for one translation unit.
//
// The rule: Memoization is the last kind of every numbering up to clang 16
// and the kind real traces use most (every use of an already instantiated
// template), so the largest kind seen is taken to be Memoization:
//   * no begin, or a largest kind of 7 or less (no Memoization in any
//     table): kTemplightProto, Templight's own enum (kinds 0-4 are the same
//     everywhere; 5-7 may be misnamed);
//   * 8: kClang4Patched; 10: kClang5To7; 9 or 11: kTemplightProto;
//   * 21: kClang13To14; 22: kClang15; 23: kClang16;
//   * 24-26: kClang17To19 (Memoization 24 plus the two kinds after it);
//   * 12-20 and 27 or more: kUnknown (clang 10-12 or a newer clang, whose
//     numberings we have not read, or a unit without Memoization).
// Limits: a unit that never memoized, or whose largest kind happens to be
// another numbering's Memoization, is named in the wrong numbering; the
// header carries no clang version (always 1), so nothing else in the file
// can confirm the guess. A caller that knows the clang release should use
// TemplightKindTableForClang instead.
TemplightKindTable PickTemplightKindTable(const TemplightKindEvidence& evidence);

// The numbering of a clang major release (3-9, 13-19); kUnknown for the
// others (10-12 and 20 on are not known here). For 3-6 it assumes
// Templight's clang patch, which those releases needed (3 means 3.4-3.9).
TemplightKindTable TemplightKindTableForClang(int clang_major);

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_IMPORTERS_TEMPLIGHT_TEMPLIGHT_KINDS_H_
