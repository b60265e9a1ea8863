// Track event categories, declared per library and composed at compile time
// (the design of docs/design/track_event.md, after seed 003).
//
// A library declares its categories once, in a header its users include,
// in a slot of its own (0..15, chosen by whoever builds the program: two
// libraries linked into one program must use different slots):
//
//   // mylib/trace_categories.h, at global scope
//   ZT_DECLARE_CATEGORIES(ZT_CATEGORY_SLOT(MYLIB_TRACE_SLOT),
//                         zt::Category{"net"},
//                         zt::Category{"net.debug"}.SetTags("debug"));
//
//   // exactly one .cc of mylib
//   ZT_DEFINE_CATEGORIES(ZT_CATEGORY_SLOT(MYLIB_TRACE_SLOT));
//
// A file may include the category headers of any number of libraries, in
// any order. TRACE_EVENT("net", ...) then resolves "net" at compile time to
// the id (index << 4) | slot by searching every slot declared above it in
// the translation unit:
//   * a name no visible slot declares is a compile error that names it
//     (look for "category_not_declared" and the string in the message);
//   * a name two visible slots declare resolves to the lower slot. Both
//     are enabled by the same config patterns (configs select categories
//     by name), so which one is chosen changes nothing but the id; adding
//     a header never breaks a file that compiled before;
//   * two libraries declaring the same slot in one file fail to compile
//     ("redefinition of CategoryDeclarationSlot<N>"); in one program they
//     fail to link ("multiple definition of SlotDefinition<N>"), or, split
//     across shared libraries, the second to load aborts with a message
//     naming both definitions;
//   * a declared slot without ZT_DEFINE_CATEGORIES anywhere fails to link
//     ("undefined reference to SlotDefinition<N>").
// (test/category_contracts/ builds a program breaking each of these.)
//
// At run time the enabled state of category id is one byte,
// g_registered_slots[id & 0xF].state[id >> 4], a bit per tracing session
// instance: the disabled check at a call site is one relaxed load and a
// branch. ZT_DEFINE_CATEGORIES registers the slot during static
// initialization (or when a shared library is loaded); sessions already
// running enable its categories at once.
//
// Cost of including: <stddef.h> and <stdint.h>.

#ifndef ZT_TRACING_CATEGORY_H_
#define ZT_TRACING_CATEGORY_H_

#include <stddef.h>
#include <stdint.h>

namespace zt {

// A category as declared: a name, an optional description and up to four
// tags ("debug" and "slow" are disabled unless a config asks for them).
// Literal type: lives in constant arrays.
struct Category {
  static constexpr size_t kMaxTags = 4;

  constexpr explicit Category(const char* category_name) : name(category_name) {}

  constexpr Category SetDescription(const char* text) const {
    Category copy = *this;
    copy.description = text;
    return copy;
  }
  template <typename... Tags>
  constexpr Category SetTags(Tags... tag_list) const {
    static_assert(sizeof...(Tags) <= kMaxTags, "at most 4 tags per category");
    Category copy = *this;
    const char* list[] = {tag_list..., nullptr};
    for (size_t i = 0; i < sizeof...(Tags); i++)
      copy.tags[i] = list[i];
    return copy;
  }

  const char* name;
  const char* description = nullptr;
  const char* tags[kMaxTags] = {nullptr, nullptr, nullptr, nullptr};
};

// A category whose name is known only at run time. Matched against the
// config's patterns at each event (a few hundred ns): use declared
// categories on hot paths. The name is copied into the trace, not kept.
struct DynamicCategory {
  explicit DynamicCategory(const char* category_name) : name(category_name) {}
  const char* name;
};

namespace internal {

constexpr uint32_t kCategorySlots = 16;
constexpr uint32_t kMaxCategoriesPerSlot = 256;
// Ids at or above this one are not declared categories.
constexpr uint32_t kDynamicCategoryId = kCategorySlots * kMaxCategoriesPerSlot;

// Specialized by ZT_DECLARE_CATEGORIES; never defined otherwise.
template <int Slot>
struct CategoryDeclarationSlot;

// Defined by ZT_DEFINE_CATEGORIES only: every declaration refers to it, so
// a program that declares a slot and never defines it fails to link, and
// two definitions of a slot in one link collide.
template <int Slot>
struct SlotDefinition {
  static const char kDefined;
};

// The run-time state of one slot: a byte per category, bit i set while
// session instance i records it.
struct RegisteredSlot {
  uint8_t state[kMaxCategoriesPerSlot];
};
extern RegisteredSlot g_registered_slots[kCategorySlots];

inline uint8_t LoadCategoryState(uint32_t id) {
#if defined(__GNUC__) || defined(__clang__)
  return __atomic_load_n(&g_registered_slots[id & 0xF].state[id >> 4],
                         __ATOMIC_RELAXED);
#else
#error "zerotrace's category state needs GCC or Clang atomics"
#endif
}

// Registers |count| categories in |slot| (ZT_DEFINE_CATEGORIES). Aborts
// with a message naming both definitions if another one holds the slot.
bool RegisterCategorySlot(uint32_t slot, const Category* categories,
                          uint32_t count, const char* defined_in);

struct SlotView {
  const Category* categories;
  uint32_t count;
};

// The slots declared at the point of use. ZT_DECLARE_CATEGORIES(slot, ...)
// adds an overload of VisibleSlotsBelow taking a SlotRank<slot + 1>*: it
// returns its slot plus what the overload for the next declared slot down
// returns. A SlotRank<N>* converts to a pointer to every lower rank, the
// nearer the better, so the call with kHighestSlotRank takes the highest
// declared slot, and each overload the next one down: one instantiation
// per declared slot, no probe per slot. The calls depend on |Unique| (a
// __COUNTER__ value per use), so they are instantiated, and the overloads
// found (argument-dependent lookup), anew at each use: a slot declared
// later in the file is seen by the uses after it. Each overload depends on
// its own slot's declaration alone: the same in every file and module.
// (Asking each of the 16 slots whether it was declared yet, by SFINAE, cost
// a use 2.8 M compiler instructions; this costs 0.8 M: every event macro
// in a file is a use.)
template <int N>
struct SlotRank : SlotRank<N - 1> {};
template <>
struct SlotRank<0> {};
constexpr const SlotRank<kCategorySlots>* kHighestSlotRank = nullptr;

struct VisibleSlots {
  SlotView slots[kCategorySlots];
};

template <int Unique>
constexpr VisibleSlots VisibleSlotsBelow(const SlotRank<0>*) {
  return VisibleSlots{};
}

// The macro's entry. It depends on the name's type too, so that a name
// that depends on a template's parameters is looked up where the template
// is first instantiated for that type (not where it is defined). Later
// instantiations with the same type reuse that answer: a template's use
// has one __COUNTER__ value.
template <int Unique, typename Name>
constexpr VisibleSlots VisibleSlotsAt(const Name&) {
  return VisibleSlotsBelow<Unique>(kHighestSlotRank);
}

constexpr bool StringsEqual(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    a++;
    b++;
  }
  return *a == *b;
}

// Not constexpr: reaching it during constant evaluation is the compile
// error of a category no visible slot declares; the compiler prints the
// call with the name.
uint32_t category_not_declared(const char* name);

constexpr uint32_t FindCategoryId(const VisibleSlots& visible, const char* name) {
  for (uint32_t slot = 0; slot < kCategorySlots; slot++) {
    for (uint32_t index = 0; index < visible.slots[slot].count; index++) {
      if (StringsEqual(visible.slots[slot].categories[index].name, name))
        return (index << 4) | slot;
    }
  }
  return category_not_declared(name);
}
// A dynamic category has no compile-time id; the macros never evaluate
// this overload (they test IsDynamicCategory first) but need it to exist.
constexpr uint32_t FindCategoryId(const VisibleSlots&, const DynamicCategory&) {
  return kDynamicCategoryId;
}

template <uint32_t Id>
struct CategoryIdConstant {
  static constexpr uint32_t value = Id;
};

template <typename T>
struct IsDynamicCategory {
  static constexpr bool value = false;
};
template <>
struct IsDynamicCategory<DynamicCategory> {
  static constexpr bool value = true;
};
template <typename T>
struct IsDynamicCategory<const T> : IsDynamicCategory<T> {};
template <typename T>
struct IsDynamicCategory<T&> : IsDynamicCategory<T> {};

constexpr bool HasDuplicateNames(const Category* categories, uint32_t count) {
  for (uint32_t i = 0; i < count; i++) {
    for (uint32_t j = i + 1; j < count; j++) {
      if (StringsEqual(categories[i].name, categories[j].name))
        return true;
    }
  }
  return false;
}

}  // namespace internal
}  // namespace zt

// The id of category |cat| (a string literal or a zt::DynamicCategory) as
// a constant expression; kDynamicCategoryId for a dynamic one.
// A template argument, so that it is a constant wherever it is used: the
// lookup never runs (nor is emitted as code) at run time, where another
// file's instantiation with the same __COUNTER__ value could answer.
#define ZT_INTERNAL_CATEGORY_ID(cat)                                            \
  (::zt::internal::CategoryIdConstant<(                                         \
       ::zt::internal::IsDynamicCategory<decltype(cat)>::value                  \
           ? ::zt::internal::kDynamicCategoryId                                 \
           : ::zt::internal::FindCategoryId(                                    \
                 ::zt::internal::VisibleSlotsAt<__COUNTER__>(cat), cat))>::value)

#define ZT_CATEGORY_SLOT(n) n

#define ZT_INTERNAL_CONCAT2(a, b) a##b
#define ZT_INTERNAL_CONCAT(a, b) ZT_INTERNAL_CONCAT2(a, b)

// Declares a library's categories in slot |slot| (0..15). At global scope,
// in a header: every file using the categories includes it.
#define ZT_DECLARE_CATEGORIES(slot, ...)                                     \
  namespace zt {                                                             \
  namespace internal {                                                       \
  template <>                                                                \
  const char SlotDefinition<(slot)>::kDefined; /* a declaration */           \
  template <>                                                                \
  struct CategoryDeclarationSlot<(slot)> {                                   \
    static_assert((slot) >= 0 && (slot) < 16,                                \
                  "category slots are numbered 0 to 15");                    \
    static constexpr ::zt::Category kCategories[] = {__VA_ARGS__};           \
    static constexpr uint32_t kCount =                                       \
        sizeof(kCategories) / sizeof(kCategories[0]);                        \
    static_assert(kCount <= kMaxCategoriesPerSlot,                           \
                  "at most 256 categories per slot");                        \
    static_assert(!HasDuplicateNames(kCategories, kCount),                   \
                  "a category is declared twice in this slot");              \
    /* Makes the program need the slot's definition (see SlotDefinition). */ \
    __attribute__((used)) static constexpr const char* kDefinitionRef =      \
        &SlotDefinition<(slot)>::kDefined;                                   \
  };                                                                         \
  template <int Unique>                                                      \
  constexpr VisibleSlots VisibleSlotsBelow(const SlotRank<(slot) + 1>*) {    \
    VisibleSlots visible = VisibleSlotsBelow<Unique>(                        \
        static_cast<const SlotRank<(slot)>*>(nullptr));                      \
    visible.slots[(slot)] =                                                  \
        SlotView{CategoryDeclarationSlot<(slot)>::kCategories,               \
                 CategoryDeclarationSlot<(slot)>::kCount};                   \
    return visible;                                                          \
  }                                                                          \
  }                                                                          \
  }                                                                          \
  static_assert(true, "")

// Defines slot |slot|'s categories: in exactly one .cc of the library
// declaring them (after including its declaration), at global scope.
#define ZT_DEFINE_CATEGORIES(slot)                                         \
  namespace zt {                                                           \
  namespace internal {                                                     \
  template <>                                                              \
  const char SlotDefinition<(slot)>::kDefined = 0;                         \
  namespace {                                                              \
  const bool ZT_INTERNAL_CONCAT(zt_slot_registered_, __LINE__) =          \
      RegisterCategorySlot(                                                \
          (slot), CategoryDeclarationSlot<(slot)>::kCategories,            \
          CategoryDeclarationSlot<(slot)>::kCount, __FILE__);              \
  }                                                                        \
  }                                                                        \
  }                                                                        \
  static_assert(true, "")

#endif  // ZT_TRACING_CATEGORY_H_
